"""Paper 003, "Differentially Private Obfuscation Mechanisms for Hiding Probability Distributions"
(Kawamoto and Murakami): distribution privacy (DistP) of local mechanisms on a finite domain.

* :mod:`.divergences` -- the hockey stick, the pure eps and the f-divergences of Table I of two
  output laws;
* :mod:`.pair` -- DistP / XDistP of a finite channel for a pair of input laws, with W_inf and
  W_1 of the pair;
* :mod:`.claims` -- the claims of the paper's introduction, each beside the exact value;
* :mod:`.tupling` -- the tupling mechanism (base + k dummies, shuffled) and its exact delta;
  :mod:`.sums`, :mod:`.grid`, :mod:`.moment_bounds` -- E[(w(Z_1) + ... + w(Z_n))^+] exactly
  or as a certified interval;
* :mod:`.utility` -- the service quality loss; :mod:`.calibrate` -- the largest eps_A of RR
  and of the geometric mechanism, the smallest k of tupling, for a target (eps, delta);
* job level (config ``distp``): :mod:`.settings`, :mod:`.experiments` (the cases on UCI data,
  their tables and audit rows), :mod:`.plots`; the command is :mod:`pufferfish.distp.command`,
  the declaration :mod:`pufferfish.distp.paper`.

Derivations: ``docs/math/paper003-distribution.md``. Names are imported on first use.
"""

from pufferfish._lazy import attach

_EXPORTS = {
    **dict.fromkeys(["F_DIVERGENCES", "check_law", "check_law_pair", "check_channel", "hockey_stick", "distp_delta", "pure_epsilon",
                     "f_divergence"], "pufferfish.distp.divergences"),
    **dict.fromkeys(["PairPrivacy", "pair_privacy", "transport_distances"], "pufferfish.distp.pair"),
    **dict.fromkeys(["CLAIM_RTOL", "Claim", "make_claim", "xdp_claim", "dp_claim", "divergence_claim"], "pufferfish.distp.claims"),
    **dict.fromkeys(["MAX_COUNT_VECTORS", "PositivePart", "count_vectors", "exact_positive_part",
                     "certified_positive_part"], "pufferfish.distp.sums"),
    **dict.fromkeys(["MAX_EPSILON", "DUMMY_DISTRIBUTIONS", "TuplingDelta", "Tupling", "tupling_over"],
                    "pufferfish.distp.tupling"),
    **dict.fromkeys(["service_loss"], "pufferfish.distp.utility"),
    **dict.fromkeys(["Calibrated", "largest_rr_epsilon", "largest_geometric_epsilon", "smallest_dummies"],
                    "pufferfish.distp.calibrate"),
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("divergences", "pair", "claims", "sums", "grid", "moment_bounds",
                                                  "tupling", "utility", "calibrate", "paper", "command"))

"""Paper 000, "Multi-user Pufferfish Privacy" (Ding, Lu, Yang, Zhang): its calibration methods
(:mod:`.methods`), the experiments declared in config (:mod:`.experiments`) and figures (:mod:`.plots`).
Names are imported on first use."""

from pufferfish._lazy import attach

_EXPORTS = {
    **dict.fromkeys(["METHODS", "bernoulli_eq15", "kantorovich", "lemma5", "lemma6", "lemma6_best_grouping", "lemma6_psi",
                     "theorem1", "theorem2", "theorem3_brent", "theorem3_max", "theorem4"], "pufferfish.multiuser.methods"),
    **dict.fromkeys(["calibrate"], "pufferfish.registry"),
}

__all__ = ["METHODS", "bernoulli_eq15", "calibrate", "kantorovich", "lemma5", "lemma6", "lemma6_best_grouping",
           "lemma6_psi", "theorem1", "theorem2", "theorem3_brent", "theorem3_max", "theorem4"]

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("methods", "experiments", "plots"))

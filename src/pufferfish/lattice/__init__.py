"""Lattice priors: pmfs on the integers (:mod:`.pmf`), sums of independent users (:mod:`.sums`; its engines
:mod:`.direct`, :mod:`.tilted`, :mod:`.spectral`, docs/math/engine.md),
secrets and query priors (:mod:`.system`, paper 000 eqs. 7-9) and the monotone transport plan
(:mod:`.transport`, eq. 6 and Lemma 7). Names are imported on first use."""

from pufferfish._lazy import attach

_EXPORTS = {
    **dict.fromkeys(["LatticePMF"], "pufferfish.lattice.pmf"),
    **dict.fromkeys(["convolve", "sum_of_users", "tail_mass_bound"], "pufferfish.lattice.sums"),
    **dict.fromkeys(["Absent", "Draws", "QueryPrior", "Reports", "SecretPair", "User", "query_prior"],
                    "pufferfish.lattice.system"),
    **dict.fromkeys(["TransportPlan", "delta_star", "kantorovich_plan", "plan_span"], "pufferfish.lattice.transport"),
}

__all__ = [
    "LatticePMF", "convolve", "sum_of_users", "tail_mass_bound",
    "Absent", "Draws", "QueryPrior", "Reports", "SecretPair", "User", "query_prior",
    "TransportPlan", "delta_star", "kantorovich_plan", "plan_span",
]

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("pmf", "sums", "system", "transport", "distances"))

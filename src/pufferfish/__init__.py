"""Noise calibration for pufferfish privacy, with an exact audit of every calibrated scale.

Papers reproduced (see the documentation, docs/):

* N. Ding, S. Lu, W. Yang, Z. Zhang, "Multi-user Pufferfish Privacy" -> :mod:`pufferfish.multiuser`
* N. Ding, "Approximation of Pufferfish Privacy for Gaussian Priors", IEEE TIFS 19 (2024)
  -> :mod:`pufferfish.gaussian`

Subpackages: :mod:`~pufferfish.lattice` (lattice pmfs, sums of users, secrets, transport),
:mod:`~pufferfish.audit` (one auditor per noise: exact loss, smallest scale),
:mod:`~pufferfish.multiuser` and :mod:`~pufferfish.gaussian` (one per paper),
:mod:`~pufferfish.pipeline` (config, data, figures, report); :mod:`~pufferfish.registry`
holds one record per calibration method.

The names below are imported on first use (``import pufferfish`` itself loads numpy and
nothing heavier: every workflow job is a new interpreter and pays for what it imports).
"""

from pufferfish._lazy import attach

__version__ = "0.1.0"

_EXPORTS = {
    **dict.fromkeys(["LatticePMF"], "pufferfish.lattice.pmf"),
    **dict.fromkeys(["convolve", "sum_of_users"], "pufferfish.lattice.sums"),
    **dict.fromkeys(["Absent", "Draws", "QueryPrior", "Reports", "SecretPair", "User", "query_prior"],
                    "pufferfish.lattice.system"),
    **dict.fromkeys(["TransportPlan", "delta_star", "kantorovich_plan", "plan_span"], "pufferfish.lattice.transport"),
    **dict.fromkeys(["Achieved", "Auditor", "Smallest", "Target"], "pufferfish.audit.base"),
    **dict.fromkeys(["PrivacyLoss", "lattice_privacy_loss", "theta_min", "tight"], "pufferfish.audit.laplace"),
    **dict.fromkeys(["lattice_auditor"], "pufferfish.audit"),
    **dict.fromkeys(["calibrate"], "pufferfish.registry"),
}

__all__ = [
    "LatticePMF", "convolve", "sum_of_users",
    "Absent", "Draws", "QueryPrior", "Reports", "SecretPair", "User", "query_prior",
    "TransportPlan", "delta_star", "kantorovich_plan", "plan_span",
    "Achieved", "Auditor", "PrivacyLoss", "Smallest", "Target", "lattice_auditor",
    "lattice_privacy_loss", "theta_min", "tight", "calibrate",
]

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("lattice", "audit", "multiuser", "gaussian", "pipeline", "registry",
                                                   "errors", "grids"))

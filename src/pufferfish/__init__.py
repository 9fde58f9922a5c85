"""Noise calibration for pufferfish privacy, with an exact audit of every calibrated scale.

Papers reproduced (see README):

* N. Ding, S. Lu, W. Yang, Z. Zhang, "Multi-user Pufferfish Privacy" -> :mod:`pufferfish.multiuser`
* N. Ding, "Approximation of Pufferfish Privacy for Gaussian Priors", IEEE TIFS 19 (2024)
  -> :mod:`pufferfish.gaussian`

Subpackages: :mod:`~pufferfish.lattice` (lattice pmfs, sums of users, secrets, transport),
:mod:`~pufferfish.audit` (one auditor per noise: exact loss, smallest scale),
:mod:`~pufferfish.multiuser` and :mod:`~pufferfish.gaussian` (one per paper),
:mod:`~pufferfish.pipeline` (config, data, figures, report); :mod:`~pufferfish.registry`
holds one record per calibration method.
"""

from pufferfish.lattice import (Absent, Draws, LatticePMF, QueryPrior, Reports, SecretPair, TransportPlan, User,
                                convolve, delta_star, kantorovich_plan, plan_span, query_prior, sum_of_users)
from pufferfish.audit import (Achieved, Auditor, PrivacyLoss, Smallest, Target, lattice_auditor,
                              lattice_privacy_loss, theta_min, tight)
from pufferfish.registry import calibrate

__version__ = "0.1.0"

__all__ = [
    "LatticePMF", "convolve", "sum_of_users",
    "Absent", "Draws", "QueryPrior", "Reports", "SecretPair", "User", "query_prior",
    "TransportPlan", "delta_star", "kantorovich_plan", "plan_span",
    "Achieved", "Auditor", "PrivacyLoss", "Smallest", "Target", "lattice_auditor",
    "lattice_privacy_loss", "theta_min", "tight", "calibrate",
]

"""Noise calibration for pufferfish privacy, with an exact audit of every calibrated scale.

Papers reproduced (see README):

* N. Ding, S. Lu, W. Yang, Z. Zhang, "Multi-user Pufferfish Privacy" -> :mod:`pufferfish.multiuser`
* N. Ding, "Approximation of Pufferfish Privacy for Gaussian Priors", IEEE TIFS 19 (2024)
  -> :mod:`pufferfish.gaussian`

Modules: :mod:`~pufferfish.lattice` (lattice pmfs, sums of users), :mod:`~pufferfish.system`
(secrets and query priors), :mod:`~pufferfish.transport` (pi*, Delta*),
:mod:`~pufferfish.audit` (exact privacy loss, tight calibration).
"""

from .lattice import LatticePMF, convolve, sum_of_users
from .system import Absent, Draws, QueryPrior, Reports, SecretPair, User, query_prior
from .transport import TransportPlan, delta_star, kantorovich_plan, plan_span
from .audit import PrivacyLoss, lattice_privacy_loss, theta_min, tight

__version__ = "0.1.0"

__all__ = [
    "LatticePMF", "convolve", "sum_of_users",
    "Absent", "Draws", "QueryPrior", "Reports", "SecretPair", "User", "query_prior",
    "TransportPlan", "delta_star", "kantorovich_plan", "plan_span",
    "PrivacyLoss", "lattice_privacy_loss", "theta_min", "tight",
]

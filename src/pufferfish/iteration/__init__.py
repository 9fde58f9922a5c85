"""Privacy amplification by iteration for noisy gradient descent on correlated records.

Paper 002 ("Renyi Pufferfish Privacy", Pierquin, Bellet, Tommasi, Boussard, ICML 2024),
Section 5 (Theorem 5.2), Section 6.4 and Appendix F.5 (Proposition F.2, Figure 6), with an
exact audit of the quadratic-loss linear-Gaussian model beside every bound:

* :mod:`pufferfish.iteration.geometric` -- the step weights q_t = (1 - eta)^(T-t) and their sums in closed form;
* :mod:`pufferfish.iteration.covariance` -- the adversary's Gaussian prior and its step sums, whose kinds are
  :mod:`pufferfish.iteration.dense_covariance` (a full matrix), :mod:`pufferfish.iteration.stationary_covariance`
  (stationary/Toeplitz, decaying correlation, the biased sample autocovariance) and
  :mod:`pufferfish.iteration.equal_correlation`;
* :mod:`pufferfish.iteration.shifts` -- per-step shifts s_t = eta min(K D |Sigma_tk| / Sigma_kk, 2 L);
* :mod:`pufferfish.iteration.minorant` -- the best allocation of Theorem 5.2: a greatest convex minorant, O(T);
* :mod:`pufferfish.iteration.accountants` -- ``paper_bound``, ``contraction_bound`` (recommended),
  ``dp_assumption`` (records treated as independent), ``composition``; RDP -> (epsilon, delta);
* :mod:`pufferfish.iteration.exact` -- the exact Gaussian law of w_T under both secrets: D_alpha and the hockey stick;
* :mod:`pufferfish.iteration.every_secret` -- the exact audit of every record as the secret at once (the most exposed);
* :mod:`pufferfish.iteration.model` -- every accountant and the exact audit for one secret of the quadratic model;
* :mod:`pufferfish.iteration.calibrate` -- the smallest sigma each accountant certifies, audited exactly;
* :mod:`pufferfish.iteration.settings`, :mod:`pufferfish.iteration.experiments`, :mod:`pufferfish.iteration.plots` -- the Fig. 6 analogue and a real series
  (:mod:`pufferfish.iteration.captions`: the reader of their calibration tables for a caption).

See docs/math/iteration.md for when each accountant applies.
"""

from pufferfish.iteration.accountants import (ACCOUNTANTS, ORDERS, accountant_cost, accountant_costs, composition,
                                              contraction_bound, delta_of_cost, dp_assumption, epsilon_of_cost,
                                              paper_bound, rdp_delta, rdp_epsilon, renyi_bound)
from pufferfish.iteration.calibrate import (AccountantCalibration, audit_sigma, calibrate_account, exact_sigma,
                                            sigma_for_epsilon_delta, sigma_for_renyi)
from pufferfish.iteration.covariance import Covariance
from pufferfish.iteration.dense_covariance import DenseCovariance
from pufferfish.iteration.equal_correlation import EqualCorrelation
from pufferfish.iteration.every_secret import AllSecretsAudit, all_secrets_audit
from pufferfish.iteration.exact import ExactAudit, exact_audit, noise_gain, step_weights
from pufferfish.iteration.geometric import (contraction_powers, discounted_cumsum, geometric_sums, lag_sums,
                                            significant_lags, weight_sum)
from pufferfish.iteration.minorant import Allocation, carried_shift, minimal_cost, optimal_allocation
from pufferfish.iteration.model import ModelAccount, account_quadratic_model
from pufferfish.iteration.shifts import shifts_from_column, step_shifts
from pufferfish.iteration.stationary_covariance import (DecayingCorrelation, StationaryCovariance, biased_autocovariance,
                                                        decaying_correlation)

__all__ = [
    "ACCOUNTANTS", "ORDERS", "accountant_cost", "accountant_costs", "composition", "contraction_bound",
    "delta_of_cost", "dp_assumption",
    "epsilon_of_cost", "paper_bound", "rdp_delta", "rdp_epsilon", "renyi_bound",
    "AccountantCalibration", "audit_sigma", "calibrate_account", "exact_sigma", "sigma_for_epsilon_delta",
    "sigma_for_renyi",
    "Covariance", "DecayingCorrelation", "DenseCovariance", "EqualCorrelation", "StationaryCovariance",
    "biased_autocovariance",
    "decaying_correlation",
    "AllSecretsAudit", "all_secrets_audit",
    "ExactAudit", "exact_audit", "noise_gain", "step_weights",
    "contraction_powers", "discounted_cumsum", "geometric_sums", "lag_sums", "significant_lags", "weight_sum",
    "Allocation", "carried_shift", "minimal_cost", "optimal_allocation",
    "ModelAccount", "account_quadratic_model",
    "shifts_from_column", "step_shifts",
]

"""The exact computations added since issue 35's catalog: paper 003 (:mod:`pufferfish.distp`), the certified
Gaussian hockey stick and fields of the iteration audit, paper 001's certified values, and the public computations
that had no entry (the accountants' conversions, the clamped geometric channel, the mixtures' tail ratios).

Part of :data:`tests.faults.catalog.CATALOG` (same vocabulary, :mod:`tests.faults.regions`).
"""
from __future__ import annotations

import math

import numpy as np

from tests.faults.regions import Computation, Region, bands

_ANY = (Region("any", lambda a: True),)


def _tail_a(a: dict) -> float:
    """The smallest a = gap / (2 s) - eps s / gap over the positive gaps of a certified_delta call (inf if none)."""
    gap, std = np.asarray(a["gap"], dtype=float), np.asarray(a["std"], dtype=float)
    std = np.broadcast_to(std, gap.shape)
    keep = gap > 0
    if not keep.any():
        return math.inf
    g, s = gap[keep], std[keep]
    return float(np.min(g / (2 * s) - a["epsilon"] * s / g))


def _equal_bounds(a: dict) -> bool:
    return bool(np.array_equal(np.asarray(a["w_lo"], dtype=float), np.asarray(a["w_hi"], dtype=float)))


def _dummies(a: dict) -> int:
    return int(a["self"].dummies)


def _records(a: dict) -> int:
    return int(a["covariance"].size)


CERTIFIED: tuple[Computation, ...] = (
    # --- paper 003: DistP divergences and deltas (pufferfish.distp.divergences)
    Computation("distp/divergences.hockey_stick", "pufferfish.distp.divergences:_hockey_stick",
                bands("epsilon", [1e-3, 5.0, 700.0])),
    Computation("distp/divergences.pure_epsilon", "pufferfish.distp.divergences:_pure_epsilon", _ANY),
    Computation("distp/divergences.f_divergence", "pufferfish.distp.divergences:f_divergence",
                tuple(Region(f"name = {n}", lambda a, n=n: a["name"] == n)
                      for n in ("kl", "reverse_kl", "total_variation", "chi2", "hellinger"))),
    # --- paper 003: exact laws of randomized response and the geometric mechanism by output balls
    Computation("distp/exact_laws.ball_hockey_sticks", "pufferfish.distp.exact_laws:ball_hockey_sticks",
                bands("epsilon", [1e-3, 5.0])),
    # --- paper 003: tupling (count vectors, certified intervals, the grid)
    Computation("distp/sums.exact_positive_part", "pufferfish.distp.sums:exact_positive_part",
                (Region("n = 1", lambda a: int(a["n"]) == 1), Region("n > 1", lambda a: int(a["n"]) > 1))),
    Computation("distp/sums.exact_positive_part_bounds", "pufferfish.distp.sums:exact_positive_part_bounds", _ANY),
    Computation("distp/sums.certified_positive_part", "pufferfish.distp.sums:certified_positive_part",
                (Region("exact values (w_lo = w_hi)", _equal_bounds),
                 Region("intervals (w_lo < w_hi)", lambda a: not _equal_bounds(a))),
                fields=("lower", "upper")),
    Computation("distp/grid.grid_positive_part", "pufferfish.distp.grid:grid_positive_part", _ANY,
                fields=("lower", "upper", "truncated")),
    Computation("distp/grid.chernoff_bound", "pufferfish.distp.grid:chernoff_bound", _ANY),
    Computation("distp/moment_bounds.positive_part_bounds", "pufferfish.distp.moment_bounds:positive_part_bounds",
                _ANY),
    Computation("distp/moment_bounds.shifted_moment_bounds", "pufferfish.distp.moment_bounds:shifted_moment_bounds",
                _ANY),
    Computation("distp/tupling.Tupling.delta", "pufferfish.distp.tupling:Tupling.delta",
                (Region("k = 0 dummies", lambda a: _dummies(a) == 0),
                 Region("k > 0 dummies", lambda a: _dummies(a) > 0)),
                fields=("delta", "delta_upper")),
    # --- paper 003: calibrations
    Computation("distp/calibrate.largest_rr_epsilon", "pufferfish.distp.calibrate:largest_rr_epsilon", _ANY,
                fields=("parameter", "delta", "delta_upper")),
    Computation("distp/calibrate.largest_geometric_epsilon", "pufferfish.distp.calibrate:largest_geometric_epsilon",
                _ANY, fields=("parameter", "delta", "delta_upper")),
    Computation("distp/calibrate.smallest_dummies", "pufferfish.distp.calibrate:smallest_dummies", _ANY,
                fields=("delta", "delta_upper")),
    # --- paper 001: certified values
    Computation("gaussian/certified_values.tau_star_upper", "pufferfish.gaussian.certified_values:tau_star_upper",
                _ANY),
    Computation("gaussian/certified_values.lambertw_tau_upper",
                "pufferfish.gaussian.certified_values:lambertw_tau_upper", _ANY),
    Computation("gaussian/certified_values.max_log_ratio_upper",
                "pufferfish.gaussian.certified_values:max_log_ratio_upper", _ANY),
    Computation("gaussian/certified_values.total_variation_upper",
                "pufferfish.gaussian.certified_values:total_variation_upper", _ANY),
    # --- paper 002, Sec. 5: the certified Gaussian hockey stick and Renyi divergence, the certified fields
    Computation("iteration/gaussian_delta.certified_delta", "pufferfish.iteration.gaussian_delta:certified_delta",
                (Region("a > -8 (the float route)", lambda a: _tail_a(a) > -8.0),
                 Region("a <= -8 (the Mills-ratio tail)", lambda a: _tail_a(a) <= -8.0))),
    Computation("iteration/gaussian_delta.delta_upper", "pufferfish.iteration.gaussian_delta:delta_upper", _ANY),
    Computation("iteration/gaussian_delta.renyi_upper", "pufferfish.iteration.gaussian_delta:renyi_upper", _ANY),
    Computation("iteration/exact.certified_fields", "pufferfish.iteration.exact:certified_fields",
                (Region("T = 1", lambda a: _records(a) == 1), Region("T > 1", lambda a: _records(a) > 1))),
    Computation("iteration/exact.ExactAudit.smallest_sigma", "pufferfish.iteration.exact:ExactAudit.smallest_sigma",
                (Region("(epsilon, delta)", lambda a: a["delta"] is not None),
                 Region("Renyi", lambda a: a["alpha"] is not None))),
    Computation("iteration/every_secret.AllSecretsAudit.smallest_sigma",
                "pufferfish.iteration.every_secret:AllSecretsAudit.smallest_sigma",
                (Region("(epsilon, delta)", lambda a: a["delta"] is not None),
                 Region("Renyi", lambda a: a["alpha"] is not None))),
    Computation("iteration/accountants.epsilon_of_cost", "pufferfish.iteration.accountants:_epsilon_of_cost", _ANY),
    # --- public computations without an entry before
    Computation("mechanisms/geometric.pair_epsilons", "pufferfish.mechanisms.geometric:ClampedGeometric.pair_epsilons",
                _ANY),
    Computation("audit/laplace_mixture.tail_log_ratios", "pufferfish.audit.emg_density:tail_log_ratios", _ANY),
    # --- issue 39's certified routes: the arb recomputations of the lattice audits, the mixture's certified sup
    Computation("audit/certify.arb_loss", "pufferfish.audit.certify:arb_loss", _ANY),
    Computation("audit/certify.arb_laplace_hockey", "pufferfish.audit.certify:arb_laplace_hockey", _ANY),
    Computation("audit/mixture_privacy_loss.epsilon_bound", "pufferfish.audit.mixture_privacy_loss:epsilon_bound",
                _ANY),
    Computation("audit/mixture_privacy_loss.prior_epsilon_bound",
                "pufferfish.audit.mixture_privacy_loss:prior_epsilon_bound", _ANY),
)

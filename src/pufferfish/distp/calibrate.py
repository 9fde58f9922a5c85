"""Calibration for a target (eps, delta) of DistP on one pair: each family's best-utility parameter.

* :func:`largest_rr_epsilon` -- the largest eps_A of k-ary randomized response;
* :func:`largest_geometric_epsilon` -- the largest eps_A of the clamped geometric mechanism;
* :func:`smallest_dummies` -- the smallest k of the tupling mechanism over a given base.

Each search relies on monotonicity (proved in ``docs/math/paper003-distribution.md``, section
"Calibration"): RR(eps2) = RR(eps1) followed by another RR for eps2 < eps1, and the clamped
geometric mechanism carries the same information as the unclamped one, whose larger scale is
the smaller plus independent integer noise: the DistP delta does not decrease in eps_A. One
more dummy is post-processing: delta does not increase in k. Every returned parameter meets the
target by a certified upper end, with no tolerance: for RR and the geometric mechanism the delta
of the mechanism itself at the eps_A returned (arb balls from its definition,
:mod:`pufferfish.distp.exact_laws`); for tupling the upper end of its certified interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pufferfish.checks import integer, real
from pufferfish.distp.divergences import check_law, distp_delta
from pufferfish.distp.exact_laws import ball_distp_delta, geometric_output_balls, rr_output_balls
from pufferfish.errors import ComputationError
from pufferfish.distp.pair import check_domain, transport_distances
from pufferfish.distp.tupling import tupling_over
from pufferfish.mechanisms import ClampedGeometric, RandomizedResponse

__all__ = ["Calibrated", "largest_rr_epsilon", "largest_geometric_epsilon", "smallest_dummies"]


@dataclass(frozen=True)
class Calibrated:
    """The parameter found (eps_A, or k), the DistP delta there (``delta`` <= value <= ``delta_upper``).

    ``parameter`` is inf (eps_A) when no noise is needed; ``reason`` says why a search stopped
    without a parameter (``parameter`` NaN) or notes a special case; ``evaluations`` counts the
    deltas computed.
    """

    parameter: float
    delta: float
    delta_upper: float
    evaluations: int
    reason: str


def _target(epsilon, delta, rtol) -> tuple[float, float, float]:
    return (real(epsilon, name="epsilon", lo=0.0), real(delta, name="delta", lo=0.0, hi=1.0),
            real(rtol, name="rtol", lo=0.0, lo_open=True))


# TODO(issue 30, helper A1): replace with pufferfish.audit.search.smallest_scale once it lands (same contract:
# value non-increasing in the scale; the smallest accepted scale within rtol, an evaluated one).
def _smallest_scale(value, bound: float, *, start: float, rtol: float, max_steps: int = 200
                    ) -> tuple[float, float, int, str]:
    """The smallest scale s with value(s) <= bound, ``start`` accepted: halve down, then bisect on log s."""
    hi, v_hi, steps = start, value(start), 1
    if v_hi > bound:
        return math.nan, v_hi, steps, f"the start scale {start!r} is not accepted"
    lo = hi / 2.0
    while True:
        v_lo = value(lo)
        steps += 1
        if v_lo > bound:
            break
        hi, v_hi, lo = lo, v_lo, lo / 2.0
        if steps >= max_steps or lo < 1e-300:
            return hi, v_hi, steps, "no smaller scale rejected"
    while hi / lo - 1.0 > rtol and steps < max_steps:
        middle = math.sqrt(lo * hi)
        v_mid = value(middle)
        steps += 1
        if v_mid <= bound:
            hi, v_hi = middle, v_mid
        else:
            lo = middle
    return hi, v_hi, steps, ""


def largest_rr_epsilon(size, lambda0, lambda1, *, epsilon, delta, rtol: float = 1e-9) -> Calibrated:
    """The largest eps_A of k-ary RR on ``size`` values with (eps, delta)-DistP for the pair (certified delta).

    Parameters
    ----------
    size : int
        m >= 2, the number of values.
    lambda0, lambda1 : array_like
        The two input laws.
    epsilon, delta : float
        The target (keywords): eps >= 0, delta in [0, 1].
    rtol : float
        The search stops when the bracket on eps_A is this tight (relative).

    Returns
    -------
    Calibrated
        ``parameter`` eps_A >= eps (eps_A = eps always meets it: DistP eps <= eps_A), inf when
        the identity (eps_A -> inf) already meets it.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        Bad arguments.
    """
    eps, target, rtol = _target(epsilon, delta, rtol)
    m = integer(size, name="size", lo=2)
    p0, p1 = check_law(lambda0, name="lambda0", size=m), check_law(lambda1, name="lambda1", size=m)

    def value(scale: float) -> float:
        rr = RandomizedResponse(m, 1.0 / scale)
        return distp_delta(rr.output_law(p0), rr.output_law(p1), epsilon=eps)

    def certified(eps_a: float) -> float:
        return ball_distp_delta(lambda: rr_output_balls(m, eps_a, p0, p1), eps)

    return _largest(value, certified, distp_delta(p0, p1, epsilon=eps), target, start_epsilon=eps, rtol=rtol)


def largest_geometric_epsilon(domain, lambda0, lambda1, *, epsilon, delta, rtol: float = 1e-9) -> Calibrated:
    """The largest eps_A of the clamped geometric mechanism on ``domain`` with (eps, delta)-DistP (certified delta).

    Parameters
    ----------
    domain : sequence of int
        The ordered integer domain.
    lambda0, lambda1 : array_like
        The two input laws on it.
    epsilon, delta : float
        The target (keywords).
    rtol : float
        The search stops when the bracket on eps_A is this tight (relative).

    Returns
    -------
    Calibrated
        ``parameter`` eps_A >= eps / W_inf (which meets it: pure DistP eps <= eps_A W_inf), inf
        when the identity already meets it.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        Bad arguments.
    """
    eps, target, rtol = _target(epsilon, delta, rtol)
    values = check_domain(domain)
    p0 = check_law(lambda0, name="lambda0", size=len(values))
    p1 = check_law(lambda1, name="lambda1", size=len(values))
    w_inf, _ = transport_distances(values, p0, p1)

    def value(scale: float) -> float:
        mechanism = ClampedGeometric(values, 1.0 / scale)
        return distp_delta(mechanism.output_law(p0), mechanism.output_law(p1), epsilon=eps)

    def certified(eps_a: float) -> float:
        return ball_distp_delta(lambda: geometric_output_balls(values, eps_a, p0, p1), eps)

    if w_inf == 0:
        return Calibrated(math.inf, 0.0, 0.0, 0, "equal input laws: no noise needed")
    return _largest(value, certified, distp_delta(p0, p1, epsilon=eps), target, start_epsilon=eps / w_inf, rtol=rtol)


def _largest(value, certified, at_identity: float, target: float, *, start_epsilon: float, rtol: float
             ) -> Calibrated:
    """The largest eps_A = 1 / scale meeting the target, from eps_A = ``start_epsilon`` (accepted) upwards: the search
    on the float delta, then eps_A lowered by relative steps 2^-44, 2^-43, ... until the delta of the mechanism
    itself (``certified``: arb balls from its definition) is at most the target, with no tolerance."""
    if at_identity <= target:
        return Calibrated(math.inf, at_identity, at_identity, 1, "the identity meets the target: no noise needed")
    if start_epsilon <= 0:
        return Calibrated(math.nan, math.nan, math.nan, 1, "eps = 0: only eps_A = 0 (no information) meets it")
    scale, _, steps, reason = _smallest_scale(value, target, start=1.0 / start_epsilon, rtol=rtol)
    if math.isnan(scale):
        return Calibrated(math.nan, math.nan, math.nan, steps, reason)
    eps_a, step = 1.0 / scale, 2.0 ** -44
    for _ in range(60):
        found = certified(eps_a)
        steps += 1
        if found <= target:
            return Calibrated(eps_a, found, found, steps, reason)
        eps_a, step = eps_a * (1.0 - step), step * 2.0
    raise ComputationError(f"delta = {target!r}: no eps_A certified to meet it below {1.0 / scale!r}")  # pragma: no cover


def smallest_dummies(base, lambda0, lambda1, *, epsilon, delta, dummy_distribution: str = "uniform",
                     marginal=None, max_dummies: int = 10_000, rtol: float = 1e-6) -> Calibrated:
    """The smallest k whose tupling mechanism over ``base`` meets (eps, delta)-DistP for the pair.

    Parameters
    ----------
    base : RandomizedResponse or ClampedGeometric
        The base mechanism (its eps_A given).
    lambda0, lambda1 : array_like
        The two input laws.
    epsilon, delta : float
        The target (keywords).
    dummy_distribution, marginal
        The dummy law (see :func:`~pufferfish.distp.tupling.tupling_over`).
    max_dummies : int
        The largest k tried.
    rtol : float
        The relative tolerance of the certified route.

    Returns
    -------
    Calibrated
        ``parameter`` k (accepted by the exact delta, or by the certified upper end ``delta_upper``;
        the k found is the smallest accepted up to that certification), NaN with a reason when
        ``max_dummies`` does not meet it.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        Bad arguments.
    """
    eps, target, rtol = _target(epsilon, delta, rtol)
    limit = integer(max_dummies, name="max_dummies", lo=0)
    seen = {}

    def upper(k: int):
        if k not in seen:
            mechanism = tupling_over(base, dummies=k, dummy_distribution=dummy_distribution, marginal=marginal)
            seen[k] = mechanism.delta(lambda0, lambda1, epsilon=eps, rtol=rtol)
        return seen[k]

    accepted, rejected = _bracket_dummies(lambda k: upper(k).delta_upper <= target, limit)
    if accepted is None:
        last = upper(rejected)
        return Calibrated(math.nan, last.delta, last.delta_upper, len(seen), f"k = {limit} does not meet the target")
    while accepted - rejected > 1:
        middle = (accepted + rejected) // 2
        if upper(middle).delta_upper <= target:
            accepted = middle
        else:
            rejected = middle
    found = upper(accepted)
    return Calibrated(float(accepted), found.delta, found.delta_upper, len(seen), "")


def _bracket_dummies(accepts, limit: int) -> tuple[int | None, int]:
    """(accepted k, rejected k below it) by doubling from k = 0; accepted None when ``limit`` is rejected."""
    if accepts(0):
        return 0, -1
    rejected, k = 0, 1
    while k < limit and not accepts(k):
        rejected, k = k, 2 * k
    k = min(k, limit)
    if k == limit and not accepts(k):
        return None, limit
    return k, rejected

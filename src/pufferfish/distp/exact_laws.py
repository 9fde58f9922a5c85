"""The output laws of randomized response and the clamped geometric mechanism in arb balls, and their DistP delta.

A calibration claims that the mechanism itself, at the eps_A it reports, meets the target. The
float channels of :mod:`pufferfish.mechanisms` carry the rounding of their closed forms and of
the product lambda A; here every output mass is computed from the mechanism's definition in
python-flint's ball arithmetic (each ball contains the true mass of the float eps_A and the float
input masses), and :func:`ball_distp_delta` bounds the DistP delta from above and below, the
precision doubled until the two agree to 2^-34 relative:

* RR on m values (paper 003, Sec. II): P(y | x) = e^eps_A / (e^eps_A + m - 1) for y = x, else
  1 / (e^eps_A + m - 1); lambda A = other + (keep - other) lambda;
* the clamped geometric mechanism, r = e^-eps_A: interior outputs (1 - r) / (1 + r) r^|y - x|,
  the two ends r^(x - min X) / (1 + r) and r^(max X - x) / (1 + r).

Derivation: docs/math/paper003-distribution.md, "Certified values".
"""

from __future__ import annotations

from pufferfish.certified import arb_upper_float
from pufferfish.errors import ComputationError

__all__ = ["rr_output_balls", "geometric_output_balls", "ball_hockey_sticks", "ball_distp_delta", "base_hockey_sticks",
           "base_distp_delta"]

#: the precisions (bits) tried in turn
_PRECISIONS = (128, 256, 512, 1024, 2048, 4096)
#: the ball is accepted when its width is at most this fraction of its lower end
_ACCEPT = 2.0 ** -34
_SMALLEST = 5e-324


def rr_output_balls(m: int, eps_a: float, p0, p1) -> tuple[list, list]:
    """lambda_b A for RR(eps_A) on m values, as arb balls at the current precision (b = 0, 1)."""
    from flint import arb

    t = (-arb(eps_a)).exp()
    keep = 1 / (1 + (m - 1) * t)
    other = t * keep
    gap = keep - other
    return ([other + gap * arb(float(v)) for v in p0], [other + gap * arb(float(v)) for v in p1])


def geometric_output_balls(domain, eps_a: float, p0, p1) -> tuple[list, list]:
    """lambda_b A for the clamped geometric mechanism on ``domain`` (every integer from its min to its max an output)."""
    from flint import arb

    low, high = domain[0], domain[-1]
    r = (-arb(eps_a)).exp()
    powers = [arb(1)]
    for _ in range(high - low):
        powers.append(powers[-1] * r)
    inner, end = (1 - r) / (1 + r), 1 / (1 + r)
    laws = []
    for law in (p0, p1):
        masses = [arb(0)] * (high - low + 1)
        for x, mass in zip(domain, law):
            if float(mass) == 0.0:
                continue
            weight = arb(float(mass))
            for y in range(low, high + 1):
                share = end if y in (low, high) else inner
                masses[y - low] += weight * share * powers[abs(y - x)]
        laws.append(masses)
    return laws[0], laws[1]


def _direction(first: list, second: list, big) -> tuple:
    """(upper, lower, surely zero) of sum_t [first - e^eps second]^+ from the balls."""
    from flint import arb

    high, low, open_terms = arb(0), arb(0), 0
    for a, b in zip(first, second):
        term = a - big * b
        if term > 0:
            high, low = high + term.upper(), low + term.lower()
        elif not term < 0:
            high, open_terms = high + term.upper(), open_terms + 1
    return high, low, open_terms == 0 and high == 0


def ball_hockey_sticks(laws, epsilon: float) -> tuple[float, float]:
    """The two hockey sticks (forward, backward) of the laws ``laws()`` builds, each certified.

    Parameters
    ----------
    laws : callable
        Returns the two output laws as lists of arb balls at the current precision.
    epsilon : float
        eps >= 0.

    Returns
    -------
    tuple of float
        Each a float >= the true hockey stick and <= it (1 + 2^-33) (the smallest subnormal where it is
        below it; 0 when it is surely 0).

    Raises
    ------
    ComputationError
        Not certified at 4096 bits.
    """
    from flint import arb, ctx

    saved, found = ctx.prec, [None, None]
    try:
        for precision in _PRECISIONS:
            ctx.prec = precision
            mu0, mu1 = laws()
            big = arb(epsilon).exp()
            for side, (first, second) in enumerate(((mu0, mu1), (mu1, mu0))):
                if found[side] is None:
                    found[side] = _settled(*_direction(first, second, big))
            if None not in found:
                return found[0], found[1]
    finally:
        ctx.prec = saved
    raise ComputationError(f"DistP delta at epsilon = {epsilon!r}: not certified at {_PRECISIONS[-1]} bits")


def _settled(high, low, zero) -> float | None:
    """The certified float of one direction's sums, or None when the balls are still too wide."""
    from flint import arb

    if zero:
        return 0.0
    top, bottom = high.upper(), low.lower()
    if bottom > 0 and top - bottom <= _ACCEPT * bottom:
        return arb_upper_float(top)
    if top < arb(2) ** -1075:
        return _SMALLEST
    return None


def ball_distp_delta(laws, epsilon: float) -> float:
    """The DistP delta (the larger of :func:`ball_hockey_sticks`), certified (the same contract)."""
    return max(ball_hockey_sticks(laws, epsilon))


def base_hockey_sticks(base, p0, p1, *, epsilon: float) -> tuple[float, float]:
    """The certified hockey sticks (forward, backward) of a :class:`~pufferfish.mechanisms.RandomizedResponse` or
    :class:`~pufferfish.mechanisms.ClampedGeometric` ``base`` (its own eps_A) for the input laws p0, p1 (validated).

    Raises
    ------
    TypeError
        Another base (internal: the callers pass one of the two).
    """
    from pufferfish.mechanisms import ClampedGeometric, RandomizedResponse

    if isinstance(base, RandomizedResponse):
        return ball_hockey_sticks(lambda: rr_output_balls(base.size, base.epsilon, p0, p1), epsilon)
    if isinstance(base, ClampedGeometric):
        return ball_hockey_sticks(lambda: geometric_output_balls(tuple(base.domain), base.epsilon, p0, p1), epsilon)
    raise TypeError(f"base = {base!r}: not a RandomizedResponse or ClampedGeometric")  # pragma: no cover


def base_distp_delta(base, p0, p1, *, epsilon: float) -> float:
    """The certified DistP delta of a RandomizedResponse or ClampedGeometric ``base`` (the larger of
    :func:`base_hockey_sticks`)."""
    return max(base_hockey_sticks(base, p0, p1, epsilon=epsilon))

r"""The certified Gaussian hockey stick: an upper bound on :math:`\delta(\epsilon)` of :math:`N(\Delta, V)` against :math:`N(0, V)`.

.. math::

   \delta(\epsilon) = \Phi(a) - e^\epsilon \Phi(b), \qquad
   a = \frac{\Delta}{2s} - \frac{\epsilon s}{\Delta}, \quad b = -\frac{\Delta}{2s} - \frac{\epsilon s}{\Delta},
   \quad s = \sqrt V

(Balle and Wang 2018, Thm 8). :func:`certified_delta` returns, for each pair of floats
:math:`(\Delta, s)`, a float :math:`\ge` the true :math:`\delta` of those floats and
:math:`\le \delta (1 + 2^{-33})` (the smallest subnormal where :math:`\delta` is below it):

1. in floating point (``ndtr``, ``log_ndtr``, ``exp``), with a bound on the error of every step
   added (:func:`pufferfish.certified.upper`): the rounding of :math:`a` and :math:`b`, moved
   through :math:`\Phi` by the Mills ratio :math:`\phi(x) / \Phi(x) \le |x| + 1`, the assumed
   accuracy of scipy's ``ndtr`` (``_NDTR_ULPS``, growing like :math:`x^2` from the rounding
   of :math:`x^2` inside it), of ``log_ndtr`` (``_LOG_NDTR_ULPS``) and of ``exp``, and the
   subtraction. Accepted when that bound is below :math:`2^{-34}` of the value;
2. else (the two terms cancel, or :math:`\Phi(a)` is near the subnormals) in arb ball
   arithmetic (python-flint), the precision doubled until the ball is that narrow; its upper
   end rounded up to a float.

Where :math:`a < -40`, :math:`0 < \delta < \Phi(a) < 2^{-1074}`: the smallest subnormal.
Derivation: docs/math/iteration.md, "Certified hockey stick".
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.certified import arb_upper_float
from pufferfish.errors import ComputationError

__all__ = ["certified_delta", "delta_upper", "renyi_upper"]

#: u = 2^-53, the unit roundoff of float64
_U = 2.0 ** -53
#: assumed relative error of scipy.special.ndtr(x), in ulps: 8 + 3 x^2 (the rounding of x^2 in
#: exp(-x^2 / 2) grows like x^2 u; measured below 2 + 1.6 x^2 against mpmath, tests/unit/test_soundness_iteration.py)
_NDTR_ULPS = (8.0, 3.0)
#: assumed relative error of scipy.special.log_ndtr(x) for x < 0, in ulps (measured below 5)
_LOG_NDTR_ULPS = 16.0
#: assumed relative error of exp, in ulps (measured below 1)
_EXP_ULPS = 4.0
#: the float route is kept where its error bound is at most this fraction of the value
_ACCEPT_RTOL = 2.0 ** -34
#: below this Phi(a) the float route is not used (its subnormal neighbours lose relative accuracy)
_NORMAL_FLOOR = 1e-290
#: a < -40: Phi(a) < 2^-1074, and 0 < delta < Phi(a)
NEGLIGIBLE_A = -40.0
_SMALLEST = 5e-324
#: V (1 - 8 u) is below the true V = sigma^2 gain + data whose float sum (3 roundings) is V
_VARIANCE_DOWN = 1.0 - 8.0 * 2.0 ** -53
#: sqrt(V_low) (1 - 4 u), rounded, is below sqrt(V_low) (the root and the product: 2 roundings)
_STD_DOWN = 1.0 - 4.0 * 2.0 ** -53
#: the relative error bound of D_alpha = alpha Delta^2 / (2 V_low) in floats (5 roundings: at most 5.01 u)
_RENYI_REL_ERROR = 8.0 * 2.0 ** -53
#: from a <= -_TAIL_FROM the Mills-ratio series route is used where the direct difference cannot certify
_TAIL_FROM = 8.0
#: the terms K of the Mills-ratio series by the smallest x (the remainder below 1e-13 of the value at each limit)
_TAIL_TERMS = ((20.0, 8), (12.0, 14), (0.0, 30))
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
#: the precisions (bits) of the arb route, tried in turn
_PRECISIONS = (96, 192, 384, 768, 1536, 3072)


def certified_delta(gap: np.ndarray, std: np.ndarray, epsilon: float) -> np.ndarray:
    r"""Certified upper ends of :math:`\delta(\epsilon)` for validated 1-D float arrays ``gap`` (:math:`\ge 0`),
    ``std`` (:math:`> 0`, finite) and a float ``epsilon`` :math:`\ge 0` (module docstring).

    Parameters
    ----------
    gap : numpy.ndarray
        :math:`|\Delta| \ge 0`.
    std : numpy.ndarray
        :math:`s > 0`, the same size.
    epsilon : float
        :math:`\epsilon \ge 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\bar\delta \ge \delta`, :math:`\bar\delta \le \delta (1 + 2^{-33}) + 2^{-1074}`; 0 exactly
        where :math:`\Delta = 0`.

    Raises
    ------
    ComputationError
        The arb route did not reach the accuracy at 3072 bits.
    """
    from scipy.special import log_ndtr, ndtr

    out = np.zeros(gap.size)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        x1 = gap / (2.0 * std)
        x2 = epsilon * std / gap
        a = x1 - x2
    positive = gap > 0
    far = positive & ~(a >= NEGLIGIBLE_A)             # includes a = -inf or NaN from an overflow
    out[far] = _SMALLEST
    keep = np.flatnonzero(positive & (a >= NEGLIGIBLE_A))
    x1, x2, a = x1[keep], x2[keep], a[keep]
    b = -(x1 + x2)
    big = x1 + x2
    shift = 4.0 * _U * big + 2.0 ** -1070              # |a_fl - a| and |b_fl - b| (two products, one sum)
    first = ndtr(a)
    log_second = log_ndtr(b)
    exponent = epsilon + log_second
    second = np.exp(exponent)
    negative = np.minimum(a, 0.0)
    rel_first = (_NDTR_ULPS[0] + _NDTR_ULPS[1] * negative * negative) * _U + 1.01 * _mills(a, shift) * shift
    moved = _LOG_NDTR_ULPS * _U * np.abs(log_second) + 1.01 * (np.abs(b) + 1.0) * shift + _U * np.abs(exponent)
    rel_second = 1.01 * np.expm1(moved) + 2.0 * _EXP_ULPS * _U
    value = first - second
    error = first * rel_first + second * rel_second + _U * np.abs(value) + 1e-320
    error *= 1.0 + 8.0 * _U                            # the rounding of the bound itself
    good = (first >= _NORMAL_FLOOR) & (error <= _ACCEPT_RTOL * (value - error)) & (big < 1e300) \
        & (std[keep] < 1e300) & (gap[keep] < 1e300)
    upper = value + error
    out[keep[good]] = np.nextafter(upper[good], math.inf)
    tail = ~good & (a <= -_TAIL_FROM) & (big < 1e300)
    if tail.any():
        value, fine = _tail_route(-a[tail], 2.0 * x1[tail], shift[tail])
        out[keep[tail][fine]] = value[fine]
        good[np.flatnonzero(tail)[fine]] = True
    for index in keep[~good]:
        out[index] = _ball_upper(float(gap[index]), float(std[index]), epsilon)
    return out


def _tail_route(x: np.ndarray, mu: np.ndarray, shift: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """delta = phi(x) (R(x) - R(x + mu)) for x = -a >= 8, R the Mills ratio (e^eps phi(b) = phi(a)), in floats.

    R(x) = int_0^inf e^(-x t - t^2 / 2) dt; expanding e^(-t^2 / 2) to K terms,
    R(x) - R(y) = sum_k (-1)^k (2k - 1)!! (x^-(2k+1) - y^-(2k+1)) with a remainder of modulus at most the next
    term (e^(-xt) - e^(-yt) >= 0); each x^-n - y^-n = x^-n (-expm1(n log1p(-mu / y))), within 8 u of its value
    (the error of t = mu / y moves 1 - (1 - t)^n by at most 3 u of itself, since n t (1 - t)^(n-1) <= 1 - (1 - t)^n).
    The log of the value, -x^2 / 2 - log sqrt(2 pi) + log D, carries the rounding of x^2 and of the sums, and the
    error of x (``shift``) times x + 1 (d/dx: -x - 2 / x at most). Returns (certified values, accepted)."""
    y = x + mu
    t = mu / y
    smallest = float(np.min(x))
    count = next(k for limit, k in _TAIL_TERMS if smallest >= limit)
    log_rest = np.log1p(-t)
    difference, spread, coefficient = np.zeros(x.size), np.zeros(x.size), 1.0
    with np.errstate(under="ignore", over="ignore"):
        for k in range(count + 1):
            n = 2 * k + 1
            term = coefficient * x ** -float(n) * -np.expm1(n * log_rest)
            difference += term if k % 2 == 0 else -term
            spread += term
            coefficient *= n
        n = 2 * count + 3
        rest = coefficient * x ** -float(n) * -np.expm1(n * log_rest)
    spread = spread * (64 * _U) + rest * 1.01
    relative = spread / difference
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        level = -0.5 * (x * x) - _LOG_SQRT_2PI + np.log(difference)
        slack = (_U * (0.51 * x * x + 8.0 * np.abs(np.log(difference)) + 2.0 * np.abs(level) + 8.0)
                 + 1.01 * (x + 1.0) * shift + 1.01 * relative)
        value = np.nextafter(np.exp(level + slack) * (1.0 + 2 * _EXP_ULPS * _U), math.inf)
        # among the subnormals: the number of units 2^-1074 from a scaled exp, rounded up (at most one unit above)
        units = np.ceil(np.exp(level + slack + 1074.0 * math.log(2.0)) * (1.0 + 2.0 ** -30))
    value = np.where(level + slack < -700.0, units * 2.0 ** -1074, value)
    accepted = (difference > 0) & (relative < 1e-3) & (slack <= _ACCEPT_RTOL / 2)
    return value, accepted


def _mills(a: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """A bound on phi(x) / Phi(a) for |x - a| <= shift: |a| + 1 for a < 0 (the Mills ratio, with margin), and
    phi(max(a - shift, 0)) / Phi(0) for a >= 0."""
    with np.errstate(over="ignore", under="ignore"):
        right = 0.8 * np.exp(-0.5 * np.maximum(a - shift, 0.0) ** 2)
    return np.where(a < 0, np.abs(a) + 1.0 + shift, right)


def _variance_down(variance: np.ndarray) -> np.ndarray:
    """A lower bound on V = sigma^2 gain + data from its float value (3 roundings, each within u relative or, among
    the subnormals, 2^-1075 absolute): V (1 - 8 u) - 2^-1070, at least 0."""
    low = np.asarray(variance, dtype=float) * _VARIANCE_DOWN
    low -= 2.0 ** -1070
    return np.maximum(low, 0.0)


def renyi_upper(gap: np.ndarray, variance: np.ndarray, alpha: float) -> np.ndarray:
    """alpha gap^2 / (2 V), V = sigma^2 gain + data as computed (float), certified from above: from
    ``_variance_down``, the float value (sqrt, quotient, square, two products: at most 6 u) times
    1 + ``_RENYI_REL_ERROR``, one float up; inf where the lower bound on V is 0 (V among the subnormals)."""
    low = _variance_down(variance)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = np.where(low > 0, gap / np.sqrt(low), np.where(gap > 0, np.inf, 0.0))
    np.square(out, out=out)
    out *= alpha * 0.5
    out *= 1.0 + _RENYI_REL_ERROR
    return np.nextafter(out, np.inf, out=out)


def delta_upper(gap: np.ndarray, variance: np.ndarray, epsilon: float) -> np.ndarray:
    """The certified delta(epsilon) at V = sigma^2 gain + data as computed (float): the hockey stick at
    sqrt(``_variance_down``) times ``_STD_DOWN``, below the true standard deviation (delta decreases in it);
    2^-540 where that is 0 (a positive float V is at least half the smallest subnormal)."""
    std = np.sqrt(_variance_down(variance))
    std *= _STD_DOWN
    return certified_delta(np.asarray(gap, dtype=float), np.where(std > 0, std, 2.0 ** -540), epsilon)


def _delta_ball(gap: float, std: float, epsilon: float, precision: int):
    r""":math:`\delta(\epsilon)` of the floats ``gap`` > 0, ``std`` > 0, ``epsilon`` as an arb ball at ``precision`` bits.

    :math:`\Phi(x) = \operatorname{erfc}(-x / \sqrt 2) / 2`; every operation is python-flint's
    rigorous ball arithmetic, so the ball contains the true value.
    """
    from flint import arb, ctx

    saved = ctx.prec
    ctx.prec = precision
    try:
        w, s, e = arb(gap), arb(std), arb(epsilon)
        x1, x2 = w / (2 * s), e * s / w
        root = arb(2).sqrt()
        first = (-(x1 - x2) / root).erfc() / 2
        second = e.exp() * ((x1 + x2) / root).erfc() / 2
        return first - second
    finally:
        ctx.prec = saved


def _ball_upper(gap: float, std: float, epsilon: float) -> float:
    """The arb route: the upper end of the ball, at the first precision where it is narrow enough."""
    from flint import arb

    tiny = arb(2) ** -1075
    for precision in _PRECISIONS:
        ball = _delta_ball(gap, std, epsilon, precision)
        if ball.upper() < tiny:
            return _SMALLEST                            # 0 < delta < 2^-1075
        low = ball.lower()
        if low > 0 and ball.upper() - low <= low * _ACCEPT_RTOL:
            return arb_upper_float(ball)
    raise ComputationError(f"gaussian delta (gap {gap!r}, std {std!r}, epsilon {epsilon!r}): not certified "
                           f"at {_PRECISIONS[-1]} bits")

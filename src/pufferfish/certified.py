"""Certified upper (and lower) ends of computed privacy values: the rounding arithmetic every audit shares.

A privacy value the project reports as *achieved* (a privacy loss, a hockey-stick divergence,
a Renyi divergence, a DistP delta) must be an upper bound on the true value of the
mathematical quantity for the inputs given, rounding and truncation included, and close to
it: ``true <= reported <= true * (1 + CERTIFIED_RTOL)`` (plus the smallest subnormal where the
truth is 0). A route that computes a value ``v`` in floating point with a proven bound ``e``
on its absolute error reports :func:`upper` ``(v, e)``: the smallest float at or above
``v + e``, the addition itself rounded upward. A lower end of an interval (a scale that must
not be over-stated, the lower end of a bracket) is :func:`lower`. The bound ``e`` of each
route is derived in docs/math/audits.md.

A target is met when the certified value is ``<= target``, with no tolerance.
"""

from __future__ import annotations

import math

from pufferfish.errors import ComputationError

__all__ = ["CERTIFIED_RTOL", "upper", "lower", "round_up", "round_down", "quotient_upper", "quotients_upper", "arb_upper_float"]

#: the largest relative over-statement a certified value may carry: true <= value <= true (1 + CERTIFIED_RTOL)
CERTIFIED_RTOL = 1e-9


def round_up(value: float, steps: int = 1) -> float:
    r"""The float ``steps`` representable numbers above ``value`` (towards +inf).

    Parameters
    ----------
    value : float
        A finite float or +inf (returned as is).
    steps : int
        How many floats to move (>= 0).

    Returns
    -------
    float
        ``math.nextafter`` applied ``steps`` times towards +inf.
    """
    for _ in range(steps):
        value = math.nextafter(value, math.inf)
    return value


def round_down(value: float, steps: int = 1) -> float:
    r"""The float ``steps`` representable numbers below ``value`` (towards -inf).

    Parameters
    ----------
    value : float
        A finite float or -inf (returned as is).
    steps : int
        How many floats to move (>= 0).

    Returns
    -------
    float
        ``math.nextafter`` applied ``steps`` times towards -inf.
    """
    for _ in range(steps):
        value = math.nextafter(value, -math.inf)
    return value


def _error(value: float, abs_error: float, rel_error: float) -> float:
    if not (math.isfinite(abs_error) and abs_error >= 0.0 and math.isfinite(rel_error) and rel_error >= 0.0):
        raise ComputationError(f"error bound abs {abs_error!r}, rel {rel_error!r}: must be finite and >= 0")
    # |value| * rel_error + abs_error, each inexact operation rounded up by one float (a product with a zero
    # factor and a sum with a zero term are exact; a product that underflows to 0 is rounded up to 2^-1074)
    if value == 0.0 or rel_error == 0.0:
        return abs_error
    product = round_up(abs(value) * rel_error)
    return round_up(product + abs_error) if abs_error else product


def upper(value: float, abs_error: float = 0.0, *, rel_error: float = 0.0) -> float:
    r"""A certified upper end: the smallest float at or above ``value + abs_error + |value| rel_error``.

    Parameters
    ----------
    value : float
        The value computed in floating point (finite, or +inf: returned as is).
    abs_error : float
        A proven bound on the absolute error of ``value`` (>= 0).
    rel_error : float
        A proven bound on its relative error (>= 0), added as ``|value| * rel_error``.

    Returns
    -------
    float
        A float ``>= value + error`` (the sum rounded upward, one float above the nearest sum).

    Raises
    ------
    ComputationError
        ``value`` is NaN or -inf, or an error bound is negative or not finite.
    """
    value = float(value)
    if math.isnan(value) or value == -math.inf:
        raise ComputationError(f"certified upper end of {value!r}: not a number")
    if value == math.inf:
        return value
    error = _error(value, abs_error, rel_error)
    return round_up(value + error) if error else value


def lower(value: float, abs_error: float = 0.0, *, rel_error: float = 0.0) -> float:
    r"""A certified lower end: the largest float at or below ``value - abs_error - |value| rel_error``.

    Parameters
    ----------
    value : float
        The value computed in floating point (finite, or -inf: returned as is).
    abs_error : float
        A proven bound on the absolute error of ``value`` (>= 0).
    rel_error : float
        A proven bound on its relative error (>= 0).

    Returns
    -------
    float
        A float ``<= value - error`` (the difference rounded downward).

    Raises
    ------
    ComputationError
        ``value`` is NaN or +inf, or an error bound is negative or not finite.
    """
    value = float(value)
    if math.isnan(value) or value == math.inf:
        raise ComputationError(f"certified lower end of {value!r}: not a number")
    if value == -math.inf:
        return value
    error = _error(value, abs_error, rel_error)
    return round_down(value - error) if error else value


def quotient_upper(numerator: float, denominator: float) -> float:
    r"""The smallest float at or above the exact quotient ``numerator / denominator`` of two floats.

    Decided in exact rationals, so a comparison of the result with a float bound ``t`` is exact:
    ``quotient_upper(a, b) <= t`` if and only if ``a / b <= t`` in the reals.

    Parameters
    ----------
    numerator : float
        A finite float.
    denominator : float
        A finite float > 0.

    Returns
    -------
    float
        The quotient rounded upward (inf beyond the float range).

    Raises
    ------
    ComputationError
        An argument is not finite, or ``denominator`` is not > 0.
    """
    from fractions import Fraction

    if not (math.isfinite(numerator) and math.isfinite(denominator) and denominator > 0.0):
        raise ComputationError(f"quotient {numerator!r} / {denominator!r}: needs finite floats, a denominator > 0")
    exact = Fraction(numerator) / Fraction(denominator)
    try:
        value = float(exact)
    except OverflowError:
        return math.inf
    return math.nextafter(value, math.inf) if Fraction(value) < exact else value


def quotients_upper(numerator: float, denominators) -> "numpy.ndarray":
    r""":func:`quotient_upper` of ``numerator`` over each of ``denominators`` (an array of the same shape):
    the scale ``w / epsilon`` of a closed form, as the float at or above the exact quotient.

    Parameters
    ----------
    numerator : float
        A finite float.
    denominators : array_like
        Finite floats > 0.

    Returns
    -------
    numpy.ndarray
        The quotients rounded upward (inf beyond the float range).

    Raises
    ------
    ComputationError
        As :func:`quotient_upper`.
    """
    import numpy as np

    flat = np.asarray(denominators, dtype=float)
    return np.array([quotient_upper(numerator, float(d)) for d in flat.reshape(-1)]).reshape(flat.shape)


def arb_upper_float(ball) -> float:
    """The smallest float at or above the upper end of a python-flint ``arb`` ball (exact: the end's mantissa and
    exponent as a fraction, rounded to the nearest float, then one float up if that fell below it).

    Parameters
    ----------
    ball : object
        A finite python-flint ``arb`` ball.

    Returns
    -------
    float
        The upper end rounded upward (inf beyond the float range).
    """
    from fractions import Fraction

    mantissa, exponent = (int(v) for v in ball.upper().man_exp())
    end = Fraction(mantissa) * Fraction(2) ** exponent
    try:
        value = float(end)
    except OverflowError:
        return math.inf
    return math.nextafter(value, math.inf) if Fraction(value) < end else value

"""The one check of a computed noise scale: a positive float wherever the sensitivity is positive.

A closed-form scale (sensitivity / epsilon, sensitivity / sqrt(2 (e^eps - 1)), ...) can leave
the floats for extreme inputs: it underflows to a subnormal number or 0 (which would mean "no
noise") or overflows to inf. :func:`check_scales` refuses these in one line, so that no
mechanism returns a scale it cannot honour.
"""

from __future__ import annotations

import sys

import numpy as np

from pufferfish.errors import InvalidArgumentError

__all__ = ["check_scales", "NORMAL", "arb_certified", "scale_up"]

#: the smallest positive normal float (below it a scale loses digits: subnormal)
NORMAL = sys.float_info.min


#: the precisions (bits) of :func:`arb_certified`, tried in turn
_PRECISIONS = (96, 192, 384, 768, 1536, 3072)


def arb_certified(make, *, what: str) -> float:
    """The certified float of a privacy value >= 0 computed by ``make()`` as a python-flint ``arb`` ball:
    at the first precision where the ball's radius is at most 2^-36 of its midpoint (or the ball is
    below the smallest subnormal), its upper end rounded up (0 below 0: a divergence is >= 0; the
    smallest subnormal above a true value below it).

    Parameters
    ----------
    make : callable
        () -> arb, evaluated at the current python-flint precision.
    what : str
        What is computed (for the error message).

    Returns
    -------
    float

    Raises
    ------
    ComputationError
        The ball stays wide at 3072 bits.
    """
    from flint import arb, ctx

    from pufferfish.certified import arb_upper_float
    from pufferfish.errors import ComputationError

    old = ctx.prec
    tiny = None
    try:
        for prec in _PRECISIONS:
            ctx.prec = prec
            tiny = arb(2) ** -1075
            ball = make()
            if ball.upper() < tiny:
                return 0.0 if ball.upper() <= 0 else 5e-324
            if ball.rad() <= 2.0 ** -36 * abs(ball.mid()):
                return arb_upper_float(ball)
    finally:
        ctx.prec = old
    raise ComputationError(f"{what}: not certified at {_PRECISIONS[-1]} bits")


def scale_up(values, rel_error: float) -> np.ndarray:
    """``values`` (floats >= 0 computed with relative error at most ``rel_error``) raised to a float at
    or above their true value: ``values (1 + rel_error)`` rounded up one float (0 stays 0, inf inf).

    Parameters
    ----------
    values : array_like
        The computed scales.
    rel_error : float
        A proven bound on their relative error (>= 0).

    Returns
    -------
    numpy.ndarray
    """
    values = np.asarray(values, dtype=float)
    with np.errstate(over="ignore"):
        raised = np.nextafter(values * (1.0 + rel_error), np.inf)
    return np.where((values == 0) | ~np.isfinite(values), values, raised)


def check_scales(scales, *, sensitivity: float, epsilons) -> np.ndarray:
    """``scales`` if each is a finite normal float > 0, or all of them if the sensitivity is 0.

    Parameters
    ----------
    scales : numpy.ndarray
        The scales computed for ``sensitivity``, one per epsilon.
    sensitivity : float
        The (validated) shift they were computed for.
    epsilons : numpy.ndarray
        The (validated) epsilons, one per scale.

    Returns
    -------
    numpy.ndarray
        ``scales``, unchanged.

    Raises
    ------
    InvalidArgumentError
        A scale below :data:`NORMAL` (subnormal or 0) or inf for a sensitivity > 0, naming the
        sensitivity and the epsilon.
    """
    scales = np.asarray(scales, dtype=float)
    bad = np.flatnonzero(~((scales >= NORMAL) & np.isfinite(scales))) if sensitivity > 0 else np.array([], dtype=int)
    if bad.size:
        k = int(bad[0])
        eps = np.ravel(epsilons)
        raise InvalidArgumentError(f"sensitivity = {sensitivity!r}: at epsilon = {float(eps[k])!r} the scale is "
                                   f"{float(scales.ravel()[k])!r}, outside the normal positive floats")
    return scales

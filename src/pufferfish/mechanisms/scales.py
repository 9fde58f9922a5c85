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

__all__ = ["check_scales", "NORMAL"]

#: the smallest positive normal float (below it a scale loses digits: subnormal)
NORMAL = sys.float_info.min


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

"""The Laplace mechanism of one shift: the scale for epsilon-DP and the exact hockey stick.

Laplace(b) has density exp(-|z| / b) / (2 b). A value that moves by at most a ``sensitivity``
w between two inputs:

* :func:`laplace_scale` -- b = w / epsilon: the density ratio of two shifted copies is at most
  e^(w / b) everywhere, so b = w / epsilon gives epsilon-DP (Dwork et al. 2006);
* :func:`laplace_delta` -- the exact delta(epsilon) of one shift s at scale b,
  1 - exp((epsilon - s / b) / 2) for epsilon < s / b and 0 beyond.

Both are certified (issue 39): the scale is at or above w / epsilon (rounded up one float), and
the delta at or above the true one and at most 1e-9 relative above it (its float route's error
bound, else arb balls).

The derivations are in ``docs/math/mechanisms.md`` (section "Laplace"). Public functions
validate their arguments.
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.certified import quotients_upper
from pufferfish.checks import real
from pufferfish.grids import check_epsilons
from pufferfish.mechanisms.scales import arb_certified, check_scales, scale_up

#: the unit roundoff of float64
_U = 2.0 ** -53

__all__ = ["laplace_scale", "laplace_delta"]


def laplace_scale(sensitivity, *, epsilons) -> np.ndarray:
    """b = sensitivity / epsilon for every epsilon: the Laplace scale of epsilon-DP for one shift.

    Parameters
    ----------
    sensitivity : float
        The largest shift w >= 0 (0: b = 0, no noise).
    epsilons : float or array_like
        epsilon > 0, one or a grid (keyword).

    Returns
    -------
    numpy.ndarray
        b, one per epsilon.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A sensitivity that is not a finite real >= 0, an epsilon that is not finite and > 0, or
        a scale that is not a positive float (under- or overflow) for a sensitivity > 0.
    """
    w, eps = real(sensitivity, name="sensitivity", lo=0.0), check_epsilons(epsilons)
    return check_scales(quotients_upper(w, eps), sensitivity=w, epsilons=eps)



def laplace_delta(shift, scale, *, epsilon) -> float:
    """delta(epsilon) of one Laplace shift: H_{e^eps}(Laplace(s, b) || Laplace(0, b)) = [1 - e^((eps - s/b)/2)]^+.

    The privacy loss log p_s(y) / p_0(y) = (|y| - |y - s|) / b is s / b for y >= s, -s / b for
    y <= 0 and (2 y - s) / b between; the set where it exceeds epsilon < s / b is
    y > (s + epsilon b) / 2, whose two masses give 1 - exp((epsilon - s / b) / 2) (computed with
    expm1: no cancellation for epsilon near s / b). The same in both orders (symmetry).

    Parameters
    ----------
    shift : float
        The size s >= 0 of the shift.
    scale : float
        b > 0.
    epsilon : float
        epsilon >= 0 (keyword).

    Returns
    -------
    float
        delta in [0, 1).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value that is not a finite real in its range.
    """
    shift = real(shift, name="shift", lo=0.0)
    scale = real(scale, name="scale", lo=0.0, lo_open=True)
    epsilon = real(epsilon, name="epsilon", lo=0.0)
    ratio = shift / scale
    # x = (eps - s/b) / 2 errs by u s/b (the ratio) + u |x| (the difference); delta = -expm1(x) by
    # that (|expm1'| <= 1 for x <= 0) + 2 u delta (expm1, assumed within 2 ulps)
    x = (epsilon - ratio) / 2.0
    error = _U * ratio + _U * abs(x)
    if x + error < 0.0:
        delta = -math.expm1(x)
        bound = error + 2.0 * _U * delta
        if bound <= 2.0 ** -34 * delta:
            return math.nextafter(delta + bound, math.inf)
    elif x - error >= 0.0:
        return 0.0

    def make():
        from flint import arb

        half = (arb(epsilon) - arb(shift) / arb(scale)) / 2
        return 1 - half.exp() if half < 0 else arb(0) if half >= 0 else (1 - half.exp()).union(arb(0))

    return arb_certified(make, what=f"laplace_delta(shift={shift!r}, scale={scale!r}, epsilon={epsilon!r})")

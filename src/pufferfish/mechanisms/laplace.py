"""The Laplace mechanism of one shift: the scale for epsilon-DP and the exact hockey stick.

Laplace(b) has density exp(-|z| / b) / (2 b). A value that moves by at most a ``sensitivity``
w between two inputs:

* :func:`laplace_scale` -- b = w / epsilon: the density ratio of two shifted copies is at most
  e^(w / b) everywhere, so b = w / epsilon gives epsilon-DP (Dwork et al. 2006);
* :func:`laplace_delta` -- the exact delta(epsilon) of one shift s at scale b,
  1 - exp((epsilon - s / b) / 2) for epsilon < s / b and 0 beyond.

The derivations are in ``docs/math/mechanisms.md`` (section "Laplace"). Public functions
validate their arguments.
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.checks import real
from pufferfish.grids import check_epsilons
from pufferfish.mechanisms.scales import check_scales

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
    with np.errstate(over="ignore"):
        return check_scales(w / eps, sensitivity=w, epsilons=eps)



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
    return -math.expm1((epsilon - ratio) / 2.0) if epsilon < ratio else 0.0

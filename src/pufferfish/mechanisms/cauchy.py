"""The Cauchy mechanism of one shift at Renyi order 2: the divergence and the scale.

Cauchy(0, gamma) has density gamma / (pi (gamma^2 + z^2)). For one shift s,

* :func:`cauchy_renyi2` -- D_2(Cauchy(s, gamma) || Cauchy(0, gamma)) = log(1 + s^2 / (2 gamma^2)),
  the same in both orders (exp(D_2) is 1 + the chi-square divergence of the shift);
* :func:`cauchy_renyi2_scale` -- gamma = s / sqrt(2 (e^eps - 1)), the smallest scale with
  D_2 <= epsilon (paper 002, Cor. 4.1 at alpha = 2, applies it to s = W_2).

The derivation (the chi-square integral by residues) is in ``docs/math/mechanisms.md``
(section "Cauchy"). Public functions validate their arguments.
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.checks import real
from pufferfish.grids import check_epsilons
from pufferfish.mechanisms.scales import arb_certified, check_scales, scale_up

#: the unit roundoff of float64
_U = 2.0 ** -53

__all__ = ["cauchy_renyi2", "cauchy_renyi2_scale"]

#: above this shift / scale ratio, D_2 is computed as 2 log(ratio) - log 2 + log1p(2 / ratio^2) (no overflow)
_LARGE_RATIO = 1e150
#: the shifts and scales whose squares are normal floats (computed as written, s^2 / (2 gamma^2))
_SQUARE_LO, _SQUARE_HI = 1e-150, 1e150


def cauchy_renyi2(shift, scale) -> float:
    """D_2 of one Cauchy shift: log(1 + shift^2 / (2 scale^2)), both orders.

    Parameters
    ----------
    shift : float
        The size s >= 0 of the shift.
    scale : float
        gamma > 0.

    Returns
    -------
    float
        D_2 >= 0 (log1p: accurate for a small shift; the logarithm of the ratio for a ratio
        beyond 1e150, where its square would overflow).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value that is not a finite real in its range.
    """
    shift = real(shift, name="shift", lo=0.0)
    scale = real(scale, name="scale", lo=0.0, lo_open=True)
    return _cauchy_renyi2(shift, scale)


def _cauchy_renyi2(shift: float, scale: float) -> float:
    """D_2, certified (issue 39): each branch below is at most 8 roundings of positive terms, each
    within 2 ulps (log1p's relative condition number y / ((1 + y) log1p y) is at most 1), so 16u
    relative is added; a value below 1e-290 (squares near the subnormals) is taken in arb balls."""
    value = _cauchy_renyi2_float(shift, scale)
    if value >= 1e-290:
        return float(scale_up(value, 16.0 * _U))

    def make():
        from flint import arb

        ratio = arb(shift) / arb(scale)
        return (1 + ratio * ratio / 2).log()

    return arb_certified(make, what=f"cauchy_renyi2(shift={shift!r}, scale={scale!r})")


def _cauchy_renyi2_float(shift: float, scale: float) -> float:
    ratio = shift / scale
    if ratio > _LARGE_RATIO:
        return 2.0 * math.log(ratio) - math.log(2.0) + math.log1p(2.0 / (ratio * ratio))
    if _SQUARE_LO <= shift <= _SQUARE_HI and _SQUARE_LO <= scale <= _SQUARE_HI:   # the squares are normal floats
        return math.log1p(shift ** 2 / (2.0 * scale ** 2))
    return math.log1p(ratio * ratio / 2.0)


def cauchy_renyi2_scale(sensitivity, *, epsilons) -> np.ndarray:
    """gamma = sensitivity / sqrt(2 (e^eps - 1)) for every epsilon: the smallest Cauchy scale with D_2 <= eps.

    Solves :func:`cauchy_renyi2` = epsilon: 1 + s^2 / (2 gamma^2) = e^eps (expm1: no cancellation
    for a small epsilon).

    Parameters
    ----------
    sensitivity : float
        The shift s >= 0 (0: gamma = 0); paper 002's DAGWM passes W_2.
    epsilons : float or array_like
        epsilon > 0, one or a grid (keyword).

    Returns
    -------
    numpy.ndarray
        gamma, one per epsilon.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A sensitivity that is not a finite real >= 0, an epsilon that is not finite and > 0, or
        a scale that is not a positive float (under- or overflow) for a sensitivity > 0.
    """
    w, eps = real(sensitivity, name="sensitivity", lo=0.0), check_epsilons(epsilons)
    with np.errstate(over="ignore"):
        # expm1, the product, the root and the quotient: within 4u of the true scale; raised by 8u
        return check_scales(scale_up(w / np.sqrt(2.0 * np.expm1(eps)), 8.0 * _U), sensitivity=w, epsilons=eps)

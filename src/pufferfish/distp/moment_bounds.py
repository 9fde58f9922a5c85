"""Bounds on int X^+ dpi from intervals on the moments int X^k dpi, k = 0..4, of a finite measure pi.

The certified route of :mod:`pufferfish.distp.grid` knows, at each grid point s of the uncertain
band, the measure pi_s of the paths whose rounded sum is s, and the moments of the rounding
residual R under it; X = s + R. It needs int X^+ dpi_s from above and below. Each bound below
integrates a polynomial that majorises (or minorises) x^+ everywhere, so it holds for every
measure with those moments, and it is monotone in each moment with a known sign, so the
interval ends of the moments give a bound that holds for the true values:

* upper: the chord x^+ <= R (s + R_max) / R_max for R in [0, R_max] and s in (-R_max, 0];
  Scarf's bound int X^+ <= (m1 + sqrt(m0 m2)) / 2 (from the quadratic majorants, tight for
  mean and variance); and c (x - x0)^4 >= x^+ for x0 < 0, c = 27 / (256 |x0|^3);
* lower: Jensen int X^+ >= (int X)^+, and int X^+ = (int |X| + int X) / 2 with
  int |X| >= (int X^2)^(3/2) / (int X^4)^(1/2) (Hoelder).

Every function takes validated arrays (internal to the package); proofs in
``docs/math/paper003-distribution.md`` (section "Certified interval").
"""

from __future__ import annotations

import numpy as np

__all__ = ["UNIT_ROUNDOFF", "shifted_moment_bounds", "positive_part_bounds"]

#: u = 2^-53, the unit roundoff of float64 (round to nearest)
UNIT_ROUNDOFF = 2.0 ** -53

#: an absolute slack above everything a product that underflows (or lands among the subnormals) can lose
_UNDERFLOW = 1e-300
_BINOMIAL = ((1,), (1, 1), (1, 2, 1), (1, 3, 3, 1), (1, 4, 6, 4, 1))
#: offsets of the centre x0 of the quartic majorant, in conditional standard deviations left of the mean
_QUARTIC_STEPS = (0.0, 0.35, 0.7, 1.0, 1.4, 2.0, 3.0, 5.0)


def shifted_moment_bounds(shift: np.ndarray, low: np.ndarray, high: np.ndarray, power: int
                          ) -> tuple[np.ndarray, np.ndarray]:
    """Interval of int (a + R)^k dpi = sum_l C(k, l) a^(k-l) int R^l dpi from intervals on int R^l dpi.

    ``low``/``high`` have shape (5, points): the ends of int R^l dpi (l = 0..4, all >= 0);
    ``shift`` is a, one per point. Each term takes the end its coefficient's sign calls for;
    the float rounding of the sum (at most 2 (k + 2) u of the sum of |terms|) widens both ends.
    """
    lo = np.zeros_like(shift)
    hi = np.zeros_like(shift)
    size = np.zeros_like(shift)
    for l, binomial in enumerate(_BINOMIAL[power]):
        coefficient = binomial * shift ** (power - l)
        up = np.where(coefficient >= 0, coefficient * high[l], coefficient * low[l])
        down = np.where(coefficient >= 0, coefficient * low[l], coefficient * high[l])
        hi += up
        lo += down
        size += np.abs(coefficient) * high[l]
    slack = 2.0 * (power + 3) * UNIT_ROUNDOFF * size + _UNDERFLOW
    return lo - slack, hi + slack


def positive_part_bounds(s: np.ndarray, r_max: float, lower_moments: tuple[np.ndarray, np.ndarray],
                         upper_moments: tuple[np.ndarray, np.ndarray], *, order: int = 4
                         ) -> tuple[np.ndarray, np.ndarray]:
    """[lo, up] with lo <= int (s + R)^+ dpi_s <= up at each band point s in (-r_max, 0].

    Parameters
    ----------
    s : numpy.ndarray
        The grid points (each in (-r_max, 0]).
    r_max : float
        R <= r_max on every path (R >= 0).
    lower_moments, upper_moments : tuple of numpy.ndarray
        (low, high), each of shape (5, points): intervals on int R^l dpi_s, l = 0..4, of the
        residual that rounds down (for the lower bound) and up (for the upper bound). ``high``
        must hold even where a float product underflowed (the caller adds an absolute slack).
    order : int
        4, or 2 when only the moments up to the 2nd are known (rows 3 and 4 are then ignored).

    Returns
    -------
    tuple of numpy.ndarray
        lo and up, >= 0, one per point.
    """
    low, high = lower_moments
    first_lo, _ = shifted_moment_bounds(s, low, high, 1)
    jensen = np.maximum(first_lo, 0.0)
    if order < 4:
        return jensen, _upper(s, r_max, upper_moments, order)
    second_lo, _ = shifted_moment_bounds(s, low, high, 2)
    _, fourth_hi = shifted_moment_bounds(s, low, high, 4)
    with np.errstate(divide="ignore", invalid="ignore"):
        absolute = np.where(fourth_hi > 0, np.maximum(second_lo, 0.0) ** 1.5 / np.sqrt(fourth_hi), 0.0)
    absolute = absolute * (1.0 - 16 * UNIT_ROUNDOFF)              # power, root and quotient: a few ulps
    holder = (first_lo + absolute) / 2.0 - 2 * UNIT_ROUNDOFF * (np.abs(first_lo) + absolute)
    return np.maximum(jensen, holder), _upper(s, r_max, upper_moments, order)


def _upper(s: np.ndarray, r_max: float, moments: tuple[np.ndarray, np.ndarray], order: int) -> np.ndarray:
    low, high = moments
    chord = high[1] * np.maximum(s + r_max, 0.0) / r_max * (1.0 + 4 * UNIT_ROUNDOFF) if r_max > 0 else 0 * s
    _, first = shifted_moment_bounds(s, low, high, 1)
    _, second = shifted_moment_bounds(s, low, high, 2)
    root = np.sqrt(high[0] * np.maximum(second, 0.0))
    scarf = (first + root) / 2.0 + 4 * UNIT_ROUNDOFF * (np.abs(first) + root)
    best = np.minimum(chord, np.maximum(scarf, 0.0))
    if order < 4:
        return best

    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(high[0] > 0, first / high[0], 0.0)
        spread = np.sqrt(np.maximum(np.where(high[0] > 0, second / high[0], 0.0) - mean * mean, 0.0))
    for step in _QUARTIC_STEPS:
        best = np.minimum(best, _quartic(s, np.minimum(mean - step * spread, -0.0), moments, 0.0 * first))
        best = np.minimum(best, _quartic(s, np.maximum(mean + step * spread, 0.0), moments, first))
    return best


def _quartic(s: np.ndarray, centre: np.ndarray, moments: tuple[np.ndarray, np.ndarray], linear: np.ndarray
             ) -> np.ndarray:
    """linear + 27 / (256 |x0|^3) int (X - x0)^4 for x0 = ``centre`` != 0 (inf where x0 = 0).

    For x0 < 0 (``linear`` 0): c (x - x0)^4 >= x^+ (the minimum of c y^4 - y + |x0| over y is
    0 at c = 27 / (256 |x0|^3)). For x0 > 0 (``linear`` the upper end of int X): x^+ = x + (-x)^+
    and the mirror image bounds (-x)^+.
    """
    low, high = moments
    usable = centre != 0
    _, quartic = shifted_moment_bounds(np.where(usable, s - centre, 0.0), low, high, 4)
    with np.errstate(all="ignore"):                  # |x0|^3 may underflow: the bound is then inf (unused)
        factor = 27.0 / (256.0 * np.abs(np.where(usable, centre, 1.0)) ** 3) * (1.0 + 8 * UNIT_ROUNDOFF)
        value = linear + np.maximum(quartic, 0.0) * factor
        value += 4 * UNIT_ROUNDOFF * (np.abs(linear) + np.abs(value))
    return np.where(usable & np.isfinite(value), value, np.inf)

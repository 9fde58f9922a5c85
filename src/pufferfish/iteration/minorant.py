r"""The best allocation of Theorem 5.2 (paper 002): a greatest convex minorant, in :math:`O(T)`.

Theorem 5.2 (privacy amplification by iteration, Gaussian noise :math:`N(0, \sigma^2)`, per-step
shifts :math:`s_1, \dots, s_T \ge 0` from :mod:`pufferfish.iteration.shifts`) bounds
:math:`D_\alpha \le \frac{\alpha}{2\sigma^2} \sum_t a_t^2` for every allocation whose carried shift
:math:`z_0 = 0`, :math:`z_t = c z_{t-1} + s_t - a_t \ge 0`, :math:`z_T = 0` stays non-negative
(paper: :math:`c = 1`; ours: :math:`c`-Lipschitz steps, :math:`c < 1`). This module computes the least
:math:`\sum_t a_t^2` and the allocation attaining it: with :math:`Q_u = c^{T-u}`, the slopes of the
greatest convex minorant of the points

.. math::

   (P_t, R_t) = \Bigl(\sum_{u \le t} Q_u^2,\ \sum_{u \le t} Q_u s_u\Bigr), \qquad
   \min \sum_t a_t^2 = \sum_{\text{segments}} \frac{\text{rise}^2}{\text{run}},

:math:`a_u = Q_u \gamma_u` (:math:`(t, S_t)` for :math:`c = 1`). The proof, the :math:`O(T)` computation (a
weighted isotonic regression by pool-adjacent-violators, runs of zero shifts pooled) and the
scaling that keeps underflowing weights harmless (:data:`Q_FLOOR`) are in docs/math/iteration.md,
"Proof of the best allocation, and its computation".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pufferfish.checks import as_vector, real

__all__ = ["Allocation", "optimal_allocation", "minimal_cost", "minimal_costs", "carried_shift", "Q_FLOOR"]

#: steps with c^(T-u) below this get a_u = 0 (their shift is carried into the first later step)
Q_FLOOR = 1e-150
#: -log of the smallest positive float64 (exp(-746) is 0): the carried shift's terms beyond it vanish
CARRY_EXPONENT = 746.0
#: runs of zero shifts are pooled only in diagrams of at least twice this many points
COMPRESS_MIN = 1024


@dataclass(frozen=True)
class Allocation:
    """The best allocation of Theorem 5.2 for shifts s_1..s_T and contraction c.

    ``allocation`` holds a_1..a_T, ``cost`` = sum a_t^2 (= sum over the minorant's segments
    of rise^2 / run), ``vertices`` the steps t_0 = 0 < t_1 < ... < t_m = T at which the
    minorant touches the points (P_t, R_t).
    """

    contraction: float
    cost: float
    allocation: np.ndarray = field(repr=False)
    vertices: np.ndarray = field(repr=False)


def _check(shifts, contraction) -> tuple[np.ndarray, float]:
    s = as_vector(shifts, name="shifts", nonnegative=True)
    c = real(contraction, name="contraction", lo=0.0, hi=1.0)
    return s, c


def _pooled(rises: np.ndarray) -> np.ndarray | None:
    """Starts of the points left when each run of zero rises is pooled into one point, or None
    unless at least 3/4 of the rises are 0 (module docstring, "Runs of zero shifts")."""
    size = rises.size
    if size < 2 * COMPRESS_MIN:
        return None
    nonzero = rises != 0.0                                # on a boolean mask counting and finding are fast
    if 4 * np.count_nonzero(nonzero) > size:
        return None
    points = np.flatnonzero(nonzero)                      # each non-zero rise is a point
    after = points + 1
    follows = np.append(points[1:], size) != after        # a run of zeros starts right after it
    zeros = after[follows & (after < size)]
    first = [0] if points.size == 0 or points[0] > 0 else []
    return np.sort(np.concatenate([np.asarray(first, dtype=points.dtype), points, zeros]))


def _blocks(rises: np.ndarray, runs: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The minorant's segments of the cumulative-sum diagram with increments (runs, rises):
    block starts (with the end appended), block rises and block runs. ``runs`` None: all 1."""
    from scipy.optimize import isotonic_regression

    starts = _pooled(rises)
    if starts is None:
        ratio = rises if runs is None else rises / runs
        bounds = np.asarray(isotonic_regression(ratio, weights=runs, increasing=True).blocks)
    else:
        pooled_rises = np.add.reduceat(rises, starts)
        pooled_runs = (np.diff(np.append(starts, rises.size)).astype(float) if runs is None
                       else np.add.reduceat(runs, starts))
        fit = isotonic_regression(pooled_rises / pooled_runs, weights=pooled_runs, increasing=True)
        bounds = np.append(starts[np.asarray(fit.blocks)[:-1]], rises.size)
    run_b = np.diff(bounds).astype(float) if runs is None else np.add.reduceat(runs, bounds[:-1])
    return bounds, np.add.reduceat(rises, bounds[:-1]), run_b


def _unit_blocks(s: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_blocks` of the rises s / scale with unit runs (c = 1), pooling the zero runs of s without
    forming s / scale: a pooled point is one non-zero shift or one run of zeros, so its rise is
    s[start] / scale, and the block rises summed from them are the sums of the original rises
    (zeros add nothing)."""
    from scipy.optimize import isotonic_regression

    starts = _pooled(s)
    if starts is None:
        return _blocks(s / scale, None)
    rises = s[starts] / scale
    runs = np.diff(np.append(starts, s.size)).astype(float)
    pooled = np.asarray(isotonic_regression(rises / runs, weights=runs, increasing=True).blocks)
    bounds = np.append(starts[pooled[:-1]], s.size)
    return bounds, np.add.reduceat(rises, pooled[:-1]), np.diff(bounds).astype(float)


def _solve(s: np.ndarray, c: float, *, want_allocation: bool, scale: float | None = None):
    T = s.size
    scale = float(s.max()) if scale is None else scale
    if scale == 0.0:
        return 0.0, np.zeros(T), np.array([0, T])
    if c == 0.0:
        a = np.zeros(T)
        a[-1] = s[-1]
        return float(s[-1]) ** 2, a, np.array([0, T])   # a_t = 0 before T: no cost, z_t = s_t >= 0
    if c == 1.0:
        start, q = 0, None
        bounds, rise_b, run_b = _unit_blocks(s, scale)
    else:
        log_c = math.log(c)
        max_lag = int(math.floor(math.log(Q_FLOOR) / log_c))        # c^lag >= Q_FLOOR for lag <= max_lag
        start = max(0, T - 1 - max_lag)
        lags = min(start, int(CARRY_EXPONENT / -log_c) + 1)          # c^lag underflows to 0 beyond them
        u = s[start - lags:] / scale                                 # the rises needed: u_t = s_t / scale
        q = np.exp(np.arange(T - 1 - start, -1, -1, dtype=float) * log_c)
        q[-1] = 1.0
        rises = q * u[lags:]
        if start > 0:   # a_u = 0 before the first kept step: its shift carries on, contracted
            with np.errstate(under="ignore"):
                carried = float(np.dot(np.exp(np.arange(lags - 1, -1, -1, dtype=float) * log_c), u[:lags]))
            rises[0] += q[0] * c * carried
        runs = q * q
        bounds, rise_b, run_b = _blocks(rises, runs)
    slope_b = rise_b / run_b
    cost = float(np.dot(rise_b, slope_b)) * scale * scale
    vertices = np.concatenate([[0], start + bounds[1:]])
    if not want_allocation:
        return cost, None, vertices
    slopes = np.repeat(slope_b, np.diff(bounds))
    a = np.zeros(T)
    a[start:] = (slopes if q is None else q * slopes) * scale
    return cost, a, vertices


def minimal_cost(shifts, *, contraction: float = 1.0) -> float:
    r""":math:`\min \sum_t a_t^2` over the allocations of paper 002's Theorem 5.2 with contraction :math:`c`, in :math:`O(T)`.

    The sum of :math:`\text{rise}^2 / \text{run}` over the greatest convex minorant's segments (module
    docstring; docs/math/iteration.md).

    Parameters
    ----------
    shifts : array_like
        :math:`s_1, \dots, s_T \ge 0`, finite, non-empty.
    contraction : float, optional
        :math:`c \in [0, 1]` (default 1: the paper's contractive steps).

    Returns
    -------
    float
        The least cost :math:`\sum_t a_t^2 \ge 0`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A shift negative or not finite, no shift, ``contraction`` outside [0, 1].
    """
    s, c = _check(shifts, contraction)
    return _solve(s, c, want_allocation=False)[0]


def minimal_costs(shifts, *, contractions) -> tuple[float, ...]:
    """:func:`minimal_cost` of the same shifts for several contractions (validated and scaled once).

    Parameters
    ----------
    shifts : array_like
        s_1..s_T >= 0, finite, non-empty.
    contractions : sequence of float
        Each c in [0, 1] (at least one).

    Returns
    -------
    tuple of float
        min sum a_t^2 for each contraction, in order; each equals :func:`minimal_cost`'s.

    Raises
    ------
    InvalidArgumentError
        A shift negative or not finite, no shift, a contraction outside [0, 1].
    """
    from pufferfish.checks import reals

    s = as_vector(shifts, name="shifts", nonnegative=True)
    cs = reals(contractions, name="contractions", lo=0.0, hi=1.0)
    if cs.ndim != 1:
        from pufferfish.errors import InvalidArgumentError
        raise InvalidArgumentError(f"contractions = {contractions!r}: must be a list of numbers in [0, 1]")
    scale = float(s.max())
    return tuple(_solve(s, c, want_allocation=False, scale=scale)[0] for c in cs)


def optimal_allocation(shifts, *, contraction: float = 1.0) -> Allocation:
    r"""The allocation :math:`a_1, \dots, a_T` attaining :func:`minimal_cost`, and the minorant's vertices.

    Parameters
    ----------
    shifts : array_like
        :math:`s_1, \dots, s_T \ge 0`, finite, non-empty.
    contraction : float, optional
        :math:`c \in [0, 1]` (default 1: the paper's contractive steps).

    Returns
    -------
    Allocation
        :math:`a_u = Q_u \gamma_u` (:math:`Q_u = c^{T-u}`, :math:`\gamma_u` the minorant's slope), its cost
        and the vertices.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A shift negative or not finite, no shift, ``contraction`` outside [0, 1].
    """
    s, c = _check(shifts, contraction)
    cost, a, vertices = _solve(s, c, want_allocation=True)
    a.setflags(write=False)
    vertices.setflags(write=False)
    return Allocation(contraction=c, cost=cost, allocation=a, vertices=vertices)


def carried_shift(shifts, allocation, *, contraction: float = 1.0) -> np.ndarray:
    r"""The carried shifts :math:`z_1, \dots, z_T` of :math:`z_t = c z_{t-1} + s_t - a_t`, :math:`z_0 = 0` (a linear filter, :math:`O(T)`).

    An allocation is feasible for paper 002's Theorem 5.2 when every :math:`z_t \ge 0` and :math:`z_T = 0`.

    Parameters
    ----------
    shifts : array_like
        :math:`s_1, \dots, s_T \ge 0`, finite, non-empty.
    allocation : array_like
        :math:`a_1, \dots, a_T`, finite, as many as the shifts.
    contraction : float, optional
        :math:`c \in [0, 1]` (default 1).

    Returns
    -------
    numpy.ndarray
        :math:`z_1, \dots, z_T`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value not finite or out of range, or lengths that differ.
    """
    from scipy.signal import lfilter

    s, c = _check(shifts, contraction)
    a = as_vector(allocation, name="allocation")
    if a.size != s.size:
        from pufferfish.errors import InvalidArgumentError
        raise InvalidArgumentError(f"allocation: has {a.size} entries, shifts has {s.size}")
    return lfilter([1.0], [1.0, -c], s - a)

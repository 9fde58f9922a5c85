r"""The best allocation of Theorem 5.2 (paper 002): a greatest convex minorant, in O(T).

Theorem 5.2 of paper 002 (dataset-dependent privacy amplification by iteration, PABI), with
Gaussian noise N(0, sigma^2) and per-step shifts s_1..s_T >= 0 (:mod:`.shifts`): for every
allocation a_1..a_T whose carried shift

    z_0 = 0,   z_t = c z_{t-1} + s_t - a_t >= 0 (t < T),   z_T = 0                    (R_c)

stays non-negative and ends at 0,

    D_alpha(w_T | x_k = a || w_T | x_k = b) <= alpha / (2 sigma^2) sum_t a_t^2.

The paper states it for contractive (1-Lipschitz) steps, c = 1. For c-Lipschitz steps
(c < 1: an m-strongly convex, beta-smooth loss with eta <= 2 / (m + beta) gives
c = 1 - eta m) the same proof goes through with the recursion (R_c): the shifted Renyi
divergence D^(z)(X || X') = inf {D_alpha(X'' || X'): W_inf(X, X'') <= z} obeys
D^(c z + s)(psi(X) || psi'(X')) <= D^(z)(X || X') when psi' is c-Lipschitz and
sup_w |psi(w) - psi'(w)| <= s (take X'' optimal for D^(z); W_inf(psi(X), psi'(X'')) <=
s + c z; D_alpha(psi'(X'') || psi'(X')) <= D_alpha(X'' || X') by post-processing), and the
shift-reduction lemma (paper 002, Lemma 3.1; Feldman et al. 2018, Lemma 20) gives
D^(z)(X + Z || X' + Z) <= D^(z + a)(X || X') + alpha a^2 / (2 sigma^2). Chaining the two
over t = T..1 with z_t + a_t = c z_{t-1} + s_t, z_0 = 0 (same start) and z_T = 0 (D^(0) =
D_alpha) is the bound. Any contraction c' <= c can be used as c (a c'-Lipschitz map is
c-Lipschitz), and the best bound never increases as c decreases (a feasible allocation for c
can be clipped, a'_t = min(a_t, c' z'_{t-1} + s_t), into a feasible one for c' of no larger
cost: by induction z'_t = max(0, c' z'_{t-1} + s_t - a_t) <= z_t).

This module computes min sum_t a_t^2 under (R_c), and the allocation attaining it.

**Theorem** (best allocation). Let 0 < c <= 1, Q_u = c^(T-u), and the points

    (P_0, R_0) = (0, 0),   (P_t, R_t) = (sum_{u<=t} Q_u^2, sum_{u<=t} Q_u s_u),   t = 1..T.

Let M be the greatest convex minorant of these points (the largest convex function on
[0, P_T] below all of them), with vertices 0 = t_0 < t_1 < ... < t_m = T and slope
gamma_u on the segment that contains (P_{u-1}, P_u]. Then a_u = Q_u gamma_u is the unique
optimal allocation and

    min sum_t a_t^2 = sum_{j=1}^m (R_{t_j} - R_{t_{j-1}})^2 / (P_{t_j} - P_{t_{j-1}})

(rise^2 / run over the minorant's segments). For c = 1 the points are (t, S_t), S_t =
s_1 + ... + s_t, as the issue states.

*Proof.* (i) Change of variables. Unrolling (R_c), z_t = sum_{u<=t} c^(t-u) (s_u - a_u), so
c^(T-t) z_t = sum_{u<=t} Q_u (s_u - a_u) = R_t - B_t with b_u = Q_u a_u and B_t =
sum_{u<=t} b_u. As c^(T-t) > 0, (R_c) is exactly: B_t <= R_t for t < T and B_T = R_T. With
w_u = Q_u^2 and g_u = b_u / w_u = a_u / Q_u the cost is sum_u a_u^2 = sum_u w_u g_u^2, and
B_t = sum_{u<=t} w_u g_u: the problem is to draw, over the abscissae P_t, a path from (0, 0)
to (P_T, R_T) with slope g_u on (P_{u-1}, P_u], never above the points, of least
"energy" sum w_u g_u^2.
(ii) Lower bound. Let gamma be the minorant's slopes and M_t = sum_{u<=t} w_u gamma_u its
values at the P_t. By convexity of x^2, w g^2 >= w gamma^2 + 2 w gamma (g - gamma), so
sum w g^2 >= sum w gamma^2 + 2 Sigma with Sigma = sum_u gamma_u (E_u - E_{u-1}),
E_t = B_t - M_t, E_0 = 0. Summation by parts: Sigma = gamma_T E_T - sum_{t<T} E_t
(gamma_{t+1} - gamma_t). E_T = R_T - R_T = 0 (the minorant meets the last point, an end of
the hull). gamma_{t+1} - gamma_t >= 0 (convexity), and it is > 0 only at a vertex, where
M_t = R_t, so there E_t = B_t - R_t <= 0. Hence Sigma >= 0 and sum w g^2 >= sum w gamma^2.
(iii) Attainment. g = gamma is feasible (M_t <= R_t: a minorant; M_T = R_T) and attains the
bound, so it is optimal; it is unique because the cost is strictly convex in g. On the
j-th segment gamma = rise_j / run_j and sum_{u in segment} w_u = run_j, which gives the
rise^2 / run formula. The slopes are >= 0 (the first is min_t R_t / P_t >= 0 and they
increase), so every a_u = Q_u gamma_u >= 0, as the shift-reduction lemma needs. QED.

The same result is the KKT system of this convex quadratic program: multipliers
lambda_t = 2 (gamma_{t+1} - gamma_t) >= 0 on B_t <= R_t, positive only where the
constraint is active (at the vertices).

c = 0 (steps that forget: eta = 1 for the quadratic loss) is the limit case without the
change of variables: z_t = s_t - a_t, so a_T = s_T and a_t = 0 before it is optimal, of cost
s_T^2.

**Computation, O(T).** The slopes of the greatest convex minorant of a cumulative-sum
diagram {(P_t, R_t)} are the weighted isotonic (non-decreasing) regression of the ratios
r_u = (R_u - R_{u-1}) / (P_u - P_{u-1}) = s_u / Q_u with weights w_u = Q_u^2 (Barlow,
Bartholomew, Bremner, Brunk 1972; Robertson, Wright, Dykstra 1988, Thm 1.2.1). The pool-
adjacent-violators algorithm computes it with a stack of blocks in O(T) time;
:func:`scipy.optimize.isotonic_regression` implements it in compiled code. Each of its
blocks is a segment of the minorant (two adjacent blocks of equal slope may be left
unmerged, which changes nothing: (r1 + r2)^2 / (w1 + w2) = r1^2 / w1 + r2^2 / w2 when
r1 / w1 = r2 / w2). The rises and runs of the blocks are summed from the increments
(``numpy.add.reduceat``), not taken as differences of cumulative sums, so a short segment
late in a long run keeps its digits.

Runs of zero shifts. Adjacent points of equal ratio r_u lie on one line of the diagram, so the
middle ones are convex combinations of their neighbours and removing them changes neither the
minorant nor its segments. A run of zero shifts (r_u = 0: independent records, or a prior whose
correlations underflow to 0 far from the secret) is therefore pooled into one point (rise 0,
run the sum of its runs) before the isotonic regression, when that removes at least half of
the points of a large diagram; the blocks found are mapped back to the steps (for c = 1 their
rises are summed from the pooled points, the same numbers in another order: the last digit of the
cost may differ from the unpooled sum's). A decaying prior over 10^7 records then costs the
regression a few thousand points instead of 10^7, and no array of T ratios.

Scaling. The cost is homogeneous of degree 2 in s, so the shifts are divided by their
maximum before, and the cost multiplied by its square after. For c < 1 the weights Q_u^2 =
c^(2(T-u)) underflow for the first steps of a long run. Steps with Q_u < :data:`Q_FLOOR`
(1e-150, so w_u >= 1e-300) are given a_u = 0 and their carried shift
z = sum_{u<t0} c^(t0-1-u) s_u is added to the first kept step's shift (s_t0 + c z): the
result is the optimum under the extra constraints a_u = 0 (u < t0), hence a feasible
allocation and a valid bound, and above the unconstrained optimum by at most
(2 b_t0 R_{t0-1} + R_{t0-1}^2) / w_t0, R_{t0-1} <= 1e-150 T max s (move the optimum's mass
B_{t0-1} onto step t0): nothing a float64 sum of squares can see.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pufferfish.checks import real
from pufferfish.iteration.covariance import as_vector

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
    """min sum_t a_t^2 over the allocations of Theorem 5.2 with contraction c (module docstring).

    ``shifts`` s_1..s_T >= 0 (finite, non-empty); ``contraction`` c in [0, 1] (1: the paper's
    contractive steps). O(T).
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
    """The allocation a_1..a_T attaining :func:`minimal_cost`, and the minorant's vertices."""
    s, c = _check(shifts, contraction)
    cost, a, vertices = _solve(s, c, want_allocation=True)
    a.setflags(write=False)
    vertices.setflags(write=False)
    return Allocation(contraction=c, cost=cost, allocation=a, vertices=vertices)


def carried_shift(shifts, allocation, *, contraction: float = 1.0) -> np.ndarray:
    """z_1..z_T of the recursion z_t = c z_{t-1} + s_t - a_t, z_0 = 0 (a linear filter, O(T)).

    An allocation is feasible for Theorem 5.2 when every z_t >= 0 and z_T = 0.
    """
    from scipy.signal import lfilter

    s, c = _check(shifts, contraction)
    a = as_vector(allocation, name="allocation")
    if a.size != s.size:
        from pufferfish.errors import InvalidArgumentError
        raise InvalidArgumentError(f"allocation: has {a.size} entries, shifts has {s.size}")
    return lfilter([1.0], [1.0, -c], s - a)

"""E[(w(Z_1) + ... + w(Z_n))^+] for Z_i i.i.d. nu on finitely many atoms: exactly, or certified.

The tupling mechanism's delta is this expectation divided by n (:mod:`pufferfish.distp.tupling`).

* :func:`count_vectors` / :func:`exact_positive_part` -- the sum over the C(M + n - 1, n)
  count vectors c of the multinomial weight n! / prod c_j! prod nu_j^c_j times
  (sum_j c_j w_j)^+ (a sum of non-negative terms, fsum);
* :func:`certified_positive_part` -- [lower, upper] from the tilted grid of
  :mod:`pufferfish.distp.grid`: a coarse pass measures the width, the step is refined (width
  ~ h^2) until upper <= lower (1 + rtol) + atol or the point budget is spent. First, if the
  Chernoff bound M(theta)^n / (e theta) is at most atol, the interval is [0, that bound].

Every public function validates its arguments. Proofs: ``docs/math/paper003-distribution.md``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import chain, combinations

import numpy as np
from scipy.special import gammaln

from pufferfish.checks import integer, real, reals
from pufferfish.distp.grid import GridTooLarge, chernoff_bound, directed_float, grid_positive_part, tilt_parameter
from pufferfish.errors import InvalidArgumentError

__all__ = ["MAX_COUNT_VECTORS", "PositivePart", "count_vectors", "exact_positive_part", "exact_positive_part_bounds",
           "certified_positive_part"]

#: u = 2^-53
_U = 2.0 ** -53
#: the relative level below which the tails of the walk are cut (their mass is carried to the upper end)
_THRESHOLD = 1e-14
#: the width of a grid pass falls like step^a; a before two passes have measured it
_DEFAULT_POWER = 2.0
#: a first grid too wide for the point budget is coarsened (x4) up to this factor
_MAX_STEP_GROWTH = 2.0 ** 40
#: a pass aims at this fraction of the allowed width (a pass that falls short costs a whole finer pass)
_AIM = 0.5
#: the exact route enumerates at most this many count vectors (C(M + n - 1, n))
MAX_COUNT_VECTORS = 200_000


@dataclass(frozen=True)
class PositivePart:
    """lower <= E[(sum_{i<=n} w(Z_i))^+] <= upper.

    ``method``: ``"exact"`` (count vectors; lower = upper, exact to rounding), ``"zero"`` (max w
    <= 0: the sum is never positive), ``"chernoff"`` (the bound alone, below atol), ``"grid"``
    (certified interval, grid step ``step``, widest window ``points``).
    """

    lower: float
    upper: float
    method: str
    step: float = math.nan
    points: int = 0

    @property
    def width(self) -> float:
        """(upper - lower) / lower (inf for lower = 0 < upper; 0 for an exact value)."""
        if self.upper == self.lower:
            return 0.0
        return (self.upper - self.lower) / self.lower if self.lower > 0 else math.inf


def _check(w, nu, n, *, name: str = "w") -> tuple[np.ndarray, np.ndarray, int]:
    values = reals(w, name=name)
    masses = reals(nu, name="nu", lo=0.0, lo_open=True)
    if values.ndim != 1 or masses.shape != values.shape:
        raise InvalidArgumentError(f"nu: {masses.size} masses for {values.size} values of {name}: one mass > 0 per value")
    return values, masses, integer(n, name="n", lo=1)


def count_vectors(atoms: int, n: int) -> int:
    """C(atoms + n - 1, n): the number of count vectors of n draws over ``atoms`` atoms (exact integer).

    Parameters
    ----------
    atoms, n : int
        M >= 1 atoms, n >= 1 draws.

    Returns
    -------
    int
        The number of vectors c >= 0 with sum c = n.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        Not integers >= 1.
    """
    return math.comb(integer(atoms, name="atoms", lo=1) + integer(n, name="n", lo=1) - 1, n)


@functools.lru_cache(maxsize=4)
def _compositions(atoms: int, n: int) -> np.ndarray:
    """Every count vector (rows), by stars and bars: the bar positions are the combinations of n + M - 1.
    Cached (read-only): a grid of eps, eps_A and nu asks for the same (M, n) many times."""
    if atoms == 1:
        out = np.array([[n]], dtype=np.int64)
    else:
        bars = np.fromiter(chain.from_iterable(combinations(range(n + atoms - 1), atoms - 1)), dtype=np.int64,
                           count=math.comb(n + atoms - 1, atoms - 1) * (atoms - 1)).reshape(-1, atoms - 1)
        edges = np.hstack([np.full((bars.shape[0], 1), -1), bars, np.full((bars.shape[0], 1), n + atoms - 1)])
        out = np.diff(edges, axis=1) - 1
    out.flags.writeable = False
    return out


def exact_positive_part(w, nu, n) -> float:
    """E[(sum_{i<=n} w(Z_i))^+] = sum over count vectors c of n!/prod c_j! prod nu_j^c_j (sum c_j w_j)^+, certified.

    Parameters
    ----------
    w : array_like
        The values w_j (finite reals), one per atom.
    nu : array_like
        The law of each draw: nu_j > 0 per atom (need not sum exactly to 1: the formula is used
        as written).
    n : int
        The number of draws (>= 1).

    Returns
    -------
    float
        The upper end of :func:`exact_positive_part_bounds` (w, w, nu, n): at least the exact
        value of the floats given.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        Bad arguments, or more than :data:`MAX_COUNT_VECTORS` count vectors.
    """
    values, masses, draws = _check(w, nu, n)
    return _exact_bounds(values, values, masses, draws)[1]


def exact_positive_part_bounds(w_lo, w_hi, nu, n) -> tuple[float, float]:
    """[lower, upper] containing E[(sum_{i<=n} w(Z_i))^+] for every w with w_lo <= w <= w_hi, by count vectors.

    Each count vector's sum c.w is bounded by c.w_lo and c.w_hi in floats widened by their rounding
    ((M + 1) u of c.|w|); its weight exp(log n! - sum log c_j! + c.log nu) by the rounding of that
    exponent ((M + 24) u of the sum of its parts' moduli, the log-gamma and log values within 8 u
    each, assumed and tested) and of exp; the sum of the terms is exactly rounded (fsum) and
    widened by u. Derivation: docs/math/paper003-distribution.md, "Certified values".

    Parameters
    ----------
    w_lo, w_hi : array_like
        Bounds on the values w_j, w_lo <= w_hi entry by entry.
    nu : array_like
        The law of each draw: nu_j > 0 per atom.
    n : int
        The number of draws (>= 1).

    Returns
    -------
    tuple of float
        (lower, upper), 0 <= lower <= the value <= upper.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        Bad arguments, w_hi below w_lo, or more than :data:`MAX_COUNT_VECTORS` count vectors.
    """
    lo, masses, draws = _check(w_lo, nu, n, name="w_lo")
    hi, _, _ = _check(w_hi, nu, n, name="w_hi")
    if np.any(hi < lo):
        raise InvalidArgumentError(f"w_hi[{int(np.argmax(hi < lo))}]: below w_lo, must be >= it")
    return _exact_bounds(lo, hi, masses, draws)


def _exact_bounds(lo: np.ndarray, hi: np.ndarray, masses: np.ndarray, draws: int) -> tuple[float, float]:
    """:func:`exact_positive_part_bounds` of validated arrays."""
    total = count_vectors(lo.size, draws)
    if total > MAX_COUNT_VECTORS:
        raise InvalidArgumentError(f"n = {draws}: {total} count vectors over {lo.size} atoms, at most "
                                   f"MAX_COUNT_VECTORS = {MAX_COUNT_VECTORS} (use certified_positive_part)")
    counts = _compositions(lo.size, draws)
    size = lo.size
    # |fl(c.w) - c.w| <= M u c.|w| (M products and M - 1 sums); the sums rounded outwards
    spread = (counts @ np.maximum(np.abs(lo), np.abs(hi))) * ((size + 1) * _U * (1.0 + 2.0 ** -40)) + 2.0 ** -1070
    top = np.nextafter(counts @ hi + spread, math.inf)
    keep = top > 0
    if not keep.any():
        return 0.0, 0.0
    counts, top, spread = counts[keep], top[keep], spread[keep]
    bottom = np.maximum(np.nextafter(counts @ lo - spread, -math.inf), 0.0)
    logs = np.log(masses)
    lg_n, lg_c = gammaln(draws + 1), np.sum(gammaln(counts + 1), axis=1)
    log_weight = lg_n - lg_c + counts @ logs
    # log-gamma and log within 8 u of their values, the sums within (M + 2) u of the parts' moduli, one more sum
    slack = (lg_n + lg_c + counts @ np.abs(logs)) * ((size + 24) * _U) + 2.0 ** -60
    weight_hi = np.exp(log_weight + slack) * (1.0 + 8 * _U)          # exp within 4 ulps
    weight_lo = np.exp(log_weight - slack) * (1.0 - 8 * _U)
    floor = counts.shape[0] * 2.0 ** -1073                           # products among the subnormals
    upper = math.fsum((weight_hi * top).tolist()) * (1.0 + 4 * _U) + floor
    lower = math.fsum((weight_lo * bottom).tolist()) * (1.0 - 4 * _U) - floor
    return max(lower, 0.0), math.nextafter(upper, math.inf)


def certified_positive_part(w_lo, w_hi, nu, n, *, rtol: float = 1e-6, atol: float = 0.0,
                            max_points: int = 1_000_000, first_step: float | None = None) -> PositivePart:
    """[lower, upper] containing E[(sum_{i<=n} w(Z_i))^+] for every w between ``w_lo`` and ``w_hi``.

    Parameters
    ----------
    w_lo, w_hi : array_like
        Bounds on the values w_j, w_lo <= w_hi entry by entry (equal for exact values).
    nu : array_like
        The law of each draw: nu_j > 0 per atom.
    n : int
        The number of draws (>= 1).
    rtol, atol : float
        The target: upper <= lower (1 + rtol) + atol (rtol > 0, atol >= 0; keywords).
    max_points : int
        The widest grid window allowed (memory and time grow with it; >= 1000).
    first_step : float, optional
        The step of the first grid pass (a power of 2, e.g. the step an earlier, looser call
        ended with); by default 1/128 of the tilted standard deviation of one draw.

    Returns
    -------
    PositivePart
        ``"zero"`` when max w_hi <= 0; ``"chernoff"`` when the Chernoff bound is <= atol;
        else ``"grid"``: the tightest interval reached. It meets the target unless the point
        budget ran out first: check ``upper <= lower (1 + rtol) + atol``; it is certified
        (contains the value) either way.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        Bad arguments.
    """
    lo, nu_, draws = _check(w_lo, nu, n, name="w_lo")
    hi, _, _ = _check(w_hi, nu, n, name="w_hi")
    if np.any(hi < lo):
        raise InvalidArgumentError(f"w_hi[{int(np.argmax(hi < lo))}]: below w_lo, must be >= it")
    rel, floor = real(rtol, name="rtol", lo=0.0, lo_open=True), real(atol, name="atol", lo=0.0)
    budget = integer(max_points, name="max_points", lo=1000)
    if first_step is not None:
        first_step = real(first_step, name="first_step", lo=0.0, lo_open=True)
        if math.frexp(first_step)[0] != 0.5:
            raise InvalidArgumentError(f"first_step = {first_step!r}: must be a power of 2")
    return _certified(lo, hi, nu_, draws, rel, floor, budget, first_step)


def _certified(lo, hi, nu, n, rtol, atol, budget, first_step=None) -> PositivePart:
    """Zero, a dominant atom peeled off, the Chernoff bound, or the grid (validated arguments; nu may sum below 1)."""
    top = float(np.max(hi))
    if top <= 0.0:
        return PositivePart(0.0, 0.0, "zero")
    j = int(np.argmax(lo))
    if n > 1 and lo.size > 1 and lo[j] > 0 and lo[j] >= (n - 1) * max(0.0, -float(np.min(lo))):
        return _peel(lo, hi, nu, n, j, rtol, atol, budget, first_step)
    clamp = -(n - 1) * top                    # a value below it makes every sum holding it negative
    lo, hi = np.maximum(lo, clamp), np.maximum(hi, clamp)
    middle = (lo + hi) / 2.0
    theta = tilt_parameter(middle, nu) if np.max(middle) > 0 else tilt_parameter(hi, nu)
    if theta > 0:
        bound = chernoff_bound(hi, nu, n, theta)
        if bound <= atol:
            return PositivePart(0.0, bound, "chernoff")
    return _refine(lo, hi, nu, n, theta, rtol, atol, budget, first_step)


def _peel(lo, hi, nu, n, j, rtol, atol, budget, first_step) -> PositivePart:
    """Atom j outweighs any n - 1 others: S > 0 whenever it is drawn (N_j >= 1), so
    E[S^+] = E[S 1{N_j >= 1}] + E[S^+ 1{N_j = 0}]. The first, with sigma = sum nu (below 1 once an
    atom is peeled), is n (nu_j w_j sigma^(n-1) + (sigma^(n-1) - (sigma - nu_j)^(n-1)) sum_{i != j} nu_i w_i)
    (increasing in every w; exact fractions, rounded outwards); the second is the same problem
    without atom j (nu not renormalised)."""
    others = np.arange(lo.size) != j
    masses = [Fraction(float(p)) for p in nu]
    sigma = sum(masses, Fraction(0))
    share = masses[j]
    factor = sigma ** (n - 1) - (sigma - share) ** (n - 1)
    ends = []
    for w, up in ((lo, False), (hi, True)):
        rest = sum((p * Fraction(float(v)) for p, v, keep in zip(masses, w, others) if keep), Fraction(0))
        ends.append(directed_float(n * (share * Fraction(float(w[j])) * sigma ** (n - 1) + factor * rest), up=up))
    remainder = _certified(lo[others], hi[others], nu[others], n, rtol, atol, budget, first_step)
    method = {"zero": "exact"}.get(remainder.method, remainder.method)
    return PositivePart(max(ends[0], 0.0) + remainder.lower, ends[1] + remainder.upper, method,
                        remainder.step, remainder.points)


def _start_step(w: np.ndarray, nu: np.ndarray, theta: float, rtol: float) -> float:
    """A power of 2 near sd / (128 sqrt(1e-5 / rtol)), sd the tilted standard deviation of one draw
    (a pass at sd / 128 measured relative widths near 1e-5 on the benchmark's cases, and the width
    goes like step^2); between sd / 2048 and sd / 16."""
    weights = nu * np.exp(theta * (w - np.max(w)))
    weights /= weights.sum()
    mean = float(weights @ w)
    spread = math.sqrt(max(float(weights @ (w - mean) ** 2), 0.0)) or float(np.max(np.abs(w)))
    divisor = min(max(128.0 * math.sqrt(1e-5 / rtol), 16.0), 2048.0)
    return 2.0 ** math.floor(math.log2(spread / divisor))


def _refine(lo, hi, nu, n, theta, rtol, atol, budget, first_step) -> PositivePart:
    """Grid passes, each step predicted from the widths so far (width ~ step^a, a ~ 2), until the target or budget."""
    step = start = first_step or _start_step((lo + hi) / 2.0, nu, theta, rtol)
    threshold, best, history = _THRESHOLD, None, []
    while True:
        try:
            found = grid_positive_part(lo, hi, nu, n, step=step, theta=theta, threshold=threshold, max_points=budget)
        except GridTooLarge:
            if best is not None or step > _MAX_STEP_GROWTH * start:
                break
            step *= 4.0                          # not even this grid fits: a coarser one first
            continue
        if best is None or found.upper - found.lower < best.upper - best.lower:
            best = found
        allowed = found.lower * rtol + atol
        if found.upper <= found.lower + allowed:
            break
        if found.truncated > 0.1 * allowed:
            threshold *= 1e-3
        history.append((math.log2(step), math.log2(found.upper - found.lower)))
        power = _DEFAULT_POWER
        if len(history) >= 2 and history[-1][0] != history[-2][0]:
            slope = (history[-1][1] - history[-2][1]) / (history[-1][0] - history[-2][0])
            power = min(max(slope, 1.5), 3.0)
        aim = _AIM * max(allowed - found.truncated, allowed * 1e-3)
        wanted = math.log2(aim / (found.upper - found.lower)) / power
        halvings = max(1, round(-wanted))
        if found.points * 2 ** halvings > budget:
            halvings = math.floor(math.log2(budget / found.points))
            if halvings < 1:
                break
        step /= 2 ** halvings
    if best is None:
        raise InvalidArgumentError(f"max_points = {budget}: too few for even the coarsest grid of this sum")
    return PositivePart(best.lower, best.upper, "grid", best.step, best.points)

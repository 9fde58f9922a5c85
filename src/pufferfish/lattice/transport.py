"""The Kantorovich optimal transport plan pi* and Delta* (paper 000, eq. 6, Lemma 7).

For two pmfs P_i, P_j on the integer lattice, eq. (6) defines

    pi*((-inf, x], (-inf, x']) = min{F_i(x), F_j(x')},

the monotone (quantile, north-west-corner) coupling: the u-th quantile of P_i is sent to
the u-th quantile of P_j. It is W1-optimal, but the W1-optimal plan is not unique in one
dimension: a generic LP solver with cost |x - x'| may return another optimal plan whose
support spans much larger distances. Proposition 1 (eq. 5) and every sup |x - x'| the
paper prints are those of the monotone plan, which is also the W_inf-optimal coupling.

Lemma 7 / eq. (25) gives sup_{(x,x') in supp(pi*)} |x - x'| = sup_x Delta*(x) from the two
CDFs alone, with x running over every lattice point between the extreme atoms.

Both are computed exactly (with fractions) when both pmfs carry exact masses, and in
float64 with a tie tolerance otherwise. In float64 a CDF value near 1 cannot tell a tail
mass of 1e-20 from 0, so the float path compares CDFs F below 1/2 and survival functions
S = 1 - F (summed from the right) above it: two values count as equal when they differ by
at most :data:`FLOAT_TIE_TOL` times the larger of the two tail masses (CDF below 1/2,
survival above; 1e-12 x 1/2 across it). Both tails are then resolved down to the smallest
mass float64 holds: for the 10^3- and 10^5-user pairs of benchmarks/engine.py the span is
found in tails of mass ~1e-300, where an absolute 1e-12 tolerance on F saw nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from pufferfish.checks import instance, real
from pufferfish.lattice.pmf import LatticePMF

__all__ = ["TransportPlan", "kantorovich_plan", "delta_star", "plan_span", "FLOAT_TIE_TOL"]

#: two float CDF (or survival) values closer than this, relative to the larger tail mass, count as equal
FLOAT_TIE_TOL = 1e-12


@dataclass(frozen=True, eq=False)
class TransportPlan:
    """The non-zero entries of a coupling: mass ``mass[k]`` moves from ``x[k]`` to ``x_prime[k]``.

    ``x`` is under the pair's first secret (P_i), ``x_prime`` under the second (P_j);
    entries are sorted by ``x`` then ``x_prime``. ``exact_mass`` holds fractions when known.
    """

    x: np.ndarray
    x_prime: np.ndarray
    mass: np.ndarray
    exact_mass: tuple[Fraction, ...] | None = None

    @property
    def span(self) -> int:
        """sup over supp(pi) of |x - x'| (eq. 5 without the 1/epsilon)."""
        return int(np.max(np.abs(self.x - self.x_prime))) if self.x.size else 0

    def as_matrix(self, lo: int, hi: int) -> np.ndarray:
        """The plan as a dense (hi-lo+1) x (hi-lo+1) matrix, rows x, columns x' (for tables)."""
        out = np.zeros((hi - lo + 1, hi - lo + 1))
        out[self.x - lo, self.x_prime - lo] = self.mass
        return out


def _hull(p: LatticePMF, q: LatticePMF) -> tuple[int, int]:
    return min(p.lo, q.lo), max(p.hi, q.hi)


def _exact_masses(p: LatticePMF, q: LatticePMF):
    if p.exact is not None and q.exact is not None:
        return list(p.exact), list(q.exact)
    return None


_NO_TOL = object()


def _check_pair(p, q, tol=_NO_TOL) -> None:
    """Two :class:`LatticePMF` (and a tie tolerance: finite and >= 0), else one line naming the argument."""
    instance(p, LatticePMF, name="p")
    instance(q, LatticePMF, name="q")
    if tol is not _NO_TOL:
        real(tol, name="tol", lo=0.0)


def kantorovich_plan(p: LatticePMF, q: LatticePMF, *, tol: float = FLOAT_TIE_TOL) -> TransportPlan:
    r"""The monotone Kantorovich optimal transport plan pi* of eq. (6) between ``p`` and ``q``.

    North-west-corner rule on the quantile axis: walk the atoms of both pmfs in increasing
    order and move min(remaining mass of x, remaining capacity of x') from x to x'. Linear
    in the number of atoms. In float64 the quantile axis is cut at the CDF values of both
    pmfs (survival values above 1/2, so that tail entries keep their relative accuracy);
    cuts within ``tol`` of each other (relative, module docstring) are one cut, so that
    rounding does not create spurious entries.

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        The source and target laws of the plan.
    tol : float
        Relative tolerance under which two float64 quantile cuts merge.

    Returns
    -------
    TransportPlan
        The entries :math:`(x, x', \pi^*(x, x'))`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Bad pmfs or a bad ``tol``.
    """
    _check_pair(p, q, tol)
    exact = _exact_masses(p, q)
    xs, xps, masses, exact_out = [], [], [], []
    if exact is not None:
        a, b = exact
        i = j = 0
        ra, rb = a[0], b[0]
        while True:
            while ra == 0 and i + 1 < len(a):
                i += 1
                ra = a[i]
            while rb == 0 and j + 1 < len(b):
                j += 1
                rb = b[j]
            if ra == 0 or rb == 0:
                break
            t = min(ra, rb)
            xs.append(p.lo + i)
            xps.append(q.lo + j)
            exact_out.append(t)
            ra -= t
            rb -= t
        mass = np.array([float(t) for t in exact_out])
        return TransportPlan(np.array(xs, dtype=np.int64), np.array(xps, dtype=np.int64), mass, tuple(exact_out))
    # float path, vectorized on the quantile axis: breakpoints are the CDF values of both,
    # below 1/2 as CDF values, above 1/2 as survival values (module docstring)
    fp, sp = _tails(p.probs)
    fq, sq = _tails(q.probs)
    low = _merge_ties(np.union1d(fp[fp <= 0.5], fq[fq <= 0.5]), tol)            # ascending F
    high = _merge_ties(np.union1d(sp[fp > 0.5], sq[fq > 0.5])[::-1], tol)       # descending S
    start = np.concatenate(([0.0], low[:-1]))[:low.size]
    width_low = low - start
    straddle = (1.0 - (low[-1] if low.size else 0.0)) - high[0]
    width_high = high[:-1] - high[1:]
    mid_low = start + width_low / 2
    mid_high = high[1:] + width_high / 2
    ix = np.concatenate((np.searchsorted(fp, mid_low, side="left"), [-1], _first_at_most(sp, mid_high)))
    jx = np.concatenate((np.searchsorted(fq, mid_low, side="left"), [-1], _first_at_most(sq, mid_high)))
    width = np.concatenate((width_low, [straddle], width_high))
    mid_u = (low[-1] if low.size else 0.0) + straddle / 2                       # the interval across 1/2
    if mid_u <= 0.5:
        ix[low.size] = np.searchsorted(fp, mid_u, side="left")
        jx[low.size] = np.searchsorted(fq, mid_u, side="left")
    else:
        ix[low.size] = _first_at_most(sp, np.array([high[0] + straddle / 2]))[0]
        jx[low.size] = _first_at_most(sq, np.array([high[0] + straddle / 2]))[0]
    ok = width > 0
    ok[low.size] = straddle > tol * 0.5
    return TransportPlan((p.lo + ix[ok]).astype(np.int64), (q.lo + jx[ok]).astype(np.int64), width[ok])


def _tails(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """F(k) = P(X <= x_k) summed from the left and S(k) = P(X > x_k) summed from the right, normalized."""
    f = np.cumsum(probs)
    total = f[-1]
    s = np.zeros(probs.size)
    s[:-1] = np.cumsum(probs[:0:-1])[::-1]
    f /= total
    s /= total
    f[-1] = 1.0
    return f, s


def _merge_ties(values: np.ndarray, tol: float) -> np.ndarray:
    """Sorted (ascending or descending) tail masses, each cluster of relative ties kept as its first."""
    if values.size < 2:
        return values
    keep = np.concatenate(([True], np.abs(np.diff(values)) > tol * np.maximum(values[1:], values[:-1])))
    return values[keep]


def _first_at_most(s: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """First index k with s[k] <= key, for a nonincreasing ``s`` (survival values)."""
    return np.searchsorted(-s, -keys, side="left")


def _merge_rank(values: np.ndarray, keys: np.ndarray, side: str) -> np.ndarray:
    """``numpy.searchsorted(values, keys, side)`` for nondecreasing ``keys``, by one linear merge.

    The two sorted runs are merged by a stable sort (timsort: one galloping merge of two
    runs, linear time); key j lands at merged position rank_j + j. ``side="left"`` puts
    each key before equal values (rank = #values < key), ``"right"`` after them
    (rank = #values <= key).
    """
    if side == "left":
        merged, key_first = np.concatenate((keys, values)), True
    else:
        merged, key_first = np.concatenate((values, keys)), False
    order = np.argsort(merged, kind="stable")
    is_key = order < keys.size if key_first else order >= values.size
    return np.flatnonzero(is_key) - np.arange(keys.size)


def delta_star(p: LatticePMF, q: LatticePMF, *, tol: float = FLOAT_TIE_TOL) -> tuple[np.ndarray, np.ndarray]:
    r"""Delta*(x) of Lemma 7 / eq. (25) for every lattice point x between the extreme atoms.

    With F_i, F_j the CDFs of ``p`` and ``q``::

        Delta*(x) = 0                                   if F_i(x) = F_j(x)
                    min{D > 0 : F_i(x) <= F_j(x + D)}   if F_i(x) > F_j(x)
                    min{D > 0 : F_i(x) >= F_j(x - D)}   if F_i(x) < F_j(x)

    D runs over the integers (F_j is a step function on the lattice, so the minimum over
    real D is an integer). Returns ``(x, delta)``; the span of pi* is the maximum of
    ``delta``. Linear time: the first x' with F_j(x') >= F_i(x) (and the last with
    F_j(x') <= F_i(x)) is nondecreasing in x, so all of them come from one pass of two
    pointers over the two CDFs -- a Python loop on exact fractions, a merge of the two
    sorted float arrays otherwise (:func:`_merge_rank`). In float64, CDF values closer
    than ``tol`` relative to the tail masses compared (module docstring) count as equal,
    so that rounding does not create spurious plan entries; Delta* is resolved down to
    the smallest masses the float64 priors hold.

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        The laws with CDFs :math:`F_i`, :math:`F_j`.
    tol : float
        Relative tolerance for equal float64 CDF values.

    Returns
    -------
    tuple of numpy.ndarray
        ``(x, delta)``: the lattice points of the hull and :math:`\Delta^*(x)`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        ``p`` / ``q`` not lattice pmfs, or ``tol`` invalid.
    """
    _check_pair(p, q, tol)
    lo, hi = _hull(p, q)
    xs = np.arange(lo, hi + 1)
    exact = _exact_masses(p, q)
    if exact is not None:
        fi, fj = _exact_cdf(p, lo, hi), _exact_cdf(q, lo, hi)
        n = len(fi)
        delta = np.zeros(n, dtype=np.int64)
        up = 0      # first x' with F_j(x') >= F_i(x): nondecreasing in x
        down = -1   # last x' with F_j(x') <= F_i(x) (-1: none, F_j = 0 below the hull)
        for k in range(n):
            a = fi[k]
            while up < n - 1 and fj[up] < a:
                up += 1
            while down + 1 < n and fj[down + 1] <= a:
                down += 1
            if a > fj[k]:
                delta[k] = up - k
            elif a < fj[k]:
                delta[k] = k - down
        return xs, delta
    fi, si = _tails(p.pmf_on(lo, hi))
    fj, sj = _tails(q.pmf_on(lo, hi))
    up, down = _float_order(fi, si, fj, sj, tol)
    low = fi <= 0.5
    delta = np.zeros(xs.size, dtype=np.int64)
    # F_i(x) > F_j(x): the first x' with F_j(x') >= F_i(x) (up to a tie)
    k = np.flatnonzero(up & low)
    delta[k] = _merge_rank(fj, fi[k] * (1 - tol), "left") - k
    k = np.flatnonzero(up & ~low)                       # S_j(x') <= S_i(x)
    delta[k] = _merge_rank(-sj, -si[k] * (1 + tol), "left") - k
    # F_i(x) < F_j(x): the last x' with F_j(x') <= F_i(x) (up to a tie); -1 below the hull
    k = np.flatnonzero(down & low)
    delta[k] = k - (_merge_rank(fj, fi[k] * (1 + tol), "right") - 1)
    k = np.flatnonzero(down & ~low)                     # S_j(x') >= S_i(x)
    delta[k] = k - (_merge_rank(-sj, -si[k] * (1 - tol), "right") - 1)
    return xs, delta


def _exact_cdf(pmf: LatticePMF, lo: int, hi: int) -> list[Fraction]:
    """F(x) at x = lo..hi as exact fractions (``pmf`` carries exact masses)."""
    acc, out = Fraction(0), []
    for mass in pmf.exact_on(lo, hi):
        acc += mass
        out.append(acc)
    return out


def _float_order(fi, si, fj, sj, tol) -> tuple[np.ndarray, np.ndarray]:
    """Where F_i > F_j and where F_i < F_j, ties (module docstring) excluded."""
    both_low = (fi <= 0.5) & (fj <= 0.5)
    both_high = (fi > 0.5) & (fj > 0.5)
    diff = np.where(both_high, sj - si, fi - fj)        # > 0 where F_i > F_j
    scale = np.where(both_low, np.maximum(fi, fj), np.where(both_high, np.maximum(si, sj), 0.5))
    tie = np.abs(diff) <= tol * scale
    return (diff > 0) & ~tie, (diff < 0) & ~tie


def plan_span(p: LatticePMF, q: LatticePMF) -> int:
    r"""sup over supp(pi*) of |x - x'| for the monotone plan, via Lemma 7 (sup Delta*).

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        The marginals of :math:`\pi^*`.

    Returns
    -------
    int
        :math:`\max_x \Delta^*(x)`, the span of the plan.

    Raises
    ------
    ArgumentTypeError
        Either argument not a lattice pmf.
    """
    _check_pair(p, q)
    return int(np.max(delta_star(p, q)[1]))

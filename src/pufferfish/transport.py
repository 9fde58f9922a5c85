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
float64 with a tie tolerance otherwise.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .lattice import LatticePMF

__all__ = ["TransportPlan", "kantorovich_plan", "delta_star", "plan_span", "FLOAT_TIE_TOL"]

#: two float CDF values closer than this count as equal (only without exact masses)
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


def kantorovich_plan(p: LatticePMF, q: LatticePMF, *, tol: float = FLOAT_TIE_TOL) -> TransportPlan:
    """The monotone Kantorovich optimal transport plan pi* of eq. (6) between ``p`` and ``q``.

    North-west-corner rule on the quantile axis: walk the atoms of both pmfs in increasing
    order and move min(remaining mass of x, remaining capacity of x') from x to x'. Linear
    in the number of atoms. In float64, a remainder below ``tol`` counts as zero so that
    rounding does not create spurious entries.
    """
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
    # float path, vectorized on the quantile axis: breakpoints are the CDF values of both
    fp = np.cumsum(p.probs) / p.probs.sum()
    fq = np.cumsum(q.probs) / q.probs.sum()
    fp[-1] = fq[-1] = 1.0
    u = np.union1d(fp, fq)
    # merge breakpoints closer than tol (rounding ties)
    keep = np.concatenate(([True], np.diff(u) > tol))
    u = u[keep]
    u[-1] = 1.0
    lower = np.concatenate(([0.0], u[:-1]))
    width = u - lower
    mid = lower + width / 2
    ix = np.searchsorted(fp, mid, side="left")
    jx = np.searchsorted(fq, mid, side="left")
    ok = width > 0
    return TransportPlan((p.lo + ix[ok]).astype(np.int64), (q.lo + jx[ok]).astype(np.int64), width[ok])


def delta_star(p: LatticePMF, q: LatticePMF, *, tol: float = FLOAT_TIE_TOL) -> tuple[np.ndarray, np.ndarray]:
    """Delta*(x) of Lemma 7 / eq. (25) for every lattice point x between the extreme atoms.

    With F_i, F_j the CDFs of ``p`` and ``q``::

        Delta*(x) = 0                                   if F_i(x) = F_j(x)
                    min{D > 0 : F_i(x) <= F_j(x + D)}   if F_i(x) > F_j(x)
                    min{D > 0 : F_i(x) >= F_j(x - D)}   if F_i(x) < F_j(x)

    D runs over the integers (F_j is a step function on the lattice, so the minimum over
    real D is an integer). Returns ``(x, delta)``. Both searches are binary searches on
    the sorted CDF of ``q`` (O(n log n); the span is the maximum of ``delta``).
    """
    lo, hi = _hull(p, q)
    xs = np.arange(lo, hi + 1)
    exact = _exact_masses(p, q)
    if exact is not None:
        fi, fj, acc_i, acc_j = [], [], Fraction(0), Fraction(0)
        for a, b in zip(p.exact_on(lo, hi), q.exact_on(lo, hi)):
            acc_i += a
            acc_j += b
            fi.append(acc_i)
            fj.append(acc_j)
        delta = np.zeros(xs.size, dtype=np.int64)
        for k, (a, b) in enumerate(zip(fi, fj)):
            if a > b:   # first x' with F_j(x') >= F_i(x)
                delta[k] = bisect.bisect_left(fj, a) - k
            elif a < b:  # last x' with F_j(x') <= F_i(x); F_j = 0 below the hull
                delta[k] = k - (bisect.bisect_right(fj, a) - 1)
        return xs, delta
    fi = np.cumsum(p.pmf_on(lo, hi))
    fj = np.cumsum(q.pmf_on(lo, hi))
    fi /= fi[-1]
    fj /= fj[-1]
    delta = np.zeros(xs.size, dtype=np.int64)
    k = np.arange(xs.size)
    up = fi > fj + tol
    down = fi < fj - tol
    delta[up] = np.searchsorted(fj, fi[up] - tol, side="left") - k[up]
    delta[down] = k[down] - (np.searchsorted(fj, fi[down] + tol, side="right") - 1)
    return xs, delta


def plan_span(p: LatticePMF, q: LatticePMF) -> int:
    """sup over supp(pi*) of |x - x'| for the monotone plan, via Lemma 7 (sup Delta*)."""
    return int(np.max(delta_star(p, q)[1]))

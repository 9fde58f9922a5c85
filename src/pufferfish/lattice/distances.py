"""Distances between two lattice priors, exact on the lattice.

* :func:`wasserstein_p` -- W_p for p >= 1, from the monotone (quantile) coupling pi* of
  paper 000 eq. (6), which is W_p-optimal for every p >= 1 in one dimension (the cost
  |x - x'|^p is convex in x - x'): W_p^p = sum over supp(pi*) of pi*(x, x') |x - x'|^p.
* :func:`wasserstein_inf` -- W_inf = sup over supp(pi*) of |x - x'| (the monotone coupling
  is also W_inf-optimal), computed by Lemma 7 of paper 000 (sup Delta*).
* :func:`near_mass` -- the largest mass a coupling of the two priors can put on
  |x - x'| <= Delta, and :func:`delta_near` -- Delta_delta, the smallest Delta for which the
  priors are (Delta, delta)-near (paper 002, Def. 4.2; "closeness" in Chen and Ohrimenko,
  AISTATS 2023): some coupling puts mass >= 1 - delta on |x - x'| <= Delta. The monotone
  coupling is not optimal for this cost (P = {0, 10}, Q = {10, 20} uniform, delta = 1/2:
  it pairs 0 with 10 and 10 with 20, Delta = 10, while pairing 10 with 10 gives Delta = 0).

Paper 002 (Pierquin et al., Renyi Pufferfish Privacy, ICML 2024) calibrates its
Wasserstein mechanisms with these: the GWM with W_inf (Cor. 3.1), the GAWM with
Delta_delta (Thm 4.3), the DAGWM with W_2 at alpha = 2 (Cor. 4.1).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from pufferfish.checks import instance, is_real, real
from pufferfish.lattice.pmf import LatticePMF, _as_fraction
from pufferfish.lattice.transport import kantorovich_plan, plan_span

__all__ = ["wasserstein_p", "wasserstein_inf", "near_mass", "delta_near"]


def _check_pmfs(p, q) -> None:
    instance(p, LatticePMF, name="p")
    instance(q, LatticePMF, name="q")


def _real_or_inf(value, *, name: str, lo: float) -> float:
    """A real number >= ``lo``, +inf included (W_inf, all the mass), NaN and strings refused."""
    if is_real(value) and float(value) == math.inf:
        return math.inf
    return real(value, name=name, lo=lo)


def wasserstein_p(p: LatticePMF, q: LatticePMF, order: float = 1.0) -> float:
    r"""W_order(p, q) = (sum_{pi*} pi*(x, x') |x - x'|^order)^(1/order), order >= 1 (``inf``: W_inf).

    Exact fractions are summed when both priors carry them (integer ``order``), else float64.

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        The two laws on the lattice.
    order : float
        The order :math:`p \ge 1`, or ``inf`` for :math:`W_\infty`.

    Returns
    -------
    float
        :math:`W_p(P, Q)` along the monotone plan.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Not lattice pmfs, or an order below 1 or not real.
    """
    _check_pmfs(p, q)
    order = _real_or_inf(order, name="order", lo=1.0)
    if math.isinf(order):
        return float(wasserstein_inf(p, q))
    plan = kantorovich_plan(p, q)
    gaps = np.abs(plan.x - plan.x_prime)
    if plan.exact_mass is not None and order.is_integer():
        total = sum((m * Fraction(int(g)) ** int(order) for m, g in zip(plan.exact_mass, gaps)), Fraction(0))
        return float(total) ** (1.0 / order) if order != 1 else float(total)
    return float(np.sum(plan.mass * gaps.astype(float) ** order)) ** (1.0 / order)


def wasserstein_inf(p: LatticePMF, q: LatticePMF) -> int:
    r"""W_inf(p, q) = sup over supp(pi*) |x - x'| (paper 000 Lemma 7; an integer on the lattice).

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        Laws whose :math:`W_\infty` is wanted.

    Returns
    -------
    int
        The span of the monotone plan :math:`\pi^*`.

    Raises
    ------
    ArgumentTypeError
        ``p`` or ``q`` not a :class:`~pufferfish.lattice.pmf.LatticePMF`.
    """
    _check_pmfs(p, q)
    return plan_span(p, q)


# ------------------------------------------------------------------------ (Delta, delta)-nearness
#: every float64 mass is an integer multiple of 2^-1074 (the smallest subnormal)
_FLOAT_QUANTUM = 1074


def _integer_masses(p: LatticePMF, q: LatticePMF) -> tuple[list[int], list[int], list[int], list[int], int]:
    """The atoms of ``p`` and ``q`` and their masses as Python integers with one common total.

    Returns ``(xs, a, ys, b, total)`` with ``sum(a) == sum(b) == total``: the normalized
    mass of atom ``xs[k]`` is exactly ``a[k] / total``. With exact fractions on both sides the
    masses are scaled by the least common denominator. Otherwise the float64 masses are
    read as the exact dyadic rationals they are (n 2^-1074), and each pmf is divided by its
    own exact sum T_p, T_q (a float pmf sums to 1 only up to rounding): a = N T_q, b = M T_p,
    total = T_p T_q. Either way no rounding happens after this point.
    """
    xs = [int(v) for v in p.support]
    ys = [int(v) for v in q.support]
    if p.exact is not None and q.exact is not None:
        fp = [p.exact[x - p.lo] for x in xs]
        fq = [q.exact[y - q.lo] for y in ys]
        den = 1
        for f in fp + fq:
            den = den * f.denominator // math.gcd(den, f.denominator)
        a = [f.numerator * (den // f.denominator) for f in fp]
        b = [f.numerator * (den // f.denominator) for f in fq]
        return xs, a, ys, b, den                       # both sum to den: the fractions sum to 1

    def dyadic(pmf, atoms):
        out = []
        for x in atoms:
            num, den = float(pmf.probs[x - pmf.lo]).as_integer_ratio()
            out.append(num << (_FLOAT_QUANTUM - den.bit_length() + 1))
        return out

    n, m = dyadic(p, xs), dyadic(q, ys)
    tp, tq = sum(n), sum(m)
    return xs, [v * tq for v in n], ys, [v * tp for v in m], tp * tq


def _greedy_near(xs: list[int], a: list[int], ys: list[int], b: list[int], distance: int) -> int:
    """The largest flow from masses ``a`` at ``xs`` to capacities ``b`` at ``ys`` along |x - y| <= distance.

    Every atom x reaches the window [x - distance, x + distance] of y's; both ends of the
    window grow with x. Walking x upward, the greedy pours x's mass into the leftmost y of
    its window that still has capacity. It is optimal (an exchange argument): take an
    optimal flow agreeing with the greedy on every atom before x. If it sends x's mass to
    y' while a y < y' in x's window still has capacity, or gives that capacity to a later
    x'' instead, swap: x -> y and x'' -> y' are both allowed, since x - distance <= y < y'
    <= x + distance <= x'' + distance and y' > y >= x'' - distance; the flow does not fall.
    Repeating, some optimal flow takes x's mass exactly as the greedy does. Capacity left
    of the current window is never reachable again, so one pass of two pointers suffices:
    linear time, exact integer arithmetic.
    """
    cap = list(b)
    flow, j, ny = 0, 0, len(ys)
    for x, mass in zip(xs, a):
        while j < ny and ys[j] < x - distance:
            j += 1                                     # out of reach for this and every later x
        k = j
        while mass and k < ny and ys[k] <= x + distance:
            t = mass if mass < cap[k] else cap[k]
            flow += t
            mass -= t
            cap[k] -= t
            if cap[k] == 0:
                k += 1
        j = k                                          # everything between j and k is drained
    return flow


def _check_delta(delta) -> Fraction:
    """``delta`` as the decimal it was written as (0.1 is 1/10, as pmf masses are read), in [0, 1)."""
    real(delta, name="delta", lo=0.0, hi=1.0, hi_open=True)
    return _as_fraction(delta)


def _check_distance(distance) -> float:
    return _real_or_inf(distance, name="distance", lo=0.0)


def near_mass(p: LatticePMF, q: LatticePMF, distance: float) -> float:
    r"""The largest mass a coupling of ``p`` and ``q`` puts on {|x - x'| <= distance}.

    A sub-coupling (marginals at most ``p`` and ``q``) with near mass m extends to a full
    coupling with the same mass on the near set (couple what is left of p and q by their
    product), so this is the maximum flow of :func:`_greedy_near`: exact (integer
    arithmetic on the exact fractions, or on the float64 masses as the dyadic rationals
    they hold, each pmf divided by its exact sum), rounded once to float64 at the end.
    On the lattice only ``floor(distance)`` matters; ``distance = inf`` gives 1.

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        The marginals of the couplings considered.
    distance : float
        The radius of the near set, :math:`\ge 0` or ``inf``.

    Returns
    -------
    float
        The largest mass on :math:`|x - x'| \le` ``distance``, in :math:`[0, 1]`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Bad pmfs, or a negative or non-real ``distance``.
    """
    _check_pmfs(p, q)
    value = _check_distance(distance)
    if math.isinf(value):
        return 1.0
    xs, a, ys, b, total = _integer_masses(p, q)
    return float(Fraction(_greedy_near(xs, a, ys, b, int(math.floor(value))), total))


def delta_near(p: LatticePMF, q: LatticePMF, delta: float) -> int:
    r"""Delta_delta(p, q): the smallest Delta whose :func:`near_mass` is >= 1 - ``delta`` (0 <= delta < 1).

    Paper 002, Def. 4.2: p and q are (Delta, delta)-near when some coupling puts mass
    >= 1 - delta on |x - x'| <= Delta. The near mass is non-decreasing in Delta and only
    changes at the distances |x - x'| between atoms (O(n m) candidates, all integers
    between 0 and the diameter of the two supports); the smallest accepted candidate is
    found by bisection over the integers 0..W_inf (W_inf is accepted: the monotone
    coupling puts all its mass within W_inf), each step one exact greedy pass
    (:func:`_greedy_near`), so O((n + m) log W_inf) in all. The comparison with 1 - delta
    is exact, with ``delta`` read as the decimal it was written as (0.1 is 1/10, as the pmf
    masses of :meth:`LatticePMF.from_values` are), so that ties with the priors' masses are
    decided as written; delta = 0 gives W_inf.

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        Laws tested for :math:`(\Delta, \delta)`-proximity.
    delta : float
        The mass allowed off the near set, :math:`0 \le \delta < 1`.

    Returns
    -------
    int
        :math:`\Delta_\delta(P, Q)` (:math:`W_\infty` when :math:`\delta = 0`).

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Bad pmfs, or ``delta`` outside :math:`[0, 1)`.
    """
    _check_pmfs(p, q)
    value = _check_delta(delta)
    xs, a, ys, b, total = _integer_masses(p, q)
    need = (1 - value) * total                         # near flow must be >= this (a rational)

    def accepted(d: int) -> bool:
        return _greedy_near(xs, a, ys, b, d) >= need

    hi = int(plan_span(p, q))
    if not accepted(hi):                               # the float plan's tie tolerance: fall back to the diameter
        hi = max(xs[-1], ys[-1]) - min(xs[0], ys[0])
    lo = -1                                            # rejected (no distance is < 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if accepted(mid):
            hi = mid
        else:
            lo = mid
    return hi

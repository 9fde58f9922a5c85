"""Distances between two lattice priors, exact on the lattice.

* :func:`wasserstein_p` -- W_p for p >= 1, from the monotone (quantile) coupling pi* of
  paper 000 eq. (6), which is W_p-optimal for every p >= 1 in one dimension (the cost
  |x - x'|^p is convex in x - x'): W_p^p = sum over supp(pi*) of pi*(x, x') |x - x'|^p.
* :func:`wasserstein_inf` -- W_inf = sup over supp(pi*) of |x - x'| (the monotone coupling
  is also W_inf-optimal), computed by Lemma 7 of paper 000 (sup Delta*).

Paper 002 (Pierquin et al., Renyi Pufferfish Privacy, ICML 2024) calibrates its
Wasserstein mechanisms with these: the GWM with W_inf (Cor. 3.1), the DAGWM with W_2
at alpha = 2 (Cor. 4.1).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from pufferfish.errors import ConfigError
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.transport import kantorovich_plan, plan_span

__all__ = ["wasserstein_p", "wasserstein_inf"]


def _check_pmfs(p, q) -> None:
    for name, pmf in (("p", p), ("q", q)):
        if not isinstance(pmf, LatticePMF):
            raise TypeError(f"{name} = {pmf!r}: must be a LatticePMF")


def wasserstein_p(p: LatticePMF, q: LatticePMF, order: float = 1.0) -> float:
    """W_order(p, q) = (sum_{pi*} pi*(x, x') |x - x'|^order)^(1/order), order >= 1 (``inf``: W_inf).

    Exact fractions are summed when both priors carry them (integer ``order``), else float64.
    """
    _check_pmfs(p, q)
    order = float(order)
    if math.isnan(order) or order < 1:
        raise ConfigError(f"order = {order!r}: W_p needs p >= 1")
    if math.isinf(order):
        return float(wasserstein_inf(p, q))
    plan = kantorovich_plan(p, q)
    gaps = np.abs(plan.x - plan.x_prime)
    if plan.exact_mass is not None and order.is_integer():
        total = sum((m * Fraction(int(g)) ** int(order) for m, g in zip(plan.exact_mass, gaps)), Fraction(0))
        return float(total) ** (1.0 / order) if order != 1 else float(total)
    return float(np.sum(plan.mass * gaps.astype(float) ** order)) ** (1.0 / order)


def wasserstein_inf(p: LatticePMF, q: LatticePMF) -> int:
    """W_inf(p, q) = sup over supp(pi*) |x - x'| (paper 000 Lemma 7; an integer on the lattice)."""
    _check_pmfs(p, q)
    return plan_span(p, q)

r"""Certified upper ends of paper 004's closed forms, in python-flint's arb balls (rigorous ball arithmetic).

* :func:`tau_star_upper` -- :math:`\tau^*(\delta) = Q^{-1}(\delta / 2)` from scipy's ``ndtri``, raised
  one float at a time until the arb ball of :math:`Q(\tau) = \operatorname{erfc}(\tau / \sqrt2) / 2`
  is surely :math:`\le \delta / 2` (:math:`Q` is decreasing: then :math:`\tau \ge \tau^*`);
* :func:`max_log_ratio_upper` -- the largest :math:`|\log N(y; \mu_i, v_i) - \log N(y; \mu_j, v_j)|`
  over a window's ends and the vertex, each evaluated on a ball (the vertex as a ball that
  contains the exact one), :math:`v_k = \sigma_k^2 + s^2` exact;
* :func:`total_variation_upper` -- the total variation of two normal laws: the sign of
  :math:`p_i - p_j` changes only at the real roots of a quadratic; with cut points at the centres
  of the roots' balls, :math:`\tfrac12 \sum_J |P_i(J) - P_j(J)|` is at most the total variation,
  and it is at least the total variation minus :math:`\sum_{\text{roots}} |c - r|\,
  \sup_{[c, r]} |p_i - p_j|`; that is added (the supremum an arb ball over the cut and the root's ball).

Each returns the smallest float at or above the ball's upper end. Derivation:
docs/math/paper004-gaussian.md, "Certified values".
"""

from __future__ import annotations

import math

from pufferfish.certified import arb_upper_float

__all__ = ["tau_star_upper", "lambertw_tau_upper", "max_log_ratio_upper", "total_variation_upper"]

#: the working precision (bits); the inputs are floats, so every ball is narrow
_PRECISION = 160


def _ctx():
    from flint import ctx

    saved = ctx.prec
    ctx.prec = _PRECISION
    return ctx, saved


def tau_star_upper(delta: float, tau: float) -> float:
    r"""The smallest float :math:`\ge` ``tau`` whose :math:`Q` is surely :math:`\le \delta / 2` (``tau`` from ``ndtri``)."""
    from flint import arb

    ctx, saved = _ctx()
    try:
        half = arb(delta) / 2
        root = arb(2).sqrt()
        for _ in range(64):
            if (arb(tau) / root).erfc() / 2 <= half:
                return tau
            tau = math.nextafter(tau, math.inf)
    finally:
        ctx.prec = saved
    raise ArithmeticError(f"tau*({delta!r}): ndtri's value is 64 floats below the quantile")  # pragma: no cover


def lambertw_tau_upper(delta: float, tau: float) -> float:
    r"""The smallest float :math:`\ge` ``tau`` with :math:`\tau^2 \ge W_0(2 / (\pi \delta^2))`, certified: raised one
    float at a time until the arb ball of :math:`\log \tau^2 + \tau^2 - \log(2 / (\pi \delta^2))` is surely
    :math:`\ge 0` (:math:`w + \log w` is increasing, and :math:`W_0(x) + \log W_0(x) = \log x`)."""
    from flint import arb

    ctx, saved = _ctx()
    try:
        level = arb(2).log() - arb.pi().log() - 2 * arb(delta).log()
        for _ in range(64):
            square = arb(tau) ** 2
            if tau > 0 and square.log() + square - level >= 0:
                return tau
            tau = math.nextafter(tau, math.inf)
    finally:
        ctx.prec = saved
    raise ArithmeticError(f"tau_lambertw({delta!r}): 64 floats below the bound")  # pragma: no cover


def _log_ratio(y, mi, vi, mj, vj):
    """log N(y; mi, vi) - log N(y; mj, vj) on balls."""
    return (vj / vi).log() / 2 - (y - mi) ** 2 / (2 * vi) + (y - mj) ** 2 / (2 * vj)


def max_log_ratio_upper(mu_i: float, sd_i: float, mu_j: float, sd_j: float, noise_sd: float, lo: float,
                        hi: float) -> float:
    """max over [lo, hi] of |log p_i(y) - log p_j(y)|, Y | s_k ~ N(mu_k, sd_k^2 + noise_sd^2): certified upper end."""
    from flint import arb

    ctx, saved = _ctx()
    try:
        s2 = arb(noise_sd) ** 2
        mi, mj = arb(mu_i), arb(mu_j)
        vi, vj = arb(sd_i) ** 2 + s2, arb(sd_j) ** 2 + s2
        points = [arb(lo), arb(hi)]
        curvature = 1 / (2 * vj) - 1 / (2 * vi)
        if sd_i != sd_j:                                   # the vertex, a ball around the exact one
            vertex = -(mi / vi - mj / vj) / (2 * curvature)
            if vertex.upper() > lo and vertex.lower() < hi:
                points.append(vertex)
        values = [abs(_log_ratio(y, mi, vi, mj, vj)).upper() for y in points]
        return arb_upper_float(max(values))
    finally:
        ctx.prec = saved


def _roots(mi, vi, mj, vj, equal: bool) -> list:
    """The real roots (balls) of log p_i - log p_j = A y^2 + B y + C (balls; A = 0 for ``equal`` variances); none
    when the discriminant is < 0."""
    b = mi / vi - mj / vj
    if equal:
        return [(mi + mj) / 2]                             # equal variances, different means: the midpoint
    a = 1 / (2 * vj) - 1 / (2 * vi)
    c = mj ** 2 / (2 * vj) - mi ** 2 / (2 * vi) + (vj / vi).log() / 2
    disc = b * b - 4 * a * c
    if disc < 0:
        return []
    root = disc.sqrt() if disc > 0 else disc.union(0).sqrt()
    return [(-b - root) / (2 * a), (-b + root) / (2 * a)]


def total_variation_upper(mu_i: float, sd_i: float, mu_j: float, sd_j: float, noise_sd: float) -> float:
    """TV(N(mu_i, sd_i^2 + s^2), N(mu_j, sd_j^2 + s^2)), certified upper end (module docstring)."""
    from flint import arb

    ctx, saved = _ctx()
    try:
        s2 = arb(noise_sd) ** 2
        mi, mj = arb(mu_i), arb(mu_j)
        vi, vj = arb(sd_i) ** 2 + s2, arb(sd_j) ** 2 + s2
        if mu_i == mu_j and sd_i == sd_j:
            return 0.0
        roots = _roots(mi, vi, mj, vj, sd_i == sd_j)
        cuts = sorted(float(r.mid()) for r in roots)
        root2 = arb(2).sqrt()

        def cdf(x, m, v):
            return (-(x - m) / (v.sqrt() * root2)).erfc() / 2

        total, previous = arb(0), (arb(0), arb(0))
        for x in [*cuts, None]:
            now = (arb(1), arb(1)) if x is None else (cdf(arb(x), mi, vi), cdf(arb(x), mj, vj))
            total += abs((now[0] - previous[0]) - (now[1] - previous[1]))
            previous = now
        def gap(y):                                            # |p_i - p_j| on a ball
            return abs((-(y - mi) ** 2 / (2 * vi)).exp() / (2 * arb.pi() * vi).sqrt()
                       - (-(y - mj) ** 2 / (2 * vj)).exp() / (2 * arb.pi() * vj).sqrt())

        missed = arb(0)
        for r in roots:                                        # the mass of |p_i - p_j| between a cut and its root
            cut = arb(float(r.mid()))
            missed += abs(cut - r).upper() * gap(cut.union(r)).upper()
        return arb_upper_float(total / 2 + missed)
    finally:
        ctx.prec = saved

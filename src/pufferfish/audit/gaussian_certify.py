r"""Certified upper ends of the Gaussian lattice hockey stick: the error bound of its float route.

:func:`pufferfish.audit.gaussian_lattice.gaussian_hockey_stick` sums, over the maximal runs
:math:`J` of cells certified positive, :math:`\sum_x (P(x) - e^\epsilon Q(x)) [\Phi((J_{hi} - x)/\sigma) -
\Phi((J_{lo} - x)/\sigma)]`. The truth exceeds that float by at most

* the rounding of the normal CDF evaluations and of the sums (:func:`phi_mass`, :func:`run_error`);
* what a cell whose sign was decided within the rounding of :math:`r = \log p_Y / q_Y` can hide
  (:func:`cell_excess`): a second-order amount where :math:`r` is monotone on the cell;
* the mass beyond :math:`38.5\sigma` of every atom (below the smallest subnormal).

Derivation: docs/math/audits.md, "Certified values: Gaussian noise on lattice priors".
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["U", "NDTR_REL", "TINY", "log_sum_error", "phi_mass", "run_error", "cell_excess", "cells_excess", "arb_runs", "positive_runs"]

#: the unit roundoff of float64
U = 2.0 ** -53
#: a bound on the relative error of scipy.special.ndtr at a float argument t, beyond the
#: propagation of the rounding of t inside it (cephes / xsf: erf, erfc to a few ulp), with margin
NDTR_REL = 64.0 * U
#: the smallest subnormal (the absolute error of a result that underflows)
TINY = 5e-324


def log_sum_error(log_value: np.ndarray, n: int) -> np.ndarray:
    r"""A bound on the absolute error of a log-sum-exp :math:`\log p_Y(y)` of ``_GaussPair``.

    Each exponent :math:`\log P(x) - (y - x)^2 / 2\sigma^2` is formed with relative error at most
    :math:`6u`, and the terms that matter are within :math:`60 + \log n` of the largest
    (:math:`|\,\cdot\,| \le |\log p_Y| + 60 + \log n + 745`); exp, the sum of :math:`n` terms and the
    log add :math:`(n + 4) u`; the dropped atoms at most :math:`e^{-60}` relative
    (docs/math/audits.md).
    """
    return 8.0 * U * (np.abs(log_value) + 900.0 + math.log(n)) + (n + 8) * U + 1e-25


def _ndtr_abs_error(t: np.ndarray, value: np.ndarray) -> np.ndarray:
    """The absolute error bound of ndtr at a float t whose relative error is <= 3u: the
    propagation 3u |t| phi(t) / Phi(t) <= 3u |t| (|t| + 1) relative, ndtr's own, one subnormal."""
    at = np.abs(t)
    finite = np.isfinite(at)
    rel = NDTR_REL + 4.0 * U * np.where(finite, at * (at + 1.0), 0.0)
    return np.where(finite, rel * value + TINY, 0.0)


def phi_mass(lo: np.ndarray, hi: np.ndarray, x: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    r"""(:math:`\Phi((hi - x)/\sigma) - \Phi((lo - x)/\sigma)`, a bound on its absolute error) for every
    interval (rows) and atom (columns), computed on the side of the median (survival functions
    above it) so that no digit cancels in the tails."""
    from scipy.special import ndtr

    u = (hi[:, None] - x[None, :]) / sigma
    v = (lo[:, None] - x[None, :]) / sigma
    up = v >= 0
    t1, t2 = np.where(up, -v, u), np.where(up, -u, v)  # mass = ndtr(t1) - ndtr(t2)
    with np.errstate(invalid="ignore"):
        a, b = ndtr(t1), ndtr(t2)
        mass = a - b
    err = _ndtr_abs_error(t1, a) + _ndtr_abs_error(t2, b) + U * np.abs(mass)
    return mass, err


def run_error(mass: np.ndarray, err: np.ndarray, w: np.ndarray, pb: np.ndarray, c: float) -> np.ndarray:
    r"""A bound on the error of ``mass @ w`` per run, :math:`w = P - c Q` formed in floats (``c`` the
    float :math:`e^\epsilon`, relative error :math:`\le 2u`): the masses' errors, the dot product's
    :math:`(n + 2) u \sum |m_x w_x|` and the weights' :math:`3u\, c\, Q(x)`."""
    n = w.size
    aw = np.abs(w)
    gamma = (n + 2) * U * 1.01
    return err @ aw + mass @ (gamma * aw + 3.0 * U * c * pb)


def cell_excess(*, h, env_max, env_min, err_r, s_lo, s_hi, l_p, l_q, grad, eps: float,
                f_pos, b_pos, log_norm: float, inv8s2: float) -> tuple[float, float]:
    r"""Bounds on what the finished cells can hide, summed: (forward, backward).

    Forward, :math:`g = r - \epsilon` (backward :math:`-r - \epsilon`). A cell called positive whose
    true :math:`g` can dip below 0 by at most :math:`E` (the float envelope and the error ``err_r``
    of :math:`r`), or called not positive whose true :math:`g` can exceed 0 by at most :math:`E`, hides
    at most :math:`e^\epsilon \bar q\, (e^E - 1)\, \ell` (backward :math:`e^\epsilon \bar p`), :math:`\ell` the
    length of the part where the sign can be wrong: :math:`\min(h, E / |r'|_{\min})` where the slope
    enclosure excludes 0, else :math:`h`. :math:`\bar q` bounds :math:`q_Y` there: :math:`|(\log q_Y)'|
    \le` ``grad``, so :math:`\log \bar q \le \min(\max(l_a, l_c) + \ell\, grad, (l_a + l_c + h\, grad)/2)`
    (the first only for a monotone cell); and :math:`\log q_Y + y^2 / 2\sigma^2` is convex (a log-sum-exp of
    functions linear in y), so :math:`\log \bar q \le \max(l_a, l_c) + h^2 / 8\sigma^2` (``inv8s2`` =
    :math:`1 / 8\sigma^2`). ``l_p``, ``l_q``: (2, cells) log densities at the ends
    without :math:`-\log(\sigma\sqrt{2\pi})` (= ``log_norm``), their errors included by the caller.
    """
    out = []
    mono = (s_lo > 0) | (s_hi < 0)
    slope = np.where(s_lo > 0, s_lo, np.where(s_hi < 0, -s_hi, 1.0))
    for g_max, g_min, pos, logs in ((env_max - eps, env_min - eps, f_pos, l_q),
                                    (-env_min - eps, -env_max - eps, b_pos, l_p)):
        e = np.where(pos, err_r - g_min, g_max + err_r)
        hit = e > 0
        if not hit.any():
            out.append(0.0)
            continue
        e, hh, sl, mo, g = e[hit], h[hit], slope[hit], mono[hit], grad[hit]
        la, lc = logs[0][hit], logs[1][hit]
        length = np.where(mo, np.minimum(hh, e / sl), hh)
        whole = np.minimum(0.5 * (la + lc + hh * g), np.maximum(la, lc) + hh * hh * inv8s2)
        near = np.maximum(la, lc) + length * g
        log_dens = np.where(mo, np.minimum(near, whole), whole) + 1e-9 - log_norm
        with np.errstate(divide="ignore"):
            terms = np.exp(eps + log_dens + np.log(np.expm1(e)) + np.log(length))
        out.append(float(np.sum(terms)) * (1.0 + 1e-9))
    return out[0], out[1]


def cells_excess(cells: dict, x: np.ndarray, sigma: float, eps: float, f_pos, b_pos, env) -> tuple[float, float]:
    """What the finished ``cells`` of the hockey-stick certification can hide, (forward, backward):
    :func:`cell_excess` with the error of r at the cells' ends (:func:`log_sum_error`, the slack of
    a root snapped to its level, the tents' rounding) and grad = the largest |y - x| / sigma^2."""
    h, env_max, env_min, s_lo, s_hi = env
    n = x.size
    la, lc = cells["la"], cells["lc"]
    err_l = np.maximum(log_sum_error(la[0], n) + log_sum_error(la[1], n), log_sum_error(lc[0], n) + log_sum_error(lc[1], n))
    err_r = (np.maximum(cells["slack_a"], cells["slack_c"]) + err_l
             + 4.0 * U * (np.abs(cells["ra"]) + np.abs(cells["rc"]) + np.maximum(np.abs(s_lo), np.abs(s_hi)) * h))
    x0, x1 = float(x[0]), float(x[-1])
    ca, cc = cells["ca"], cells["cc"]
    grad = np.maximum(np.maximum(np.abs(ca - x0), np.abs(ca - x1)), np.maximum(np.abs(cc - x0), np.abs(cc - x1))) / sigma ** 2
    l_p = np.stack((la[0], lc[0])) + err_l
    l_q = np.stack((la[1], lc[1])) + err_l
    return cell_excess(h=h, env_max=env_max, env_min=env_min, err_r=err_r, s_lo=s_lo, s_hi=s_hi, l_p=l_p, l_q=l_q,
                       grad=grad, eps=eps, f_pos=f_pos, b_pos=b_pos,
                       log_norm=math.log(sigma * math.sqrt(2.0 * math.pi)), inv8s2=0.125 / sigma ** 2)


def arb_runs(lo: np.ndarray, hi: np.ndarray, x: np.ndarray, top: np.ndarray, bot: np.ndarray, sigma: float,
             eps: float, error: float, reach: float) -> float | None:
    r"""The certified float of :math:`\sum_J [\sum_x (T(x) - e^\epsilon B(x)) (\Phi((J_{hi} - x)/\sigma) -
    \Phi((J_{lo} - x)/\sigma))]_+ +` ``error`` :math:`+ 2\Phi(-reach) (1 + e^\epsilon m / 2)` (the mass beyond ``reach`` sigma of every atom; a negative part
    beyond it on the ``m`` runs to +-inf) in arb balls (python-flint; the masses, the run ends and
    :math:`\sigma` are floats, hence exact), the precision doubled from 128 bits until the ball is
    narrower than :math:`2^{-36}` of its value; None if it does not narrow at 1024 bits. For the
    float route's sums where they cancel (docs/math/audits.md)."""
    from flint import arb, ctx

    from pufferfish.certified import arb_upper_float

    old = ctx.prec
    try:
        for prec in (128, 256, 512, 1024):
            ctx.prec = prec
            c = arb(eps).exp()
            root2s = arb(sigma) * arb(2).sqrt()
            w = [arb(float(t)) - c * arb(float(b)) for t, b in zip(top, bot)]
            total = arb(0)
            for a, b in zip(lo.tolist(), hi.tolist()):
                run = arb(0)
                for k, xk in enumerate(x.tolist()):
                    if top[k] == 0.0 and bot[k] == 0.0:
                        continue
                    if math.isfinite(a) and a >= xk:     # above the atom: survival functions
                        ea = ((arb(a) - arb(xk)) / root2s).erfc()
                        eb = ((arb(b) - arb(xk)) / root2s).erfc() if math.isfinite(b) else arb(0)
                    else:                                 # Phi(t) = erfc(-t / sqrt 2) / 2
                        ea = ((arb(xk) - arb(b)) / root2s).erfc() if math.isfinite(b) else arb(2)
                        eb = ((arb(xk) - arb(a)) / root2s).erfc() if math.isfinite(a) else arb(0)
                    run += w[k] * (ea - eb) / 2
                if run > 0:
                    total += run
                elif not run.upper() <= 0:
                    total += arb(0).union(run.upper())
            tail = (arb(reach) / arb(2).sqrt()).erfc()  # 2 Phi(-reach)
            ends = int(np.isinf(lo).sum() + np.isinf(hi).sum())
            total += tail * (1 + c * ends / 2)           # far mass; a negative part beyond reach on a run to +-inf
            if total.rad() <= 2.0 ** -36 * abs(total.mid()):
                return arb_upper_float(total + arb(error))
        return None
    finally:
        ctx.prec = old


def positive_runs(a, c, positive, first: bool, last: bool) -> list[tuple[float, float]]:
    """Maximal intervals of consecutive positive cells; the first / last extend to -inf / +inf when the
    sign at the end of the domain is positive (beyond it each prior has mass < 1e-300)."""
    runs, start = [], None
    for k in range(a.size):
        if positive[k]:
            if start is None:
                start = -math.inf if (k == 0 and first) else float(a[k])
            end = float(c[k])
        elif start is not None:
            runs.append((start, end))
            start = None
    if start is not None:
        runs.append((start, math.inf if last else end))
    return runs

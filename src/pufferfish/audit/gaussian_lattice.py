r"""Exact audits of Gaussian noise on lattice priors: hockey stick and Renyi divergence.

:math:`Y = X + \mathcal{N}(0, \sigma^2)`, :math:`X \mid s_i \sim P` and :math:`X \mid s_j \sim Q` two priors
on the integer lattice, so :math:`p_Y` is a finite mixture of Gaussians of one variance. Paper
002 (Pierquin et al., Renyi Pufferfish Privacy, ICML 2024) calibrates :math:`\sigma` with
:math:`W_\infty` (Cor. 3.1); this module computes what a :math:`\sigma` achieves:

* :func:`gaussian_hockey_stick` -- :math:`\delta(\epsilon) = \sup_S P_Y(S) - e^\epsilon Q_Y(S)` (both
  directions), the smallest :math:`\delta` of :math:`(\epsilon, \delta)`-pufferfish privacy, certified
  (an upper bound, :mod:`pufferfish.audit.gaussian_certify`): cells of the output line certified by a derivative enclosure (posterior
  means are monotone), split at the roots of :math:`r = \pm\epsilon`
  (:func:`pufferfish.audit.roots.illinois_roots`), then normal CDF differences, no quadrature;
* :func:`gaussian_renyi` -- :math:`D_\alpha(P_Y \| Q_Y)` (both directions), :math:`\alpha > 1`, the
  Renyi pufferfish privacy of paper 002, Def. 3.1, to relative accuracy :math:`10^{-10}` by
  adaptive Gauss-Kronrod quadrature of an integrand without cancellation, with tails
  bounded in closed form;
* :class:`GaussianLatticeAuditor` -- both, and the smallest :math:`\sigma` meeting a target.

:math:`\log p_Y(y)` is a log-sum-exp over the atoms within :math:`60 + \log n` of the largest term,
so a point costs the atoms within about :math:`12\sigma` of it and priors of :math:`10^5` users are
audited in seconds. Both divergences are non-increasing in :math:`\sigma` (a larger Gaussian is
the smaller one plus independent Gaussian noise, and data processing), so the accepted
scales form a half-line found by :func:`pufferfish.audit.search.smallest_scale`; as
:math:`\sigma \to 0` the audits tend to the priors' own divergences.

Derivation, error bounds and the monotonicity proof: docs/math/audits.md, "Gaussian noise on
lattice priors".
"""

from __future__ import annotations

import copy
import math

import numpy as np

from pufferfish.audit.atoms import PairAtoms
from pufferfish.audit.auditor import LatticeAuditor, TightMethod
from pufferfish.audit.certify import ACCEPT
from pufferfish.audit.gaussian_certify import TINY, U as CU, arb_runs, cells_excess, phi_mass, positive_runs, run_error
from pufferfish.audit.quadrature import MAX_PANELS, QUAD_RTOL, gk_log, log_psi, lse
from pufferfish.audit.roots import illinois_roots
from pufferfish.audit.target import Achieved, Target
from pufferfish.certified import upper
from pufferfish.checks import instance, real
from pufferfish.checks import search as checked_search
from pufferfish.errors import ComputationError, ConfigError
from pufferfish.lattice.distances import wasserstein_inf
from pufferfish.lattice.pmf import LatticePMF

__all__ = ["GaussianLatticeAuditor", "gaussian_hockey_stick", "gaussian_renyi"]

#: a log-sum-exp over n atoms drops the terms more than this + log n below its largest (e^-60 relative in all)
_DROP = 60.0
#: beyond this many sigma from every atom a prior puts mass below 2 Phi(-38.6) < 2^-1074 (the smallest subnormal)
_REACH = 38.6
#: entries of one (points x atoms) block of the evaluation
_BLOCK = 2_000_000
#: slack on r when certifying a cell against a level
_R_ATOL = 1e-12
#: a cell narrower than this (times sigma) is not split further
_MIN_CELL = 1e-12
#: J below e^-690 (1e-300) counts as 0: the tails need only be bounded below 1e-13 of that
_LOG_TINY = -690.0
#: tails left out of the Renyi quadrature are bounded by this (relative to J)
_TAIL_RTOL = 1e-13
#: one support: the Renyi quadrature runs in coordinates local to runs of atoms at most this many sigma wide
_LOCAL = 1e5

# ------------------------------------------------------------------------ validation
def _check_positive(name: str, value) -> float:
    return real(value, name=name, lo=0.0, lo_open=True)


def _check_epsilon(epsilon) -> float:
    return real(epsilon, name="epsilon", lo=0.0)


def _check_alpha(alpha) -> float:
    """A Renyi order: finite and > 1."""
    return real(alpha, name="alpha", lo=1.0, lo_open=True)


def _check_pmfs(p, q) -> None:
    instance(p, LatticePMF, name="p")
    instance(q, LatticePMF, name="q")


# ------------------------------------------------------------------------ the two mixtures
class _GaussPair:
    """log p_Y, log q_Y (without the common -log(sigma sqrt(2 pi))), posterior means and l = log p_Y/q_Y."""

    def __init__(self, atoms: PairAtoms, sigma: float):
        self.at, self.sigma = atoms, sigma
        self.inv2s2 = 0.5 / sigma ** 2
        self.drop = _DROP + math.log(atoms.x.size)

    def _radius(self, y: np.ndarray, idx: np.ndarray, logm: np.ndarray, top: float) -> np.ndarray:
        """Distance beyond which an atom's term is below e^-drop of the largest at y (docs/math/audits.md)."""
        xs = self.at.x[idx]
        j = np.searchsorted(xs, y)
        best = np.full(y.size, -np.inf)
        for k in (np.clip(j - 1, 0, xs.size - 1), np.clip(j, 0, xs.size - 1)):
            best = np.maximum(best, logm[idx[k]] - (y - xs[k]) ** 2 * self.inv2s2)
        return self.sigma * np.sqrt(2.0 * (top - best + self.drop))

    def __call__(self, y, *, ratio: bool = False):
        """(lp, lq, mp, mq[, ell]) at ``y`` (any order; centred coordinates)."""
        y = np.asarray(y, dtype=float)
        order = np.argsort(y, kind="stable")
        ys = y[order]
        at = self.at
        r_p = self._radius(ys, at.idx_p, at.la, at.top_p)
        r_q = self._radius(ys, at.idx_q, at.lb, at.top_q)
        lo_w = np.searchsorted(at.x, np.minimum(ys - r_p, ys - r_q), side="left")
        hi_w = np.searchsorted(at.x, np.maximum(ys + r_p, ys + r_q), side="right")
        n = ys.size
        out = np.empty((5 if ratio else 4, n))
        start = 0
        while start < n:
            size = min(n - start, 512)
            while True:
                a, b = int(lo_w[start:start + size].min()), int(hi_w[start:start + size].max())
                if size == 1 or size * (b - a) <= _BLOCK:
                    break
                size = max(1, _BLOCK // max(b - a, 1))
            sl = slice(start, start + size)
            out[:, sl] = self._block(ys[sl], a, b, ratio)
            start += size
        res = np.empty_like(out)
        res[:, order] = out
        return tuple(res)

    def _block(self, y: np.ndarray, a: int, b: int, ratio: bool) -> np.ndarray:
        at = self.at
        x = at.x[a:b]
        e = -((y[:, None] - x[None, :]) ** 2) * self.inv2s2
        rows = []
        sums = []
        for logm in (at.la[a:b], at.lb[a:b]):
            ex = e + logm[None, :]
            top = ex.max(axis=1)
            safe = np.where(np.isfinite(top), top, 0.0)
            w = np.exp(ex - safe[:, None])
            s = w.sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                rows.append(safe + np.log(s))
                sums.append((safe, s))
                rows_m = (w @ x) / s
            rows.append(rows_m)
        lp, mp, lq, mq = rows
        if not ratio:
            return np.vstack((lp, lq, mp, mq))
        (tp, sp), (tq, sq) = sums
        common = np.maximum(tp, tq)
        with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
            d = (np.exp(e + at.log_diff[a:b][None, :] - common[:, None]) * at.sign_diff[a:b][None, :]).sum(axis=1)
            rel = d / (sq * np.exp(tq - common))
            ell = np.where(np.abs(rel) <= 0.5, np.log1p(rel), lp - lq)
        return np.vstack((lp, lq, mp, mq, ell))


def _segments(x: np.ndarray, reach: float) -> list[tuple[float, float]]:
    """The union of [x - reach, x + reach] over the atoms, as disjoint intervals."""
    starts, ends = x - reach, x + reach
    breaks = np.flatnonzero(starts[1:] > ends[:-1])
    lo = np.concatenate(([starts[0]], starts[breaks + 1]))
    hi = np.concatenate((ends[breaks], [ends[-1]]))
    return list(zip(lo.tolist(), hi.tolist()))


# ------------------------------------------------------------------------ hockey stick
def _tents(ra, rc, h, s_lo, s_hi):
    """(max, min) over a cell of width h of any r with r(a) = ra, r(c) = rc and s_lo <= r' <= s_hi."""
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = s_hi - s_lo
        t_up = np.clip((rc - ra - s_lo * h) / spread, 0.0, h)
        t_dn = np.clip((ra - rc + s_hi * h) / spread, 0.0, h)
        up = np.where(spread > 0, ra + s_hi * t_up, np.maximum(ra, rc))
        dn = np.where(spread > 0, ra + s_lo * t_dn, np.minimum(ra, rc))
    return np.maximum(up, np.maximum(ra, rc)), np.minimum(dn, np.minimum(ra, rc))


def _select(cells: dict, keep: np.ndarray) -> dict:
    """The cells where ``keep`` holds (the posterior means are 2 x n)."""
    return {k: (v[:, keep] if v.ndim == 2 else v[keep]) for k, v in cells.items()}


def _join(cells: dict, split: np.ndarray, rs: np.ndarray, ms: np.ndarray, ss: np.ndarray, ls: np.ndarray) -> dict:
    """Every cell [a, c] split at ``split`` into [a, split] and [split, c] (r, means, slack, log densities there)."""
    return {"la": np.concatenate((cells["la"], ls), axis=1), "lc": np.concatenate((ls, cells["lc"]), axis=1),
            "ca": np.concatenate((cells["ca"], split)), "cc": np.concatenate((split, cells["cc"])),
            "ra": np.concatenate((cells["ra"], rs)), "rc": np.concatenate((rs, cells["rc"])),
            "ma": np.concatenate((cells["ma"], ms), axis=1), "mc": np.concatenate((ms, cells["mc"]), axis=1),
            "slack_a": np.concatenate((cells["slack_a"], ss)), "slack_c": np.concatenate((ss, cells["slack_c"]))}


def _start_cells(at: PairAtoms, ev: _GaussPair, sigma: float) -> tuple:
    """The first cells (width sigma / 2 over the atoms +- _REACH sigma): r at every node, the cells
    to certify, and the gaps between segments (negligible mass: positive in neither direction)."""
    h0 = 0.5 * sigma
    nodes, gap = [], []
    for lo, hi in _segments(at.x, _REACH * sigma):
        k = max(2, int(math.ceil((hi - lo) / h0)))
        pts = np.linspace(lo, hi, k + 1)
        nodes.append(pts)
        g = np.zeros(k + 1, dtype=bool)
        g[-1] = True                                   # the cell after a segment's end is a gap
        gap.append(g)
    y = np.concatenate(nodes)
    is_gap = np.concatenate(gap)[:-1]
    lp, lq, mp, mq = ev(y)
    r = lp - lq
    cells = {"ca": y[:-1], "cc": y[1:], "ra": r[:-1], "rc": r[1:],
             "ma": np.stack((mp[:-1], mq[:-1])), "mc": np.stack((mp[1:], mq[1:])),
             "la": np.stack((lp[:-1], lq[:-1])), "lc": np.stack((lp[1:], lq[1:])),
             "slack_a": 1e-14 * (np.abs(lp[:-1]) + np.abs(lq[:-1])),
             "slack_c": 1e-14 * (np.abs(lp[1:]) + np.abs(lq[1:]))}
    none = np.zeros(int(is_gap.sum()), bool)
    return r, _select(cells, ~is_gap), (y[:-1][is_gap], y[1:][is_gap], none, none)


def _certify(cells: dict, ev: _GaussPair, sigma: float, eps: float, scale_m: float) -> tuple:
    """One round: the cells certified (a, c, forward positive, backward positive), the bound on what
    the given-up ones could add to delta (over (1 + e^eps) / (sigma sqrt(2 pi))), the cells left
    (split at a root of r = +-eps where the derivative enclosure certifies one, else in the middle)."""
    ca, cc, ra, rc, ma, mc = (cells[k] for k in ("ca", "cc", "ra", "rc", "ma", "mc"))
    h = cc - ca
    s_lo = (ma[0] - mc[1]) / sigma ** 2 - scale_m
    s_hi = (mc[0] - ma[1]) / sigma ** 2 + scale_m
    env_max, env_min = _tents(ra, rc, h, s_lo, s_hi)
    tol = _R_ATOL + np.maximum(cells["slack_a"], cells["slack_c"])
    f_below, f_above = env_max <= eps + tol, env_min >= eps - tol
    b_below, b_above = env_min >= -eps - tol, env_max <= -eps + tol   # backward: positive where r < -eps
    f_cross = (ra - eps) * (rc - eps) < 0
    b_cross = (ra + eps) * (rc + eps) < 0
    ok = (f_below | f_above) & (b_below | b_above) & ~f_cross & ~b_cross
    give_up = ~ok & ~f_cross & ~b_cross & (h <= _MIN_CELL * sigma)   # a tangency (docs/math/audits.md)
    width = float(np.sum(h[give_up])) if give_up.any() else 0.0
    fin = ok | give_up
    f_pos = np.where(f_below | f_above, f_above & ~f_below, np.minimum(ra, rc) > eps)
    b_pos = np.where(b_below | b_above, b_above & ~b_below, np.maximum(ra, rc) < -eps)
    done = (ca[fin], cc[fin], f_pos[fin], b_pos[fin])
    excess = cells_excess(_select(cells, fin), ev.at.x, sigma, eps, f_pos[fin], b_pos[fin],
                     (h[fin], env_max[fin], env_min[fin], s_lo[fin], s_hi[fin])) if fin.any() else (0.0, 0.0)
    todo = ~fin
    cells = _select(cells, todo)
    if cells["ca"].size == 0:
        return done, width, excess, cells
    ca, cc, ra, rc = cells["ca"], cells["cc"], cells["ra"], cells["rc"]
    s_lo, s_hi, f_cross, b_cross = s_lo[todo], s_hi[todo], f_cross[todo], b_cross[todo]
    split = 0.5 * (ca + cc)
    monotone = (s_lo > 0) | (s_hi < 0)
    for level, cross in zip((eps, -eps), (f_cross, b_cross & ~f_cross)):
        pick = np.flatnonzero(cross & monotone & (cc - ca > _MIN_CELL * sigma))
        if pick.size:
            root = illinois_roots(lambda t, _, lv=level: (lambda v: v[0] - v[1] - lv)(ev(t)),
                                  ca[pick], cc[pick], ra[pick] - level, rc[pick] - level, 1e-13 * sigma,
                                  max_iter=200)
            inside = (root > ca[pick]) & (root < cc[pick])
            split[pick[inside]] = root[inside]
    lps, lqs, mps, mqs = ev(split)
    rs = lps - lqs
    ss = 1e-14 * (np.abs(lps) + np.abs(lqs))
    for level, cross in zip((eps, -eps), (f_cross, b_cross)):
        snap = cross & (np.abs(rs - level) < 1e-9)
        ss = np.where(snap, ss + np.abs(rs - level), ss)             # the snap is part of r's error
        rs = np.where(snap, level, rs)                                  # a root sits on its level
    return done, width, excess, _join(cells, split, rs, np.stack((mps, mqs)), ss, np.stack((lps, lqs)))


def _hockey_gauss(at: PairAtoms, sigma: float, eps: float, arb_sums: bool = False) -> tuple[float, float]:
    """(H_{e^eps}(P_Y || Q_Y), H_{e^eps}(Q_Y || P_Y)) for Gaussian noise (docs/math/audits.md)."""
    if np.array_equal(at.pa, at.pb):  # P = Q: P_Y = Q_Y and sup_S (1 - e^eps) P_Y(S) = 0 (no sign change to certify)
        return 0.0, 0.0
    ev = _GaussPair(at, sigma)
    c_eps = math.exp(eps)
    r, cells, gaps = _start_cells(at, ev, sigma)
    n = at.x.size
    # the rounding of the posterior means (docs/math/audits.md, "Certified values: Gaussian noise")
    scale_m = (1.0 + float(np.max(np.abs(at.x)))) * max(1e-13, 16.0 * CU * (2000.0 + math.log(n)) + 2.0 * (n + 8) * CU) / sigma ** 2
    done = [gaps]                                      # (a, c, forward positive, backward positive)
    extra = 0.0
    hidden = [0.0, 0.0]
    for _ in range(200):
        if cells["ca"].size == 0:
            break
        finished, width, excess, cells = _certify(cells, ev, sigma, eps, scale_m)
        hidden[0] += excess[0]
        hidden[1] += excess[1]
        if width:                                      # a tangency: bound what it could add (docs/math/audits.md)
            extra += width * (1.0 + c_eps) / (sigma * math.sqrt(2.0 * math.pi))
        done.append(finished)
    if cells["ca"].size:                               # never seen: bound the leftovers
        extra += float(np.sum(cells["cc"] - cells["ca"])) * (1.0 + c_eps) / (sigma * math.sqrt(2.0 * math.pi))
    return _sum_runs(at, sigma, eps, done, r, extra, hidden, arb_sums)


def _sum_runs(at: PairAtoms, sigma: float, eps: float, done: list, r: np.ndarray, extra: float,
              hidden: list, arb_sums: bool) -> tuple[float, float]:
    """delta in both directions, certified: over the maximal runs of positive cells, sum_x (P(x) - e^eps Q(x))
    times the normal mass of the run (docs/math/audits.md), plus ``extra``, plus the bound on the
    rounding of the sums and on what the cells hide (``hidden``; docs/math/audits.md, "Certified values")."""
    from scipy.special import log_ndtr

    c_eps = math.exp(eps)
    a_all, c_all, f_all, b_all = (np.concatenate([d[k] for d in done]) for k in range(4))
    order = np.argsort(a_all, kind="stable")
    a_all, c_all, f_all, b_all = a_all[order], c_all[order], f_all[order], b_all[order]
    out = []
    # the mass beyond 38.6 sigma of every atom (gaps and tails): below 2 Phi(-38.6) < 2^-1074 in all
    far = TINY
    for positive, first, last, w_sign, hide in ((f_all, r[0] > eps, r[-1] > eps, 1, hidden[0]),
                                               (b_all, r[0] < -eps, r[-1] < -eps, -1, hidden[1])):
        runs = positive_runs(a_all, c_all, positive, first, last)
        error = extra + hide + far
        if not runs:                                   # 0 + the bounds (one subnormal: the far mass alone)
            out.append(TINY if extra + hide == 0.0 else upper(0.0, (extra + hide) * (1.0 + 1e-6) + far))
            continue
        lo = np.array([u for u, _ in runs])
        hi = np.array([v for _, v in runs])
        w_top, other = (at.pa, at.pb) if w_sign > 0 else (at.pb, at.pa)
        w = w_top - c_eps * other
        # a run to +-inf may hold a negative part beyond reach: at most e^eps Phi(-reach) each
        ends = int(np.isinf(lo).sum() + np.isinf(hi).sum())
        error += ends * (math.exp(eps + float(log_ndtr(-_REACH))) * (1.0 + 1e-9) + TINY)
        parts = []
        step = max(1, _BLOCK // max(at.x.size, 1))
        for k in range(0, lo.size, step):
            mass, merr = phi_mass(lo[k:k + step], hi[k:k + step], at.x, sigma)
            parts.append(np.maximum(mass @ w, 0.0))
            error += float(np.sum(run_error(mass, merr, w, other, c_eps)))
        total = math.fsum(np.concatenate(parts).tolist())
        bound = upper(total, error * (1.0 + 1e-6) + CU * total)
        if (error > ACCEPT * total and extra + hide <= ACCEPT * total) or bound < 2.0 ** -1000 or arb_sums:
            # the sums cancel, or delta is below the normal range: arb decides (docs/math/audits.md)
            got = arb_runs(lo, hi, at.x, w_top, other, sigma, eps, (extra + hide) * (1.0 + 1e-6), _REACH)
            bound = min(bound, got) if got is not None else bound
        out.append(bound)
    return out[0], out[1]


def gaussian_hockey_stick(p: LatticePMF, q: LatticePMF, *, epsilon: float, sigma: float) -> tuple[float, float]:
    r"""Both directions of the hockey-stick divergence of Y = X + N(0, ``sigma``^2), exactly.

    Returns ``(H_{e^eps}(P_Y || Q_Y), H_{e^eps}(Q_Y || P_Y))``, H_c(P || Q) = sup_S P(S) - c Q(S):
    the smallest delta of (epsilon, delta)-PP in each direction. Certified sign changes and
    closed-form normal CDF differences (docs/math/audits.md), plus a bound on their rounding and on
    what the cells' signs can hide: a certified upper bound, within 1e-9 of the truth except near a
    tangency (docs/math/audits.md, "Certified values: Gaussian noise on lattice priors").

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        Priors of the pair, released with :math:`\mathcal{N}(0, \sigma^2)` added.
    epsilon : float
        The :math:`\epsilon \ge 0` of the hockey stick :math:`H_{e^\epsilon}`.
    sigma : float
        Standard deviation of the Gaussian noise, :math:`> 0`.

    Returns
    -------
    tuple of float
        The smallest :math:`\delta` in each direction, ``(P to Q, Q to P)``.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Bad priors, a negative ``epsilon`` or a non-positive ``sigma``.
    """
    _check_pmfs(p, q)
    eps = _check_epsilon(epsilon)
    sigma = _check_positive("sigma", sigma)
    return _hockey_gauss(PairAtoms(p, q), sigma, eps)


# ------------------------------------------------------------------------ Renyi
def _log_tail_bound(at: PairAtoms, sigma: float, alpha: float, bound: float, right: bool, forward: bool) -> float:
    """log of a bound on the integral of q_Y psi(p_Y / q_Y) beyond ``bound`` (docs/math/audits.md).

    (P, Q) = (P, Q) if ``forward`` else (Q, P). q psi(p/q) <= p^alpha q^(1-alpha) + (alpha - 1) q.
    Right tail (y >= bound >= every atom; the left one is its mirror image), a = the largest
    atom of P: p_Y(y) <= phi_sigma(y - a) M with M = sum_x P(x) exp(-(a - x)(2 bound - x - a) /
    2 sigma^2) <= 1, and q_Y(y) >= Q(b) phi_sigma(y - b) for every atom b of Q, so
    p^alpha q^(1-alpha) <= M^alpha Q(b)^(1-alpha) phi(y - a)^alpha phi(y - b)^(1-alpha), a Gaussian
    in y centred at c = alpha a - (alpha - 1) b whose integral beyond ``bound`` is
    M^alpha Q(b)^(1-alpha) exp((c^2 - alpha a^2 + (alpha - 1) b^2) / 2 sigma^2) Phi(-(bound - c) / sigma);
    the smallest over b is taken. And (alpha - 1) Q_Y(y > bound) <= (alpha - 1) Phi(-(bound - x_max) / sigma).
    """
    from scipy.special import log_ndtr

    sign = 1.0 if right else -1.0
    x = sign * at.x                                    # mirror: the left tail is a right tail of -X
    top_m, bot_m = (at.la, at.lb) if forward else (at.lb, at.la)
    ok_top, ok_bot = np.isfinite(top_m), np.isfinite(bot_m)
    edge = sign * bound
    a = float(np.max(x[ok_top]))
    gap = (a - x[ok_top]) * (2.0 * edge - x[ok_top] - a) / (2.0 * sigma ** 2)
    log_m = min(0.0, lse(top_m[ok_top] - gap))
    b = x[ok_bot]
    c = alpha * a - (alpha - 1.0) * b
    k = (c * c - alpha * a * a + (alpha - 1.0) * b * b) / (2.0 * sigma ** 2)
    first = alpha * log_m + (1.0 - alpha) * bot_m[ok_bot] + k + log_ndtr(-(edge - c) / sigma)
    second = math.log(alpha - 1.0) + float(log_ndtr(-(edge - float(np.max(x))) / sigma))
    return float(np.logaddexp(float(np.min(first)), second))


def _renyi_gauss(at: PairAtoms, sigma: float, alpha: float) -> tuple[float, float]:
    """(D_alpha(P_Y || Q_Y), D_alpha(Q_Y || P_Y)) for Gaussian noise (docs/math/audits.md)."""
    if np.array_equal(at.pa, at.pb):
        return 0.0, 0.0                                # the same prior: p_Y = q_Y
    ev = _GaussPair(at, sigma)
    log_norm = math.log(sigma * math.sqrt(2 * math.pi))

    def log_f(y):
        lp, lq, _, _, ell = ev(y, ratio=True)
        return np.vstack((lq + log_psi(ell, alpha), lp + log_psi(-ell, alpha))) - log_norm

    if np.array_equal(at.pa > 0, at.pb > 0):
        # one support: only the atoms +- _REACH sigma are integrated (docs/math/audits.md, "One support")
        from scipy.special import log_ndtr

        m = at.pa > 0
        log_c = [lse(np.concatenate((alpha * top[m] + (1.0 - alpha) * bot[m], math.log(alpha - 1.0) + bot[m])))
                 for top, bot in ((at.la, at.lb), (at.lb, at.la))]
        log_out = np.array(log_c) + math.log(2.0) + float(log_ndtr(-_REACH))
        blocks = []                                    # runs of segments within _LOCAL sigma
        for lo, hi in _segments(at.x, _REACH * sigma):
            count = max(int(math.ceil((hi - lo) / sigma)), 4)
            if blocks and hi - blocks[-1][0][0] <= _LOCAL * sigma:
                blocks[-1].append(np.linspace(lo, hi, count + 1))
            else:
                blocks.append([np.linspace(lo, hi, count + 1)])
        if sum(e.size for b in blocks for e in b) <= MAX_PANELS:
            log_j = np.full(2, -np.inf)
            for block in blocks:                       # the panels between two segments of a block included
                edges = np.concatenate(block)
                centre = float(at.x[np.argmin(np.abs(at.x - 0.5 * (edges[0] + edges[-1])))])
                local = copy.copy(at)
                local.x = at.x - centre                # exact: atoms are integers or half-integers
                ev_local = _GaussPair(local, sigma)

                def log_f_local(u, ev_local=ev_local):
                    lp, lq, _, _, ell = ev_local(u, ratio=True)
                    return np.vstack((lq + log_psi(ell, alpha), lp + log_psi(-ell, alpha))) - log_norm

                log_j = np.logaddexp(log_j, gk_log(log_f_local, edges - centre))
            if np.all(log_out <= math.log(_TAIL_RTOL) + np.maximum(log_j, _LOG_TINY)):
                d = np.logaddexp(0.0, log_j) / (alpha - 1.0)
                return float(d[0]), float(d[1])

    # the core: the atoms and the far peaks alpha x_P - (alpha - 1) x_Q of p^alpha q^(1-alpha) at both ends
    xp, xq = at.x[at.idx_p], at.x[at.idx_q]
    ends = [at.x[0], at.x[-1]]
    for top, bot in ((xp, xq), (xq, xp)):
        ends += [alpha * top[0] - (alpha - 1) * bot[0], alpha * top[-1] - (alpha - 1) * bot[-1]]
    lo_core, hi_core = float(min(ends)), float(max(ends))

    def panels(lo, hi):
        count = max(int(math.ceil((hi - lo) / sigma)), 4)
        if count > MAX_PANELS:
            raise ConfigError(f"sigma = {sigma!r}: the Renyi audit would need {count} panels of width sigma "
                              f"(at most {MAX_PANELS}); sigma is too small for priors this wide")
        return np.linspace(lo, hi, count + 1)

    reach = 10.0
    lo, hi = lo_core - reach * sigma, hi_core + reach * sigma
    log_j = gk_log(log_f, panels(lo, hi))
    # widen until the closed-form tail bounds are below _TAIL_RTOL of the integral so far
    for _ in range(20):
        tails = np.array([float(np.logaddexp(_log_tail_bound(at, sigma, alpha, lo, False, fwd),
                                             _log_tail_bound(at, sigma, alpha, hi, True, fwd)))
                          for fwd in (True, False)])
        if np.all(tails <= math.log(_TAIL_RTOL) + np.maximum(log_j, _LOG_TINY)):
            break
        step = reach * sigma
        atol = math.log(QUAD_RTOL) + log_j
        left = gk_log(log_f, panels(lo - step, lo), log_atol=atol)
        right = gk_log(log_f, panels(hi, hi + step), log_atol=atol)
        log_j = np.logaddexp(log_j, np.logaddexp(left, right))
        lo, hi = lo - step, hi + step
    else:
        raise ComputationError(f"Renyi tails not bounded below {_TAIL_RTOL:g} (sigma = {sigma!r}, alpha = {alpha!r})")
    d = np.logaddexp(0.0, log_j) / (alpha - 1.0)
    return float(d[0]), float(d[1])


def gaussian_renyi(p: LatticePMF, q: LatticePMF, *, alpha: float, sigma: float) -> tuple[float, float]:
    r"""Both directions of the Renyi divergence of Y = X + N(0, ``sigma``^2): (D_alpha(P_Y || Q_Y), D_alpha(Q_Y || P_Y)).

    alpha > 1; relative accuracy 1e-10, an estimate: NOT certified (issue 39 open for this route,
    docs/math/audits.md "Certified values: Gaussian noise"; docs/math/audits.md: J = integral q psi(p/q) by adaptive
    Gauss-Kronrod with bounded tails, D = log(1 + J) / (alpha - 1)). (alpha, epsilon)-RPP
    (paper 002, Def. 3.1) holds in a direction when its value is <= epsilon.

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        Priors of the pair, audited under Gaussian noise.
    alpha : float
        Renyi order (:math:`> 1`) of the guarantee checked.
    sigma : float
        Noise standard deviation :math:`\sigma > 0`.

    Returns
    -------
    tuple of float
        Forward and backward :math:`D_\alpha` of the noisy outputs.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        A prior that is not a lattice pmf, or ``alpha`` / ``sigma`` out of range.
    """
    _check_pmfs(p, q)
    alpha = _check_alpha(alpha)
    sigma = _check_positive("sigma", sigma)
    return _renyi_gauss(PairAtoms(p, q), sigma, alpha)


# ------------------------------------------------------------------------ auditor
class GaussianLatticeAuditor(LatticeAuditor):
    """:class:`~pufferfish.audit.auditor.Auditor` of Gaussian noise N(0, sigma^2) on two lattice priors.

    ``epsilon_delta``: :func:`gaussian_hockey_stick` (forward = H_{e^eps}(P_Y|s_i || P_Y|s_j)).
    ``renyi`` (``Target(epsilon, alpha=a)``, meaning D_alpha <= epsilon): :func:`gaussian_renyi`.
    ``smallest_scale``: the generic search (galloping, valid by the monotonicity argument of
    docs/math/audits.md) from :meth:`start_scale`; the bracket is widened as needed, so the
    start only saves steps.
    """

    noise = "gaussian"
    guarantees = ("epsilon_delta", "renyi")
    search = "gallop"
    order = 1
    tight = {"epsilon_delta": TightMethod(
        "tight_gaussian", "tight Gaussian, (ε, δ)-PP (exact audit)",
        "this project: the smallest Gaussian sigma whose exact hockey-stick divergence is <= delta")}

    def __init__(self, p: LatticePMF, q: LatticePMF, *, rtol: float = 1e-10, max_steps: int = 200):
        _check_pmfs(p, q)
        rtol, max_steps = checked_search(rtol, max_steps)
        self.p, self.q, self.rtol, self.max_steps = p, q, rtol, max_steps
        self._atoms = PairAtoms(p, q)
        self._span: int | None = None
        self._width = float(self._atoms.x[-1] - self._atoms.x[0]) + 1.0

    @classmethod
    def std(cls, scale: float) -> float:
        """sigma itself."""
        return float(scale)

    @property
    def span(self) -> int:
        """W_inf of the two priors (computed once)."""
        if self._span is None:
            self._span = int(wasserstein_inf(self.p, self.q))
        return self._span

    def start_scale(self, target: Target) -> float:
        """The sigma of paper 002's Cor. 3.1 (RPP: W_inf sqrt(alpha / (2 epsilon))) or of the classical
        Gaussian mechanism with sensitivity W_inf ((eps, delta): W_inf sqrt(2 log(1.25 / delta)) / epsilon)."""
        w = self.span if self.span > 0 else 1.0
        if target.guarantee == "epsilon_delta":
            return w * math.sqrt(2.0 * math.log(1.25 / target.delta)) / target.epsilon
        return w * math.sqrt(target.alpha / (2.0 * target.epsilon))

    def floor(self, target: Target) -> float:
        """Renyi: no sigma below the one whose quadrature would need more than MAX_PANELS panels (the
        core spans at most (2 alpha - 1) times the atoms' range, plus 2 x 10 sigma)."""
        if target.guarantee == "epsilon_delta":
            return super().floor(target)
        return 1.1 * (2.0 * target.alpha + 1.0) * self._width / MAX_PANELS

    def achieved(self, scale: float, target: Target) -> Achieved:
        target = self.check_target(target)
        sigma = _check_positive("sigma", scale)
        if target.guarantee == "epsilon_delta":
            fwd, bwd = _hockey_gauss(self._atoms, sigma, target.epsilon)
        else:
            fwd, bwd = _renyi_gauss(self._atoms, sigma, target.alpha)
        return Achieved(sigma, target, fwd, bwd)

    def decide(self, scale: float, target: Target) -> Achieved:
        """:meth:`achieved`; where (epsilon, delta) is not met, the CDF sums again in arb (their rounding
        bound dropped, what the cells can hide kept): the smaller certified value decides."""
        got = self.achieved(scale, target)
        if got.meets() or target.guarantee != "epsilon_delta":
            return got
        fwd, bwd = _hockey_gauss(self._atoms, got.scale, target.epsilon, arb_sums=True)
        return Achieved(got.scale, target, min(fwd, got.forward), min(bwd, got.backward))

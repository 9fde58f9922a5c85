r"""The hockey-stick divergence of Laplace noise on two Gaussian-mixture priors, exactly (paper 004, eq. (1)).

For :math:`Y = X + \mathrm{Laplace}(b)` and a secret pair whose priors are 1-D Gaussian mixtures
(:class:`pufferfish.mixture.GMM`), :func:`delta_achieved` is the smallest :math:`\delta` for which
paper 004's eq. (1) holds: the max over both directions of
:math:`H_\epsilon(P \| Q) = \int [p(y) - e^\epsilon q(y)]_+ \, dy` (:func:`hockey_stick`).
The positive set of :math:`p - e^\epsilon q` is found exactly: a grid refined until the curvature
envelope of the log-ratio (:mod:`.log_ratio_envelope`, fact (c)) certifies every interval or
brackets a root, the roots refined all at once (:func:`pufferfish.audit.roots.illinois_roots`),
then the closed-form CDFs (:mod:`.emg_density`) summed over the positive runs (no quadrature;
tails beyond the mass window bounded below :math:`2 \cdot 10^{-17}`). The no-noise limit
(:func:`prior_hockey_stick`) bounds every :math:`b`; the divergence is non-increasing in
:math:`b` (docs/math/audits.md, "Laplace noise on Gaussian-mixture priors").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pufferfish.audit.emg_density import EmgFamily, GaussianFamily, as_prior, mass_between
from pufferfish.audit.log_ratio_envelope import (MAX_ROUNDS, MAX_WORK, Z_TAIL, LogRatioPair, curvature_envelope,
                                                 mass_window, refinement_grid)
from pufferfish.audit.roots import illinois_roots
from pufferfish.checks import real

__all__ = ["HockeyStick", "hockey_stick", "prior_hockey_stick", "delta_achieved"]

#: an uncertified interval is accepted once its possible contribution is below this
_ACCEPT = 1e-17
#: slack on r when certifying an interval against a level (root end points sit on it)
_R_ATOL = 1e-12


def _check_b(b) -> float:
    """A Laplace scale: finite and > 0."""
    return real(b, name="b", lo=0.0, lo_open=True)


def _roots(ev: LogRatioPair, a: np.ndarray, c: np.ndarray, fa: np.ndarray, fc: np.ndarray, level: np.ndarray,
           xtol: np.ndarray):
    """Roots of r(y) = level in brackets [a, c] (f = r - level changes sign), and the node values there.

    :func:`pufferfish.audit.roots.illinois_roots` with a bisection step whenever an end point
    has been kept twice (each bracket at least halves every three steps), at most 100 steps.
    """
    vals = np.empty((a.size, 4))

    def f(xs: np.ndarray, idx: np.ndarray) -> np.ndarray:
        v = ev(xs)
        vals[idx] = v
        return v[:, 0] - v[:, 1] - level[idx]

    return illinois_roots(f, a, c, fa, fc, xtol, max_iter=100, bisect_after=2), vals


def _runs(a: np.ndarray, c: np.ndarray, positive: np.ndarray, lo_tail: bool, hi_tail: bool):
    """Merge consecutive positive intervals [a_k, c_k] (sorted, contiguous) into runs (lo, hi).

    ``lo_tail`` / ``hi_tail`` extend the first / last run to -inf / +inf (or add a tail run).
    """
    lo_end, hi_end = (float(a[0]), float(c[-1])) if len(a) else (0.0, 0.0)
    a_ext = np.concatenate([[-math.inf], a, [hi_end]])
    c_ext = np.concatenate([[lo_end], c, [math.inf]])
    pos = np.concatenate([[lo_tail], positive, [hi_tail]]).astype(int)
    edges = np.diff(np.concatenate([[0], pos, [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    return tuple((float(a_ext[i]), float(c_ext[j])) for i, j in zip(starts, ends))


# ----------------------------------------------------------------------------- hockey stick

@dataclass(frozen=True)
class HockeyStick:
    """Both directions of the hockey-stick divergence of one secret pair at (epsilon, b).

    ``forward`` = H_eps(P_Y|s_i || P_Y|s_j), ``backward`` = H_eps(P_Y|s_j || P_Y|s_i);
    ``delta`` = max of the two. ``forward_set`` / ``backward_set`` are the intervals
    (lo, hi) where p_i > e^eps p_j (resp. p_j > e^eps p_i); ``error_bound`` bounds the
    absolute error of each direction (window tails and uncertified intervals). ``b = 0``
    is the noise-free limit (the priors themselves).
    """

    epsilon: float
    b: float
    forward: float
    backward: float
    forward_set: tuple = field(default=(), repr=False)
    backward_set: tuple = field(default=(), repr=False)
    error_bound: float = 0.0
    evaluations: int = 0

    @property
    def delta(self) -> float:
        return max(self.forward, self.backward)


def _round(ev: LogRatioPair, w: dict, eps: float) -> tuple:
    """One round of :func:`_hockey` on the work intervals ``w``: the intervals finished (a, c,
    forward positive, backward positive), the error bound of those accepted uncertified, and the
    mask of the intervals still to split (with their forward / backward crossings)."""
    wa, wc, va, vc, wra, wrc = (w[k] for k in ("wa", "wc", "va", "vc", "wra", "wrc"))
    fi, fj, scale = ev.fi, ev.fj, math.exp(eps)
    h = wc - wa
    d_curv, u_curv = ev.curvatures(wa, wc, va, vc)
    env_max, env_min = curvature_envelope(wra, wrc, h, d_curv, u_curv)
    # forward: positive where r > eps; backward: positive where r < -eps
    f_below, f_above = env_max <= eps + _R_ATOL, env_min >= eps - _R_ATOL
    b_below = env_min >= -eps - _R_ATOL      # r >= -eps: backward not positive
    b_above = env_max <= -eps + _R_ATOL      # r <= -eps: backward positive
    f_cross = (wra - eps) * (wrc - eps) < 0
    b_cross = (wra + eps) * (wrc + eps) < 0
    f_ok, b_ok = f_below | f_above, b_below | b_above
    done = f_ok & b_ok & ~f_cross & ~b_cross
    # possible contribution of an interval left unresolved (given its end points' side): P(I) <= |I| sup_I p
    log_len = np.log(np.maximum(h, 1e-300))
    pi_mass = np.exp(np.minimum(fi.log_sup(wa, wc, va[:, 0], vc[:, 0]) + log_len, 0.0))
    pj_mass = np.exp(np.minimum(fj.log_sup(wa, wc, va[:, 1], vc[:, 1]) + log_len, 0.0))
    with np.errstate(over="ignore", invalid="ignore"):
        f_bound = np.where(f_ok, 0.0, np.where(np.minimum(wra, wrc) >= eps,
                                               pi_mass * np.expm1(np.maximum(eps - env_min, 0.0)),
                                               scale * pj_mass * np.expm1(np.maximum(env_max - eps, 0.0))))
        b_bound = np.where(b_ok, 0.0, np.where(np.maximum(wra, wrc) <= -eps,
                                               pj_mass * np.expm1(np.maximum(env_max + eps, 0.0)),
                                               scale * pi_mass * np.expm1(np.maximum(-eps - env_min, 0.0))))
        bound = np.nan_to_num(f_bound, nan=np.inf) + np.nan_to_num(b_bound, nan=np.inf)
    tiny = h <= 1e-12 * np.maximum(1e-300, np.maximum(np.abs(wa), np.abs(wc)))
    accept = ~done & ~f_cross & ~b_cross & ((bound <= _ACCEPT) | tiny | (wa.size > MAX_WORK))
    finished = done | accept
    err = float(np.sum(np.minimum(bound[accept], 1.0))) if np.any(accept) else 0.0
    fwd_pos = np.where(f_ok, f_above & ~f_below, np.minimum(wra, wrc) > eps)
    bwd_pos = np.where(b_ok, b_above & ~b_below, np.maximum(wra, wrc) < -eps)
    return (wa[finished], wc[finished], fwd_pos[finished], bwd_pos[finished]), err, ~finished, f_cross, b_cross


def _split(ev: LogRatioPair, w: dict, eps: float, fc_: np.ndarray, bc_: np.ndarray) -> dict:
    """The work intervals split at a root of r = +-eps where one is bracketed, else at the midpoint."""
    wa, wc, va, vc, wra, wrc = (w[k] for k in ("wa", "wc", "va", "vc", "wra", "wrc"))
    cross = fc_ | bc_
    split = 0.5 * (wa + wc)
    sv = np.empty((wa.size, 4))
    if cross.any():
        level = np.where(fc_[cross], eps, -eps)
        xtol = 1e-13 * np.maximum(np.abs(wa[cross]) + np.abs(wc[cross]), wc[cross] - wa[cross])
        x, xv = _roots(ev, wa[cross], wc[cross], wra[cross] - level, wrc[cross] - level, level, xtol)
        inside = (x > wa[cross]) & (x < wc[cross])
        split[cross] = np.where(inside, x, split[cross])
        sv[cross] = xv
        redo = np.flatnonzero(cross)[~inside]
        if redo.size:
            sv[redo] = ev(split[redo])
    if (~cross).any():
        sv[~cross] = ev(split[~cross])
    s_r = sv[:, 0] - sv[:, 1]
    # a root found for a crossing interval sits on its level exactly
    s_r = np.where(fc_ & (np.abs(s_r - eps) < 1e-9), eps,
                   np.where(bc_ & ~fc_ & (np.abs(s_r + eps) < 1e-9), -eps, s_r))
    return {"wa": np.concatenate([wa, split]), "wc": np.concatenate([split, wc]),
            "va": np.concatenate([va, sv]), "vc": np.concatenate([sv, vc]),
            "wra": np.concatenate([wra, s_r]), "wrc": np.concatenate([s_r, wrc])}


def _hockey(fi, fj, eps: float, lo: float, hi: float, y: np.ndarray):
    """Engine: (forward, backward, forward runs, backward runs, error bound, evaluations).

    ``fi``, ``fj`` are families on the same line, [lo, hi] the window (outside it both
    have negligible mass; the tails take the sign of r at the ends), ``y`` the first nodes.
    """
    ev = LogRatioPair(fi, fj)
    v = ev(y)
    r = v[:, 0] - v[:, 1]
    # work intervals [wa, wc], node values va, vc, and r at both ends
    w = {"wa": y[:-1], "wc": y[1:], "va": v[:-1], "vc": v[1:], "wra": r[:-1], "wrc": r[1:]}
    final = []  # arrays (a, c, fwd_positive, bwd_positive) of finished intervals
    err = 0.0
    scale = math.exp(eps)
    for _round_ in range(MAX_ROUNDS):
        if w["wa"].size == 0:
            break
        finished, extra, todo, f_cross, b_cross = _round(ev, w, eps)
        err += extra
        final.append(finished)
        w = {k: val[todo] for k, val in w.items()}
        if w["wa"].size == 0:
            break
        w = _split(ev, w, eps, f_cross[todo], b_cross[todo])
    # left over after the last round (not seen in practice): end points' side, crude bound
    if w["wa"].size:
        wa, wc, va, vc = w["wa"], w["wc"], w["va"], w["vc"]
        final.append((wa, wc, np.minimum(w["wra"], w["wrc"]) > eps, np.maximum(w["wra"], w["wrc"]) < -eps))
        lm = np.log(np.maximum(wc - wa, 1e-300))
        err += float(np.sum(np.minimum(1.0, np.exp(np.minimum(fi.log_sup(wa, wc, va[:, 0], vc[:, 0]) + lm, 0.0))
                                       + scale * np.exp(np.minimum(fj.log_sup(wa, wc, va[:, 1], vc[:, 1]) + lm, 0.0)))))
    fa, fc, fpos, bpos = (np.concatenate([f[n] for f in final]) for n in range(4))
    order = np.argsort(fa, kind="stable")
    fa, fc, fpos, bpos = fa[order], fc[order], fpos[order], bpos[order]
    f_runs = _runs(fa, fc, fpos, r[0] > eps, r[-1] > eps)
    b_runs = _runs(fa, fc, bpos, r[0] < -eps, r[-1] < -eps)

    def total(runs, p, q):
        if not runs:
            return 0.0
        a_ = np.array([x[0] for x in runs])
        c_ = np.array([x[1] for x in runs])
        return float(max(0.0, np.sum(mass_between(a_, c_, p) - scale * mass_between(a_, c_, q))))

    forward = total(f_runs, fi, fj)
    backward = total(b_runs, fj, fi)
    tails = (np.array([-math.inf, hi]), np.array([lo, math.inf]))
    tail = float(np.sum(mass_between(*tails, fi)) + np.sum(mass_between(*tails, fj)))
    return forward, backward, f_runs, b_runs, err + tail * (1 + scale), ev.points


def hockey_stick(prior_i, prior_j, *, epsilon: float, b: float) -> HockeyStick:
    r"""Both directions of the hockey-stick divergence of Y = X + Laplace(b), exactly.

    See docs/math/audits.md for the method (roots of r = +-eps on a certified grid,
    closed-form CDFs, error bound).

    Parameters
    ----------
    prior_i, prior_j : pufferfish.mixture.GMM or tuple
        Priors of :math:`X` under the two secrets.
    epsilon : float
        Level :math:`\epsilon > 0`.
    b : float
        Laplace noise scale, positive.

    Returns
    -------
    HockeyStick
        Both directions, the positive runs, the error bound and the points evaluated.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Bad priors, or ``epsilon`` / ``b`` not finite and positive.
    """
    pi, pj, b = as_prior(prior_i, name="prior_i"), as_prior(prior_j, name="prior_j"), _check_b(b)
    eps = real(epsilon, name="epsilon", lo=0.0, lo_open=True)
    lo, hi = mass_window(pi, pj, b)
    atoms = np.concatenate([pi.means[pi.stds == 0], pj.means[pj.stds == 0]])
    y = refinement_grid(lo, hi, b, atoms)
    fwd, bwd, f_runs, b_runs, err, points = _hockey(EmgFamily(pi, b), EmgFamily(pj, b), eps, lo, hi, y)
    return HockeyStick(eps, b, fwd, bwd, f_runs, b_runs, err, points)


def prior_hockey_stick(prior_i, prior_j, *, epsilon: float) -> HockeyStick:
    r"""The noise-free limit b -> 0: hockey-stick divergences of the priors themselves.

    delta_achieved(b) is non-increasing in b and tends to this value as b -> 0 (Y -> X;
    by data processing it is also an upper bound for every b). Atoms (std 0) are compared
    atom by atom, [P_i{x} - e^eps P_j{x}]_+, and the continuous parts with the same
    certified-root engine as :func:`hockey_stick`, on the Gaussian densities (class
    ``GaussianFamily`` gives the curvature bounds).

    Parameters
    ----------
    prior_i, prior_j : pufferfish.mixture.GMM or tuple
        Mixtures compared as they are (no noise).
    epsilon : float
        The :math:`\epsilon > 0` of the divergence.

    Returns
    -------
    HockeyStick
        The noise-free divergences, an upper bound for every :math:`b`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Bad priors or ``epsilon``.
    """
    pi, pj = as_prior(prior_i, name="prior_i"), as_prior(prior_j, name="prior_j")
    eps = real(epsilon, name="epsilon", lo=0.0, lo_open=True)
    scale = math.exp(eps)
    fwd = bwd = 0.0
    atoms = np.unique(np.concatenate([pi.means[pi.stds == 0], pj.means[pj.stds == 0]]))
    for x in atoms:
        wi = float(np.sum(pi.weights[(pi.stds == 0) & (pi.means == x)]))
        wj = float(np.sum(pj.weights[(pj.stds == 0) & (pj.means == x)]))
        fwd += max(0.0, wi - scale * wj)
        bwd += max(0.0, wj - scale * wi)
    gi, gj = GaussianFamily(pi), GaussianFamily(pj)
    f_runs = b_runs = ()
    err, points = 0.0, 0
    if gi.total > 0 and gj.total > 0:
        mu = np.concatenate([gi.mu, gj.mu])
        sd = np.concatenate([gi.sd, gj.sd])
        lo, hi = float(np.min(mu - Z_TAIL * sd)), float(np.max(mu + Z_TAIL * sd))
        extra = (mu[:, None] + sd[:, None] * np.linspace(-Z_TAIL, Z_TAIL, 69)[None, :]).ravel()
        y = refinement_grid(lo, hi, float(np.max(sd)) / 4, extra)
        cf, cb, f_runs, b_runs, err, points = _hockey(gi, gj, eps, lo, hi, y)
        fwd, bwd = fwd + cf, bwd + cb
    else:
        fwd += gi.total
        bwd += gj.total
    return HockeyStick(eps, 0.0, fwd, bwd, f_runs, b_runs, err, points)


def delta_achieved(prior_i, prior_j, *, epsilon: float, b: float) -> float:
    r"""The smallest delta for which Y = X + Laplace(b) is (epsilon, delta)-pufferfish private on the pair.

    max over both directions of the hockey-stick divergence integral [p_i - e^eps p_j]_+ dy,
    computed exactly (:func:`hockey_stick`). Non-increasing in b (docs/math/audits.md).

    Parameters
    ----------
    prior_i, prior_j : pufferfish.mixture.GMM or tuple
        The pair's Gaussian-mixture priors.
    epsilon : float
        Target :math:`\epsilon > 0` of the :math:`(\epsilon, \delta)` guarantee.
    b : float
        Scale of the Laplace mechanism audited.

    Returns
    -------
    float
        The larger hockey-stick divergence: the smallest :math:`\delta` met.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        As :func:`hockey_stick`.
    """
    return hockey_stick(prior_i, prior_j, epsilon=epsilon, b=b).delta

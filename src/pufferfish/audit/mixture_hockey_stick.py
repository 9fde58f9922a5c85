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

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from pufferfish.audit.emg_density import (LOG_ULPS, EmgFamily, GaussianFamily, as_prior, certified_mass_difference,
                                          mass_between, mass_error, tail_log_ratios)
from pufferfish.audit.log_ratio_envelope import (MAX_ROUNDS, MAX_WORK, Z_TAIL, LogRatioPair, curvature_envelope,
                                                 excess_above, mass_window, refinement_grid)
from pufferfish.audit.roots import illinois_roots
from pufferfish.certified import CERTIFIED_RTOL, upper
from pufferfish.checks import real
from pufferfish.errors import ComputationError

__all__ = ["HockeyStick", "hockey_stick", "prior_hockey_stick", "delta_achieved"]

#: an uncertified interval is accepted once its possible contribution is below this
_ACCEPT = 1e-17
#: slack on r when certifying an interval against a level (root end points sit on it)
_R_ATOL = 1e-12
#: the float sum of the run masses is used while its rounding bound is below this share of it (else arb)
_FLOAT_SHARE = 1e-10


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
    (lo, hi) where p_i > e^eps p_j (resp. p_j > e^eps p_i). ``forward`` and ``backward`` are
    certified upper ends: the value computed plus ``forward_error`` / ``backward_error``, proven
    bounds on its absolute error (classification of every interval, window tails, rounding of
    the closed-form CDFs; docs/math/audits.md, "Certified values of the mixture routes"), the sum
    rounded upward. ``error_bound`` is the larger of the two. ``tight``: the value is also proven
    within ``CERTIFIED_RTOL`` (relative) of the truth; when not (a divergence far below its error
    floor, about 1e-16 times the masses involved), it is a looser certified upper bound.
    ``b = 0`` is the noise-free limit (the priors themselves).
    """

    epsilon: float
    b: float
    forward: float
    backward: float
    forward_set: tuple = field(default=(), repr=False)
    backward_set: tuple = field(default=(), repr=False)
    error_bound: float = 0.0
    evaluations: int = 0
    forward_error: float = 0.0
    backward_error: float = 0.0

    @property
    def delta(self) -> float:
        return max(self.forward, self.backward)

    @property
    def tight(self) -> bool:
        """Both directions proven within ``CERTIFIED_RTOL`` of the truth (the truth is at least
        the value minus twice its error bound, one float more for the upward rounding)."""
        return all(_within(v, e) for v, e in ((self.forward, self.forward_error), (self.backward, self.backward_error)))


def _within(value: float, error: float) -> bool:
    if error == 0.0:
        return True
    low = value - 2.0 * error - math.ulp(value)
    return low > 0.0 and value <= low * (1.0 + 0.5 * CERTIFIED_RTOL)


def _interval_errors(ev: LogRatioPair, eps: float, a, c, va, vc, curv, pos, log_mass, *,
                     cheap: bool = False) -> tuple[float, float]:
    r"""(forward, backward): bounds on what the finished intervals [a, c] hide from their classification.

    ``pos`` = (forward positive, backward positive), ``curv`` = (D, U) of fact (c), ``log_mass`` the
    logs of :math:`|I| \sup_I p_i` and :math:`|I| \sup_I p_j` (fact (a)). The node values of
    :math:`r` are widened by their evaluation error (:meth:`EmgFamily.log_error`). Forward, outside its
    set: :math:`[p_i - e^\epsilon p_j]_+ = p_i [1 - e^{\epsilon - r}]_+ \le p_i (r - \epsilon)_+`, at most
    :math:`|I| \sup p_i \cdot L M` with (:math:`M`, :math:`L`) of :func:`excess_above`; inside it, the
    negative part :math:`p_i (e^{\epsilon - r} - 1)_+ \le |I| \sup p_i \cdot L\, \mathrm{expm1}(M)`. Each is
    capped by the interval's mass, and doubled to cover its own rounding. Backward: the same on
    :math:`-r`, roles of :math:`p_i`, :math:`p_j` swapped. ``cheap``: the node errors of ``term_error``
    (larger, no special function evaluated) instead of ``log_error``.
    """
    if a.size == 0:
        return 0.0, 0.0
    h = c - a
    node_error = (lambda f, y: f.term_error(y)) if cheap else (lambda f, y: f.log_error(y))
    m_a = node_error(ev.fi, a) + node_error(ev.fj, a)
    m_c = node_error(ev.fi, c) + node_error(ev.fj, c)
    ra, rc = va[:, 0] - va[:, 1], vc[:, 0] - vc[:, 1]
    d, u = curv[0] * (1.0 + 1e-9), curv[1] * (1.0 + 1e-9)
    with np.errstate(over="ignore", invalid="ignore"):
        mi, mj = np.exp(log_mass[0]), np.exp(log_mass[1])
        cap_i, cap_j, scale = np.minimum(mi, 1.0), np.minimum(mj, 1.0), math.exp(eps)
        above = [excess_above(ra + m_a, rc + m_c, h, d, level) for level in (eps, -eps)]     # r > level
        below = [excess_above(m_a - ra, m_c - rc, h, u, level) for level in (-eps, eps)]     # r < -level
        fwd = np.where(pos[0], np.fmin(2.0 * mi * below[0][1] * np.expm1(below[0][0]), scale * cap_j),
                       np.fmin(2.0 * mi * above[0][1] * above[0][0], cap_i))
        bwd = np.where(pos[1], np.fmin(2.0 * mj * above[1][1] * np.expm1(above[1][0]), scale * cap_i),
                       np.fmin(2.0 * mj * below[1][1] * below[1][0], cap_j))
    return float(np.sum(fwd)), float(np.sum(bwd))


def _round(ev: LogRatioPair, w: dict, eps: float, near: float) -> tuple:
    """One round of :func:`_hockey` on the work intervals ``w``: the intervals finished (a, c,
    forward positive, backward positive, node values, curvature bounds, log |I| sup p), and the
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
    log_mi = fi.log_sup(wa, wc, va[:, 0], vc[:, 0]) + log_len
    log_mj = fj.log_sup(wa, wc, va[:, 1], vc[:, 1]) + log_len
    pi_mass, pj_mass = np.exp(np.minimum(log_mi, 0.0)), np.exp(np.minimum(log_mj, 0.0))
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
    fwd_pos = np.where(f_ok, f_above & ~f_below, np.minimum(wra, wrc) > eps)
    bwd_pos = np.where(b_ok, b_above & ~b_below, np.maximum(wra, wrc) < -eps)
    # for the error bounds, the finished intervals whose envelope comes within ``near`` of a level on the
    # side it was not given (NaN kept): :func:`_interval_errors`
    cand = np.where(fwd_pos, ~(env_min >= eps + near), ~(env_max <= eps - near))
    cand |= np.where(bwd_pos, ~(env_max <= -eps - near), ~(env_min >= -eps + near))
    k, e = finished, finished & cand
    done_now = (wa[k], wc[k], fwd_pos[k], bwd_pos[k])
    near_now = (wa[e], wc[e], va[e], vc[e], d_curv[e], u_curv[e], fwd_pos[e], bwd_pos[e], log_mi[e], log_mj[e])
    return done_now, near_now, ~finished, f_cross, b_cross


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


def _hockey(fi, fj, eps: float, lo: float, hi: float, y: np.ndarray, limits: tuple = (None, None)):
    """Engine: (forward, backward, forward runs, backward runs, (forward error, backward error), evaluations).

    ``fi``, ``fj`` are families on the same line, [lo, hi] the window (outside it both
    have negligible mass; the tails take the sign of r at the ends), ``y`` the first nodes;
    ``limits`` (left, right): ``(L, margin)`` when r is proven within ``margin`` of ``L`` beyond the
    window on that side (:func:`_tail_limits`), else None.
    """
    ev = LogRatioPair(fi, fj)
    v = ev(y)
    r = v[:, 0] - v[:, 1]
    # work intervals [wa, wc], node values va, vc, and r at both ends
    w = {"wa": y[:-1], "wc": y[1:], "va": v[:-1], "vc": v[1:], "wra": r[:-1], "wrc": r[1:]}
    final = []  # arrays (a, c, fwd_positive, bwd_positive, and for the error bounds ...) of finished intervals
    err_f = err_b = 0.0
    scale = math.exp(eps)
    # the envelopes used the node values as computed (roots snapped to their level, within 1e-9): an interval
    # whose envelope stays ``near`` from a level, more than those and the evaluation error, hides nothing
    ends = np.array([y[0], y[-1]])
    near = 1e-8 * (1.0 + eps) + float(np.max(fi.term_error(ends) + fj.term_error(ends)))
    close = []
    for _round_ in range(MAX_ROUNDS):
        if w["wa"].size == 0:
            break
        finished, near_now, todo, f_cross, b_cross = _round(ev, w, eps, near)
        final.append(finished)
        close.append(near_now)
        w = {k: val[todo] for k, val in w.items()}
        if w["wa"].size == 0:
            break
        w = _split(ev, w, eps, f_cross[todo], b_cross[todo])
    # left over after the last round (not seen in practice): end points' side, crude bound
    if w["wa"].size:
        wa, wc, va, vc = w["wa"], w["wc"], w["va"], w["vc"]
        final.append((wa, wc, np.minimum(w["wra"], w["wrc"]) > eps, np.maximum(w["wra"], w["wrc"]) < -eps))
        lm = np.log(np.maximum(wc - wa, 1e-300))
        crude = float(np.sum(np.exp(np.minimum(fi.log_sup(wa, wc, va[:, 0], vc[:, 0]) + lm, 0.0))
                             + scale * np.exp(np.minimum(fj.log_sup(wa, wc, va[:, 1], vc[:, 1]) + lm, 0.0))))
        err_f, err_b = err_f + 2.0 * crude, err_b + 2.0 * crude
    fa, fc, fpos, bpos = (np.concatenate([f[n] for f in final]) for n in range(4))
    order = np.argsort(fa, kind="stable")
    fa, fc, fpos, bpos = fa[order], fc[order], fpos[order], bpos[order]
    f_runs = _runs(fa, fc, fpos, r[0] > eps, r[-1] > eps)
    b_runs = _runs(fa, fc, bpos, r[0] < -eps, r[-1] < -eps)

    def total(runs, p, q):
        """The sum over the runs of P(run) - e^eps Q(run), and a bound on its rounding error."""
        if not runs:
            return 0.0, 0.0
        a_ = np.array([x[0] for x in runs])
        c_ = np.array([x[1] for x in runs])
        (mp, ep), (mq, eq) = mass_error(a_, c_, p), mass_error(a_, c_, q)
        mq, eq = scale * mq, scale * eq
        rounding = np.sum(ep + eq) + 2.0 ** -50 * a_.size * np.sum(mp + mq)
        value = float(max(0.0, np.sum(mp - mq)))
        if 2.0 * rounding <= _FLOAT_SHARE * value:
            return value, 2.0 * float(rounding)
        # the float sum's rounding bound is not small against it: the masses in arb balls (few runs)
        return certified_mass_difference(runs, p, q, eps), 0.0

    def tails(p, q, positive: tuple, sign: float, value: float) -> float:
        """Outside [lo, hi] the run's side was guessed: [p - e^eps q]_+ <= p, its negative part <= e^eps q;
        nothing where the limit of ``sign`` r is proven on the side guessed (looked at only when the
        masses are not negligible against the value)."""
        ends = (np.array([-math.inf, hi]), np.array([lo, math.inf]))
        tp, tq = mass_between(*ends, p), scale * mass_between(*ends, q)
        err = np.where(positive, tq, tp)
        if not err.any() or 2.0 * float(np.sum(err)) <= 1e-12 * value:
            return 2.0 * float(np.sum(err))
        for k, (side, limit) in enumerate(zip(positive, limits() if callable(limits) else limits)):
            if limit is not None and (sign * limit[0] - limit[1] > eps if side else sign * limit[0] + limit[1] < eps):
                err[k] = 0.0
        return 2.0 * float(np.sum(err))

    forward, round_f = total(f_runs, fi, fj)
    backward, round_b = total(b_runs, fj, fi)
    err_f += round_f + tails(fi, fj, (r[0] > eps, r[-1] > eps), 1.0, forward)
    err_b += round_b + tails(fj, fi, (r[0] < -eps, r[-1] < -eps), -1.0, backward)
    if close:
        near_ = tuple(np.concatenate([f[n] for f in close]) for n in range(10))
        a_, c_, va_, vc_, d_, u_, fp_, bp_, li_, lj_ = near_
        # first with the cheap (unweighted) node errors; the weighted ones where that is not negligible
        extra = _interval_errors(ev, eps, a_, c_, va_, vc_, (d_, u_), (fp_, bp_), (li_, lj_), cheap=True)
        if extra[0] > 1e-12 * forward or extra[1] > 1e-12 * backward:
            extra = _interval_errors(ev, eps, a_, c_, va_, vc_, (d_, u_), (fp_, bp_), (li_, lj_))
        err_f, err_b = err_f + extra[0], err_b + extra[1]
    return forward, backward, f_runs, b_runs, (err_f, err_b), ev.points


def _tail_limits(pi, pj, b: float, lo: float, hi: float) -> tuple:
    r"""(left, right): ``(L, margin)`` with :math:`|r(y) - L| \le` margin for every y beyond the window [lo, hi]
    on that side, or None where the window does not reach the limit window.

    Fact (d), made explicit: for :math:`y \ge \mu_m + \sigma_m^2/b + z\sigma_m` a component's
    :math:`2b\, e^{y/b} p_m(y)` is within the factor :math:`[1 - Q(z), 1 + \varphi(z)/z]` of its limit
    (:math:`A` is the limit times :math:`\Phi(t - s)`, :math:`t - s \ge z`; :math:`B \le Q(t) \times` the limit
    :math:`\times e^{st - s^2/2} \le \varphi(t - s)/t`), and an atom's equals it; at :math:`z = 8.5` both
    are below :math:`10^{-17}`, so :math:`r` is within :math:`4 \cdot 10^{-17}` of its limit (fact (d)), plus
    the rounding of the limits (log-MGFs, :data:`LOG_ULPS` of their terms' magnitudes).
    """
    mu = np.concatenate([pi.means, pj.means])
    sd = np.concatenate([pi.stds, pj.stds])
    reach = sd * sd / b + Z_TAIL * sd
    left, right = tail_log_ratios(pi, pj, b=b)
    size = float(np.max(np.abs(mu)) / b + np.max(sd) ** 2 / b ** 2) + 40.0
    margin = 1e-16 + 4.0 * LOG_ULPS * size
    return ((left, margin) if lo <= float(np.min(mu - reach)) else None,
            (right, margin) if hi >= float(np.max(mu + reach)) else None)


def _certified(eps: float, b: float, fwd: float, bwd: float, runs: tuple, errors: tuple, points: int) -> HockeyStick:
    """The HockeyStick of the values computed and their error bounds: each direction's upper end."""
    ef, eb = errors
    if not (math.isfinite(ef) and math.isfinite(eb)):
        raise ComputationError(f"hockey stick at epsilon = {eps!r}, b = {b!r}: no finite error bound (a density "
                               f"the engine cannot bound); no certified value")
    return HockeyStick(eps, b, upper(fwd, ef), upper(bwd, eb), runs[0], runs[1], max(ef, eb), points, ef, eb)


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
    fwd, bwd, f_runs, b_runs, err, points = _hockey(EmgFamily(pi, b), EmgFamily(pj, b), eps, lo, hi, y,
                                                    functools.cache(lambda: _tail_limits(pi, pj, b, lo, hi)))
    return _certified(eps, b, fwd, bwd, (f_runs, b_runs), err, points)


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
    err_atoms = 0.0                      # each [w_i - e^eps w_j]_+ and its sum rounded: a few ulps of the terms
    atoms = np.unique(np.concatenate([pi.means[pi.stds == 0], pj.means[pj.stds == 0]]))
    for x in atoms:
        wi = float(np.sum(pi.weights[(pi.stds == 0) & (pi.means == x)]))
        wj = float(np.sum(pj.weights[(pj.stds == 0) & (pj.means == x)]))
        fwd += max(0.0, wi - scale * wj)
        bwd += max(0.0, wj - scale * wi)
        err_atoms += 8.0 * 2.0 ** -53 * (wi + scale * wj + wj + scale * wi + fwd + bwd)
    gi, gj = GaussianFamily(pi), GaussianFamily(pj)
    f_runs = b_runs = ()
    err, points = (0.0, 0.0), 0
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
    err = (err[0] + err_atoms + 8.0 * 2.0 ** -53 * (fwd + 1.0), err[1] + err_atoms + 8.0 * 2.0 ** -53 * (bwd + 1.0))
    return _certified(eps, 0.0, fwd, bwd, (f_runs, b_runs), err, points)


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

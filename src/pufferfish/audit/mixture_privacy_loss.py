r"""The pure-epsilon privacy loss of Laplace noise on two Gaussian-mixture priors (paper 004, Fig. 1).

:func:`epsilon_achieved` is :math:`\sup_y |\log p_i(y) / p_j(y)|` for :math:`Y = X + \mathrm{Laplace}(b)`
(the pure-:math:`\epsilon` loss, paper 004 eq. (1) with :math:`\delta = 0`), finite for Laplace noise:
the larger of the tail limits (fact (d), :func:`~pufferfish.audit.emg_density.tail_log_ratios`) and
the max of :math:`|r|` on a window, found on a grid refined by the curvature envelope of fact (c)
(:mod:`.log_ratio_envelope`). :func:`prior_epsilon_bound` (:func:`prior_epsilon_achieved` its value) is
its noise-free limit :math:`b \to 0`, :math:`\sup_x |\log f_i(x) / f_j(x)|`, by the same envelope on the
Gaussian densities with exact tails. All values are certified upper ends. Derivation: docs/math/audits.md,
"Laplace noise on Gaussian-mixture priors" and "Certified values: Laplace noise on Gaussian-mixture priors".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pufferfish.audit.quadrature import lse_rows
from pufferfish.audit.emg_density import LOG_ULPS, EmgFamily, GaussianFamily, as_prior, tail_log_ratios
from pufferfish.audit.log_ratio_envelope import (MAX_ROUNDS, MAX_WORK, Z_TAIL, LogRatioPair, curvature_envelope,
                                                 limit_window, refinement_grid)
from pufferfish.certified import CERTIFIED_RTOL, upper
from pufferfish.checks import real
from pufferfish.mixture import GMM
from pufferfish.errors import ComputationError, ConfigError

__all__ = ["EpsilonBound", "epsilon_achieved", "epsilon_bound", "prior_epsilon_achieved", "prior_epsilon_bound"]

#: epsilon_achieved: an interval is refined while its envelope may exceed the best |r| by this (relative)
_SUP_RTOL = 2.5e-10
#: prior_epsilon_bound: at most this many doublings of the tail windows' reach
_TAIL_DOUBLINGS = 40


def _tail_margin(pi: GMM, pj: GMM, b: float) -> float:
    r"""Beyond the limit window :math:`|r - L| \le` this, :math:`L` the tail limit as computed: fact (d) made
    explicit (each component within the factor :math:`[1 - Q(z), 1 + \varphi(z)/z]` of its limit, :math:`z = 8.5`:
    :math:`4 \cdot 10^{-17}` on r; docs/math/audits.md, "Certified values") plus the rounding of the log-MGFs."""
    mu = np.concatenate([pi.means, pj.means])
    sd = np.concatenate([pi.stds, pj.stds])
    with np.errstate(divide="ignore"):
        log_w = np.abs(np.log(np.concatenate([pi.weights, pj.weights])))
    terms = float(np.max(log_w[np.isfinite(log_w)]) + np.max(np.abs(mu)) / b + 0.5 * np.max(sd) ** 2 / b ** 2) + 1.0
    return 1e-16 + 2.0 * LOG_ULPS * terms


def _check_b(b) -> float:
    """A Laplace scale: finite and > 0."""
    return real(b, name="b", lo=0.0, lo_open=True)


def prior_epsilon_achieved(prior_i, prior_j) -> float:
    r"""The noise-free limit b -> 0 of :func:`epsilon_achieved`: ``prior_epsilon_bound(...).value``.

    Parameters
    ----------
    prior_i, prior_j : pufferfish.mixture.GMM or tuple
        Mixtures whose own log-density ratio is bounded.

    Returns
    -------
    float
        A certified upper end of :math:`\sup_x |\log f_i(x) / f_j(x)|` (``inf`` when tails or atoms differ).

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        A prior that :func:`as_prior` refuses.
    """
    return prior_epsilon_bound(prior_i, prior_j).value


def prior_epsilon_bound(prior_i, prior_j) -> "EpsilonBound":
    r"""The noise-free pure-epsilon loss sup_x |log f_i(x) / f_j(x)| of two mixtures (paper 004 eq. (1),
    delta = 0, b -> 0), certified.

    Infinite unless the two mixtures have the same atoms (std 0) and, at each tail, the
    same dominant Gaussian component: as x -> +inf, log g(x; mu, sigma^2) =
    -x^2/(2 sigma^2) + x mu/sigma^2 + O(1), so the component with the largest sigma (then
    the largest mu) dominates, and the log ratio diverges if those (sigma, mu) differ
    between the priors (mirror for x -> -inf). Otherwise the larger of: the atoms'
    |log P_i{x} / P_j{x}| (python-flint balls), the tails beyond X- and X+ (every other
    component's share relative to the dominant one is decreasing there, so |r - L| is at most
    that share at X+-, L = log W_i / W_j the dominant weights' ratio), and the envelope bound of
    fact (c) on [X-, X+] (the refinement of :func:`epsilon_bound` on the Gaussian densities). X+-
    are pushed out until the shares are below 2e-10 of the sup (docs/math/audits.md, "Certified
    values: Laplace noise on Gaussian-mixture priors", "Noise-free pure epsilon").

    Parameters
    ----------
    prior_i, prior_j : pufferfish.mixture.GMM or tuple
        Mixtures compared as they are (no noise).

    Returns
    -------
    EpsilonBound
        ``value`` >= the true sup >= ``lower``; ``tight`` when ``value`` is proven within ``CERTIFIED_RTOL``
        of the truth (``inf`` with ``lower = inf``: the sup is infinite).

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        A prior that :func:`as_prior` refuses.
    """
    pi, pj = as_prior(prior_i, name="prior_i"), as_prior(prior_j, name="prior_j")
    infinite = EpsilonBound(math.inf, math.inf, True)
    ai, aj = _atom_weights(pi), _atom_weights(pj)
    if set(ai) != set(aj):
        return infinite
    gi, gj = GaussianFamily(pi), GaussianFamily(pj)
    if (gi.total > 0) != (gj.total > 0):
        return infinite
    # the atoms' log ratios as balls: the exact sums of the float weights
    atom_balls = [abs(_log_ratio_ball(ai[x], aj[x])) for x in ai]
    value = max((_ball_ends(v)[1] for v in atom_balls), default=0.0)
    low = max((_ball_ends(v)[0] for v in atom_balls), default=0.0)
    if gi.total == 0:
        return EpsilonBound(value, max(low, 0.0) + 0.0, value <= low * (1.0 + 0.999 * CERTIFIED_RTOL) or value == 0.0)
    tails = []
    for sign in (1.0, -1.0):
        di, dj = _dominant(gi, sign), _dominant(gj, sign)
        if di[0] != dj[0]:
            return infinite
        tails.append((di, dj))
    if _same_components(gi, gj):
        return EpsilonBound(value, max(low, 0.0) + 0.0, value <= low * (1.0 + 0.999 * CERTIFIED_RTOL) or value == 0.0)
    limits = [_ball_ends(abs(_log_ratio_ball(di[1], dj[1]))) for di, dj in tails]
    low = max(low, *(lim[0] for lim in limits))
    mu = np.concatenate([gi.mu, gj.mu])
    sd = np.concatenate([gi.sd, gj.sd])
    lo, hi = float(np.min(mu - Z_TAIL * sd)), float(np.max(mu + Z_TAIL * sd))
    extra = (mu[:, None] + sd[:, None] * np.linspace(-Z_TAIL, Z_TAIL, 69)[None, :]).ravel()
    # a first grid of at most 4096 steps (and 69 points at each component's own scale): refined where needed
    step = max(float(np.min(sd)) / 2, (hi - lo) / 4096)
    y = refinement_grid(lo, hi, step, extra)
    # an estimate of the sup (to set how far the tails go), then the tails, then the certified window
    estimate = max(value, float(np.max(np.abs(gi.values(y)[0] - gj.values(y)[0]))), *(lim[1] for lim in limits))
    ends, tail_bound = [], 0.0
    for sign, (di, dj), (_, lim_hi) in zip((1.0, -1.0), tails, limits):
        end, share = _tail_end(gi, gj, di[0], sign, sign * (hi if sign > 0 else lo), 2e-10 * estimate)
        ends.append(end)
        tail_bound = max(tail_bound, upper(lim_hi + share, rel_error=2.0 ** -52))
    lo, hi = min(lo, ends[1]), max(hi, ends[0])
    y = refinement_grid(lo, hi, max(step, (hi - lo) / 4096), extra)
    refs = ((tails[1][0][0][0], -tails[1][0][0][1]), (tails[0][0][0][0], tails[0][0][0][1]))
    ev = LogRatioPair(_Referenced(pi, refs), _Referenced(pj, refs))
    cert, low, tight = _refined_sup(ev, y, float(np.min(sd)), max(value, *(lim[0] for lim in limits)), low,
                                    max(value, tail_bound))
    return EpsilonBound(cert, low, tight)


class _Referenced(GaussianFamily):
    r"""The continuous part of a mixture relative to a reference Gaussian: ``values`` gives
    :math:`\log f(x) - \log \varphi_{\mathrm{ref}}(x)`, the reference the dominant component of the left
    or the right tail, whichever has the larger density at :math:`x` (the same in both priors, so
    :math:`r = \log f_i - \log f_j` is unchanged). Each term's exponent
    :math:`-(z_k - z_{\mathrm{ref}})(z_k + z_{\mathrm{ref}})/2` is exactly 0 for the reference itself, so far in
    a tail, where the reference carries nearly all the weight, :math:`r` is computed without the
    cancellation of two :math:`z^2/2` (its error weighted by the other components' small shares)."""

    def __init__(self, prior: GMM, refs):
        super().__init__(prior)
        self.refs = refs

    def _right(self, y: np.ndarray) -> np.ndarray:
        """Where the right tail's dominant component is the reference: where its density is the larger."""
        (sl, ml), (sr, mr) = self.refs
        return (-np.log(sr) - 0.5 * ((y - mr) / sr) ** 2) >= (-np.log(sl) - 0.5 * ((y - ml) / sl) ** 2)

    def _terms(self, y: np.ndarray):
        right = self._right(y)
        sd_ref = np.where(right, self.refs[1][0], self.refs[0][0])[:, None]
        mu_ref = np.where(right, self.refs[1][1], self.refs[0][1])[:, None]
        z = (y[:, None] - self.mu) / self.sd
        z_ref = (y[:, None] - mu_ref) / sd_ref
        log_sd = np.log(sd_ref / self.sd)
        x = self.logw + log_sd - 0.5 * (z - z_ref) * (z + z_ref)
        # the reference's own exponent is exactly 0 (z = z_ref computed alike, log_sd = 0)
        exact = (self.mu == mu_ref) & (self.sd == sd_ref)
        return x, np.where(exact, 0.0, z), np.where(exact, 0.0, z_ref), log_sd

    def values(self, y: np.ndarray):
        return lse_rows(self._terms(y)[0]), np.zeros(y.shape)

    def curvature(self, a, c, va, vc, post_cap=None):
        """:meth:`GaussianFamily.curvature` with the posterior weights also bounded through the reference:
        pi_m <= (w_m / W_ref) sup_[a,c] phi_m / phi_ref, the exponent g_m = log phi_m - log phi_ref concave
        or linear (sigma_m <= sigma_ref), so its sup is at an end or at its vertex, raised by its rounding.
        Far in a tail this is what makes the other components' weights, and so the curvature of r, small."""
        mid = 0.5 * (a + c)
        right = self._right(mid)[:, None]
        sd_ref = np.where(right, self.refs[1][0], self.refs[0][0])
        mu_ref = np.where(right, self.refs[1][1], self.refs[0][1])
        is_ref = (self.mu == mu_ref) & (self.sd == sd_ref)
        w_ref = np.sum(np.where(is_ref, self.w, 0.0), axis=1, keepdims=True)
        curv = 1.0 / self.sd ** 2 - 1.0 / sd_ref ** 2                       # >= 0
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            vertex = (self.mu / self.sd ** 2 - mu_ref / sd_ref ** 2) / curv
        vertex = np.where(curv > 0, vertex, a[:, None])
        best = None
        for x in (a[:, None] + 0.0 * self.mu, c[:, None] + 0.0 * self.mu, np.clip(vertex, a[:, None], c[:, None])):
            z, z_ref = (x - self.mu) / self.sd, (x - mu_ref) / sd_ref
            log_sd = np.log(sd_ref / self.sd)
            g = log_sd - 0.5 * (z - z_ref) * (z + z_ref)
            g = g + LOG_ULPS * (np.abs(log_sd) + z * z + z_ref * z_ref + 1.0)
            best = g if best is None else np.maximum(best, g)
        with np.errstate(divide="ignore", over="ignore"):
            cap = np.where(is_ref, 1.0, np.exp(np.minimum(np.log(self.w / w_ref) + best, 0.0)) * (1 + 1e-12))
        cap = np.minimum(cap, 1.0) if post_cap is None else np.minimum(np.minimum(cap, 1.0), post_cap)
        lo, hi = super().curvature(a, c, va, vc, post_cap=cap)
        # Var_post[score] <= E_post[(score - score_ref)^2] (pointwise in x), score_m - score_ref linear in x:
        # its square is largest at an end; raised by 1e-12 (rounding)
        gap = np.maximum(((a[:, None] - mu_ref) / sd_ref ** 2 - (a[:, None] - self.mu) / self.sd ** 2) ** 2,
                         ((c[:, None] - mu_ref) / sd_ref ** 2 - (c[:, None] - self.mu) / self.sd ** 2) ** 2)
        var = np.sum(np.where(is_ref, 0.0, cap * gap), axis=1) * (1 + 1e-12)
        return lo, np.minimum(hi, var - np.min(1.0 / self.sd ** 2))

    def log_error(self, y: np.ndarray) -> np.ndarray:
        """A bound on the absolute error of the computed log f - log phi_ref: each term's error (LOG_ULPS of
        its parts' magnitudes) weighted by its share, plus the log-sum-exp's rounding."""
        x, z, z_ref, log_sd = self._terms(y)
        top = lse_rows(x)
        with np.errstate(invalid="ignore", over="ignore"):
            share = np.exp(x - top[:, None])
            mag = np.where(share > 0, np.abs(self.logw) + np.abs(log_sd) + z * z + z_ref * z_ref + 1.0, 0.0)
            weighted = np.sum(np.where(share > 0, share * mag, 0.0), axis=1)
        # a node where the terms are not finite (cannot happen for validated priors) certifies nothing
        return np.where(np.isfinite(top) & np.isfinite(weighted), LOG_ULPS * (2.0 * weighted + np.abs(top) + 2.0),
                        np.inf)


def _atom_weights(p: GMM) -> dict:
    """{atom: [float weights at it]} of a mixture."""
    out: dict = {}
    for m, w in zip(p.means[p.stds == 0], p.weights[p.stds == 0]):
        if w > 0:                                       # a weight-0 atom is no atom
            out.setdefault(float(m), []).append(float(w))
    return out


def _log_ratio_ball(wi, wj):
    """log (sum wi) / (sum wj) as an arb ball (the sums exact at 256 bits for a few floats)."""
    from flint import arb, ctx

    saved = ctx.prec
    try:
        ctx.prec = 256
        return (sum((arb(w) for w in wi), arb(0)) / sum((arb(w) for w in wj), arb(0))).log()
    finally:
        ctx.prec = saved


def _ball_ends(ball) -> tuple[float, float]:
    """(a float at or below, a float at or above) the ball."""
    from pufferfish.certified import arb_upper_float

    return -arb_upper_float(-ball), arb_upper_float(ball)


def _dominant(g: GaussianFamily, sign: float):
    """((sigma, sign mu), [weights]) of the component(s) dominating the tail at sign * inf."""
    key = [(float(sd), sign * float(mu)) for sd, mu, w in zip(g.sd, g.mu, g.w) if w > 0]
    top = max(key)
    return top, [float(w) for k, w in zip(key, g.w[g.w > 0]) if k == top]


def _same_components(gi: GaussianFamily, gj: GaussianFamily) -> bool:
    """The same continuous parts, component for component (then log f_i = log f_j exactly)."""
    def parts(g):
        return sorted(c for c in zip(g.mu.tolist(), g.sd.tolist(), g.w.tolist()) if c[2] > 0)
    return parts(gi) == parts(gj)


def _tail_end(gi: GaussianFamily, gj: GaussianFamily, top, sign: float, start: float, goal: float):
    """(X, share): the end of the window at sign * inf (X = sign * x) beyond which every non-dominant
    component's share relative to the dominant one, in either prior, is decreasing (in sign * x) and
    sums to at most ``share`` (an upper bound, its rounding covered): |r - L| <= share beyond X. The
    distance from the dominant mean is doubled from ``start`` until share <= ``goal`` (at most 64 times)."""
    sd_d, mu_d = top[0], top[1]
    comps = []
    for g in (gi, gj):
        key = [(float(sd), sign * float(mu)) for sd, mu in zip(g.sd, g.mu)]
        w_dom = math.fsum(float(w) for k, w in zip(key, g.w) if k == top)
        comps.append([(float(w) / w_dom, s, m) for (s, m), w in zip(key, g.w) if (s, m) != top and w > 0])
    # d/dx [log phi_k - log phi_d] = (x - mu_d)/sd_d^2 - (x - m)/s^2: < 0 for every x when s = sd_d (then
    # m < mu_d), and, linear in x with a negative slope when s < sd_d, for all x beyond a point where it is
    # negative by more than its rounding
    def decreasing(x: float) -> bool:
        return all(s == sd_d or (x - m) / s ** 2 - (x - mu_d) / sd_d ** 2
                   > 1e-12 * (abs(x - m) / s ** 2 + abs(x - mu_d) / sd_d ** 2) for part in comps for _, s, m in part)

    dist = max(start - mu_d, sd_d)
    for _ in range(_TAIL_DOUBLINGS):
        x = mu_d + dist
        share = max(_share(part, x, sd_d, mu_d) for part in comps)
        if decreasing(x) and share <= goal:
            break
        dist *= 2.0
    else:
        if not decreasing(x):
            raise ComputationError(f"prior_epsilon_bound: no tail end found within {dist:.3g} of the dominant "
                                   "component's mean")
    return sign * x, share


def _share(part, x: float, sd_d: float, mu_d: float) -> float:
    """An upper bound on sum_k (w_k / W) phi_k(x) / phi_d(x): each exponent raised by LOG_ULPS of its terms."""
    total = 0.0
    for w, s, m in part:
        za, zd = (x - m) / s, (x - mu_d) / sd_d
        e = math.log(w) + math.log(sd_d / s) - 0.5 * za * za + 0.5 * zd * zd
        e += LOG_ULPS * (abs(math.log(w)) + abs(math.log(sd_d / s)) + za * za + zd * zd + 1.0)
        total += math.exp(min(e, 700.0))
    return upper(total, rel_error=2.0 ** -50)


@dataclass(frozen=True)
class EpsilonBound:
    """The certified pure-epsilon loss: ``value`` >= the true sup >= ``lower``; ``tight`` when ``value`` is
    proven within ``CERTIFIED_RTOL`` of the truth (else a looser certified bound: the refinement hit its
    work cap, or the sup is not far above the evaluation error of r)."""

    value: float
    lower: float
    tight: bool


def epsilon_achieved(prior_i, prior_j, *, b: float, window: tuple[float, float] | None = None) -> float:
    r"""The certified pure-epsilon loss of Y = X + Laplace(b): ``epsilon_bound(...).value``.

    Parameters
    ----------
    prior_i, prior_j : pufferfish.mixture.GMM or tuple
        Priors of the secret pair.
    b : float
        Laplace scale, :math:`> 0`.
    window : tuple of float, optional
        ``(lo, hi)``, finite, ``lo < hi``: the sup over that window only; ``None``: over all :math:`y`.

    Returns
    -------
    float
        An upper end of :math:`\sup_y |r(y)|` (:func:`epsilon_bound`).

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Bad priors or ``b``, or a window that is not a finite ``lo < hi``.
    """
    return epsilon_bound(prior_i, prior_j, b=b, window=window).value


def epsilon_bound(prior_i, prior_j, *, b: float, window: tuple[float, float] | None = None) -> EpsilonBound:
    r"""sup_y |log p_i(y) / p_j(y)| for Y = X + Laplace(b): the pure-epsilon privacy loss.

    With ``window = None`` the sup is over all real y: finite for Laplace noise, it is the
    larger of the tail limits |log M_i(-+1/b) / M_j(-+1/b)| (fact (d)) and the max of |r|
    on [Y-, Y+] (beyond which r is within 4e-17 of its limits, fact (d) made explicit). With a
    window (lo, hi), the max over that window only (Fig. 1). The max on a segment: a grid of
    step b/2, intervals refined while the envelope (c) could exceed the best value by more
    than 2.5e-10 (relative) plus the evaluation error of r. Certified: the value returned is
    the largest envelope bound over all intervals (node values widened by their evaluation
    error) and the tails, rounded upward: at least the true sup, and within 1e-9 of it unless
    the sup is below about 1e-5 times the evaluation error of r (docs/math/audits.md,
    "Certified values of the mixture routes").

    Parameters
    ----------
    prior_i, prior_j : pufferfish.mixture.GMM or tuple
        Priors of the secret pair.
    b : float
        Laplace scale, :math:`> 0`.
    window : tuple of float, optional
        ``(lo, hi)``, finite, ``lo < hi``: the sup over that window only; ``None``: over all :math:`y`.

    Returns
    -------
    EpsilonBound
        The certified upper end of the pure-:math:`\epsilon` loss :math:`\sup_y |r(y)|`, a proven lower
        end, and whether the upper end is within ``CERTIFIED_RTOL`` of the truth.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Bad priors or ``b``, or a window that is not a finite ``lo < hi``.
    """
    pi, pj, b = as_prior(prior_i, name="prior_i"), as_prior(prior_j, name="prior_j"), _check_b(b)
    ev = LogRatioPair(EmgFamily(pi, b), EmgFamily(pj, b))
    if window is None:
        lo, hi = limit_window(pi, pj, b)
        limits = [abs(v) for v in tail_log_ratios(pi, pj, b=b)]
        tail_bound = max(limits) + _tail_margin(pi, pj, b)
    else:
        lo, hi = (float(window[0]), float(window[1]))
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ConfigError(f"window = {window!r}: must be two finite numbers lo < hi")
        limits, tail_bound = [], 0.0
    atoms = np.concatenate([pi.means[pi.stds == 0], pj.means[pj.stds == 0]])
    y = refinement_grid(lo, hi, b / 2, atoms)
    # a proven lower bound on the sup: a tail limit less its margin (then the nodes' |r| less their errors)
    top = max(limits, default=0.0)
    return EpsilonBound(*_refined_sup(ev, y, b, top, top - (tail_bound - top), tail_bound))


def _refined_sup(ev: LogRatioPair, y: np.ndarray, scale: float, best: float, low: float, tail_bound: float):
    """(value, low, tight): the certified sup of |r| on [y[0], y[-1]] and beyond (``tail_bound``), by the
    envelope of fact (c) on the grid ``y`` refined while an interval's bound exceeds the best node value by
    ``_SUP_RTOL`` (relative) plus twice its node error; ``best``, ``low`` the values known so far (a best
    estimate, a proven lower end), ``scale`` the length below which (relative) no interval is split."""
    v = ev(y)
    r = v[:, 0] - v[:, 1]
    m = ev.fi.log_error(y) + ev.fj.log_error(y)            # evaluation error of r at the nodes
    best = max(best, float(np.max(np.abs(r))))
    low = max(low, float(np.max(np.abs(r) - m)))
    cert, converged = tail_bound, False
    wa, wc, va, vc, wra, wrc, ma, mc = y[:-1], y[1:], v[:-1], v[1:], r[:-1], r[1:], m[:-1], m[1:]
    for _round in range(MAX_ROUNDS):
        bound = _envelope_bound(ev, wa, wc, va, vc, wra, wrc, ma, mc)
        keep = (bound > best * (1.0 + _SUP_RTOL) + 2.0 * np.maximum(ma, mc)) \
            & (wc - wa > 1e-12 * np.maximum(scale, np.abs(wa)))
        if not keep.any() or keep.sum() > MAX_WORK or _round == MAX_ROUNDS - 1:
            cert, converged = max(cert, float(np.max(bound))), not keep.any()
            break
        cert = max(cert, float(np.max(bound[~keep], initial=0.0)))
        wa, wc, va, vc, wra, wrc, ma, mc = (x[keep] for x in (wa, wc, va, vc, wra, wrc, ma, mc))
        mid = 0.5 * (wa + wc)
        mv = ev(mid)
        m_r = mv[:, 0] - mv[:, 1]
        m_m = ev.fi.log_error(mid) + ev.fj.log_error(mid)
        best = max(best, float(np.max(np.abs(m_r))))
        low = max(low, float(np.max(np.abs(m_r) - m_m)))
        wa, wc = np.concatenate([wa, mid]), np.concatenate([mid, wc])
        va, vc = np.concatenate([va, mv]), np.concatenate([mv, vc])
        wra, wrc = np.concatenate([wra, m_r]), np.concatenate([m_r, wrc])
        ma, mc = np.concatenate([ma, m_m]), np.concatenate([m_m, mc])
    # the envelope arithmetic adds a few roundings of the values it sums: 2^-50 relative
    value = upper(max(cert, best), rel_error=2.0 ** -50)
    tight = value == 0.0 or (converged and low > 0.0 and value <= low * (1.0 + 0.999 * CERTIFIED_RTOL))
    return value, max(low, 0.0), tight


def _envelope_bound(ev: LogRatioPair, wa, wc, va, vc, wra, wrc, ma, mc) -> np.ndarray:
    """A bound on sup |r| on each [wa, wc]: the envelope of fact (c) on the node values widened by their
    evaluation errors, the curvature bounds by 1e-9 (their rounding); NaN (no bound) is +inf."""
    d_curv, u_curv = ev.curvatures(wa, wc, va, vc)
    h = wc - wa
    up = curvature_envelope(wra + ma, wrc + mc, h, d_curv * (1 + 1e-9), u_curv * (1 + 1e-9))[0]
    dn = curvature_envelope(wra - ma, wrc - mc, h, d_curv * (1 + 1e-9), u_curv * (1 + 1e-9))[1]
    return np.nan_to_num(np.maximum(up, -dn), nan=np.inf)

r"""The pure-epsilon privacy loss of Laplace noise on two Gaussian-mixture priors (paper 004, Fig. 1).

:func:`epsilon_achieved` is :math:`\sup_y |\log p_i(y) / p_j(y)|` for :math:`Y = X + \mathrm{Laplace}(b)`
(the pure-:math:`\epsilon` loss, paper 004 eq. (1) with :math:`\delta = 0`), finite for Laplace noise:
the larger of the tail limits (fact (d), :func:`~pufferfish.audit.emg_density.tail_log_ratios`) and
the max of :math:`|r|` on a window, found on a grid refined by the curvature envelope of fact (c)
(:mod:`.log_ratio_envelope`). :func:`prior_epsilon_achieved` is its noise-free limit
:math:`b \to 0`. Derivation: docs/math/audits.md, "Laplace noise on Gaussian-mixture priors".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pufferfish.audit.emg_density import LOG_ULPS, EmgFamily, GaussianFamily, as_prior, tail_log_ratios
from pufferfish.audit.log_ratio_envelope import (MAX_ROUNDS, MAX_WORK, Z_TAIL, LogRatioPair, curvature_envelope,
                                                 limit_window, refinement_grid)
from pufferfish.certified import CERTIFIED_RTOL, upper
from pufferfish.checks import real
from pufferfish.mixture import GMM
from pufferfish.errors import ConfigError

__all__ = ["EpsilonBound", "epsilon_achieved", "epsilon_bound", "prior_epsilon_achieved"]

#: epsilon_achieved: an interval is refined while its envelope may exceed the best |r| by this (relative)
_SUP_RTOL = 2.5e-10


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
    r"""The noise-free limit b -> 0 of :func:`epsilon_achieved`: sup_x |log f_i(x) / f_j(x)|.

    Infinite unless the two mixtures have the same atoms (std 0) and, at each tail, the
    same dominant Gaussian component: as x -> +inf, log g(x; mu, sigma^2) =
    -x^2/(2 sigma^2) + x mu/sigma^2 + O(1), so the component with the largest sigma (then
    the largest mu) dominates, and the log ratio diverges if those (sigma, mu) differ
    between the priors (mirror for x -> -inf). When both tails match (e.g. identical
    priors) the value is the max of |log f_i/f_j| at the atoms and on a grid of step
    sigma_min/64 over the mass window, each local maximum of the grid polished by bounded
    Brent between its neighbours, and the tail limits.

    Parameters
    ----------
    prior_i, prior_j : pufferfish.mixture.GMM or tuple
        Mixtures whose own log-density ratio is bounded.

    Returns
    -------
    float
        The noise-free pure-:math:`\epsilon` loss (``inf`` when tails or atoms differ).

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        A prior that :func:`as_prior` refuses.
    """
    pi, pj = as_prior(prior_i, name="prior_i"), as_prior(prior_j, name="prior_j")

    def atoms(p):
        out = {}
        for m, w in zip(p.means[p.stds == 0], p.weights[p.stds == 0]):
            out[float(m)] = out.get(float(m), 0.0) + float(w)
        return out

    ai, aj = atoms(pi), atoms(pj)
    if set(ai) != set(aj):
        return math.inf
    gi, gj = GaussianFamily(pi), GaussianFamily(pj)
    if (gi.total > 0) != (gj.total > 0):
        return math.inf
    best = max([abs(math.log(ai[x] / aj[x])) for x in ai], default=0.0)
    if gi.total == 0:
        return best

    def dominant(g: GaussianFamily, sign: float):
        key = [(sd, sign * mu) for sd, mu in zip(g.sd, g.mu)]
        top = max(key)
        return top, float(sum(w for k, w in zip(key, g.w) if k == top))

    limits = []
    for sign in (1.0, -1.0):
        (ti, wi), (tj, wj) = dominant(gi, sign), dominant(gj, sign)
        if ti != tj:
            return math.inf
        limits.append(abs(math.log(wi / wj)))
    mu = np.concatenate([gi.mu, gj.mu])
    sd = np.concatenate([gi.sd, gj.sd])
    y = refinement_grid(float(np.min(mu - Z_TAIL * sd)), float(np.max(mu + Z_TAIL * sd)), float(np.min(sd)) / 64, mu)
    r = np.abs(gi.values(y)[0] - gj.values(y)[0])
    return float(max(best, *limits, _polished_grid_max(y, r, gi, gj)))


def _polished_grid_max(y: np.ndarray, r: np.ndarray, gi: "GaussianFamily", gj: "GaussianFamily") -> float:
    """The sup of |log f_i - log f_j| near the grid's local maxima: each local maximum of ``r``
    (the grid's values) polished by bounded Brent (scipy) between its neighbours, since the grid
    alone reads the peak up to its curvature times (step/2)^2 low (1.6e-6 relative on a test
    pair). Never below the grid's own maximum."""
    from scipy.optimize import minimize_scalar

    top = float(np.max(r))
    inner = np.flatnonzero((r[1:-1] >= r[:-2]) & (r[1:-1] >= r[2:])) + 1
    # the peaks that can matter: within the grid's possible shortfall of its maximum (1e-3 relative)
    for k in inner[r[inner] >= top * (1.0 - 1e-3)]:
        def minus(x: float) -> float:
            z = np.array([x])
            return -abs(float(gi.values(z)[0][0] - gj.values(z)[0][0]))

        found = minimize_scalar(minus, bounds=(float(y[k - 1]), float(y[k + 1])), method="bounded",
                                options={"xatol": 1e-12 * max(1.0, abs(float(y[k])))})
        top = max(top, -float(found.fun))
    return top


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

r"""Exact privacy loss of Laplace noise on Gaussian-mixture priors, and the tight calibration.

Paper 004 (N. Ding, IEEE TIFS 2024) gives *sufficient* scales :math:`b` for
:math:`Y = X + \mathrm{Laplace}(b)` (Theorems 1-2, Corollaries 1-2). This module computes what a
scale really achieves for a secret pair whose priors are 1-D Gaussian mixtures
(:class:`pufferfish.mixture.GMM`; a component with standard deviation 0 is a point mass):

* :func:`delta_achieved` -- the smallest :math:`\delta` for which eq. (1) holds, the max over both
  directions of :math:`H_\epsilon(P \| Q) = \int [p(y) - e^\epsilon q(y)]_+ \, dy` (:func:`hockey_stick`);
* :func:`epsilon_achieved` -- the pure-:math:`\epsilon` loss :math:`\sup_y |\log p_i(y) / p_j(y)|`;
* :func:`b_min`, :class:`LaplaceMixtureAuditor` -- the smallest :math:`b` meeting a target.

The density is the exponentially modified Gaussian in log space (no overflow for any
:math:`y`, :math:`\sigma`, :math:`b`). The positive set of :math:`p - e^\epsilon q` is found exactly: a
grid refined until a curvature envelope of the log-ratio certifies every interval or brackets a
root, the roots refined all at once (:func:`pufferfish.audit.roots.illinois_roots`), then the
closed-form CDFs summed over the positive runs (no quadrature; tails beyond the mass window
bounded below :math:`2 \cdot 10^{-17}`). The no-noise limit (:func:`prior_hockey_stick`,
:func:`prior_epsilon_achieved`) bounds every :math:`b`; both losses are non-increasing in
:math:`b` (a larger Laplace is the smaller one plus independent noise, and data processing), so
:func:`pufferfish.audit.search.smallest_scale` finds :math:`b_{\min}`.

Derivation, the envelope, error bounds and the monotonicity proof: docs/math/audits.md,
"Laplace noise on Gaussian-mixture priors".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pufferfish.audit.auditor import Auditor
from pufferfish.audit.quadrature import lse_rows
from pufferfish.audit.roots import illinois_roots
from pufferfish.audit.search import smallest_scale
from pufferfish.audit.target import Achieved, Target
from pufferfish.checks import real, reals
from pufferfish.checks import search as checked_search
from pufferfish.errors import ArgumentTypeError, ConfigError
from pufferfish.mixture import GMM

__all__ = [
    "LaplaceMixtureAuditor", "as_prior", "emg_logpdf", "emg_pdf", "tail_log_ratios",
    "HockeyStick", "hockey_stick", "prior_hockey_stick", "prior_epsilon_achieved", "delta_achieved",
    "epsilon_achieved", "BMin", "b_min",
]

#: standard-normal quantile beyond which a component's tail is negligible (Q(8.5) = 9.5e-18)
Z_TAIL = 8.5
#: Laplace tail length in units of b (Pr(N > 39 b) = e^{-39}/2 = 5.8e-18)
LAPLACE_TAIL = 39.0
#: an uncertified interval is accepted once its possible contribution is below this
_ACCEPT = 1e-17
#: slack on r when certifying an interval against a level (root end points sit on it)
_R_ATOL = 1e-12
_MAX_ROUNDS = 80
#: cap on the number of intervals refined at once (a guard; never reached in the pipeline)
_MAX_WORK = 200_000
#: epsilon_achieved: an interval is refined while its envelope may exceed the best |r| by this (relative)
_SUP_RTOL = 1e-9


def as_prior(prior, *, name: str = "prior") -> GMM:
    r"""A :class:`GMM`, or ``(mean, std)`` for one Gaussian (std 0: point mass).

    Parameters
    ----------
    prior : pufferfish.mixture.GMM or tuple
        A mixture, or ``(mean, std)`` of one Gaussian (std 0: a point mass).
    name : str
        The argument's name in messages.

    Returns
    -------
    pufferfish.mixture.GMM
        The prior as a mixture.

    Raises
    ------
    ArgumentTypeError
        Neither a mixture nor a pair, or a mean or std that is not real.
    InvalidArgumentError
        A negative or non-finite std, or a non-finite mean.
    """
    if isinstance(prior, GMM):
        return prior
    if isinstance(prior, (str, bytes)) or not hasattr(prior, "__len__") or len(prior) != 2:
        raise ArgumentTypeError(f"{name} = {prior!r:.60}: must be a GMM or (mean, std), not {type(prior).__name__}")
    mean, std = prior
    return GMM.gaussian(real(mean, name=f"{name} mean"), real(std, name=f"{name} std", lo=0.0))


def _check_y(y) -> np.ndarray:
    """Points of the real line: finite real numbers (a number or an array of them)."""
    return reals(y, name="y")


def _check_epsilon(epsilon) -> float:
    """epsilon: a real number (not a bool or string), finite and > 0."""
    return real(epsilon, name="epsilon", lo=0.0, lo_open=True)


def _check_b(b) -> float:
    """A Laplace scale: finite and > 0."""
    return real(b, name="b", lo=0.0, lo_open=True)


# ----------------------------------------------------------------------------- density families
#
# The hockey-stick engine below works on any pair of "families": objects giving, at
# points y, the log density and an auxiliary value, and on intervals [a, c] a bound on
# the log of the sup of the density and bounds lo <= (log p)'' <= hi.

class _Emg:
    """Y = X + Laplace(b), X a Gaussian mixture (docs/math/audits.md, facts (a)-(b))."""

    def __init__(self, prior: GMM, b: float):
        self.prior, self.b = prior, b
        self.w = prior.weights
        with np.errstate(divide="ignore"):
            self.logw = np.log(prior.weights)
        self.mu, self.sd = prior.means, prior.stds
        self.cont = prior.stds > 0
        self.all_cont = bool(self.cont.all())
        self.safe_sd = np.where(self.cont, self.sd, 1.0)
        self.s = self.safe_sd / b
        self.half_s2 = 0.5 * self.s ** 2
        self.log_norm = math.log(2.0 * b)
        self.atoms = prior.means[~self.cont]
        self.total = 1.0

    def log_ab(self, y: np.ndarray):
        """log A_m(y), log B_m(y) and t_m(y), shape (len(y), D)."""
        from scipy.special import log_ndtr
        y = y[:, None]
        t = (y - self.mu) / self.safe_sd
        z = (y - self.mu) / self.b
        with np.errstate(divide="ignore"):
            log_a = -z + self.half_s2 + log_ndtr(t - self.s)
            log_b = z + self.half_s2 + log_ndtr(-t - self.s)
            if not self.all_cont:
                atom = ~self.cont
                log_a = np.where(atom, np.where(z >= 0, -z, -np.inf), log_a)
                log_b = np.where(atom, np.where(z < 0, z, -np.inf), log_b)
        return log_a, log_b, t

    def logpdf(self, y: np.ndarray) -> np.ndarray:
        log_a, log_b, _ = self.log_ab(y)
        return lse_rows(self.logw + np.logaddexp(log_a, log_b)) - self.log_norm

    def values(self, y: np.ndarray):
        """(log p(y), log B(y)/A(y)) of the mixture."""
        log_a, log_b, _ = self.log_ab(y)
        la, lb = lse_rows(self.logw + log_a), lse_rows(self.logw + log_b)
        with np.errstate(invalid="ignore"):
            q = lb - la
        return np.logaddexp(la, lb) - self.log_norm, q

    def cdf_sf(self, y: np.ndarray):
        from scipy.special import ndtr

        log_a, log_b, t = self.log_ab(y)
        a, bb = np.exp(log_a), np.exp(log_b)
        below, above = ndtr(t), ndtr(-t)
        if not self.all_cont:
            atom = ~self.cont
            ge = (y[:, None] >= self.mu).astype(float)
            below = np.where(atom, ge, below)
            above = np.where(atom, 1.0 - ge, above)
        cdf = np.clip((below - 0.5 * a + 0.5 * bb) @ self.w, 0.0, 1.0)
        sf = np.clip((above + 0.5 * a - 0.5 * bb) @ self.w, 0.0, 1.0)
        return cdf, sf

    def log_sup(self, a, c, lpa, lpc):
        """log sup_[a,c] p <= (log p(a) + log p(c))/2 + (c - a)/2b (fact (a))."""
        return 0.5 * (lpa + lpc) + (c - a) / (2 * self.b)

    def curvature(self, a, c, va, vc):
        """(lo, hi) with lo <= (log p)'' <= hi on [a, c] (fact (b)); va, vc = (log p, log rho)."""
        h = c - a
        log_inf_p = 0.5 * (va[:, 0] + vc[:, 0]) - h / (2 * self.b)
        f = np.exp(np.minimum(_log_sup_gauss(a, c, self.prior) - log_inf_p, 600.0))
        with np.errstate(invalid="ignore", over="ignore"):
            lq = np.minimum(va[:, 1], -vc[:, 1]) + 2 * h / self.b
            cc = np.where(np.isnan(lq), 1.0, np.minimum(1.0, 4.0 * np.exp(np.minimum(lq, 0.0))))
            return -f / self.b ** 2, cc / self.b ** 2


class _Gauss:
    """The continuous part of a Gaussian mixture itself (no noise): the b -> 0 limit.

    log f = log sum over components with std > 0 of alpha_m phi_m (a sub-density when the
    mixture has atoms). (log f)'' = -E_post[1/sigma^2] + Var_post[score], score_m(x) =
    -(x - mu_m)/sigma_m^2, posterior pi_m(x) = alpha_m phi_m(x)/f(x). On [a, c]:
    pi_m <= min(1, alpha_m sup phi_m / sum_k alpha_k inf phi_k) (a Gaussian's inf over an
    interval is at an end point), so -(log f)'' <= sum_m min(1, that) / sigma_m^2; and
    Var_post <= (max_m score_m(a) - min_m score_m(c))^2 / 4 (scores decrease in x).
    """

    def __init__(self, prior: GMM):
        cont = prior.stds > 0
        self.prior = prior
        self.mu, self.sd, self.w = prior.means[cont], prior.stds[cont], prior.weights[cont]
        with np.errstate(divide="ignore"):
            self.logw = np.log(self.w)
        self.total = float(self.w.sum())
        self.atoms = prior.means[~cont]

    def values(self, y: np.ndarray):
        z = (y[:, None] - self.mu) / self.sd
        lp = lse_rows(self.logw - np.log(self.sd) - 0.5 * math.log(2 * math.pi) - 0.5 * z * z)
        return lp, np.zeros(y.shape)

    def cdf_sf(self, y: np.ndarray):
        from scipy.special import ndtr

        z = (y[:, None] - self.mu) / self.sd
        return ndtr(z) @ self.w, ndtr(-z) @ self.w

    def log_sup(self, a, c, lpa, lpc):
        return _log_sup_gauss(a, c, self.prior)

    def curvature(self, a, c, va, vc):
        za = (a[:, None] - self.mu) / self.sd
        zc = (c[:, None] - self.mu) / self.sd
        log_phi_a = self.logw - np.log(self.sd) - 0.5 * za * za
        log_phi_c = self.logw - np.log(self.sd) - 0.5 * zc * zc
        dist = np.maximum(0.0, np.maximum(a[:, None] - self.mu, self.mu - c[:, None])) / self.sd
        log_sup_m = self.logw - np.log(self.sd) - 0.5 * dist * dist
        log_inf = lse_rows(np.minimum(log_phi_a, log_phi_c))
        post = np.minimum(1.0, np.exp(np.minimum(log_sup_m - log_inf[:, None], 0.0)))
        e_inv = np.minimum(post @ (1.0 / self.sd ** 2), np.max(1.0 / self.sd ** 2))
        # scores at the ends (they decrease in x); Var_post <= sum_m post_m max_I (score_m - centre)^2
        s_hi = -(a[:, None] - self.mu) / self.sd ** 2
        s_lo = -(c[:, None] - self.mu) / self.sd ** 2
        main = post >= 1e-3 * np.max(post, axis=1, keepdims=True)
        centre = 0.5 * (np.max(np.where(main, s_hi, -np.inf), axis=1) + np.min(np.where(main, s_lo, np.inf), axis=1))
        dev = np.maximum((s_hi - centre[:, None]) ** 2, (s_lo - centre[:, None]) ** 2)
        var = np.sum(post * dev, axis=1)
        spread = np.max(s_hi, axis=1) - np.min(s_lo, axis=1)
        var = np.minimum(var, 0.25 * spread ** 2)
        return -e_inv, np.maximum(var - np.min(1.0 / self.sd ** 2), 0.0)


def _log_sup_gauss(a: np.ndarray, c: np.ndarray, prior: GMM) -> np.ndarray:
    """log sup over [a, c] of the density of X (continuous components only; -inf if none)."""
    cont = prior.stds > 0
    if not cont.any():
        return np.full(a.shape, -np.inf)
    mu, sd, w = prior.means[cont], prior.stds[cont], prior.weights[cont]
    dist = np.maximum(0.0, np.maximum(a[:, None] - mu, mu - c[:, None]))
    with np.errstate(divide="ignore"):
        terms = np.log(w) - np.log(sd) - 0.5 * math.log(2 * math.pi) - 0.5 * (dist / sd) ** 2
    return lse_rows(terms)


class _Pair:
    """Node values [log p_i, log p_j, aux_i, aux_j] of two families, counting evaluations."""

    def __init__(self, fi, fj):
        self.fi, self.fj = fi, fj
        self.points = 0

    def __call__(self, y) -> np.ndarray:
        y = np.atleast_1d(_check_y(y))
        self.points += y.size
        lpi, qi = self.fi.values(y)
        lpj, qj = self.fj.values(y)
        return np.stack([lpi, lpj, qi, qj], axis=1)

    def r(self, y) -> np.ndarray:
        y = np.atleast_1d(_check_y(y))
        self.points += y.size
        return self.fi.values(y)[0] - self.fj.values(y)[0]

    def curvatures(self, a, c, va, vc):
        """(D, U) >= 0 with -D <= r'' <= U on each [a, c], r = log p_i - log p_j."""
        lo_i, hi_i = self.fi.curvature(a, c, va[:, [0, 2]], vc[:, [0, 2]])
        lo_j, hi_j = self.fj.curvature(a, c, va[:, [1, 3]], vc[:, [1, 3]])
        with np.errstate(invalid="ignore", over="ignore"):
            d = np.maximum(hi_j - lo_i, 0.0)
            u = np.maximum(hi_i - lo_j, 0.0)
        return np.nan_to_num(d, nan=np.inf), np.nan_to_num(u, nan=np.inf)


# ----------------------------------------------------------------------------- public EMG helpers

def emg_logpdf(y, prior, b) -> np.ndarray:
    r"""log density of Y = X + Laplace(b) at ``y``, X ~ ``prior`` (a mixture; see docs/math/audits.md).

    Parameters
    ----------
    y : float or numpy.ndarray
        Finite points at which the log density is evaluated.
    prior : pufferfish.mixture.GMM or tuple
        Law of :math:`X`, as :func:`as_prior` reads it.
    b : float
        Scale of the Laplace noise, :math:`b > 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\log p_Y(y)`, one value a point.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        A bad prior, a non-finite ``y`` or ``b`` not finite and positive.
    """
    prior, b = as_prior(prior), _check_b(b)
    return _Emg(prior, b).logpdf(np.atleast_1d(_check_y(y)))


def emg_pdf(y, prior, b) -> np.ndarray:
    r"""Density of Y = X + Laplace(b), X ~ ``prior``.

    Parameters
    ----------
    y : float or numpy.ndarray
        Where to evaluate the density (finite).
    prior : pufferfish.mixture.GMM or tuple
        A mixture, or ``(mean, std)`` of one Gaussian.
    b : float
        The Laplace scale.

    Returns
    -------
    numpy.ndarray
        :math:`p_Y(y)` (the exponential of :func:`emg_logpdf`).

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        As :func:`emg_logpdf`.
    """
    return np.exp(emg_logpdf(y, prior, b))


def _emg_cdf(y, prior, b) -> np.ndarray:
    """Pr(Y <= y) for Y = X + Laplace(b), closed form (normal CDFs)."""
    prior, b = as_prior(prior), _check_b(b)
    return _Emg(prior, b).cdf_sf(np.atleast_1d(_check_y(y)))[0]


def _emg_sf(y, prior, b) -> np.ndarray:
    """Pr(Y > y) for Y = X + Laplace(b), closed form (accurate in the right tail)."""
    prior, b = as_prior(prior), _check_b(b)
    return _Emg(prior, b).cdf_sf(np.atleast_1d(_check_y(y)))[1]


def _mass(lo: np.ndarray, hi: np.ndarray, fam) -> np.ndarray:
    """Pr(lo < Y <= hi) (lo may be -inf, hi +inf), from the CDF or the survival function."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    pts = np.concatenate([lo, hi])
    fin = np.isfinite(pts)
    cdf = np.where(pts > 0, fam.total, 0.0)
    sf = fam.total - cdf
    if fin.any():
        c, s_ = fam.cdf_sf(pts[fin])
        cdf[fin], sf[fin] = c, s_
    n = lo.size
    c_lo, s_lo, c_hi, s_hi = cdf[:n], sf[:n], cdf[n:], sf[n:]
    return np.clip(np.where(c_lo <= 0.5 * fam.total, c_hi - c_lo, s_lo - s_hi), 0.0, None)


def _log_ratio(y, prior_i, prior_j, *, b) -> np.ndarray:
    """r(y) = log p_i(y) - log p_j(y) for Y = X + Laplace(b)."""
    prior_i, prior_j = as_prior(prior_i, name="prior_i"), as_prior(prior_j, name="prior_j")
    return emg_logpdf(y, prior_i, b) - emg_logpdf(y, prior_j, b)


def _log_mgf(prior: GMM, theta: float) -> float:
    with np.errstate(divide="ignore"):
        return float(lse_rows(np.log(prior.weights) + theta * prior.means + 0.5 * theta ** 2 * prior.stds ** 2))


def tail_log_ratios(prior_i, prior_j, *, b) -> tuple[float, float]:
    r"""(lim_{y->-inf} r(y), lim_{y->+inf} r(y)) = (log M_i(-1/b)/M_j(-1/b), log M_i(1/b)/M_j(1/b)), fact (d).

    Parameters
    ----------
    prior_i, prior_j : pufferfish.mixture.GMM or tuple
        The two mixture priors (or ``(mean, std)`` pairs).
    b : float
        Laplace scale :math:`b > 0` of the limits.

    Returns
    -------
    tuple of float
        Limits of :math:`r` at :math:`-\infty` then :math:`+\infty`, from the mixtures' MGFs.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        A prior neither a mixture nor ``(mean, std)``, or a bad ``b``.
    """
    pi, pj, b = as_prior(prior_i, name="prior_i"), as_prior(prior_j, name="prior_j"), _check_b(b)
    return (_log_mgf(pi, -1.0 / b) - _log_mgf(pj, -1.0 / b), _log_mgf(pi, 1.0 / b) - _log_mgf(pj, 1.0 / b))


# ----------------------------------------------------------------------------- windows and envelopes

def _mass_window(pi: GMM, pj: GMM, b: float) -> tuple[float, float]:
    mu = np.concatenate([pi.means, pj.means])
    sd = np.concatenate([pi.stds, pj.stds])
    return float(np.min(mu - Z_TAIL * sd) - LAPLACE_TAIL * b), float(np.max(mu + Z_TAIL * sd) + LAPLACE_TAIL * b)


def _limit_window(pi: GMM, pj: GMM, b: float) -> tuple[float, float]:
    mu = np.concatenate([pi.means, pj.means])
    sd = np.concatenate([pi.stds, pj.stds])
    reach = sd ** 2 / b + Z_TAIL * sd
    return float(np.min(mu - reach) - b), float(np.max(mu + reach) + b)


def _grid(lo: float, hi: float, step: float, extra: np.ndarray) -> np.ndarray:
    count = int(min(max(math.ceil((hi - lo) / step), 16), 200_000))
    nodes = np.linspace(lo, hi, count + 1)
    inside = extra[(extra > lo) & (extra < hi)]
    return np.unique(np.concatenate([nodes, inside]))


def _envelope(ra, rc, h, d_curv, u_curv):
    """(max, min) over [a, c] of the envelope of fact (c): chord +- curvature * (y-a)(c-y)/2."""
    slope = rc - ra
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        hd = d_curv * h * h
        hu = u_curv * h * h
        u_up = np.clip(0.5 + slope / np.where(hd > 0, hd, np.inf), 0.0, 1.0)
        u_dn = np.clip(0.5 - slope / np.where(hu > 0, hu, np.inf), 0.0, 1.0)
        env_max = ra + slope * u_up + 0.5 * hd * u_up * (1.0 - u_up)
        env_min = ra + slope * u_dn - 0.5 * hu * u_dn * (1.0 - u_dn)
    # an infinite curvature bound certifies nothing
    return np.where(np.isnan(env_max), np.inf, env_max), np.where(np.isnan(env_min), -np.inf, env_min)


def _roots(ev: _Pair, a: np.ndarray, c: np.ndarray, fa: np.ndarray, fc: np.ndarray, level: np.ndarray,
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


def _round(ev: _Pair, w: dict, eps: float) -> tuple:
    """One round of :func:`_hockey` on the work intervals ``w``: the intervals finished (a, c,
    forward positive, backward positive), the error bound of those accepted uncertified, and the
    mask of the intervals still to split (with their forward / backward crossings)."""
    wa, wc, va, vc, wra, wrc = (w[k] for k in ("wa", "wc", "va", "vc", "wra", "wrc"))
    fi, fj, scale = ev.fi, ev.fj, math.exp(eps)
    h = wc - wa
    d_curv, u_curv = ev.curvatures(wa, wc, va, vc)
    env_max, env_min = _envelope(wra, wrc, h, d_curv, u_curv)
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
    accept = ~done & ~f_cross & ~b_cross & ((bound <= _ACCEPT) | tiny | (wa.size > _MAX_WORK))
    finished = done | accept
    err = float(np.sum(np.minimum(bound[accept], 1.0))) if np.any(accept) else 0.0
    fwd_pos = np.where(f_ok, f_above & ~f_below, np.minimum(wra, wrc) > eps)
    bwd_pos = np.where(b_ok, b_above & ~b_below, np.maximum(wra, wrc) < -eps)
    return (wa[finished], wc[finished], fwd_pos[finished], bwd_pos[finished]), err, ~finished, f_cross, b_cross


def _split(ev: _Pair, w: dict, eps: float, fc_: np.ndarray, bc_: np.ndarray) -> dict:
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
    ev = _Pair(fi, fj)
    v = ev(y)
    r = v[:, 0] - v[:, 1]
    # work intervals [wa, wc], node values va, vc, and r at both ends
    w = {"wa": y[:-1], "wc": y[1:], "va": v[:-1], "vc": v[1:], "wra": r[:-1], "wrc": r[1:]}
    final = []  # arrays (a, c, fwd_positive, bwd_positive) of finished intervals
    err = 0.0
    scale = math.exp(eps)
    for _round_ in range(_MAX_ROUNDS):
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
        return float(max(0.0, np.sum(_mass(a_, c_, p) - scale * _mass(a_, c_, q))))

    forward = total(f_runs, fi, fj)
    backward = total(b_runs, fj, fi)
    tails = (np.array([-math.inf, hi]), np.array([lo, math.inf]))
    tail = float(np.sum(_mass(*tails, fi)) + np.sum(_mass(*tails, fj)))
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
    lo, hi = _mass_window(pi, pj, b)
    atoms = np.concatenate([pi.means[pi.stds == 0], pj.means[pj.stds == 0]])
    y = _grid(lo, hi, b, atoms)
    fwd, bwd, f_runs, b_runs, err, points = _hockey(_Emg(pi, b), _Emg(pj, b), eps, lo, hi, y)
    return HockeyStick(eps, b, fwd, bwd, f_runs, b_runs, err, points)


def prior_hockey_stick(prior_i, prior_j, *, epsilon: float) -> HockeyStick:
    r"""The noise-free limit b -> 0: hockey-stick divergences of the priors themselves.

    delta_achieved(b) is non-increasing in b and tends to this value as b -> 0 (Y -> X;
    by data processing it is also an upper bound for every b). Atoms (std 0) are compared
    atom by atom, [P_i{x} - e^eps P_j{x}]_+, and the continuous parts with the same
    certified-root engine as :func:`hockey_stick`, on the Gaussian densities (class
    ``_Gauss`` gives the curvature bounds).

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
    gi, gj = _Gauss(pi), _Gauss(pj)
    f_runs = b_runs = ()
    err, points = 0.0, 0
    if gi.total > 0 and gj.total > 0:
        mu = np.concatenate([gi.mu, gj.mu])
        sd = np.concatenate([gi.sd, gj.sd])
        lo, hi = float(np.min(mu - Z_TAIL * sd)), float(np.max(mu + Z_TAIL * sd))
        extra = (mu[:, None] + sd[:, None] * np.linspace(-Z_TAIL, Z_TAIL, 69)[None, :]).ravel()
        y = _grid(lo, hi, float(np.max(sd)) / 4, extra)
        cf, cb, f_runs, b_runs, err, points = _hockey(gi, gj, eps, lo, hi, y)
        fwd, bwd = fwd + cf, bwd + cb
    else:
        fwd += gi.total
        bwd += gj.total
    return HockeyStick(eps, 0.0, fwd, bwd, f_runs, b_runs, err, points)


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
    gi, gj = _Gauss(pi), _Gauss(pj)
    if (gi.total > 0) != (gj.total > 0):
        return math.inf
    best = max([abs(math.log(ai[x] / aj[x])) for x in ai], default=0.0)
    if gi.total == 0:
        return best

    def dominant(g: _Gauss, sign: float):
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
    y = _grid(float(np.min(mu - Z_TAIL * sd)), float(np.max(mu + Z_TAIL * sd)), float(np.min(sd)) / 64, mu)
    r = np.abs(gi.values(y)[0] - gj.values(y)[0])
    return float(max(best, *limits, _polished_grid_max(y, r, gi, gj)))


def _polished_grid_max(y: np.ndarray, r: np.ndarray, gi: "_Gauss", gj: "_Gauss") -> float:
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


# ----------------------------------------------------------------------------- pure epsilon

def epsilon_achieved(prior_i, prior_j, *, b: float, window: tuple[float, float] | None = None) -> float:
    r"""sup_y |log p_i(y) / p_j(y)| for Y = X + Laplace(b): the pure-epsilon privacy loss.

    With ``window = None`` the sup is over all real y: finite for Laplace noise, it is the
    larger of the tail limits |log M_i(-+1/b) / M_j(-+1/b)| (fact (d)) and the max of |r|
    on [Y-, Y+] (beyond which r equals its limits to double precision). With a window
    (lo, hi), the max over that window only (Fig. 1). The max on a segment: a grid of
    step b/2, intervals refined while the envelope (c) could exceed the best value by
    more than 1e-9 (relative), then the best nodes polished with a bounded Brent search.

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
        The pure-:math:`\epsilon` loss :math:`\sup_y |r(y)|`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Bad priors or ``b``, or a window that is not a finite ``lo < hi``.
    """
    pi, pj, b = as_prior(prior_i, name="prior_i"), as_prior(prior_j, name="prior_j"), _check_b(b)
    ev = _Pair(_Emg(pi, b), _Emg(pj, b))
    if window is None:
        lo, hi = _limit_window(pi, pj, b)
        limits = [abs(v) for v in tail_log_ratios(pi, pj, b=b)]
    else:
        lo, hi = (float(window[0]), float(window[1]))
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ConfigError(f"window = {window!r}: must be two finite numbers lo < hi")
        limits = []
    atoms = np.concatenate([pi.means[pi.stds == 0], pj.means[pj.stds == 0]])
    y = _grid(lo, hi, b / 2, atoms)
    v = ev(y)
    r = v[:, 0] - v[:, 1]
    best = float(max([np.max(np.abs(r)), *limits]))
    wa, wc, va, vc, wra, wrc = y[:-1], y[1:], v[:-1], v[1:], r[:-1], r[1:]
    for _round in range(_MAX_ROUNDS):
        if wa.size == 0 or wa.size > _MAX_WORK:
            break
        d_curv, u_curv = ev.curvatures(wa, wc, va, vc)
        env_max, env_min = _envelope(wra, wrc, wc - wa, d_curv, u_curv)
        keep = (np.maximum(env_max, -env_min) > best + _SUP_RTOL * max(1.0, best)) \
            & (wc - wa > 1e-12 * np.maximum(b, np.abs(wa)))
        if not keep.any():
            break
        wa, wc, va, vc, wra, wrc = wa[keep], wc[keep], va[keep], vc[keep], wra[keep], wrc[keep]
        mid = 0.5 * (wa + wc)
        mv = ev(mid)
        m_r = mv[:, 0] - mv[:, 1]
        best = max(best, float(np.max(np.abs(m_r))))
        y, r = np.concatenate([y, mid]), np.concatenate([r, m_r])
        wa, wc = np.concatenate([wa, mid]), np.concatenate([mid, wc])
        va, vc = np.concatenate([va, mv]), np.concatenate([mv, vc])
        wra, wrc = np.concatenate([wra, m_r]), np.concatenate([m_r, wrc])
    # polish: zoom on the best nodes (vectorized golden-free grid search between neighbours)
    order = np.argsort(y)
    y, r = y[order], r[order]
    top = np.argsort(-np.abs(r))[:3]
    left = y[np.maximum(top - 1, 0)]
    right = y[np.minimum(top + 1, y.size - 1)]
    frac = np.linspace(0.0, 1.0, 33)
    for _ in range(6):
        pts = left[:, None] + (right - left)[:, None] * frac[None, :]
        vals = np.abs(ev.r(pts.ravel())).reshape(pts.shape)
        best = max(best, float(np.max(vals)))
        k = np.argmax(vals, axis=1)
        step = (right - left) / 32
        centre = pts[np.arange(pts.shape[0]), k]
        left, right = np.maximum(centre - step, left), np.minimum(centre + step, right)
    return float(best)


# ----------------------------------------------------------------------------- b_min

@dataclass(frozen=True)
class BMin:
    """The smallest accepted Laplace scale: ``b`` (inf when no bracket was found, see ``reason``).

    ``achieved`` is delta_achieved(b) (or epsilon_achieved(b) when ``delta == 0``), ``rejected``
    the largest scale tried that fails (``b_rejected`` < b with b / b_rejected - 1 <= rtol),
    ``steps`` the number of audit evaluations.
    """

    epsilon: float
    delta: float
    b: float
    achieved: float
    b_rejected: float
    steps: int
    reason: str = ""


def _start_scale(pi: GMM, pj: GMM) -> float:
    w = np.concatenate([pi.weights, pj.weights])
    mu = np.concatenate([pi.means, pj.means])
    sd = np.concatenate([pi.stds, pj.stds])
    centre = float(w @ mu) / 2.0
    spread = float(np.sqrt(w @ ((mu - centre) ** 2 + sd ** 2) / 2.0))
    gap = abs(pi.mean() - pj.mean()) + abs(float(np.sqrt(pi.weights @ pi.stds ** 2))
                                           - float(np.sqrt(pj.weights @ pj.stds ** 2)))
    return max(gap, 1e-6 * max(spread, abs(centre), 1.0))


def b_min(prior_i, prior_j, *, epsilon: float, delta: float, rtol: float = 1e-10, max_steps: int = 200,
          b_start: float | None = None) -> BMin:
    """The smallest b with delta_achieved(b) <= delta (delta = 0: epsilon_achieved(b) <= epsilon).

    Both losses are non-increasing in b (docs/math/audits.md: Laplace(b2) is Laplace(b1) plus
    an independent W, a post-processing, and the hockey-stick / max divergences obey data
    processing), so the accepted scales form a half-line [b_min, inf) (or [0, inf)).

    First the noise-free limit: if the priors themselves meet the target
    (:func:`prior_hockey_stick`, or :func:`prior_epsilon_achieved` for delta = 0), b_min = 0
    ("no noise needed"). Otherwise :func:`~pufferfish.audit.search.smallest_scale` (doubling
    or halving, then safeguarded interpolation on log b until b_accepted / b_rejected - 1 <=
    ``rtol``) from ``b_start`` (e.g. the theorem's scale) or a scale from the priors' spread,
    no b below 1e-9 times that spread evaluated.

    Parameters
    ----------
    prior_i, prior_j : GMM or tuple of float
        The two priors: each a GMM, or ``(mean, std)`` of one Gaussian.
    epsilon : float
        > 0.
    delta : float
        In [0, 1): 0 for pure epsilon.
    rtol : float
        In (0, 1): relative width of the final bracket.
    max_steps : int
        At most this many audits.
    b_start : float, optional
        Where the search starts (ignored unless finite and > 0).

    Returns
    -------
    BMin
        ``b`` an audited, accepted scale with ``b_rejected`` (a rejected one) within ``rtol``
        below it; inf with the reason when the target cannot be bracketed in time; the
        smallest scale accepted with a reason when no rejected one is found. Never hangs.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        An argument out of range or of the wrong type (naming it).
    """
    pi, pj = as_prior(prior_i, name="prior_i"), as_prior(prior_j, name="prior_j")
    eps = real(epsilon, name="epsilon", lo=0.0, lo_open=True)
    dl = real(delta, name="delta", lo=0.0, hi=1.0, hi_open=True)   # 0 for pure epsilon
    rtol, max_steps = checked_search(rtol, max_steps)
    rtol = real(rtol, name="rtol", hi=1.0, hi_open=True)
    target = eps if dl == 0.0 else dl
    limit = prior_hockey_stick(pi, pj, epsilon=eps).delta if dl > 0.0 else prior_epsilon_achieved(pi, pj)
    if limit <= target:
        what = "delta" if dl > 0.0 else "epsilon"
        return BMin(eps, dl, 0.0, limit, 0.0, 0,
                    f"no noise needed: the priors themselves give {what} = {limit:.6g} <= {target:g}")
    seen = []

    def loss(bv: float) -> float:
        value = epsilon_achieved(pi, pj, b=bv) if dl == 0.0 else delta_achieved(pi, pj, epsilon=eps, b=bv)
        seen.append((bv, value))
        return value

    spread = _start_scale(pi, pj)
    start = float(b_start) if b_start is not None and math.isfinite(b_start) and b_start > 0 else spread / eps
    b, value, steps, reason = smallest_scale(loss, target, start=start, strategy=LaplaceMixtureAuditor.search,
                                             rtol=rtol, max_steps=max_steps, floor=1e-9 * spread)
    rejected = max((s for s, v in seen if not v <= target and s < b), default=math.nan)
    return BMin(eps, dl, b, value, rejected, steps, reason)


class LaplaceMixtureAuditor(Auditor):
    """:class:`~pufferfish.audit.auditor.Auditor` of Laplace(b) noise on two Gaussian / GMM priors
    (paper 004), for (epsilon, delta): ``achieved`` is :func:`hockey_stick` (both directions),
    ``noise_free`` is :func:`prior_hockey_stick`, ``smallest_scale`` the generic search, the
    search of :func:`b_min` (from the priors' spread / epsilon, no b below 1e-9 times the spread)."""

    noise = "laplace"
    guarantees = ("epsilon_delta",)
    prior = "mixture"
    search = "double"
    order = 10

    def __init__(self, prior_i, prior_j, *, rtol: float = 1e-10, max_steps: int = 200):
        self.prior_i, self.prior_j = as_prior(prior_i, name="prior_i"), as_prior(prior_j, name="prior_j")
        self.rtol, self.max_steps = checked_search(rtol, max_steps)

    @classmethod
    def std(cls, scale: float) -> float:
        """sqrt(2) b: Var Laplace(b) = 2 b^2."""
        return math.sqrt(2.0) * scale

    def start_scale(self, target: Target) -> float:
        """A scale from the priors' spread, over epsilon (as :func:`b_min`)."""
        return _start_scale(self.prior_i, self.prior_j) / target.epsilon

    def floor(self, target: Target) -> float:
        """1e-9 times the priors' spread (as :func:`b_min`)."""
        return 1e-9 * _start_scale(self.prior_i, self.prior_j)

    def noise_free(self, target: Target) -> Achieved:
        """The limit b -> 0: the hockey-stick divergences of the priors themselves (:func:`prior_hockey_stick`)."""
        target = self.check_target(target)
        hs = prior_hockey_stick(self.prior_i, self.prior_j, epsilon=target.epsilon)
        return Achieved(0.0, target, hs.forward, hs.backward)

    def achieved(self, scale: float, target: Target) -> Achieved:
        target = self.check_target(target)
        hs = hockey_stick(self.prior_i, self.prior_j, epsilon=target.epsilon, b=scale)
        return Achieved(float(scale), target, hs.forward, hs.backward)

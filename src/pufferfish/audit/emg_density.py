r"""The law of Y = X + Laplace(b) for X a one-dimensional Gaussian mixture (paper 004, eq. (1)'s mechanism).

Paper 004 (N. Ding, IEEE TIFS 2024) releases :math:`Y = X + \mathrm{Laplace}(b)` with :math:`X` drawn
from the secret's prior :math:`\sum_m \alpha_m g(x; \mu_m, \sigma_m^2)` (Section IV; a component with
:math:`\sigma_m = 0` is a point mass). The density is the exponentially modified Gaussian (EMG),
:math:`p(y) = \sum_m \alpha_m (A_m(y) + B_m(y)) / 2b` with
:math:`A_m = e^{-(y-\mu_m)/b + s_m^2/2} \Phi(t_m - s_m)`, :math:`B_m = e^{(y-\mu_m)/b + s_m^2/2} \Phi(-t_m - s_m)`,
:math:`t_m = (y - \mu_m)/\sigma_m`, :math:`s_m = \sigma_m / b` (docs/math/audits.md, facts (a)-(b)),
kept in log space (no overflow for any :math:`y`, :math:`\sigma`, :math:`b`):

* :func:`as_prior` -- a :class:`~pufferfish.mixture.GMM` from a mixture or ``(mean, std)``;
* :func:`emg_logpdf`, :func:`emg_pdf`, :func:`emg_cdf`, :func:`emg_sf` -- density and closed-form CDFs;
* :func:`tail_log_ratios` -- the limits of the log-ratio at :math:`\pm\infty` (fact (d), the MGFs);
* :class:`EmgFamily`, :class:`GaussianFamily`, :func:`log_sup_gaussian`, :func:`mass_between` -- the
  "families" the certified-root engines (:mod:`.mixture_hockey_stick`, :mod:`.mixture_privacy_loss`)
  work on: log density, the sup bound of fact (a), the curvature bounds of fact (b), interval masses.
  Internal numerics: they take validated values.
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.audit.quadrature import lse_rows
from pufferfish.checks import real, reals
from pufferfish.errors import ArgumentTypeError
from pufferfish.mixture import GMM

__all__ = ["as_prior", "emg_logpdf", "emg_pdf", "emg_cdf", "emg_sf", "tail_log_ratios", "EmgFamily",
           "GaussianFamily", "log_sup_gaussian", "mass_between", "mass_error", "certified_mass_difference", "LOG_ULPS"]

#: error budget of one floating-point evaluation chain, relative to the magnitudes it adds: 2^-45 = 128
#: units in the last place (scipy's log_ndtr / ndtr, exp and log are accurate to a few units)
LOG_ULPS = 2.0 ** -45


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


def _check_b(b) -> float:
    """A Laplace scale: finite and > 0."""
    return real(b, name="b", lo=0.0, lo_open=True)


# ----------------------------------------------------------------------------- density families
#
# The certified-root engines work on any pair of "families": objects giving, at
# points y, the log density and an auxiliary value, and on intervals [a, c] a bound on
# the log of the sup of the density and bounds lo <= (log p)'' <= hi.

class EmgFamily:
    """Y = X + Laplace(b), X a Gaussian mixture (docs/math/audits.md, facts (a)-(b)); validated ``prior``, ``b``."""

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
        # the law's total mass: the weights' exact sum, correctly rounded (1 within a few ulps)
        self.total = math.fsum(prior.weights)
        self.noise_b = b
        self.log_scale = float(np.max(np.abs(self.logw[np.isfinite(self.logw)]))) + abs(self.log_norm) + 2.0

    def cdf_ball(self, y: float):
        r"""Pr(Y <= y) as a python-flint ``arb`` ball at the context's precision (:math:`F` above, per component;
        an atom's is the Laplace CDF at :math:`y - \mu`)."""
        from flint import arb

        if not math.isfinite(y):
            return arb(0) if y < 0 else sum((arb(w) for w in self.w), arb(0))
        total, yb, b = arb(0), arb(y), arb(self.b)
        for w, mu, sd in zip(self.w, self.mu, self.sd):
            z = (yb - arb(mu)) / b
            if sd == 0:
                part = 1 - (-z).exp() / 2 if y >= mu else z.exp() / 2
            else:
                t, s = (yb - arb(mu)) / arb(sd), arb(sd) / b
                a_term = (-z + s * s / 2).exp() * _phi_ball(t - s)
                b_term = (z + s * s / 2).exp() * _phi_ball(-t - s)
                part = _phi_ball(t) - a_term / 2 + b_term / 2
            total += arb(w) * part
        return total

    def term_error(self, y: np.ndarray) -> np.ndarray:
        """A bound on the relative error of every closed-form term (each A_m, B_m, Phi) at y, and so on the
        absolute error of log p(y) (docs/math/audits.md, "Certified values of the mixture routes")."""
        dz = np.abs(y[:, None] - self.mu)
        s = np.where(self.cont, self.s, 0.0)
        t = np.where(self.cont, dz / self.safe_sd, 0.0)
        return LOG_ULPS * (np.max(dz / self.b + s * s + (t + s) ** 2, axis=1) + self.log_scale)

    def log_error(self, y: np.ndarray) -> np.ndarray:
        r"""A bound on the absolute error of the computed log p(y), the terms weighted by their share.

        :math:`\log p = \mathrm{lse}_k x_k - \log 2b` over the terms :math:`x = \log \alpha_m + \log A_m`
        (and :math:`B_m`); an error :math:`e_k` in each moves it by at most :math:`\sum_k \pi_k e_k`
        (:math:`\pi` the terms' shares, to first order), plus the rounding of the lse. Each
        :math:`\log A_m = -z + s^2/2 + \log\Phi(t - s)` is three terms of magnitude at most
        :math:`|z|`, :math:`s^2/2` and :math:`|\log A_m| + |z| + s^2/2`: :data:`LOG_ULPS` of their sum.
        """
        log_a, log_b, _ = self.log_ab(y)
        dz = np.abs(y[:, None] - self.mu) / self.b
        s2 = np.where(self.cont, self.s, 0.0) ** 2
        xa, xb = self.logw + log_a, self.logw + log_b
        top = np.logaddexp(lse_rows(xa), lse_rows(xb))
        with np.errstate(invalid="ignore", over="ignore"):
            share_a, share_b = np.exp(xa - top[:, None]), np.exp(xb - top[:, None])
            mag_a = np.where(share_a > 0, share_a * (2 * dz + s2 + np.abs(log_a)), 0.0)
            mag_b = np.where(share_b > 0, share_b * (2 * dz + s2 + np.abs(log_b)), 0.0)
        weighted = np.sum(mag_a + mag_b, axis=1)
        return LOG_ULPS * (2.0 * weighted + np.abs(top) + self.log_scale)

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

    def cdf_sf(self, y: np.ndarray, *, errors: bool = False):
        """(Pr(Y <= y), Pr(Y > y)); with ``errors``, also a bound on the absolute error of each: every term's
        own relative error (:data:`LOG_ULPS` of the magnitudes it sums: |z|, s^2, |log A|, and t^2 for Phi)
        times the term, summed, plus the rounding of the sums (docs/math/audits.md, "Certified values")."""
        from scipy.special import ndtr

        log_a, log_b, t = self.log_ab(y)
        a, bb = np.exp(log_a), np.exp(log_b)
        below, above = ndtr(t), ndtr(-t)
        if not self.all_cont:
            atom = ~self.cont
            ge = (y[:, None] >= self.mu).astype(float)
            below = np.where(atom, ge, below)
            above = np.where(atom, 1.0 - ge, above)
        cdf = np.clip((below - 0.5 * a + 0.5 * bb) @ self.w, 0.0, self.total)
        sf = np.clip((above + 0.5 * a - 0.5 * bb) @ self.w, 0.0, self.total)
        if not errors:
            return cdf, sf
        dz = np.abs(y[:, None] - self.mu) / self.b
        s2 = np.where(self.cont, self.s, 0.0) ** 2
        t2 = np.where(self.cont, t * t, 0.0)
        with np.errstate(invalid="ignore"):
            e_a = np.where(a > 0, a * (2 * dz + s2 + np.abs(log_a) + 2.0), 0.0)
            e_b = np.where(bb > 0, bb * (2 * dz + s2 + np.abs(log_b) + 2.0), 0.0)
        e_phi = t2 + 2.0
        err_cdf = LOG_ULPS * ((below * e_phi + 0.5 * e_a + 0.5 * e_b) @ self.w + 4.0 * cdf)
        err_sf = LOG_ULPS * ((above * e_phi + 0.5 * e_a + 0.5 * e_b) @ self.w + 4.0 * sf)
        return cdf, sf, err_cdf, err_sf

    def log_sup(self, a, c, lpa, lpc):
        """log sup_[a,c] p <= (log p(a) + log p(c))/2 + (c - a)/2b (fact (a))."""
        return 0.5 * (lpa + lpc) + (c - a) / (2 * self.b)

    def curvature(self, a, c, va, vc):
        """(lo, hi) with lo <= (log p)'' <= hi on [a, c] (fact (b)); va, vc = (log p, log rho)."""
        h = c - a
        log_inf_p = 0.5 * (va[:, 0] + vc[:, 0]) - h / (2 * self.b)
        f = np.exp(np.minimum(log_sup_gaussian(a, c, self.prior) - log_inf_p, 600.0))
        with np.errstate(invalid="ignore", over="ignore"):
            lq = np.minimum(va[:, 1], -vc[:, 1]) + 2 * h / self.b
            cc = np.where(np.isnan(lq), 1.0, np.minimum(1.0, 4.0 * np.exp(np.minimum(lq, 0.0))))
            return -f / self.b ** 2, cc / self.b ** 2


class GaussianFamily:
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
        self.total = math.fsum(self.w)
        self.atoms = prior.means[~cont]
        self.noise_b = 0.0
        self.log_scale = (float(np.max(np.abs(self.logw - np.log(self.sd)), initial=0.0))
                          + 0.5 * math.log(2 * math.pi) + 2.0)

    def cdf_ball(self, y: float):
        """Pr(X <= y) of the continuous part as a python-flint ``arb`` ball."""
        from flint import arb

        if not math.isfinite(y):
            return arb(0) if y < 0 else sum((arb(w) for w in self.w), arb(0))
        total = arb(0)
        for w, mu, sd in zip(self.w, self.mu, self.sd):
            total += arb(w) * _phi_ball((arb(y) - arb(mu)) / arb(sd))
        return total

    def term_error(self, y: np.ndarray) -> np.ndarray:
        """A bound on the relative error of every CDF term at y (and on the error of log f(y))."""
        z = (y[:, None] - self.mu) / self.sd
        return LOG_ULPS * (np.max(z * z, axis=1, initial=0.0) + 1.0 + self.log_scale)

    def log_error(self, y: np.ndarray) -> np.ndarray:
        """A bound on the absolute error of the computed log f(y), each component's term weighted by its share."""
        z = (y[:, None] - self.mu) / self.sd
        x = self.logw - np.log(self.sd) - 0.5 * math.log(2 * math.pi) - 0.5 * z * z
        top = lse_rows(x)
        with np.errstate(invalid="ignore"):
            share = np.exp(x - top[:, None])
        weighted = np.sum(np.where(share > 0, share * (0.5 * z * z), 0.0), axis=1)
        return LOG_ULPS * (2.0 * weighted + np.abs(top) + 1.0 + self.log_scale)

    def values(self, y: np.ndarray):
        z = (y[:, None] - self.mu) / self.sd
        lp = lse_rows(self.logw - np.log(self.sd) - 0.5 * math.log(2 * math.pi) - 0.5 * z * z)
        return lp, np.zeros(y.shape)

    def cdf_sf(self, y: np.ndarray, *, errors: bool = False):
        """(Pr(X <= y), Pr(X > y)) of the continuous part; with ``errors``, bounds on their absolute errors."""
        from scipy.special import ndtr

        z = (y[:, None] - self.mu) / self.sd
        cdf, sf = ndtr(z) @ self.w, ndtr(-z) @ self.w
        if not errors:
            return cdf, sf
        e_phi = z * z + 2.0
        return cdf, sf, LOG_ULPS * (ndtr(z) * e_phi @ self.w + 4 * cdf), LOG_ULPS * (ndtr(-z) * e_phi @ self.w + 4 * sf)

    def log_sup(self, a, c, lpa, lpc):
        return log_sup_gaussian(a, c, self.prior)

    def curvature(self, a, c, va, vc, post_cap=None):
        """(lo, hi) with lo <= (log f)'' <= hi on each [a, c]; ``post_cap`` (optional, shape (len(a), D)):
        further proven upper bounds on the posterior weights on each interval."""
        za = (a[:, None] - self.mu) / self.sd
        zc = (c[:, None] - self.mu) / self.sd
        log_phi_a = self.logw - np.log(self.sd) - 0.5 * za * za
        log_phi_c = self.logw - np.log(self.sd) - 0.5 * zc * zc
        dist = np.maximum(0.0, np.maximum(a[:, None] - self.mu, self.mu - c[:, None])) / self.sd
        log_sup_m = self.logw - np.log(self.sd) - 0.5 * dist * dist
        log_inf = lse_rows(np.minimum(log_phi_a, log_phi_c))
        post = np.minimum(1.0, np.exp(np.minimum(log_sup_m - log_inf[:, None], 0.0)))
        if post_cap is not None:
            post = np.minimum(post, post_cap)
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
        # not clipped at 0: r = log f_i - log f_j keeps the cancellation of the dominant -1/sigma^2 terms
        return -e_inv, var - np.min(1.0 / self.sd ** 2)


def log_sup_gaussian(a: np.ndarray, c: np.ndarray, prior: GMM) -> np.ndarray:
    """log sup over [a, c] of the density of X (continuous components only; -inf if none)."""
    cont = prior.stds > 0
    if not cont.any():
        return np.full(a.shape, -np.inf)
    mu, sd, w = prior.means[cont], prior.stds[cont], prior.weights[cont]
    dist = np.maximum(0.0, np.maximum(a[:, None] - mu, mu - c[:, None]))
    with np.errstate(divide="ignore"):
        terms = np.log(w) - np.log(sd) - 0.5 * math.log(2 * math.pi) - 0.5 * (dist / sd) ** 2
    return lse_rows(terms)


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
    return EmgFamily(prior, b).logpdf(np.atleast_1d(reals(y, name="y")))


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


def emg_cdf(y, prior, b) -> np.ndarray:
    r"""Pr(Y <= y) for Y = X + Laplace(b), closed form (normal CDFs).

    Parameters
    ----------
    y : float or numpy.ndarray
        Finite points.
    prior : pufferfish.mixture.GMM or tuple
        Law of :math:`X`, as :func:`as_prior` reads it.
    b : float
        The Laplace scale, :math:`b > 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\Pr(Y \le y)`, one value a point.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        As :func:`emg_logpdf`.
    """
    prior, b = as_prior(prior), _check_b(b)
    return EmgFamily(prior, b).cdf_sf(np.atleast_1d(reals(y, name="y")))[0]


def emg_sf(y, prior, b) -> np.ndarray:
    r"""Pr(Y > y) for Y = X + Laplace(b), closed form (accurate in the right tail).

    Parameters
    ----------
    y : float or numpy.ndarray
        Finite points.
    prior : pufferfish.mixture.GMM or tuple
        Law of :math:`X`, as :func:`as_prior` reads it.
    b : float
        The Laplace scale, :math:`b > 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\Pr(Y > y)`, one value a point.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        As :func:`emg_logpdf`.
    """
    prior, b = as_prior(prior), _check_b(b)
    return EmgFamily(prior, b).cdf_sf(np.atleast_1d(reals(y, name="y")))[1]


def mass_between(lo: np.ndarray, hi: np.ndarray, fam) -> np.ndarray:
    """Pr(lo < Y <= hi) under the family ``fam`` (lo may be -inf, hi +inf), from the CDF or the survival function."""
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


def mass_error(lo: np.ndarray, hi: np.ndarray, fam) -> tuple[np.ndarray, np.ndarray]:
    r""":func:`mass_between` and a bound on its absolute error (docs/math/audits.md, "Certified values").

    Each CDF value used carries the bound of the family's ``cdf_sf(..., errors=True)``: the terms
    :math:`\Phi(t)`, :math:`A/2`, :math:`B/2` each within their own relative error; the difference adds one
    rounding. Doubled to cover the rounding of the bound itself.

    Parameters
    ----------
    lo, hi : numpy.ndarray
        The intervals (lo, hi] (lo may be -inf, hi +inf).
    fam : EmgFamily or GaussianFamily
        The law.

    Returns
    -------
    tuple of numpy.ndarray
        The masses (as :func:`mass_between`) and the bounds on their errors.
    """
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    n = lo.size
    pts = np.concatenate([lo, hi])
    fin = np.isfinite(pts)
    cdf = np.where(pts > 0, fam.total, 0.0)
    sf = fam.total - cdf
    e_cdf, e_sf = np.zeros(pts.size), np.zeros(pts.size)
    if fin.any():
        cdf[fin], sf[fin], e_cdf[fin], e_sf[fin] = fam.cdf_sf(pts[fin], errors=True)
    side = cdf[:n] <= 0.5 * fam.total                  # the side mass_between takes
    err = np.where(np.tile(side, 2), e_cdf, e_sf)
    err = np.where(fin, err, 2.0 ** -52 * fam.total)   # the total mass, a correctly rounded sum
    mass = np.clip(np.where(side, cdf[n:] - cdf[:n], sf[:n] - sf[n:]), 0.0, None)
    return mass, 2.0 * (err[:n] + err[n:]) + 2.0 ** -50 * mass


def _phi_ball(x):
    """The standard normal CDF of an ``arb`` ball: erfc(-x / sqrt 2) / 2."""
    from flint import arb

    return (-x / arb(2).sqrt()).erfc() / 2


def certified_mass_difference(runs, p, q, log_scale: float) -> float:
    r"""The smallest float at or above :math:`\sum_J [P(J) - e^{s} Q(J)]`, the sum over the intervals ``runs``
    (lo, hi] computed in python-flint's ``arb`` balls, the precision doubled (128 to 4096 bits) until the
    ball is narrower than :math:`10^{-12}` of its value; 0 when its upper end is negative.

    Parameters
    ----------
    runs : sequence of tuple
        The intervals (lo may be -inf, hi +inf).
    p, q : EmgFamily or GaussianFamily
        The two families.
    log_scale : float
        :math:`s` (:math:`\epsilon`): the weight of ``q`` is :math:`e^s`.

    Returns
    -------
    float
        The upper end of the ball, rounded upward (:func:`pufferfish.certified.arb_upper_float`).
    """
    from flint import arb, ctx

    from pufferfish.certified import arb_upper_float

    saved, prec = ctx.prec, 128
    try:
        while True:
            ctx.prec = prec
            scale = arb(log_scale).exp()
            total = arb(0)
            for lo, hi in runs:
                total += (p.cdf_ball(hi) - p.cdf_ball(lo)) - scale * (q.cdf_ball(hi) - q.cdf_ball(lo))
            if prec >= 4096 or total.rad() <= 1e-12 * abs(total.mid()):
                break
            prec *= 2
    finally:
        ctx.prec = saved
    return max(0.0, arb_upper_float(total))


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

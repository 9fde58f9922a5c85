"""Laplace noise for Gaussian priors: Theorem 1, Remark 1 and Corollary 1 of paper 004.

N. Ding, "Approximation of Pufferfish Privacy for Gaussian Priors", IEEE TIFS 19 (2024).
Equation numbers below are the paper's. Throughout, ``sigma`` is a standard deviation
(the paper writes G(mu, sigma) in Theorem 1 and G(mu, sigma^2) elsewhere; eq. (5) and its
proof, Appendix A, use the standard deviation: Z = (X - mu_i) / sigma_i).

Every function returns the smallest Laplace scale ``b`` that the stated sufficient
condition accepts, as a float, or an array when ``epsilon`` (or ``K``) is an array.
These are *sufficient* conditions; :mod:`pufferfish.audit.laplace_mixture` computes the exact
privacy loss of any scale and the smallest scale that really attains (epsilon, delta).

Bad input (delta outside (0, 1), epsilon <= 0 or not finite, a negative standard
deviation...) raises :class:`~pufferfish.errors.ConfigError` with a one-line message
naming the value.
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.checks import real, reals
from pufferfish.errors import ConfigError, InvalidArgumentError

__all__ = [
    "tau_star", "tau_lambertw", "theorem1", "remark1", "corollary1a", "corollary1b",
    "corollary1_identical", "check_epsilon", "check_delta", "gaussian_noise_max_log_ratio",
]


# ----------------------------------------------------------------------------- validation

def check_epsilon(epsilon, *, name: str = "epsilon") -> np.ndarray:
    """``epsilon`` as a float array (0-d for a scalar); every value must be finite and > 0."""
    return reals(epsilon, name=name, lo=0.0, lo_open=True)


def check_delta(delta, *, name: str = "delta") -> np.ndarray:
    """``delta`` as a float array (0-d for a scalar); every value must lie in the open interval (0, 1)."""
    return reals(delta, name=name, lo=0.0, hi=1.0, lo_open=True, hi_open=True)


def _check_real(value, *, name: str) -> np.ndarray:
    return reals(value, name=name)


def _check_std(value, *, name: str) -> np.ndarray:
    """A standard deviation (or an array of them): finite and >= 0."""
    return reals(value, name=name, lo=0.0)


def _out(values):
    """A Python float for a 0-d result, the array otherwise."""
    values = np.asarray(values, dtype=float)
    return float(values) if values.ndim == 0 else values


# ----------------------------------------------------------------------------- tau*(delta)

def tau_star(delta):
    """tau*(delta) = Q^{-1}(delta / 2), eq. (20) (used in eqs. (5), (9), (11), (13)).

    Q(t) = Pr(Z > t) for Z ~ N(0, 1), so tau*(delta) = min{tau : Pr(Z > tau) <= delta/2}
    is ``scipy.stats.norm.isf(delta / 2)``, which scipy computes as ``-ndtri(delta / 2)``:
    that is what is called here, bit for bit the same (tested) without loading scipy.stats
    (half a second per job). Decreasing in delta in (0, 1) (Fig. 5); it is positive for
    every delta < 1. Vectorized over ``delta``.
    """
    from scipy.special import ndtri
    d = check_delta(delta)
    return _out(-ndtri(d / 2.0))


def tau_lambertw(delta):
    """The Lambert-W upper bound on tau*(delta), eqs. (22)-(23): sqrt(W0(2 / (pi delta^2))).

    Appendix A bounds the Gaussian tail by (21), Pr(Z > tau) <= e^{-tau^2/2} / (sqrt(2 pi) tau),
    and asks for the smallest tau >= 0 with

        tau^2 >= 2 W0(tau / (sqrt(2 pi) delta))                                   (22)

    tau = 0 satisfies (22) trivially (both sides are 0, W0(0) = 0); the intended value is
    the positive root. For tau > 0, with c = 1 / (sqrt(2 pi) delta), (22) with equality,
    tau^2 / 2 = W0(c tau), means (tau^2/2) e^{tau^2/2} = c tau (definition of W0), i.e.
    tau e^{tau^2/2} = 2c; squaring, tau^2 e^{tau^2} = 4c^2 = 2 / (pi delta^2), i.e.
    tau^2 = W0(2 / (pi delta^2)), which is (23). Since tau e^{tau^2/2} is increasing on
    tau > 0, (22) holds for tau > 0 exactly when tau >= that root: so the root is the
    infimum of the positive solutions and the bound (23) is that root.

    It is an upper bound on tau*(delta): at tau = tau_lambertw the tail bound (21) equals
    delta/2, so Pr(Z > tau) <= delta/2. ``scipy.special.lambertw`` (branch 0, real part;
    the argument is positive so the value is real). Vectorized over ``delta``.
    """
    from scipy.special import lambertw
    d = check_delta(delta)
    w = lambertw(2.0 / (math.pi * d ** 2), k=0)
    return _out(np.sqrt(np.real(w)))


# ----------------------------------------------------------------------------- Theorem 1

def theorem1(mu_i, sigma_i, mu_j, sigma_j, *, epsilon, delta):
    """Theorem 1, eq. (5): b = (|mu_i - mu_j| + |sigma_i - sigma_j| tau*(delta)) / epsilon.

    For priors X|s_i ~ G(mu_i, sigma_i^2) and X|s_j ~ G(mu_j, sigma_j^2) (``sigma`` are
    standard deviations, >= 0; 0 is a point mass), Laplace noise with scale >= b attains
    (epsilon, delta)-pufferfish privacy for the pair. The formula is symmetric in i, j.
    With sigma_i = sigma_j it is Remark 1 (eq. 6, pure epsilon); with point masses
    (sigma = 0) it is the l1-sensitivity |mu_i - mu_j| / epsilon of DP [2].
    Vectorized over ``epsilon`` (and broadcast over the other arguments).
    """
    eps = check_epsilon(epsilon)
    tau = tau_star(delta)
    mi, mj = _check_real(mu_i, name="mu_i"), _check_real(mu_j, name="mu_j")
    si, sj = _check_std(sigma_i, name="sigma_i"), _check_std(sigma_j, name="sigma_j")
    return _out((np.abs(mi - mj) + np.abs(si - sj) * tau) / eps)


def remark1(mu_i, mu_j, *, epsilon):
    """Remark 1, eq. (6): translation priors need b = |mu_i - mu_j| / epsilon (pure epsilon).

    Holds for any prior and its translate (Appendix B), not only Gaussians.
    """
    eps = check_epsilon(epsilon)
    mi, mj = _check_real(mu_i, name="mu_i"), _check_real(mu_j, name="mu_j")
    return _out(np.abs(mi - mj) / eps)


# ----------------------------------------------------------------------------- Corollary 1

def _delta_sigma(sigma_k: np.ndarray, rest_var: np.ndarray) -> np.ndarray:
    """sqrt(rest + sigma_k^2) - sqrt(rest), written without cancellation."""
    total = np.sqrt(rest_var + sigma_k ** 2)
    denom = total + np.sqrt(rest_var)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(denom > 0, sigma_k ** 2 / np.where(denom > 0, denom, 1.0), 0.0)
    return out


def corollary1a(mus, sigmas, *, epsilon, delta):
    """Corollary 1(a), eq. (9): presence/absence of one of K independent users.

    User k reports Z_k with mean ``mus[k]`` and standard deviation ``sigmas[k]``; the prior
    of the sum X is G(sum mu, sum sigma^2) (eq. 7) when k is present and
    G(sum_{k' != k} mu_k', sum_{k' != k} sigma_k'^2) when absent (eq. 8). Theorem 1 gives

        b = max_k (|mu_k| + Delta sigma_k tau*(delta)) / epsilon,
        Delta sigma_k = sqrt(sum_{k' != k} sigma_k'^2 + sigma_k^2) - sqrt(sum_{k' != k} sigma_k'^2),

    (Delta sigma_k computed as sigma_k^2 / (sqrt(.) + sqrt(.)) to avoid cancellation).
    Vectorized over ``epsilon``.
    """
    eps = check_epsilon(epsilon)
    tau = tau_star(delta)
    mu = np.atleast_1d(_check_real(mus, name="mus"))
    sd = np.atleast_1d(_check_std(sigmas, name="sigmas"))
    if mu.ndim != 1 or mu.shape != sd.shape or mu.size == 0:
        raise ConfigError(f"mus and sigmas: need two lists of the same length >= 1, got {mu.shape} and {sd.shape}")
    var = sd ** 2
    # sum over the other users, without subtracting (no cancellation)
    rest = np.array([var[np.arange(var.size) != k].sum() for k in range(var.size)])
    worst = np.max(np.abs(mu) + _delta_sigma(sd, rest) * tau)
    return _out(worst / eps)


def corollary1b(a, a_prime, *, epsilon):
    """Corollary 1(b), eq. (10): user k reports a vs a', b = |a - a'| / epsilon (pure epsilon)."""
    eps = check_epsilon(epsilon)
    x, y = _check_real(a, name="a"), _check_real(a_prime, name="a_prime")
    return _out(np.abs(x - y) / eps)


def corollary1_identical(mu, sigma, K, *, epsilon, delta):
    """Eq. (11): K identical users, b = (|mu| + (sqrt(K) - sqrt(K-1)) sigma tau*(delta)) / epsilon.

    ``sigma`` is the standard deviation of one user, ``K`` >= 1 the number of users
    (an integer or an array of integers: broadcast with ``epsilon``). It is eq. (9) with
    mu_k = mu, sigma_k = sigma; sqrt(K) - sqrt(K-1) is computed as 1 / (sqrt(K) + sqrt(K-1)).
    """
    eps = check_epsilon(epsilon)
    tau = tau_star(delta)
    m = _check_real(mu, name="mu")
    s = _check_std(sigma, name="sigma")
    k = reals(K, name="K", lo=1.0)
    for value in np.atleast_1d(k).ravel():
        if not float(value).is_integer():
            raise InvalidArgumentError(f"K = {float(value)!r}: must be an integer >= 1")
    gap = 1.0 / (np.sqrt(k) + np.sqrt(k - 1.0))
    return _out((np.abs(m) + gap * s * tau) / eps)


# ----------------------------------------------------------------------------- Gaussian noise (Fig. 1)

def gaussian_noise_max_log_ratio(mu_i: float, sd_i: float, mu_j: float, sd_j: float, *, noise_sd: float,
                                 window: tuple[float, float] | None = None) -> float:
    """max_y |log p_i(y)/p_j(y)| for Y = X + G(0, noise_sd^2), X|s ~ G(mu, sd^2): closed form.

    Y|s_i ~ G(mu_i, sd_i^2 + noise_sd^2): the log ratio is a quadratic in y, so its max
    modulus on [lo, hi] is at an end point or at the vertex. Over all y (``window=None``)
    it is finite only when the two variances are equal (then |mu_i - mu_j| grows linearly:
    inf unless the means are equal too): returns inf otherwise.
    """
    mu_i, mu_j = real(mu_i, name="mu_i"), real(mu_j, name="mu_j")
    sd_i, sd_j = real(sd_i, name="sd_i", lo=0.0), real(sd_j, name="sd_j", lo=0.0)
    noise_sd = real(noise_sd, name="noise_sd", lo=0.0, lo_open=True)
    vi, vj = sd_i ** 2 + noise_sd ** 2, sd_j ** 2 + noise_sd ** 2

    def r(y):
        y = np.asarray(y, dtype=float)
        return (-0.5 * np.log(vi) - (y - mu_i) ** 2 / (2 * vi)) - (-0.5 * np.log(vj) - (y - mu_j) ** 2 / (2 * vj))

    if window is None:
        if vi == vj and mu_i == mu_j:
            return 0.0
        return math.inf
    lo, hi = float(window[0]), float(window[1])
    points = [lo, hi]
    a2 = -1 / (2 * vi) + 1 / (2 * vj)
    if a2 != 0:
        vertex = -(mu_i / vi - mu_j / vj) / (2 * a2)
        if lo < vertex < hi:
            points.append(vertex)
    return float(np.max(np.abs(r(points))))

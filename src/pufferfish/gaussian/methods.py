r"""Laplace noise for Gaussian priors: Theorem 1, Remark 1 and Corollary 1 of paper 004.

N. Ding, "Approximation of Pufferfish Privacy for Gaussian Priors", IEEE TIFS 19 (2024).
Equation numbers below are the paper's. Throughout, :math:`\sigma` is a standard deviation
(the paper writes :math:`G(\mu, \sigma)` in Theorem 1 and :math:`G(\mu, \sigma^2)` elsewhere;
eq. (5) and its proof, Appendix A, use the standard deviation:
:math:`Z = (X - \mu_i) / \sigma_i`).

Every function returns the smallest Laplace scale :math:`b` that the stated sufficient
condition accepts, as a float, or an array when ``epsilon`` (or ``K``) is an array.
These are *sufficient* conditions; :mod:`pufferfish.audit.laplace_mixture` computes the exact
privacy loss of any scale and the smallest scale that really attains :math:`(\epsilon, \delta)`.
:func:`gaussian_noise_max_log_ratio` is Fig. 1's Gaussian-noise maximum.

Bad input (:math:`\delta \notin (0, 1)`, :math:`\epsilon \le 0` or not finite, a negative
standard deviation...) raises :class:`~pufferfish.errors.ConfigError` with a one-line message
naming the value. Derivations: docs/math/paper004-gaussian.md.
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.checks import real, reals
from pufferfish.errors import ConfigError, InvalidArgumentError
from pufferfish.gaussian.certified_values import lambertw_tau_upper, max_log_ratio_upper, tau_star_upper

__all__ = [
    "tau_star", "tau_lambertw", "theorem1", "remark1", "corollary1a", "corollary1b",
    "corollary1_identical", "check_epsilon", "check_delta", "gaussian_noise_max_log_ratio",
]


# ----------------------------------------------------------------------------- validation

def check_epsilon(epsilon, *, name: str = "epsilon") -> np.ndarray:
    r"""``epsilon`` as a float array (0-d for a scalar); every value must be finite and :math:`> 0`.

    Parameters
    ----------
    epsilon : float or array_like
        The value(s) to check.
    name : str
        The name the error message gives the value.

    Returns
    -------
    numpy.ndarray
        The values as floats.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value that is not a finite number :math:`> 0`.
    """
    return reals(epsilon, name=name, lo=0.0, lo_open=True)


def check_delta(delta, *, name: str = "delta") -> np.ndarray:
    r"""``delta`` as a float array (0-d for a scalar); every value must lie in :math:`(0, 1)`.

    Parameters
    ----------
    delta : float or array_like
        The value(s) to check.
    name : str
        The name the error message gives the value.

    Returns
    -------
    numpy.ndarray
        The values as floats.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value that is not a number in the open interval :math:`(0, 1)`.
    """
    return reals(delta, name=name, lo=0.0, hi=1.0, lo_open=True, hi_open=True)


def _check_real(value, *, name: str) -> np.ndarray:
    return reals(value, name=name)


def _check_std(value, *, name: str) -> np.ndarray:
    """A standard deviation (or an array of them): finite and non-negative."""
    return reals(value, name=name, lo=0.0)


def _rounded_up(values, ulps: int):
    """``values`` (>= 0, each computed from exact inputs through at most ``ulps`` / 2 roundings of non-negative terms)
    times 1 + ``ulps`` u, one float up: above the exact value (the scales and bounds of the Theorems are then
    never below the paper's formula)."""
    values = np.asarray(values, dtype=float) * (1.0 + ulps * 2.0 ** -53)
    return np.where(values > 0, np.nextafter(values, np.inf), values)


def _out(values):
    """A Python float for a 0-d result, the array otherwise."""
    values = np.asarray(values, dtype=float)
    return float(values) if values.ndim == 0 else values


# ----------------------------------------------------------------------------- tau*(delta)

def tau_star(delta):
    r""":math:`\tau^*(\delta) = Q^{-1}(\delta / 2)`, eq. (20) (used in eqs. (5), (9), (11), (13)).

    :math:`Q(t) = \Pr(Z > t)` for :math:`Z \sim N(0, 1)`, so
    :math:`\tau^*(\delta) = \min\{\tau : \Pr(Z > \tau) \le \delta / 2\}` is
    ``scipy.stats.norm.isf(delta / 2)``, which scipy computes as ``-ndtri(delta / 2)``: that is
    called here (without loading scipy.stats, half a second per job), then raised one float at a
    time until an arb ball of :math:`Q(\tau)` is surely :math:`\le \delta / 2`
    (:func:`pufferfish.gaussian.certified_values.tau_star_upper`): the value is at least the true
    quantile, so every scale set from it is at least the paper's. Decreasing in
    :math:`\delta \in (0, 1)` (Fig. 5); positive for every :math:`\delta < 1`.

    Parameters
    ----------
    delta : float or array_like
        :math:`\delta \in (0, 1)`; vectorized.

    Returns
    -------
    float or numpy.ndarray
        :math:`\tau^*(\delta)` rounded up (certified), a float for a scalar ``delta``.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A :math:`\delta` outside :math:`(0, 1)` or not a number.
    """
    from scipy.special import ndtri
    d = check_delta(delta)
    values = -ndtri(d / 2.0)
    flat = np.atleast_1d(values).ravel()
    out = np.array([tau_star_upper(float(x), float(t)) for x, t in zip(np.atleast_1d(d).ravel(), flat)])
    return _out(out.reshape(np.shape(values)))


def tau_lambertw(delta):
    r"""The Lambert-W upper bound on :math:`\tau^*(\delta)`, eqs. (22)-(23).

    .. math::

       \tau = \sqrt{W_0\bigl(2 / (\pi \delta^2)\bigr)},

    the positive root of eq. (22), :math:`\tau^2 \ge 2 W_0\bigl(\tau / (\sqrt{2\pi}\,\delta)\bigr)`
    (:math:`\tau = 0` satisfies it trivially). At this :math:`\tau` the tail bound (21),
    :math:`e^{-\tau^2/2} / (\sqrt{2\pi}\,\tau)`, equals :math:`\delta / 2`, so it bounds
    :math:`\tau^*(\delta)` from above. ``scipy.special.lambertw`` (branch 0, real part; the
    argument is positive). The derivation of (23) from (22) is in
    docs/math/paper004-gaussian.md.

    Parameters
    ----------
    delta : float or array_like
        :math:`\delta \in (0, 1)`; vectorized.

    Returns
    -------
    float or numpy.ndarray
        The bound, raised one float at a time until an arb ball confirms it
        (:func:`pufferfish.gaussian.certified_values.lambertw_tau_upper`), a float for a scalar
        ``delta``. ``W_0`` is scipy's ``lambertw`` where :math:`2 / (\pi \delta^2)` is a float,
        else Newton's method on :math:`w + \log w = \log x`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A :math:`\delta` outside :math:`(0, 1)` or not a number.
    """
    from scipy.special import lambertw
    d = check_delta(delta)
    flat = np.atleast_1d(d).ravel()
    # log x = log(2 / pi) - 2 log delta: W0 in logarithms where x overflows (w + log w = log x, Newton from log x)
    level = math.log(2.0 / math.pi) - 2.0 * np.log(flat)
    with np.errstate(over="ignore"):
        w = np.real(lambertw(np.exp(np.minimum(level, 700.0)), k=0))
    for _ in range(8):
        w = np.where(level > 700.0, w - (w + np.log(w) - level) / (1.0 + 1.0 / w), w)
    out = np.array([lambertw_tau_upper(float(x), float(t)) for x, t in zip(flat, np.sqrt(w))])
    return _out(out.reshape(np.shape(d)))


# ----------------------------------------------------------------------------- Theorem 1

def theorem1(mu_i, sigma_i, mu_j, sigma_j, *, epsilon, delta):
    r"""Theorem 1, eq. (5): the Laplace scale for two Gaussian priors.

    .. math::

       b = \frac{|\mu_i - \mu_j| + |\sigma_i - \sigma_j|\,\tau^*(\delta)}{\epsilon}

    For priors :math:`X \mid s_i \sim G(\mu_i, \sigma_i^2)` and
    :math:`X \mid s_j \sim G(\mu_j, \sigma_j^2)`, Laplace noise of scale at least :math:`b`
    attains :math:`(\epsilon, \delta)`-pufferfish privacy for the pair. Symmetric in
    :math:`i, j`. With :math:`\sigma_i = \sigma_j` it is Remark 1 (eq. 6, pure
    :math:`\epsilon`); with point masses (:math:`\sigma = 0`) it is the
    :math:`\ell_1`-sensitivity :math:`|\mu_i - \mu_j| / \epsilon` of DP.

    Parameters
    ----------
    mu_i, sigma_i, mu_j, sigma_j : float or array_like
        The priors' means and standard deviations (:math:`\ge 0`; 0 is a point mass);
        broadcast with ``epsilon``.
    epsilon : float or array_like
        :math:`\epsilon > 0`; vectorized.
    delta : float
        :math:`\delta \in (0, 1)`.

    Returns
    -------
    float or numpy.ndarray
        :math:`b`, a float when every argument is a scalar.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value that is not a finite number, :math:`\epsilon \le 0`, :math:`\delta \notin (0, 1)`
        or a negative standard deviation.
    """
    eps = check_epsilon(epsilon)
    tau = tau_star(delta)
    mi, mj = _check_real(mu_i, name="mu_i"), _check_real(mu_j, name="mu_j")
    si, sj = _check_std(sigma_i, name="sigma_i"), _check_std(sigma_j, name="sigma_j")
    return _out(_rounded_up((np.abs(mi - mj) + np.abs(si - sj) * tau) / eps, 8))


def remark1(mu_i, mu_j, *, epsilon):
    r"""Remark 1, eq. (6): translation priors need :math:`b = |\mu_i - \mu_j| / \epsilon` (pure :math:`\epsilon`).

    Holds for any prior and its translate (Appendix B), not only Gaussians.

    Parameters
    ----------
    mu_i, mu_j : float or array_like
        The two locations.
    epsilon : float or array_like
        :math:`\epsilon > 0`; vectorized.

    Returns
    -------
    float or numpy.ndarray
        :math:`b`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value that is not a finite number, or :math:`\epsilon \le 0`.
    """
    eps = check_epsilon(epsilon)
    mi, mj = _check_real(mu_i, name="mu_i"), _check_real(mu_j, name="mu_j")
    return _out(_rounded_up(np.abs(mi - mj) / eps, 4))


# ----------------------------------------------------------------------------- Corollary 1

def _delta_sigma(sigma_k: np.ndarray, rest_var: np.ndarray) -> np.ndarray:
    """sqrt(rest + sigma_k**2) - sqrt(rest), written without cancellation."""
    total = np.sqrt(rest_var + sigma_k ** 2)
    denom = total + np.sqrt(rest_var)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(denom > 0, sigma_k ** 2 / np.where(denom > 0, denom, 1.0), 0.0)
    return out


def corollary1a(mus, sigmas, *, epsilon, delta):
    r"""Corollary 1(a), eq. (9): presence or absence of one of :math:`K` independent users.

    User :math:`k` reports :math:`Z_k \sim G(\mu_k, \sigma_k^2)`; the prior of the sum
    :math:`X` is :math:`G(\sum_{k'} \mu_{k'}, \sum_{k'} \sigma_{k'}^2)` when :math:`k` is present
    (eq. 7) and the same sums over :math:`k' \ne k` when absent (eq. 8). Theorem 1 gives

    .. math::

       b = \max_k \frac{|\mu_k| + \Delta\sigma_k\, \tau^*(\delta)}{\epsilon}, \qquad
       \Delta\sigma_k = \sqrt{\textstyle\sum_{k' \ne k} \sigma_{k'}^2 + \sigma_k^2}
                      - \sqrt{\textstyle\sum_{k' \ne k} \sigma_{k'}^2},

    with :math:`\Delta\sigma_k` computed as :math:`\sigma_k^2 / (\sqrt{\cdot} + \sqrt{\cdot})`
    (no cancellation).

    Parameters
    ----------
    mus, sigmas : array_like
        The users' means and standard deviations (:math:`\ge 0`), two lists of the same
        length :math:`\ge 1`.
    epsilon : float or array_like
        :math:`\epsilon > 0`; vectorized.
    delta : float
        :math:`\delta \in (0, 1)`.

    Returns
    -------
    float or numpy.ndarray
        :math:`b`.

    Raises
    ------
    ConfigError
        ``mus`` and ``sigmas`` of different lengths, or empty.
    InvalidArgumentError, ArgumentTypeError
        A value that is not a finite number, :math:`\epsilon \le 0`, :math:`\delta \notin (0, 1)`
        or a negative standard deviation.
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
    return _out(_rounded_up(worst / eps, 2 * mu.size + 24))


def corollary1b(a, a_prime, *, epsilon):
    r"""Corollary 1(b), eq. (10): user :math:`k` reports :math:`a` vs :math:`a'`, :math:`b = |a - a'| / \epsilon`.

    Pure :math:`\epsilon`.

    Parameters
    ----------
    a, a_prime : float or array_like
        The two reports.
    epsilon : float or array_like
        :math:`\epsilon > 0`; vectorized.

    Returns
    -------
    float or numpy.ndarray
        :math:`b`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value that is not a finite number, or :math:`\epsilon \le 0`.
    """
    eps = check_epsilon(epsilon)
    x, y = _check_real(a, name="a"), _check_real(a_prime, name="a_prime")
    return _out(_rounded_up(np.abs(x - y) / eps, 4))


def corollary1_identical(mu, sigma, K, *, epsilon, delta):
    r"""Eq. (11): :math:`K` identical users.

    .. math::

       b = \frac{|\mu| + (\sqrt{K} - \sqrt{K - 1})\,\sigma\,\tau^*(\delta)}{\epsilon}

    It is eq. (9) with :math:`\mu_k = \mu`, :math:`\sigma_k = \sigma`;
    :math:`\sqrt{K} - \sqrt{K - 1}` is computed as :math:`1 / (\sqrt{K} + \sqrt{K - 1})`.

    Parameters
    ----------
    mu, sigma : float
        One user's mean and standard deviation (:math:`\ge 0`).
    K : int or array_like
        The number of users, integers :math:`\ge 1`; broadcast with ``epsilon``.
    epsilon : float or array_like
        :math:`\epsilon > 0`.
    delta : float
        :math:`\delta \in (0, 1)`.

    Returns
    -------
    float or numpy.ndarray
        :math:`b`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value that is not a finite number, :math:`\epsilon \le 0`, :math:`\delta \notin (0, 1)`,
        a negative standard deviation or a :math:`K` that is not an integer :math:`\ge 1`.
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
    return _out(_rounded_up((np.abs(m) + gap * s * tau) / eps, 16))


# ----------------------------------------------------------------------------- Gaussian noise (Fig. 1)

def gaussian_noise_max_log_ratio(mu_i: float, sd_i: float, mu_j: float, sd_j: float, *, noise_sd: float,
                                 window: tuple[float, float] | None = None) -> float:
    r"""Fig. 1: :math:`\max_y |\log p_Y(y \mid s_i) / p_Y(y \mid s_j)|` for Gaussian noise, in closed form.

    :math:`Y = X + G(0, s^2)` with :math:`X \mid s_k \sim G(\mu_k, \sigma_k^2)`, so
    :math:`Y \mid s_k \sim G(\mu_k, \sigma_k^2 + s^2)` and the log-ratio is a quadratic in
    :math:`y`: its largest modulus on :math:`[lo, hi]` is at an end point or at the vertex. Over
    all :math:`y` it is finite only when the two priors are equal (different variances: the
    quadratic term grows; equal variances and different means: the linear one).

    Parameters
    ----------
    mu_i, sd_i, mu_j, sd_j : float
        The priors' means and standard deviations (:math:`\ge 0`).
    noise_sd : float
        :math:`s > 0`.
    window : tuple of float, optional
        :math:`(lo, hi)`, :math:`lo < hi`; None: over all real :math:`y`.

    Returns
    -------
    float
        The maximum, certified from above (each point's log-ratio an arb ball, the vertex a ball
        around the exact one: :func:`pufferfish.gaussian.certified_values.max_log_ratio_upper`);
        over all :math:`y`, inf unless the priors are equal (then 0).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value that is not a finite number, a negative standard deviation, :math:`s \le 0`, or a
        window that is not two numbers :math:`lo < hi`.
    """
    mu_i, mu_j = real(mu_i, name="mu_i"), real(mu_j, name="mu_j")
    sd_i, sd_j = real(sd_i, name="sd_i", lo=0.0), real(sd_j, name="sd_j", lo=0.0)
    noise_sd = real(noise_sd, name="noise_sd", lo=0.0, lo_open=True)
    if window is not None:
        window = _window(window)
    if window is None:
        return 0.0 if sd_i == sd_j and mu_i == mu_j else math.inf
    return max_log_ratio_upper(mu_i, sd_i, mu_j, sd_j, noise_sd, *window)


def _window(window) -> tuple[float, float]:
    """``window`` as two finite floats lo < hi (one line naming it otherwise)."""
    if isinstance(window, (str, bytes)) or not hasattr(window, "__len__") or len(window) != 2:
        raise InvalidArgumentError(f"window = {window!r}: must be two numbers (lo, hi)")
    lo, hi = real(window[0], name="window[0]"), real(window[1], name="window[1]")
    if not lo < hi:
        raise InvalidArgumentError(f"window = ({lo!r}, {hi!r}): need lo < hi")
    return lo, hi

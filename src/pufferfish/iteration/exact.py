r"""Exact audit of noisy gradient descent with the quadratic loss on a Gaussian prior (beyond paper 002).

The model. l(w, x) = (w - x)^2 / 2 without projection, so grad_w l = w - x (K = 1: Lipschitz
in the record; no bound L) and each step is

    w_t = (1 - eta) w_{t-1} + eta x_t + Z_t,   Z_t ~ N(0, sigma^2)   (a noisy running mean),

c = |1 - eta|-Lipschitz in w. Unrolled, with q_t = (1 - eta)^(T-t),

    w_T = (1 - eta)^T w_0 + sum_t q_t (eta x_t + Z_t).

Under the secret x_k = a, x | x_k = a ~ N(mu + Sigma_{.k} (a - mu_k) / Sigma_kk, Sigma_c) with
Sigma_c = Sigma - Sigma_{.k} Sigma_{k.} / Sigma_kk (Gaussian conditioning: the conditional
covariance does not depend on a). w_T is an affine function of the Gaussian vector (x, Z),
hence Gaussian, with

* mean difference between x_k = a and x_k = b (|a - b| = D, the worst pair):
  Delta = eta D sum_t q_t Sigma_tk / Sigma_kk (the mean of x_t moves by (a - b) Sigma_tk / Sigma_kk);
* the same variance under both secrets (Z independent of x):
  V = sigma^2 sum_t q_t^2 + eta^2 q^T Sigma_c q = sigma^2 sum_t c^(2(T-t)) + eta^2 (q^T Sigma q - (q^T Sigma_{.k})^2 / Sigma_kk).

Two Gaussians N(m, V) and N(m + Delta, V) have, exactly,

* D_alpha = alpha Delta^2 / (2 V) for every alpha > 1 (both orders);
* the (epsilon, delta) curve delta(epsilon) = Phi(mu/2 - epsilon/mu) - e^epsilon Phi(-mu/2 - epsilon/mu),
  mu = |Delta| / sqrt(V) (Balle and Wang 2018, Thm 8; the project's
  :func:`pufferfish.mechanisms.gaussian.balle_wang_delta`, reused here).

Every accountant of :mod:`.accountants` (but ``dp_assumption``, which ignores the other
records' shifts) must be at least these values; the tests check it on random covariances.
sum_t q_t^2 = (1 - (1 - eta)^(2T)) / (1 - (1 - eta)^2) is computed with expm1 (no cancellation
for small eta); q^T Sigma q and q^T Sigma_{.k} by the covariance (:meth:`.Covariance.step_variance`,
:meth:`.Covariance.step_covariance`: closed forms of the geometric weights for a stationary or
an equal-correlation prior, :mod:`.geometric`). Every position at once: :mod:`.every_secret`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pufferfish.checks import real
from pufferfish.iteration.covariance import Covariance, check_covariance, conditional_variance
from pufferfish.iteration.geometric import noise_gain, step_weights

__all__ = ["ExactAudit", "exact_audit", "noise_gain", "step_weights"]


def _eta(eta) -> float:
    return real(eta, name="eta", lo=0.0, hi=1.0, lo_open=True)


@dataclass(frozen=True)
class ExactAudit:
    """w_T ~ N(m, V) under x_k = a and N(m + Delta, V) under x_k = b: the exact divergences.

    ``mean_gap`` = |Delta|; V = sigma^2 ``gain`` + ``data_variance`` (gain = sum q_t^2,
    data_variance = eta^2 q^T Sigma_c q). :meth:`at` gives the audit of another sigma
    (only the noise term changes).
    """

    mean_gap: float
    gain: float
    data_variance: float
    sigma: float

    def __post_init__(self):
        for name, lo_open in (("mean_gap", False), ("gain", True), ("data_variance", False), ("sigma", False)):
            object.__setattr__(self, name, real(getattr(self, name), name=name, lo=0.0, lo_open=lo_open))
        if not self.variance > 0:
            from pufferfish.errors import InvalidArgumentError
            raise InvalidArgumentError(f"sigma = {self.sigma!r}: the output w_T is deterministic given x_k (no "
                                       f"noise and no conditional data variance): the divergences are infinite")

    @property
    def variance(self) -> float:
        return self.sigma * self.sigma * self.gain + self.data_variance

    def at(self, sigma: float) -> ExactAudit:
        """The same model with noise standard deviation ``sigma``."""
        return ExactAudit(self.mean_gap, self.gain, self.data_variance, real(sigma, name="sigma", lo=0.0))

    @property
    def mu(self) -> float:
        """|Delta| / sqrt(V): the two outputs are N(0, 1) and N(mu, 1) up to an affine map."""
        return self.mean_gap / math.sqrt(self.variance)

    def renyi(self, *, alpha: float) -> float:
        """D_alpha = alpha Delta^2 / (2 V), exactly (both orders)."""
        alpha = real(alpha, name="alpha", lo=1.0, lo_open=True)
        return float(alpha * 0.5 * self.mu ** 2)

    def delta(self, *, epsilon: float) -> float:
        """The exact delta(epsilon) of the Gaussian hockey stick (Balle and Wang 2018, Thm 8)."""
        from pufferfish.mechanisms.gaussian import balle_wang_delta

        epsilon = real(epsilon, name="epsilon", lo=0.0)
        return max(0.0, balle_wang_delta(self.mean_gap, math.sqrt(self.variance), epsilon=epsilon))

    def epsilon(self, *, delta: float) -> float:
        """The exact epsilon at ``delta``: the root of delta(epsilon) = delta (0 if delta(0) <= delta).

        delta(epsilon) is continuous and strictly decreasing in epsilon where positive; the root
        is bracketed by 0 and a doubling upper end and found by Brent's method.
        """
        from scipy.optimize import brentq

        delta = real(delta, name="delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        if self.delta(epsilon=0.0) <= delta:
            return 0.0
        hi = max(1.0, self.mu * self.mu)
        while self.delta(epsilon=hi) > delta:
            hi *= 2.0
        return float(brentq(lambda e: self.delta(epsilon=e) - delta, 0.0, hi, xtol=1e-15, rtol=1e-14))


def exact_audit(covariance: Covariance, *, secret_index: int, eta: float, sigma: float,
                diameter: float) -> ExactAudit:
    """The exact law of w_T under the two secrets x_k = a, b (|a - b| = ``diameter``) (module docstring).

    ``sigma`` may be 0 (the data's own randomness only) for :func:`pufferfish.iteration.calibrate`'s
    smallest sigma; the divergences then need a positive conditional variance.
    """
    check_covariance(covariance)
    eta = _eta(eta)
    sigma = real(sigma, name="sigma", lo=0.0)
    diameter = real(diameter, name="diameter", lo=0.0)
    own = covariance.record_variance(secret_index)
    cross = covariance.step_covariance(eta, secret_index)
    gap = abs(eta * diameter * cross / own)
    data = eta * eta * conditional_variance(covariance.step_variance(eta), cross, own, first_index=int(secret_index))
    return ExactAudit(mean_gap=gap, gain=noise_gain(covariance.size, eta), data_variance=data, sigma=sigma)

r"""The exact audit of every record as the secret, at once: which record is most exposed.

The exact audit of the quadratic-loss model (:mod:`pufferfish.iteration.exact`) needs, for the
secret :math:`x_k`, :math:`\Sigma_{kk}`, :math:`\operatorname{Cov}(q^\top x, x_k) = q^\top \Sigma_{\cdot k}` and
:math:`\operatorname{Var}(q^\top x) = q^\top \Sigma q` (:math:`q_t = (1 - \eta)^{T-t}`). The last is one number
for every :math:`k`; the second, for every :math:`k`, is the product of the covariance with :math:`q`,
which :meth:`pufferfish.iteration.covariance.Covariance.step_covariances` computes at once:
:math:`O(T)` for a stationary prior (:func:`pufferfish.iteration.geometric.discounted_cumsum`),
:math:`O(1)` per record for equal correlations. Then, per record, exactly as
:func:`pufferfish.iteration.exact.exact_audit`:

.. math::

   \Delta_k = \eta D\, |q^\top \Sigma_{\cdot k}| / \Sigma_{kk}, \qquad
   V_k = \sigma^2 \sum_t q_t^2 + \eta^2 \bigl(q^\top \Sigma q - (q^\top \Sigma_{\cdot k})^2 / \Sigma_{kk}\bigr),

   D_\alpha = \alpha \Delta_k^2 / (2 V_k), \qquad
   \delta_k(\epsilon) = \text{the Gaussian hockey stick at } \mu_k = \Delta_k / \sqrt{V_k}.

Every divergence is increasing in :math:`\mu_k`, so the most exposed record (largest
:math:`D_\alpha` at every :math:`\alpha`, largest :math:`\delta` at every :math:`\epsilon`) is the one of
largest :math:`\mu_k`: :meth:`AllSecretsAudit.most_exposed`. docs/math/iteration.md, "Every record at once".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pufferfish.checks import integer, real
from pufferfish.errors import ComputationError, InvalidArgumentError
from pufferfish.iteration.covariance import Covariance, check_covariance
from pufferfish.iteration.exact import ExactAudit, certified_fields, field_tolerance
from pufferfish.iteration.gaussian_delta import certified_delta, delta_upper, renyi_upper
from pufferfish.iteration.geometric import noise_gain

__all__ = ["AllSecretsAudit", "all_secrets_audit", "hockey_stick"]

#: the first relative step by which a smallest sigma's variance is raised until its certified value meets the target
#: (each further step doubles; the certified values are at most 2^-33 above the exact ones)
NUDGE = 2.0 ** -40


def hockey_stick(mean_gap, std, *, epsilon: float) -> np.ndarray:
    """delta(epsilon) of N(Delta, V) against N(0, V), elementwise: Phi(a) - e^eps Phi(b), certified from above.

    a = Delta / (2 s) - epsilon s / Delta, b = -Delta / (2 s) - epsilon s / Delta, s = sqrt(V)
    (Balle and Wang 2018, Thm 8). Each value is at least the true delta of the floats given and at
    most 1 + 2^-33 times it (the smallest subnormal where the true delta is below it), by
    :func:`pufferfish.iteration.gaussian_delta.certified_delta`; 0 exactly where Delta = 0.

    Parameters
    ----------
    mean_gap : array_like
        |Delta| >= 0, finite.
    std : array_like
        sqrt(V) > 0, finite (broadcast against ``mean_gap``).
    epsilon : float
        >= 0.

    Returns
    -------
    numpy.ndarray
        The certified delta of each pair.

    Raises
    ------
    InvalidArgumentError
        A negative or non-finite gap, a standard deviation <= 0 or not finite, epsilon < 0.
    """
    from pufferfish.checks import reals

    gap = reals(mean_gap, name="mean_gap", lo=0.0)
    std = reals(std, name="std", lo=0.0, lo_open=True)
    epsilon = real(epsilon, name="epsilon", lo=0.0)
    gap, std = np.broadcast_arrays(gap, std)
    return _hockey_stick(gap.ravel(), std.ravel(), epsilon).reshape(gap.shape)


def _hockey_stick(gap: np.ndarray, std: np.ndarray, epsilon: float) -> np.ndarray:
    """:func:`hockey_stick` of validated 1-D arrays: the certified upper ends of :mod:`pufferfish.iteration.gaussian_delta`."""
    return certified_delta(gap, std, epsilon)


@dataclass(frozen=True)
class AllSecretsAudit:
    """w_T under x_k = a and x_k = b (|a - b| = D) for every record k: N(m, V_k) and N(m + Delta_k, V_k).

    ``mean_gap`` holds |Delta_1|..|Delta_T|, ``data_variance`` eta^2 Var(q^T x | x_k); V_k =
    sigma^2 ``gain`` + ``data_variance``. The record k's entry equals :func:`pufferfish.iteration.exact.exact_audit`'s
    numbers for k up to rounding (:meth:`audit` returns it as an :class:`~pufferfish.iteration.exact.ExactAudit`).
    """

    eta: float
    sigma: float
    gain: float
    mean_gap: np.ndarray = field(repr=False)
    data_variance: np.ndarray = field(repr=False)

    def __post_init__(self):
        from pufferfish.checks import as_vector

        object.__setattr__(self, "eta", real(self.eta, name="eta", lo=0.0, hi=1.0, lo_open=True))
        object.__setattr__(self, "sigma", real(self.sigma, name="sigma", lo=0.0))
        object.__setattr__(self, "gain", real(self.gain, name="gain", lo=0.0, lo_open=True))
        gap = as_vector(self.mean_gap, name="mean_gap", nonnegative=True)
        data = as_vector(self.data_variance, name="data_variance", nonnegative=True)
        if data.size != gap.size:
            raise InvalidArgumentError(f"data_variance: has {data.size} entries, mean_gap has {gap.size}")
        if self.sigma == 0.0 and not (data > 0).all():
            k = int(np.flatnonzero(data == 0)[0]) + 1
            raise InvalidArgumentError(f"sigma = 0.0: the output w_T is deterministic given x_{k} (no noise and "
                                       f"no conditional data variance): the divergences are infinite")
        for array in (gap, data):
            array.setflags(write=False)
        object.__setattr__(self, "mean_gap", gap)
        object.__setattr__(self, "data_variance", data)

    @property
    def size(self) -> int:
        """T, the number of records."""
        return self.mean_gap.size

    @property
    def variance(self) -> np.ndarray:
        """V_k = sigma^2 gain + data variance, per record."""
        return self.sigma * self.sigma * self.gain + self.data_variance

    @property
    def mu(self) -> np.ndarray:
        """mu_k = |Delta_k| / sqrt(V_k): each record's pair of outputs is N(0, 1) against N(mu_k, 1)."""
        out = self.variance
        np.sqrt(out, out=out)
        return np.divide(self.mean_gap, out, out=out)

    def at(self, sigma: float) -> AllSecretsAudit:
        """The same model with noise standard deviation ``sigma`` (only V_k changes)."""
        return AllSecretsAudit(self.eta, real(sigma, name="sigma", lo=0.0), self.gain, self.mean_gap,
                               self.data_variance)

    def renyi(self, *, alpha: float) -> np.ndarray:
        """D_alpha = alpha Delta_k^2 / (2 V_k) for every record (both orders), certified from above (relative
        error bound added, :func:`pufferfish.iteration.gaussian_delta.renyi_upper`)."""
        return renyi_upper(self.mean_gap, self.variance, real(alpha, name="alpha", lo=1.0, lo_open=True))

    def delta(self, *, epsilon: float) -> np.ndarray:
        """The certified delta(epsilon) of every record (:func:`hockey_stick` at the standard deviation rounded down)."""
        return delta_upper(self.mean_gap, self.variance, real(epsilon, name="epsilon", lo=0.0))

    def most_exposed(self) -> int:
        """The 1-based record of largest mu_k (the first if tied): the largest D_alpha and delta at every
        alpha and epsilon."""
        return int(np.argmax(self.mu)) + 1

    def audit(self, secret_index: int) -> ExactAudit:
        """The exact audit of record k alone."""
        k = integer(secret_index, name="secret_index", lo=1, hi=self.size)
        return ExactAudit(mean_gap=float(self.mean_gap[k - 1]), gain=self.gain,
                          data_variance=float(self.data_variance[k - 1]), sigma=self.sigma)

    def smallest_sigma(self, *, epsilon: float, delta: float | None = None, alpha: float | None = None) -> np.ndarray:
        """The smallest sigma each record needs for (epsilon, delta) (``delta`` given) or D_alpha <= epsilon.

        Renyi: sigma_k^2 = (alpha Delta_k^2 / (2 epsilon) - data_k) / gain, as
        :func:`pufferfish.iteration.calibrate.exact_sigma`. (epsilon, delta): the hockey stick depends on mu only, so
        one root mu* (:func:`pufferfish.mechanisms.gaussian.analytic_gaussian_sigma` at Delta = 1)
        serves every record: V_k = (Delta_k / mu*)^2. Each sigma is then checked by the certified value
        (:meth:`delta`, :meth:`renyi`) and V_k raised by relative steps (:data:`NUDGE`, doubling) until it meets
        the target with no tolerance. 0 where the data's own variance suffices (or Delta_k = 0).
        """
        epsilon = real(epsilon, name="epsilon", lo=0.0, lo_open=True)
        if delta is None:
            alpha = real(alpha, name="alpha", lo=1.0, lo_open=True)
            needed = alpha * self.mean_gap ** 2 / (2.0 * epsilon)
        else:
            from pufferfish.mechanisms.gaussian import analytic_gaussian_sigma

            delta = real(delta, name="delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
            if alpha is not None:
                real(alpha, name="alpha", lo=1.0, lo_open=True)
            needed = (self.mean_gap * analytic_gaussian_sigma(1.0, epsilon=epsilon, delta=delta)) ** 2
        sigma = np.sqrt(np.maximum(needed - self.data_variance, 0.0) / self.gain)
        return self._raise_until_met(sigma, epsilon, delta, alpha)

    def _raise_until_met(self, sigma: np.ndarray, epsilon: float, delta: float | None, alpha: float | None
                         ) -> np.ndarray:
        """Raise V_k = sigma_k^2 gain + data_k by 1 + NUDGE, 1 + 2 NUDGE, ... where the certified value exceeds the
        target (the certified values are at most 1 + 2^-33 above the exact ones, so a few steps suffice)."""
        check, step = np.flatnonzero(self.mean_gap > 0), NUDGE
        for _ in range(64):
            variance = sigma[check] ** 2 * self.gain + self.data_variance[check]
            gap = self.mean_gap[check]
            if delta is not None:
                bad = delta_upper(gap, variance, epsilon) > delta
            else:
                bad = renyi_upper(gap, variance, alpha) > epsilon
            if not bad.any():
                return sigma
            check = check[bad]
            sigma[check] = np.sqrt(sigma[check] ** 2 + step * variance[bad] / self.gain)
            step *= 2.0
        raise ComputationError(f"epsilon = {epsilon}: no sigma certified to meet the target for record "
                               f"{check[0] + 1} after 64 raises")  # pragma: no cover - a few steps suffice

def all_secrets_audit(covariance: Covariance, *, eta: float, sigma: float, diameter: float) -> AllSecretsAudit:
    """The exact audit of :func:`pufferfish.iteration.exact.exact_audit` for every record k = 1..T as the secret, at once.

    One :meth:`~pufferfish.iteration.covariance.Covariance.step_covariances` (O(T) for a stationary or an equal-correlation
    prior), one :meth:`~pufferfish.iteration.covariance.Covariance.step_variance`, then O(1) per record (module docstring).

    Parameters
    ----------
    covariance : Covariance
        The adversary's prior (:mod:`pufferfish.iteration.covariance`).
    eta : float
        The step size, in (0, 1].
    sigma : float
        The noise standard deviation, >= 0 (0 only where the data's own conditional variance is positive).
    diameter : float
        D = |a - b| of the secret pair, >= 0.

    Returns
    -------
    AllSecretsAudit
        Delta_k and the conditional data variance of every record.

    Raises
    ------
    ArgumentTypeError
        ``covariance`` is not a :class:`~pufferfish.iteration.covariance.Covariance`.
    InvalidArgumentError
        ``eta`` outside (0, 1], ``sigma`` or ``diameter`` negative or not finite, a prior that is
        not positive semi-definite, or sigma = 0 where some record's output is deterministic.
    """
    check_covariance(covariance)
    eta = real(eta, name="eta", lo=0.0, hi=1.0, lo_open=True)
    sigma = real(sigma, name="sigma", lo=0.0)
    diameter = real(diameter, name="diameter", lo=0.0)
    cross, data = covariance.every_conditional_moments(eta)
    own = covariance.constant_variance()
    if own is None:
        own = covariance.record_variances()
    gap, data = certified_fields(covariance, eta, diameter, cross, data, own)     # as exact_audit, in arrays
    gain = noise_gain(covariance.size, eta) * (1.0 - field_tolerance(covariance.size))
    return AllSecretsAudit(eta=eta, sigma=sigma, gain=gain, mean_gap=gap, data_variance=data)

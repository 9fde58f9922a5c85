r"""Exact audit of noisy gradient descent with the quadratic loss on a Gaussian prior (beyond paper 002).

With :math:`\ell(w, x) = (w - x)^2 / 2` and no projection each step is a noisy running mean,
:math:`w_t = (1 - \eta) w_{t-1} + \eta x_t + Z_t`, so with :math:`q_t = (1 - \eta)^{T-t}` the release
:math:`w_T` is Gaussian under either secret :math:`x_k = a, b` (:math:`|a - b| = D`), with means
:math:`\Delta` apart and one variance :math:`V`:

.. math::

   \Delta = \eta D \frac{q^\top \Sigma_{\cdot k}}{\Sigma_{kk}}, \qquad
   V = \sigma^2 \sum_t q_t^2 + \eta^2 \operatorname{Var}(q^\top x \mid x_k).

Hence :math:`D_\alpha = \alpha \Delta^2 / (2V)` exactly and the exact :math:`(\epsilon, \delta)` curve is the
Gaussian hockey stick at :math:`\mu = |\Delta| / \sqrt{V}` (Balle and Wang 2018, Thm 8;
:func:`pufferfish.mechanisms.gaussian.balle_wang_delta`). Every accountant of :mod:`pufferfish.iteration.accountants` but
``dp_assumption`` is at least these values. The prior enters through
:meth:`pufferfish.iteration.covariance.Covariance.conditional_moments` (closed forms of the step weights, :mod:`pufferfish.iteration.geometric`; the
conditional variance without cancellation where the prior's structure allows it). Every record at
once: :mod:`pufferfish.iteration.every_secret`. Derivation and accuracy: docs/math/iteration.md, "The exact audit".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pufferfish.checks import real
from pufferfish.errors import ComputationError, InvalidArgumentError
from pufferfish.iteration.covariance import Covariance, check_covariance
from pufferfish.iteration.gaussian_delta import delta_upper, renyi_upper
from pufferfish.iteration.geometric import noise_gain, step_weights

__all__ = ["ExactAudit", "exact_audit", "noise_gain", "step_weights", "field_tolerance", "certified_fields"]

_U = 2.0 ** -53


def _eta(eta) -> float:
    return real(eta, name="eta", lo=0.0, hi=1.0, lo_open=True)


def _deterministic(sigma: float) -> InvalidArgumentError:
    return InvalidArgumentError(f"sigma = {sigma!r}: the output w_T is deterministic given x_k (no noise and no "
                                f"conditional data variance): the divergences are infinite")


@dataclass(frozen=True)
class ExactAudit:
    r"""The laws of :math:`w_T` under the two secrets: :math:`N(m, V)` and :math:`N(m + \Delta, V)`.

    ``mean_gap`` is :math:`|\Delta|`; :math:`V = \sigma^2` ``gain`` + ``data_variance`` (``gain`` =
    :math:`\sum_t q_t^2`, ``data_variance`` = :math:`\eta^2 \operatorname{Var}(q^\top x \mid x_k)`).
    :meth:`at` gives the audit of another :math:`\sigma` (only the noise term changes).

    Raises
    ------
    InvalidArgumentError
        A field negative or not finite, ``gain`` <= 0, or :math:`V = 0` (no noise and no
        conditional data variance: the divergences are infinite).
    """

    mean_gap: float
    gain: float
    data_variance: float
    sigma: float

    def __post_init__(self):
        for name, lo_open in (("mean_gap", False), ("gain", True), ("data_variance", False), ("sigma", False)):
            object.__setattr__(self, name, real(getattr(self, name), name=name, lo=0.0, lo_open=lo_open))
        if not self.variance > 0:
            raise _deterministic(self.sigma)

    @classmethod
    def _of(cls, mean_gap: float, gain: float, data_variance: float, sigma: float) -> ExactAudit:
        """An audit of validated fields (finite, >= 0, gain > 0): only V > 0 is checked."""
        audit = object.__new__(cls)
        for name, value in (("mean_gap", mean_gap), ("gain", gain), ("data_variance", data_variance),
                            ("sigma", sigma)):
            object.__setattr__(audit, name, float(value))
        if not audit.variance > 0:
            raise _deterministic(sigma)
        return audit

    @property
    def variance(self) -> float:
        """:math:`V = \\sigma^2` gain + data variance."""
        return self.sigma * self.sigma * self.gain + self.data_variance

    def at(self, sigma: float) -> ExactAudit:
        """The same model with noise standard deviation ``sigma`` (>= 0; 0 needs a data variance > 0).

        Raises
        ------
        InvalidArgumentError
            ``sigma`` negative or not finite, or 0 without a data variance.
        """
        return ExactAudit._of(self.mean_gap, self.gain, self.data_variance, real(sigma, name="sigma", lo=0.0))

    @property
    def mu(self) -> float:
        r""":math:`|\Delta| / \sqrt{V}`: the two outputs are :math:`N(0, 1)` and :math:`N(\mu, 1)` up to an affine map."""
        return self.mean_gap / math.sqrt(self.variance)

    def renyi(self, *, alpha: float) -> float:
        r""":math:`D_\alpha = \alpha \Delta^2 / (2V)` (both orders), certified from above
        (:func:`pufferfish.iteration.gaussian_delta.renyi_upper`: at least the exact value of the fields, at most
        :math:`1 + 2^{-49}` times it); ``alpha`` > 1."""
        alpha = real(alpha, name="alpha", lo=1.0, lo_open=True)
        return float(renyi_upper(np.array([self.mean_gap]), np.array([self.variance]), alpha)[0])

    def delta(self, *, epsilon: float) -> float:
        r"""The certified :math:`\delta(\epsilon)` of the Gaussian hockey stick (Balle and Wang 2018, Thm 8): at least
        the exact value of the fields, at most :math:`1 + 2^{-33}` times it
        (:func:`pufferfish.iteration.gaussian_delta.delta_upper`); ``epsilon`` >= 0."""
        epsilon = real(epsilon, name="epsilon", lo=0.0)
        return float(delta_upper(np.array([self.mean_gap]), np.array([self.variance]), epsilon)[0])

    def epsilon(self, *, delta: float) -> float:
        r"""The certified :math:`\epsilon` at ``delta`` in (0, 1): the root of :math:`\delta(\epsilon) = \delta` (0 if
        :math:`\delta(0) \le \delta`), bracketed by 0 and a doubling upper end, found by Brent's method on the
        certified :meth:`delta`, then raised by relative steps until that certified value is at most ``delta``: at
        least the exact :math:`\epsilon` (:math:`\delta(\epsilon)` is strictly decreasing where positive)."""
        from scipy.optimize import brentq

        delta = real(delta, name="delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        if self.delta(epsilon=0.0) <= delta:
            return 0.0
        hi = max(1.0, self.mu * self.mu)
        while self.delta(epsilon=hi) > delta:
            hi *= 2.0
        root = float(brentq(lambda e: self.delta(epsilon=e) - delta, 0.0, hi, xtol=1e-300, rtol=4 * 2.0 ** -52))
        step = 2.0 ** -50
        while self.delta(epsilon=root) > delta:
            root = max(root * (1.0 + step), math.nextafter(root, math.inf))
            step *= 2.0
        return root

    def smallest_sigma(self, *, epsilon: float, delta: float | None = None, alpha: float | None = None) -> float:
        r"""The smallest :math:`\sigma` this audit accepts: :math:`(\epsilon, \delta)` if ``delta`` is given, else
        :math:`D_\alpha \le \epsilon`.

        The variance needed is :math:`s^2`, :math:`s` the analytic Gaussian standard deviation of one
        shift :math:`|\Delta|` (:func:`pufferfish.mechanisms.gaussian.analytic_gaussian_sigma`), or
        :math:`\alpha \Delta^2 / (2\epsilon)`; then :math:`\sigma^2 = (\text{needed} - \text{data variance}) / \text{gain}`,
        0 when the data's own conditional variance suffices (or :math:`\Delta = 0`).

        Parameters
        ----------
        epsilon : float
            > 0.
        delta : float, optional
            In (0, 1): an :math:`(\epsilon, \delta)` target.
        alpha : float, optional
            > 1: the Renyi order (needed without ``delta``; checked whenever given).

        Returns
        -------
        float
            :math:`\sigma \ge 0`.

        Raises
        ------
        InvalidArgumentError
            A value out of range, or neither ``delta`` nor ``alpha``.
        """
        epsilon = real(epsilon, name="epsilon", lo=0.0, lo_open=True)
        if delta is not None:
            delta = real(delta, name="delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        if alpha is not None or delta is None:
            alpha = real(alpha, name="alpha", lo=1.0, lo_open=True)
        if self.mean_gap == 0.0:
            return 0.0
        if delta is not None:
            from pufferfish.mechanisms.gaussian import analytic_gaussian_sigma

            std = analytic_gaussian_sigma(self.mean_gap, epsilon=epsilon, delta=delta)
            needed = std * std
        else:
            needed = alpha * self.mean_gap ** 2 / (2.0 * epsilon)
        noise = needed - self.data_variance
        return self._raise_until_met(math.sqrt(noise / self.gain) if noise > 0 else 0.0, epsilon, delta, alpha)

    def _raise_until_met(self, sigma: float, epsilon: float, delta: float | None, alpha: float | None) -> float:
        """Raise V = sigma^2 gain + data by 1 + 2^-40, 1 + 2^-39, ... until the certified value meets the target (no
        tolerance; the certified values are at most 1 + 2^-33 above the exact ones)."""
        step = 2.0 ** -40
        for _ in range(64):
            audit = self.at(sigma) if sigma > 0 or self.data_variance > 0 else None
            if audit is not None and (audit.delta(epsilon=epsilon) <= delta if delta is not None
                                      else audit.renyi(alpha=alpha) <= epsilon):
                return sigma
            variance = sigma * sigma * self.gain + self.data_variance
            sigma = math.sqrt(sigma * sigma + step * max(variance, self.mean_gap ** 2) / self.gain)
            step *= 2.0
        raise ComputationError(f"epsilon = {epsilon}: no sigma certified to meet the target after 64 raises"
                               )  # pragma: no cover - a few steps suffice


def field_tolerance(size: int) -> float:
    """kappa(T) = (T + 64) u: the relative error allowed to the prior's sums (q^T Sigma_{.k}, q^T Sigma q, sum q_t^2 and
    the structured conditional variances) over T records: the bound gamma_T of a T-term sum of non-negative terms,
    plus the closed forms' few u (measured below (T + 1) u / 2 against 50-digit sums, docs/math/iteration.md,
    "Certified audit")."""
    return (size + 64) * 2.0 ** -53


def _moduli_sums(covariance: Covariance, eta: float, secret_index: int | None):
    """(q^T |Sigma_{.k}| per record (or of record ``secret_index``), q^T |Sigma| q), or None when no covariance is
    negative (the sums are then the moments themselves)."""
    from pufferfish.iteration.dense_covariance import DenseCovariance
    from pufferfish.iteration.equal_correlation import EqualCorrelation
    from pufferfish.iteration.stationary_covariance import StationaryCovariance

    if isinstance(covariance, EqualCorrelation):
        return None                                     # rho in [0, 1]
    if isinstance(covariance, StationaryCovariance):
        g = covariance.autocovariance
        if (g >= 0).all():
            return None
        moduli = StationaryCovariance(np.abs(g))
        spread = (moduli.step_covariances(eta) if secret_index is None
                  else np.array([moduli.step_covariance(eta, secret_index)]))
        return spread, moduli.step_variance(eta)
    if isinstance(covariance, DenseCovariance):
        m = covariance.matrix
        if (m >= 0).all():
            return None
        q = step_weights(covariance.size, eta)
        columns = np.abs(m) @ q
        spread = columns if secret_index is None else columns[secret_index - 1:secret_index]
        return spread, float(q @ columns)
    raise ComputationError(f"covariance: no error bound for a {type(covariance).__name__} (the exact audit "
                           "certifies DenseCovariance, StationaryCovariance and EqualCorrelation priors)")


def certified_fields(covariance: Covariance, eta: float, diameter: float, cross: np.ndarray, conditional: np.ndarray,
                     own, secret_index: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(|Delta| rounded up, eta^2 Var(q^T x | x_k) rounded down) from the prior's float moments (arrays, one per record).

    |Delta| = eta D |cross| / own, raised by kappa(T) eta D q^T |Sigma_{.k}| / own (the moduli's sum) and 4 u; the
    conditional variance lowered by kappa(T) of itself where the prior computes it without a difference
    (EqualCorrelation, DecayingCorrelation), else by kappa(T) (q^T |Sigma| q + 3 |cross| q^T |Sigma_{.k}| / own + it),
    a bound on the error of total - cross^2 / own; then 4 u (the products by eta^2), at least 0. A prior with a
    negative covariance pays one more pass over its moduli (q^T |Sigma_{.k}| for every record, q^T |Sigma| q).
    The entries are every record's (``secret_index`` None) or the one record's.
    """
    kappa = field_tolerance(covariance.size)
    sums = _moduli_sums(covariance, eta, secret_index)
    if sums is None:
        spread, total = np.abs(cross), conditional + cross * cross / own
    else:
        spread, total = sums
    scale = eta * diameter
    gap = (np.abs(cross) * scale / own + kappa * scale * spread / own) * (1.0 + 4 * _U)
    if type(covariance).conditional_moments is not Covariance.conditional_moments:
        loss = kappa * conditional                      # computed without a difference
    else:
        loss = kappa * (total + 3.0 * np.abs(cross) * spread / own + conditional)
    data = np.maximum((conditional - loss) * (eta * eta) * (1.0 - 4 * _U), 0.0)
    return np.nextafter(gap, np.inf), data


def exact_audit(covariance: Covariance, *, secret_index: int, eta: float, sigma: float,
                diameter: float) -> ExactAudit:
    r"""The exact laws of :math:`w_T` under the two secrets :math:`x_k = a, b`, :math:`|a - b|` = ``diameter`` (module docstring).

    Parameters
    ----------
    covariance : Covariance
        The adversary's prior on the records (:mod:`pufferfish.iteration.covariance`).
    secret_index : int
        k, 1-based, 1 <= k <= T.
    eta : float
        The step size, in (0, 1].
    sigma : float
        The noise standard deviation, >= 0 (0: the data's own randomness only, for the smallest
        :math:`\sigma`; the divergences then need a positive conditional variance).
    diameter : float
        D >= 0.

    Returns
    -------
    ExactAudit

    Raises
    ------
    ArgumentTypeError
        ``covariance`` is not a :class:`~pufferfish.iteration.covariance.Covariance`.
    InvalidArgumentError
        A value out of range, a prior that is not positive semi-definite, or :math:`V = 0`.
    """
    check_covariance(covariance)
    eta = _eta(eta)
    sigma = real(sigma, name="sigma", lo=0.0)
    diameter = real(diameter, name="diameter", lo=0.0)
    own = covariance.record_variance(secret_index)
    cross, conditional = covariance.conditional_moments(eta, secret_index)
    gap, data = certified_fields(covariance, eta, diameter, np.array([cross]), np.array([conditional]), own,
                                 secret_index)
    gain = noise_gain(covariance.size, eta) * (1.0 - field_tolerance(covariance.size))
    return ExactAudit._of(mean_gap=float(gap[0]), gain=gain, data_variance=float(data[0]), sigma=sigma)

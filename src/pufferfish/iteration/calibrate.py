"""The smallest sigma each accountant certifies, and the exact audit of that sigma.

Every accountant bounds D_alpha by alpha X / (2 sigma^2) (:mod:`.accountants`), so:

* Renyi target D_alpha <= epsilon at order alpha: sigma = sqrt(alpha X / (2 epsilon)), in
  closed form (:func:`sigma_for_renyi`).
* (epsilon, delta) target through the RDP conversion (:func:`.accountants.rdp_epsilon` over
  the orders :data:`.accountants.ORDERS`): at one order alpha > 1.01 the conversion gives
  epsilon_alpha(sigma) = alpha X / (2 sigma^2) + log(1 - 1/alpha) - log(delta alpha) / (alpha - 1),
  decreasing in sigma, so epsilon_alpha(sigma) <= epsilon exactly when
  sigma >= sigma_alpha = sqrt(alpha X / (2 room_alpha)), room_alpha = epsilon - log(1 - 1/alpha)
  + log(delta alpha) / (alpha - 1) > 0; the KL branch (epsilon = 0 when delta^2 > 1 - exp(-r))
  needs r < -log(1 - delta^2). The conversion's epsilon is the minimum over orders, so the
  smallest sigma is min_alpha sigma_alpha: a closed form per order, no root finding
  (:func:`sigma_for_epsilon_delta`). The result is checked by evaluating the conversion at it
  and nudged up by relative steps of 1e-15 until the conversion accepts it (rounding).

The exact audit (:mod:`.exact`, the quadratic-loss linear-Gaussian model) then says whether
the sigma meets the target: exact delta(epsilon) <= delta (1 + rtol), or exact D_alpha <=
epsilon (1 + rtol). :func:`exact_sigma` is the smallest sigma the exact audit accepts
(:func:`pufferfish.mechanisms.gaussian.analytic_gaussian_sigma` solves the Gaussian hockey
stick for the total standard deviation sqrt(V), Brent's method on log sigma; then
sigma^2 = (V - data variance) / gain, 0 when the data's own conditional variance suffices).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pufferfish.checks import instance, real
from pufferfish.errors import InvalidArgumentError
from pufferfish.iteration.accountants import ORDERS, epsilon_of_cost
from pufferfish.iteration.covariance import as_vector
from pufferfish.iteration.exact import ExactAudit

__all__ = ["Calibration", "sigma_for_renyi", "sigma_for_epsilon_delta", "exact_sigma", "audit_sigma"]


def _epsilon(value) -> float:
    return real(value, name="epsilon", lo=0.0, lo_open=True)


def _delta(value) -> float:
    return real(value, name="delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)


def _target(delta, alpha) -> tuple[float | None, float | None]:
    """(delta, alpha) checked: ``delta`` in (0, 1) or None; ``alpha`` > 1, required when ``delta`` is None."""
    delta = None if delta is None else _delta(delta)
    if alpha is not None or delta is None:
        alpha = real(alpha, name="alpha", lo=1.0, lo_open=True)
    return delta, alpha


def sigma_for_renyi(cost: float, *, alpha: float, epsilon: float) -> float:
    """sqrt(alpha X / (2 epsilon)): the smallest sigma with alpha X / (2 sigma^2) <= epsilon."""
    cost = real(cost, name="cost", lo=0.0)
    alpha = real(alpha, name="alpha", lo=1.0, lo_open=True)
    epsilon = _epsilon(epsilon)
    return math.sqrt(alpha * cost / (2.0 * epsilon))


def sigma_for_epsilon_delta(cost: float, *, epsilon: float, delta: float, orders=ORDERS) -> float:
    """The smallest sigma whose bound alpha X / (2 sigma^2) converts to (epsilon, delta) (module docstring)."""
    cost = real(cost, name="cost", lo=0.0)
    epsilon, delta = _epsilon(epsilon), _delta(delta)
    a = as_vector(orders, name="orders")
    if (a < 1).any():
        raise InvalidArgumentError("orders: every Renyi order must be >= 1")
    if cost == 0.0:
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        room = epsilon - np.log1p(-1.0 / a) + np.log(delta * a) / (a - 1.0)
        ckd = np.where((a > 1.01) & (room > 0), np.sqrt(a * cost / (2.0 * room)), np.inf)
    kl_room = -math.log1p(-delta * delta)          # r < kl_room gives epsilon = 0
    kl = math.sqrt(float(a.min()) * cost / (2.0 * kl_room))
    sigma = float(min(ckd.min(), kl))
    if not math.isfinite(sigma) or sigma == 0.0:
        raise InvalidArgumentError(f"cost = {cost!r}: no finite sigma meets (epsilon, delta) = ({epsilon}, {delta}) "
                                   f"at these orders")
    for _ in range(64):
        if epsilon_of_cost(cost, sigma=sigma, delta=delta, orders=a) <= epsilon:
            return sigma
        sigma *= 1.0 + 1e-15
    raise InvalidArgumentError(f"cost = {cost!r}: the conversion does not accept sigma = {sigma!r} "
                               f"for epsilon = {epsilon}")  # pragma: no cover - rounding never needs 64 steps


def exact_sigma(audit: ExactAudit, *, epsilon: float, delta: float | None = None, alpha: float | None = None) -> float:
    """The smallest sigma the exact audit accepts: (epsilon, delta) if ``delta`` is given, else D_alpha <= epsilon.

    ``alpha`` is read only without ``delta``, and checked whenever given.
    """
    instance(audit, ExactAudit, name="audit")
    epsilon = _epsilon(epsilon)
    delta, alpha = _target(delta, alpha)
    if audit.mean_gap == 0.0:
        return 0.0
    if delta is not None:
        from pufferfish.mechanisms.gaussian import analytic_gaussian_sigma

        std = analytic_gaussian_sigma(audit.mean_gap, epsilon=epsilon, delta=delta)
        needed = std * std
    else:
        needed = alpha * audit.mean_gap ** 2 / (2.0 * epsilon)
    noise = needed - audit.data_variance
    return math.sqrt(noise / audit.gain) if noise > 0 else 0.0


@dataclass(frozen=True)
class Calibration:
    """A sigma and its exact audit: ``exact`` is the exact delta at ``epsilon`` ((epsilon, delta)
    target) or the exact D_alpha (Renyi target); ``meets_target`` is exact <= target (1 + rtol)."""

    sigma: float
    epsilon: float
    delta: float | None
    alpha: float | None
    exact: float
    meets_target: bool


def audit_sigma(audit: ExactAudit, sigma: float, *, epsilon: float, delta: float | None = None,
                alpha: float | None = None, rtol: float = 1e-9) -> Calibration:
    """The exact audit of ``sigma`` against (epsilon, delta) (``delta`` given) or D_alpha <= epsilon.

    ``alpha`` is read only without ``delta``, and checked whenever given.
    """
    instance(audit, ExactAudit, name="audit")
    epsilon = _epsilon(epsilon)
    delta, alpha = _target(delta, alpha)
    rtol = real(rtol, name="rtol", lo=0.0)
    sigma = real(sigma, name="sigma", lo=0.0)
    if sigma == 0.0 and audit.data_variance == 0.0:   # no noise at all: w_T reveals the secret unless Delta = 0
        exact = 0.0 if audit.mean_gap == 0.0 else (1.0 if delta is not None else math.inf)
        target = delta if delta is not None else epsilon
        return Calibration(sigma, epsilon, delta, alpha, exact, exact <= target)
    at = audit.at(sigma)
    if delta is not None:
        exact = at.delta(epsilon=epsilon)
        return Calibration(sigma, epsilon, delta, None, exact, exact <= delta * (1.0 + rtol))
    exact = at.renyi(alpha=alpha)
    return Calibration(sigma, epsilon, None, alpha, exact, exact <= epsilon * (1.0 + rtol))

r"""The smallest :math:`\sigma` each accountant certifies, and the exact audit's verdict on it.

Every accountant bounds :math:`D_\alpha` by :math:`\alpha X / (2\sigma^2)` (:mod:`pufferfish.iteration.accountants`), so its
smallest :math:`\sigma` is in closed form: :math:`\sqrt{\alpha X / (2\epsilon)}` for a Renyi target
(:func:`sigma_for_renyi`), and for :math:`(\epsilon, \delta)` through the RDP conversion the smallest over
the orders of each order's closed form (:func:`sigma_for_epsilon_delta`). The exact audit
(:mod:`pufferfish.iteration.exact`) then judges each :math:`\sigma`: :func:`audit_sigma` returns its
:class:`~pufferfish.audit.verdict.Verdict`, the project's one verdict of a scale, against the
:class:`~pufferfish.audit.target.Target` built by :func:`~pufferfish.audit.target.target_for`;
:func:`exact_sigma` is the exact audit's own smallest :math:`\sigma`; :func:`calibrate_account` does all
of it for every accountant of one secret. Derivations: docs/math/iteration.md, "Calibration".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pufferfish.audit.target import Target, target_for
from pufferfish.audit.verdict import NO_NOISE_NOTE, NOT_MET_AT_ZERO_NOTE, Verdict
from pufferfish.checks import as_vector, real
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError
from pufferfish.iteration.accountants import ACCOUNTANTS, ORDERS, claimed, epsilon_of_cost
from pufferfish.iteration.exact import ExactAudit
from pufferfish.iteration.model import ModelAccount

__all__ = ["AccountantCalibration", "sigma_for_renyi", "sigma_for_epsilon_delta", "exact_sigma", "audit_sigma",
           "calibrate_account"]

#: relative steps by which a conversion's sigma is nudged up until the conversion accepts it (rounding)
NUDGES = 64


def _epsilon(value) -> float:
    return real(value, name="epsilon", lo=0.0, lo_open=True)


def _delta(value) -> float:
    return real(value, name="delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)


def _target(epsilon, delta, alpha) -> Target:
    """The target: (epsilon, delta) if ``delta`` is given, else D_alpha <= epsilon (``alpha`` checked whenever given)."""
    epsilon = _epsilon(epsilon)
    delta = None if delta is None else _delta(delta)
    if alpha is not None or delta is None:
        alpha = real(alpha, name="alpha", lo=1.0, lo_open=True)
    return target_for("epsilon_delta" if delta is not None else "renyi", epsilon, delta=delta, alpha=alpha)


def _audit(audit) -> ExactAudit:
    if not isinstance(audit, ExactAudit):
        raise ArgumentTypeError(f"audit = {audit!r:.60}: must be an ExactAudit (pufferfish.iteration.exact_audit), "
                                f"not {type(audit).__name__}")
    return audit


def sigma_for_renyi(cost: float, *, alpha: float, epsilon: float) -> float:
    r""":math:`\sqrt{\alpha X / (2\epsilon)}`: the smallest :math:`\sigma` with :math:`\alpha X / (2\sigma^2) \le \epsilon`.

    Parameters
    ----------
    cost : float
        The accountant's cost :math:`X \ge 0`.
    alpha : float
        The Renyi order, > 1.
    epsilon : float
        The bound on :math:`D_\alpha`, > 0.

    Returns
    -------
    float
        The closed form raised by the relative
        :data:`~pufferfish.iteration.accountants.CLAIM_MARGIN` (:func:`~pufferfish.iteration.accountants.claimed`).

    Raises
    ------
    InvalidArgumentError
        A value out of range or not finite.
    """
    cost = real(cost, name="cost", lo=0.0)
    alpha = real(alpha, name="alpha", lo=1.0, lo_open=True)
    return _renyi_sigma(cost, alpha, _epsilon(epsilon))


def _renyi_sigma(cost: float, alpha: float, epsilon: float) -> float:
    """sqrt(alpha X / (2 epsilon)) raised by :data:`~pufferfish.iteration.accountants.CLAIM_MARGIN` (the accountant's
    claimed sigma: a tight accountant's is then met under the exact audit's certified value)."""
    return claimed(math.sqrt(alpha * cost / (2.0 * epsilon)))


def sigma_for_epsilon_delta(cost: float, *, epsilon: float, delta: float, orders=ORDERS) -> float:
    r"""The smallest :math:`\sigma` whose bound :math:`\alpha X / (2\sigma^2)` converts to :math:`(\epsilon, \delta)`.

    At one order :math:`\alpha > 1.01` the conversion (:func:`pufferfish.iteration.accountants.rdp_epsilon`) accepts
    :math:`\sigma \ge \sqrt{\alpha X / (2 r_\alpha)}`,
    :math:`r_\alpha = \epsilon - \log(1 - 1/\alpha) + \log(\delta\alpha) / (\alpha - 1) > 0`; the KL branch needs
    :math:`\alpha X / (2\sigma^2) < -\log(1 - \delta^2)` at the smallest order. The smallest over the orders,
    nudged up by relative steps of :math:`10^{-15}` until the conversion accepts it (rounding).

    Parameters
    ----------
    cost : float
        The accountant's cost :math:`X \ge 0`.
    epsilon : float
        > 0.
    delta : float
        In (0, 1).
    orders : array_like, optional
        The Renyi orders (>= 1) of the conversion (default :data:`pufferfish.iteration.accountants.ORDERS`).

    Returns
    -------
    float
        0 when :math:`X = 0`.

    Raises
    ------
    InvalidArgumentError
        A value out of range, or no finite :math:`\sigma` meets the target at these orders.
    """
    cost = real(cost, name="cost", lo=0.0)
    epsilon, delta = _epsilon(epsilon), _delta(delta)
    a = ORDERS if orders is ORDERS else as_vector(orders, name="orders")
    if (a < 1).any():
        raise InvalidArgumentError("orders: every Renyi order must be >= 1")
    return _epsilon_delta_sigma(cost, epsilon, delta, a)


def _epsilon_delta_sigma(cost: float, epsilon: float, delta: float, a: np.ndarray) -> float:
    """:func:`sigma_for_epsilon_delta` of validated arguments."""
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
    for _ in range(NUDGES):
        if epsilon_of_cost(cost, sigma=sigma, delta=delta, orders=a) <= epsilon:
            return sigma
        sigma *= 1.0 + 1e-15
    raise InvalidArgumentError(f"cost = {cost!r}: the conversion does not accept sigma = {sigma!r} "
                               f"for epsilon = {epsilon}")  # pragma: no cover - rounding never needs 64 steps


def exact_sigma(audit: ExactAudit, *, epsilon: float, delta: float | None = None, alpha: float | None = None) -> float:
    r"""The smallest :math:`\sigma` the exact audit accepts (:meth:`pufferfish.iteration.exact.ExactAudit.smallest_sigma`).

    Parameters
    ----------
    audit : ExactAudit
        The exact audit of one secret (:func:`pufferfish.iteration.exact.exact_audit`).
    epsilon : float
        > 0.
    delta : float, optional
        In (0, 1): an :math:`(\epsilon, \delta)` target; without it :math:`D_\alpha \le \epsilon`.
    alpha : float, optional
        The Renyi order > 1 (read only without ``delta``; checked whenever given).

    Returns
    -------
    float
        :math:`\sigma \ge 0`.

    Raises
    ------
    ArgumentTypeError
        ``audit`` is not an :class:`~pufferfish.iteration.exact.ExactAudit`.
    InvalidArgumentError
        A value out of range, or neither ``delta`` nor ``alpha``.
    """
    return _audit(audit).smallest_sigma(epsilon=epsilon, delta=delta, alpha=alpha)


def audit_sigma(audit: ExactAudit, sigma: float, *, epsilon: float, delta: float | None = None,
                alpha: float | None = None, rtol: float = 1e-9) -> Verdict:
    r"""The exact audit's verdict on ``sigma`` against :math:`(\epsilon, \delta)` (``delta`` given) or
    :math:`D_\alpha \le \epsilon`.

    Parameters
    ----------
    audit : ExactAudit
        The exact audit of one secret.
    sigma : float
        The noise standard deviation, >= 0 (0 with no data variance: the secret is revealed unless
        :math:`\Delta = 0`; delta 1, :math:`D_\alpha` infinite).
    epsilon, delta, alpha : float
        As :func:`exact_sigma`.
    rtol : float, optional
        Validated and not used: the target is met when the certified value is <= the bound, with no
        tolerance (kept for the callers that pass the configured ``audit.rtol``).

    Returns
    -------
    Verdict
        ``scale`` = sigma; ``forward`` = ``backward`` = the certified delta at epsilon or the certified
        :math:`D_\alpha` (at least the exact value, :meth:`pufferfish.iteration.exact.ExactAudit.delta`;
        the two secrets' laws are translates: both orders are equal).

    Raises
    ------
    ArgumentTypeError
        ``audit`` is not an :class:`~pufferfish.iteration.exact.ExactAudit`.
    InvalidArgumentError
        A value out of range.
    """
    target = _target(epsilon, delta, alpha)
    real(rtol, name="rtol", lo=0.0)
    return _verdict(_audit(audit), real(sigma, name="sigma", lo=0.0), target)


def _verdict(audit: ExactAudit, sigma: float, target: Target) -> Verdict:
    """:func:`audit_sigma` of validated arguments: certified value <= bound, no tolerance."""
    if sigma == 0.0 and audit.data_variance == 0.0:   # no noise at all: w_T reveals the secret unless Delta = 0
        exact = 0.0 if audit.mean_gap == 0.0 else (1.0 if target.delta is not None else math.inf)
    else:
        at = audit.at(sigma)
        exact = at.delta(epsilon=target.epsilon) if target.delta is not None else at.renyi(alpha=target.alpha)
    meets = bool(exact <= target.bound)
    note = "" if sigma > 0 else (NO_NOISE_NOTE if meets else NOT_MET_AT_ZERO_NOTE)
    return Verdict(sigma, target, exact, exact, meets, note)


@dataclass(frozen=True)
class AccountantCalibration:
    r"""One accountant's (or the exact audit's own, ``"exact"``) calibration of one secret at one epsilon.

    ``epsilon_delta``: the :math:`\sigma` for :math:`(\epsilon, \delta)` and its exact verdict; ``renyi``: the
    :math:`\sigma` for :math:`D_\alpha \le \epsilon` and its verdict; ``smallest`` / ``smallest_renyi``: the
    exact audit's smallest :math:`\sigma` for each target.
    """

    accountant: str
    epsilon_delta: Verdict
    renyi: Verdict
    smallest: float
    smallest_renyi: float


def calibrate_account(account: ModelAccount, *, epsilon: float, delta: float, alpha: float,
                      rtol: float = 1e-9) -> tuple[AccountantCalibration, ...]:
    r"""Every accountant's :math:`\sigma` for :math:`(\epsilon, \delta)` and for :math:`D_\alpha \le \epsilon`, and the
    exact audit's own (``"exact"``), each with the exact audit's verdict.

    Parameters
    ----------
    account : ModelAccount
        The costs and the exact audit of one secret (:func:`pufferfish.iteration.model.account_quadratic_model`).
    epsilon : float
        > 0.
    delta : float
        In (0, 1).
    alpha : float
        The Renyi order, > 1.
    rtol : float, optional
        Validated and not used (as :func:`audit_sigma`: no tolerance).

    Returns
    -------
    tuple of AccountantCalibration
        One per accountant of :data:`pufferfish.iteration.accountants.ACCOUNTANTS`, in that order, then ``"exact"``.

    Raises
    ------
    ArgumentTypeError
        ``account`` is not a :class:`~pufferfish.iteration.model.ModelAccount`.
    InvalidArgumentError
        A value out of range.
    """
    if not isinstance(account, ModelAccount):
        raise ArgumentTypeError(f"account = {account!r:.60}: must be a ModelAccount "
                                f"(pufferfish.iteration.account_quadratic_model)")
    pair, renyi = _target(epsilon, _delta(delta), None), _target(epsilon, None, alpha)
    real(rtol, name="rtol", lo=0.0)
    audit = account.audit
    smallest = audit.smallest_sigma(epsilon=pair.epsilon, delta=pair.delta)
    smallest_renyi = audit.smallest_sigma(epsilon=renyi.epsilon, alpha=renyi.alpha)
    out = []
    for name in (*ACCOUNTANTS, "exact"):
        if name == "exact":
            sigma, sigma_renyi = smallest, smallest_renyi
        else:
            cost = account.costs[name]
            sigma = _epsilon_delta_sigma(cost, pair.epsilon, pair.delta, ORDERS)
            sigma_renyi = _renyi_sigma(cost, renyi.alpha, renyi.epsilon)
        out.append(AccountantCalibration(name, _verdict(audit, sigma, pair), _verdict(audit, sigma_renyi, renyi),
                                         smallest, smallest_renyi))
    return tuple(out)

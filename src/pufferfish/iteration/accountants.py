r"""Named accountants for noisy gradient descent on correlated records, and RDP to :math:`(\epsilon, \delta)`.

Every accountant bounds :math:`D_\alpha(w_T \mid x_k = a \,\|\, w_T \mid x_k = b)` (both orders)
by :math:`\alpha X / (2\sigma^2)` with a cost :math:`X` that depends on the shifts only
(:func:`accountant_cost`); docs/math/iteration.md, "The four accountants", says what each is
and when it applies:

* ``paper_bound`` -- paper 002, Theorem 5.2 with :math:`c = 1`, best allocation
  (:mod:`pufferfish.iteration.minorant`);
* ``contraction_bound`` -- ours: the same theorem with :math:`c`-Lipschitz steps, never above it;
* ``dp_assumption`` -- the records treated as independent, :math:`s_k^2 / (T - k + 1)`: NOT a
  bound under correlation (the exact audit rejects it);
* ``composition`` -- every shift paid at its step, :math:`\sum_t s_t^2`.

The conversion to :math:`(\epsilon, \delta)` (:func:`rdp_epsilon`, :func:`rdp_delta`) is the one
dp-accounting uses (Canonne, Kamath, Steinke 2020, Prop. 12, and the KL bound), the tests'
oracle; :func:`epsilon_of_cost` and :func:`delta_of_cost` minimise it over :data:`ORDERS`, 2,001
orders from :math:`1 + 10^{-2}` to :math:`1 + 10^6` (the grid's minimum is a valid
:math:`\epsilon`; a finer grid can only lower it).
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.checks import as_vector, choice, integer, real
from pufferfish.errors import InvalidArgumentError
from pufferfish.iteration.minorant import minimal_cost, minimal_costs

__all__ = ["ACCOUNTANTS", "CLAIM_MARGIN", "ORDERS", "claimed", "accountant_cost", "accountant_costs", "paper_bound", "contraction_bound",
           "dp_assumption",
           "composition", "renyi_bound", "rdp_epsilon", "rdp_delta", "epsilon_of_cost", "delta_of_cost"]

#: the accountants, in the order tables and figures list them
ACCOUNTANTS = ("paper_bound", "contraction_bound", "dp_assumption", "composition")
#: the relative margin of a claimed bound or sigma (:func:`claimed`): above the float rounding of the costs (a few
#: u per term) and the exact audit's certified over-statement (at most 3 kappa(T) + 16 u = (3 T + 208) u of D_alpha,
#: :func:`pufferfish.iteration.exact.field_tolerance`) up to T = 2,900 records, so that a tight claim is not refuted
CLAIM_MARGIN = 2.0 ** -40
#: Renyi orders over which a bound alpha X / (2 sigma^2) is converted to (epsilon, delta)
ORDERS = 1.0 + np.geomspace(1e-2, 1e6, 2001)


def _sigma(sigma) -> float:
    return real(sigma, name="sigma", lo=0.0, lo_open=True)


def _alpha(alpha) -> float:
    return real(alpha, name="alpha", lo=1.0, lo_open=True)


def accountant_cost(name: str, shifts, *, contraction: float = 1.0, secret_index: int | None = None) -> float:
    r"""The cost :math:`X` of accountant ``name``: the bound is :math:`\alpha X / (2\sigma^2)` (module table).

    Parameters
    ----------
    name : str
        One of :data:`ACCOUNTANTS`.
    shifts : array_like
        :math:`s_1, \dots, s_T \ge 0`, finite, non-empty (:mod:`pufferfish.iteration.shifts`).
    contraction : float
        :math:`c \in [0, 1]`, used by ``contraction_bound`` only (checked whenever given).
    secret_index : int, optional
        The secret's 1-based position :math:`k`, :math:`1 \le k \le T`; required by ``dp_assumption``.

    Returns
    -------
    float
        :math:`X \ge 0`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        An unknown name, a shift negative or not finite, ``contraction`` outside [0, 1],
        ``secret_index`` outside [1, T] or missing for ``dp_assumption``.
    """
    name = choice(name, ACCOUNTANTS, name="name (accountant)")
    s = as_vector(shifts, name="shifts", nonnegative=True)
    contraction = real(contraction, name="contraction", lo=0.0, hi=1.0)
    k = None if secret_index is None else integer(secret_index, name="secret_index", lo=1, hi=s.size)
    if name == "dp_assumption" and k is None:
        raise InvalidArgumentError("secret_index = None: dp_assumption needs the secret's 1-based position")
    return _cost(name, s, contraction, k)


def _cost(name: str, s: np.ndarray, contraction: float, k: int | None) -> float:
    """X of accountant ``name`` (validated arguments)."""
    if name == "paper_bound":
        return minimal_cost(s, contraction=1.0)
    if name == "contraction_bound":
        return minimal_cost(s, contraction=contraction)
    if name == "composition":
        top = float(s.max())
        if top == 0:
            return 0.0
        nonzero = s != 0.0
        if 4 * np.count_nonzero(nonzero) <= s.size:   # mostly zero shifts (decaying correlations): the others only
            scaled = s[np.flatnonzero(nonzero)] / top
        else:
            scaled = s / top
        return float(np.dot(scaled, scaled)) * top * top
    return float(s[k - 1]) ** 2 / (s.size - k + 1)   # dp_assumption


def accountant_costs(shifts, *, contraction: float, secret_index: int) -> dict:
    """X of every accountant of :data:`ACCOUNTANTS` for one shift sequence (validated once).

    Parameters
    ----------
    shifts : array_like
        s_1..s_T >= 0, finite, non-empty (:mod:`pufferfish.iteration.shifts`).
    contraction : float
        c in [0, 1] of ``contraction_bound``.
    secret_index : int
        The secret's 1-based position k (``dp_assumption``), 1 <= k <= T.

    Returns
    -------
    dict
        The cost X of each accountant, keyed by name, in the order of :data:`ACCOUNTANTS`; each
        equals :func:`accountant_cost` of that name.

    Raises
    ------
    InvalidArgumentError
        A shift negative or not finite, no shift, ``contraction`` outside [0, 1], ``secret_index``
        outside [1, T].
    """
    s = as_vector(shifts, name="shifts", nonnegative=True)
    contraction = real(contraction, name="contraction", lo=0.0, hi=1.0)
    k = integer(secret_index, name="secret_index", lo=1)
    if k > s.size:
        raise InvalidArgumentError(f"secret_index = {secret_index!r}: past the last of the {s.size} shifts")
    paper, contracted = minimal_costs(s, contractions=(1.0, contraction))
    return {"paper_bound": paper, "contraction_bound": contracted, "dp_assumption": _cost("dp_assumption", s, 1.0, k),
            "composition": _cost("composition", s, 1.0, k)}


def renyi_bound(cost: float, *, sigma: float, alpha: float) -> float:
    r""":math:`\alpha X / (2\sigma^2)`, the Renyi bound of a cost :math:`X` (:func:`accountant_cost`).

    Parameters
    ----------
    cost : float
        :math:`X \ge 0`.
    sigma : float
        The noise's standard deviation :math:`\sigma > 0`.
    alpha : float
        The Renyi order :math:`\alpha > 1`.

    Returns
    -------
    float
        The bound on :math:`D_\alpha`, both orders, as the accountant claims it: the float value raised by
        :data:`CLAIM_MARGIN` (relative), one float up, so that a bound that is tight (every accountant at
        :math:`T = 1`) is not refuted by the rounding of two computations of one number.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value out of range (``sigma`` named when the bound overflows float64).
    """
    return claimed(_renyi_bound(real(cost, name="cost", lo=0.0), _sigma(sigma), _alpha(alpha)))


def claimed(value: float) -> float:
    """``value`` (1 + :data:`CLAIM_MARGIN`), rounded up: an accountant's float bound as it is claimed and audited."""
    return math.nextafter(value * (1.0 + CLAIM_MARGIN), math.inf) if value > 0 else value


def _renyi_bound(cost: float, sigma: float, alpha: float) -> float:
    """:func:`renyi_bound` of validated arguments."""
    try:
        value = alpha * 0.5 * (math.sqrt(cost) / sigma) ** 2 if cost > 0 else 0.0
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise InvalidArgumentError(f"sigma = {sigma!r}: the Renyi bound alpha X / (2 sigma^2) overflows float64 "
                                   f"(X = {cost:.3g}, alpha = {alpha:g})")
    return value


def paper_bound(shifts, *, sigma: float, alpha: float) -> float:
    r"""Paper 002, Theorem 5.2 (:math:`c = 1`) with the best allocation: :math:`\frac{\alpha}{2\sigma^2} \min \sum_t a_t^2`.

    Parameters
    ----------
    shifts : array_like
        :math:`s_1, \dots, s_T \ge 0`, finite, non-empty (:mod:`pufferfish.iteration.shifts`).
    sigma : float
        The noise's standard deviation :math:`\sigma > 0`.
    alpha : float
        The Renyi order :math:`\alpha > 1`.

    Returns
    -------
    float
        The bound on :math:`D_\alpha`, both orders.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value out of range (``sigma`` named when the bound overflows float64).
    """
    return renyi_bound(accountant_cost("paper_bound", shifts), sigma=sigma, alpha=alpha)


def contraction_bound(shifts, *, contraction: float, sigma: float, alpha: float) -> float:
    r"""Paper 002, Theorem 5.2 with :math:`c`-Lipschitz steps (:math:`z_t = c z_{t-1} + s_t - a_t`), best allocation (ours).

    Parameters
    ----------
    shifts : array_like
        :math:`s_1, \dots, s_T \ge 0`, finite, non-empty (:mod:`pufferfish.iteration.shifts`).
    contraction : float
        :math:`c \in [0, 1]`.
    sigma : float
        The noise's standard deviation :math:`\sigma > 0`.
    alpha : float
        The Renyi order :math:`\alpha > 1`.

    Returns
    -------
    float
        The bound on :math:`D_\alpha`, both orders.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value out of range (``sigma`` named when the bound overflows float64).
    """
    return renyi_bound(accountant_cost("contraction_bound", shifts, contraction=contraction), sigma=sigma, alpha=alpha)


def dp_assumption(shifts, *, secret_index: int, sigma: float, alpha: float) -> float:
    r""":math:`\alpha s_k^2 / (2\sigma^2 (T - k + 1))`: the records treated as independent (not valid under correlation).

    Parameters
    ----------
    shifts : array_like
        :math:`s_1, \dots, s_T \ge 0`, finite, non-empty (:mod:`pufferfish.iteration.shifts`).
    secret_index : int
        The secret's 1-based position :math:`k`, :math:`1 \le k \le T`.
    sigma : float
        The noise's standard deviation :math:`\sigma > 0`.
    alpha : float
        The Renyi order :math:`\alpha > 1`.

    Returns
    -------
    float
        The value the independent-records accountant reports (not a bound under correlation).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value out of range (``sigma`` named when the bound overflows float64).
    """
    return renyi_bound(accountant_cost("dp_assumption", shifts, secret_index=secret_index), sigma=sigma, alpha=alpha)


def composition(shifts, *, sigma: float, alpha: float) -> float:
    r""":math:`\sum_t \alpha s_t^2 / (2\sigma^2)`: the RDP composition of :math:`T` Gaussian mechanisms of sensitivities :math:`s_t`.

    Parameters
    ----------
    shifts : array_like
        :math:`s_1, \dots, s_T \ge 0`, finite, non-empty (:mod:`pufferfish.iteration.shifts`).
    sigma : float
        The noise's standard deviation :math:`\sigma > 0`.
    alpha : float
        The Renyi order :math:`\alpha > 1`.

    Returns
    -------
    float
        The bound on :math:`D_\alpha`, both orders.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value out of range (``sigma`` named when the bound overflows float64).
    """
    return renyi_bound(accountant_cost("composition", shifts), sigma=sigma, alpha=alpha)


# ------------------------------------------------------------------------------ RDP -> (epsilon, delta)
def _orders_values(orders, values) -> tuple[np.ndarray, np.ndarray]:
    a = as_vector(orders, name="orders")
    r = as_vector(values, name="divergences", nonnegative=True)
    if a.size != r.size:
        raise InvalidArgumentError(f"divergences: has {r.size} entries, orders has {a.size}")
    return _orders(a), r


def rdp_epsilon(orders, divergences, *, delta: float) -> tuple[float, float]:
    r"""The smallest :math:`\epsilon` of :math:`(\epsilon, \delta)` implied by :math:`D_\alpha \le r_\alpha` at the given orders.

    .. math::

       \epsilon_\alpha = r_\alpha + \log(1 - 1/\alpha) - \frac{\log(\delta\alpha)}{\alpha - 1}

    for :math:`\alpha > 1.01` (Canonne, Kamath, Steinke 2020, Prop. 12), and 0 where the KL bound
    alone gives :math:`\delta` (:math:`\delta^2 > 1 - e^{-r}`); the minimum, clipped at 0.

    Parameters
    ----------
    orders : array_like
        Renyi orders :math:`\alpha \ge 1`.
    divergences : array_like
        :math:`r_\alpha \ge 0`, one per order: :math:`D_\alpha \le r_\alpha`.
    delta : float
        :math:`\delta \in (0, 1)`.

    Returns
    -------
    (float, float)
        :math:`\epsilon` and the order that attains it.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        Orders below 1, divergences negative or of another length, ``delta`` outside (0, 1).
    """
    a, r = _orders_values(orders, divergences)
    return _rdp_epsilon(a, r, real(delta, name="delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True))


def _rdp_epsilon(a: np.ndarray, r: np.ndarray, delta: float) -> tuple[float, float]:
    """:func:`rdp_epsilon` of validated arguments."""
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(a > 1.01, r + np.log1p(-1.0 / a) - np.log(delta * a) / (a - 1.0), np.inf)
    eps = np.where(delta * delta + np.expm1(-r) > 0, 0.0, eps)
    i = int(np.argmin(eps))
    return max(0.0, float(eps[i])), float(a[i])


def rdp_delta(orders, divergences, *, epsilon: float) -> tuple[float, float]:
    r"""The smallest :math:`\delta` of :math:`(\epsilon, \delta)` implied by :math:`D_\alpha \le r_\alpha` at the given orders.

    .. math::

       \log \delta_\alpha = \min\Bigl(\tfrac12 \log(1 - e^{-r_\alpha}),\
       (\alpha - 1)\bigl(r_\alpha - \epsilon + \log(1 - 1/\alpha)\bigr) - \log\alpha\Bigr)

    (the second for :math:`\alpha > 1.01` only); the minimum, capped at 1.

    Parameters
    ----------
    orders : array_like
        Renyi orders :math:`\alpha \ge 1`.
    divergences : array_like
        :math:`r_\alpha \ge 0`, one per order: :math:`D_\alpha \le r_\alpha`.
    epsilon : float
        :math:`\epsilon \ge 0`.

    Returns
    -------
    (float, float)
        :math:`\delta` and the order that attains it.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        Orders below 1, divergences negative or of another length, a negative ``epsilon``.
    """
    a, r = _orders_values(orders, divergences)
    return _rdp_delta(a, r, real(epsilon, name="epsilon", lo=0.0))


def _rdp_delta(a: np.ndarray, r: np.ndarray, epsilon: float) -> tuple[float, float]:
    """:func:`rdp_delta` of validated arguments."""
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = np.where(r > 0, 0.5 * np.log(-np.expm1(-r)), -np.inf)
        ckd = np.where(a > 1.01, (a - 1.0) * (r - epsilon + np.log1p(-1.0 / a)) - np.log(a), np.inf)
    log_delta = np.minimum(kl, ckd)
    i = int(np.argmin(log_delta))
    return min(math.exp(float(log_delta[i])), 1.0), float(a[i])


def epsilon_of_cost(cost: float, *, sigma: float, delta: float, orders=ORDERS) -> float:
    r""":math:`\epsilon` of :math:`(\epsilon, \delta)` for a bound :math:`D_\alpha \le \alpha X / (2\sigma^2)` at every order (:func:`rdp_epsilon`).

    Parameters
    ----------
    cost : float
        :math:`X \ge 0` (:func:`accountant_cost`).
    sigma : float
        :math:`\sigma > 0`.
    delta : float
        :math:`\delta \in (0, 1)`.
    orders : array_like, optional
        The orders minimised over (:data:`ORDERS` by default), each :math:`\ge 1`.

    Returns
    -------
    float
        :math:`\epsilon \ge 0`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value out of range, or a bound that overflows float64 (``sigma`` named).
    """
    cost, sigma = real(cost, name="cost", lo=0.0), _sigma(sigma)
    delta = real(delta, name="delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    return _epsilon_of_cost(cost, sigma, delta, _orders(orders))


def _orders(orders) -> np.ndarray:
    """Renyi orders >= 1 as an array (:data:`ORDERS` itself is not checked again)."""
    if orders is ORDERS:
        return ORDERS
    a = as_vector(orders, name="orders")
    if (a < 1).any():
        i = int(np.flatnonzero(a < 1)[0])
        raise InvalidArgumentError(f"orders[{i}] = {a[i]!r}: a Renyi order must be >= 1")
    return a


def _epsilon_of_cost(cost: float, sigma: float, delta: float, a: np.ndarray) -> float:
    """:func:`epsilon_of_cost` of validated arguments."""
    rho = _renyi_bound(cost, sigma, 2.0) / 2.0
    return _rdp_epsilon(a, a * rho, delta)[0]


def delta_of_cost(cost: float, *, sigma: float, epsilon: float, orders=ORDERS) -> float:
    r""":math:`\delta` of :math:`(\epsilon, \delta)` for a bound :math:`D_\alpha \le \alpha X / (2\sigma^2)` at every order (:func:`rdp_delta`).

    Parameters
    ----------
    cost : float
        :math:`X \ge 0` (:func:`accountant_cost`).
    sigma : float
        :math:`\sigma > 0`.
    epsilon : float
        :math:`\epsilon \ge 0`.
    orders : array_like, optional
        The orders minimised over (:data:`ORDERS` by default), each :math:`\ge 1`.

    Returns
    -------
    float
        :math:`\delta \in [0, 1]`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value out of range, or a bound that overflows float64 (``sigma`` named).
    """
    cost, sigma = real(cost, name="cost", lo=0.0), _sigma(sigma)
    epsilon = real(epsilon, name="epsilon", lo=0.0)
    a = _orders(orders)
    return _rdp_delta(a, a * (_renyi_bound(cost, sigma, 2.0) / 2.0), epsilon)[0]

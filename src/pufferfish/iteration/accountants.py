"""Named accountants for noisy gradient descent on correlated records, and RDP -> (epsilon, delta).

Every accountant bounds D_alpha(w_T | x_k = a || w_T | x_k = b) (both orders: the shifts are
symmetric in a, b) by alpha X / (2 sigma^2) with a cost X that does not depend on alpha or
sigma (:func:`accountant_cost`):

=====================  ===================================================================
name                   X (sum of squared allocations)
=====================  ===================================================================
``paper_bound``        paper 002, Theorem 5.2, contractive steps (c = 1), best allocation:
                       rise^2 / run over the convex minorant of (t, S_t) (:mod:`.minorant`)
``contraction_bound``  ours: the same theorem with c-Lipschitz steps (c = 1 - eta m, or
                       |1 - eta| for the quadratic loss), best allocation; <= paper_bound.
                       The accountant we recommend when the loss is strongly convex.
``dp_assumption``      the records treated as independent (what a DP-SGD accountant reports):
                       only the secret's own shift s_k, c = 1: s_k^2 / (T - k + 1)
                       (Feldman et al. 2018, Thm 23 with s_k = 2 eta L). NOT a valid bound
                       when the records are correlated: the exact audit rejects it.
``composition``        every shift paid at its step, a_t = s_t: sum_t s_t^2 (the RDP
                       composition of T Gaussian mechanisms of sensitivities s_t).
=====================  ===================================================================

Why ``dp_assumption`` is the minimum for independent records: with only s_k > 0 the points
(t, S_t) are 0 up to k - 1 and s_k from k on, so the minorant is 0 up to t = k - 1 and then
the chord to (T, s_k): one segment of rise s_k and run T - k + 1. Why ``composition`` is a
valid bound: a_t = s_t keeps z_t = 0 (feasible for every c), so it is >= both optimal bounds.

Conversion to (epsilon, delta) (:func:`rdp_epsilon`, :func:`rdp_delta`): for two
distributions with D_alpha <= r, delta <= exp((alpha - 1)(r - epsilon + log(1 - 1/alpha)) -
log alpha) (Canonne, Kamath, Steinke 2020, Prop. 12; Asoodeh et al. 2020), and
delta <= sqrt(1 - exp(-r)) from the KL divergence (Pinsker-type bound of Bretagnolle-Huber,
with D_1 <= D_alpha), minimised over the orders given. This is the conversion dp-accounting
uses (its ``compute_epsilon`` / ``compute_delta``, orders <= 1.01 excluded from the first
bound for its numerical instability), the oracle of the tests; dp-accounting is not a
runtime dependency. The bounds above hold at every order alpha > 1, so their conversion
(:func:`epsilon_of_cost`, :func:`delta_of_cost`) minimises over :data:`ORDERS`, a geometric
grid of 2,001 orders from 1 + 10^-2 to 1 + 10^6 (the grid's minimum is a valid epsilon; a
finer grid can only lower it).
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.checks import choice, integer, real
from pufferfish.errors import InvalidArgumentError
from pufferfish.iteration.covariance import as_vector
from pufferfish.iteration.minorant import minimal_cost, minimal_costs

__all__ = ["ACCOUNTANTS", "ORDERS", "accountant_cost", "accountant_costs", "paper_bound", "contraction_bound",
           "dp_assumption",
           "composition", "renyi_bound", "rdp_epsilon", "rdp_delta", "epsilon_of_cost", "delta_of_cost"]

#: the accountants, in the order tables and figures list them
ACCOUNTANTS = ("paper_bound", "contraction_bound", "dp_assumption", "composition")
#: Renyi orders over which a bound alpha X / (2 sigma^2) is converted to (epsilon, delta)
ORDERS = 1.0 + np.geomspace(1e-2, 1e6, 2001)


def _sigma(sigma) -> float:
    return real(sigma, name="sigma", lo=0.0, lo_open=True)


def _alpha(alpha) -> float:
    return real(alpha, name="alpha", lo=1.0, lo_open=True)


def accountant_cost(name: str, shifts, *, contraction: float = 1.0, secret_index: int | None = None) -> float:
    """X of accountant ``name`` (the bound is alpha X / (2 sigma^2)); see the module table.

    ``contraction`` is used by ``contraction_bound`` only, ``secret_index`` (1-based k) by
    ``dp_assumption`` only (required there); both are checked whenever given.
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
        s_1..s_T >= 0, finite, non-empty (:mod:`.shifts`).
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
    k = integer(secret_index, name="secret_index", lo=1, hi=s.size)
    paper, contracted = minimal_costs(s, contractions=(1.0, contraction))
    return {"paper_bound": paper, "contraction_bound": contracted, "dp_assumption": _cost("dp_assumption", s, 1.0, k),
            "composition": _cost("composition", s, 1.0, k)}


def renyi_bound(cost: float, *, sigma: float, alpha: float) -> float:
    """alpha X / (2 sigma^2), refused (sigma named) when it exceeds the float64 range."""
    cost = real(cost, name="cost", lo=0.0)
    sigma, alpha = _sigma(sigma), _alpha(alpha)
    try:
        value = alpha * 0.5 * (math.sqrt(cost) / sigma) ** 2 if cost > 0 else 0.0
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise InvalidArgumentError(f"sigma = {sigma!r}: the Renyi bound alpha X / (2 sigma^2) overflows float64 "
                                   f"(X = {cost:.3g}, alpha = {alpha:g})")
    return value


def paper_bound(shifts, *, sigma: float, alpha: float) -> float:
    """Paper 002, Theorem 5.2 (c = 1) with the best allocation: alpha / (2 sigma^2) min sum a_t^2."""
    return renyi_bound(accountant_cost("paper_bound", shifts), sigma=sigma, alpha=alpha)


def contraction_bound(shifts, *, contraction: float, sigma: float, alpha: float) -> float:
    """Theorem 5.2 with c-Lipschitz steps (z_t = c z_{t-1} + s_t - a_t), best allocation (ours)."""
    return renyi_bound(accountant_cost("contraction_bound", shifts, contraction=contraction), sigma=sigma, alpha=alpha)


def dp_assumption(shifts, *, secret_index: int, sigma: float, alpha: float) -> float:
    """alpha s_k^2 / (2 sigma^2 (T - k + 1)): the records treated as independent (not valid under correlation)."""
    return renyi_bound(accountant_cost("dp_assumption", shifts, secret_index=secret_index), sigma=sigma, alpha=alpha)


def composition(shifts, *, sigma: float, alpha: float) -> float:
    """sum_t alpha s_t^2 / (2 sigma^2): RDP composition of T Gaussian mechanisms of sensitivities s_t."""
    return renyi_bound(accountant_cost("composition", shifts), sigma=sigma, alpha=alpha)


# ------------------------------------------------------------------------------ RDP -> (epsilon, delta)
def _orders_values(orders, values) -> tuple[np.ndarray, np.ndarray]:
    a = as_vector(orders, name="orders")
    r = as_vector(values, name="divergences", nonnegative=True)
    if a.size != r.size:
        raise InvalidArgumentError(f"divergences: has {r.size} entries, orders has {a.size}")
    if (a < 1).any():
        i = int(np.flatnonzero(a < 1)[0])
        raise InvalidArgumentError(f"orders[{i}] = {a[i]!r}: a Renyi order must be >= 1")
    return a, r


def rdp_epsilon(orders, divergences, *, delta: float) -> tuple[float, float]:
    """(epsilon, order): the smallest epsilon of (epsilon, delta) implied by D_alpha <= r at the given orders.

    epsilon_alpha = r + log(1 - 1/alpha) - log(delta alpha) / (alpha - 1) for alpha > 1.01, and
    0 where the KL bound alone gives delta (delta^2 > 1 - exp(-r)); the minimum, clipped at 0.
    """
    a, r = _orders_values(orders, divergences)
    delta = real(delta, name="delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(a > 1.01, r + np.log1p(-1.0 / a) - np.log(delta * a) / (a - 1.0), np.inf)
    eps = np.where(delta * delta + np.expm1(-r) > 0, 0.0, eps)
    i = int(np.argmin(eps))
    return max(0.0, float(eps[i])), float(a[i])


def rdp_delta(orders, divergences, *, epsilon: float) -> tuple[float, float]:
    """(delta, order): the smallest delta of (epsilon, delta) implied by D_alpha <= r at the given orders.

    log delta_alpha = min(0.5 log(1 - exp(-r)), (alpha - 1)(r - epsilon + log(1 - 1/alpha)) - log alpha)
    (the second for alpha > 1.01 only); the minimum, capped at 1.
    """
    a, r = _orders_values(orders, divergences)
    epsilon = real(epsilon, name="epsilon", lo=0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = np.where(r > 0, 0.5 * np.log(-np.expm1(-r)), -np.inf)
        ckd = np.where(a > 1.01, (a - 1.0) * (r - epsilon + np.log1p(-1.0 / a)) - np.log(a), np.inf)
    log_delta = np.minimum(kl, ckd)
    i = int(np.argmin(log_delta))
    return min(math.exp(float(log_delta[i])), 1.0), float(a[i])


def epsilon_of_cost(cost: float, *, sigma: float, delta: float, orders=ORDERS) -> float:
    """epsilon of (epsilon, delta) for a bound D_alpha <= alpha X / (2 sigma^2) at every order."""
    cost, sigma = real(cost, name="cost", lo=0.0), _sigma(sigma)
    rho = renyi_bound(cost, sigma=sigma, alpha=2.0) / 2.0
    a = as_vector(orders, name="orders")
    return rdp_epsilon(a, a * rho, delta=delta)[0]


def delta_of_cost(cost: float, *, sigma: float, epsilon: float, orders=ORDERS) -> float:
    """delta of (epsilon, delta) for a bound D_alpha <= alpha X / (2 sigma^2) at every order."""
    cost, sigma = real(cost, name="cost", lo=0.0), _sigma(sigma)
    rho = renyi_bound(cost, sigma=sigma, alpha=2.0) / 2.0
    a = as_vector(orders, name="orders")
    return rdp_delta(a, a * rho, epsilon=epsilon)[0]

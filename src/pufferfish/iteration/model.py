"""All accountants and the exact audit for one secret of the quadratic-loss model, at once.

Noisy gradient descent with l(w, x) = (w - x)^2 / 2 (:mod:`.exact`): K = 1, no gradient bound,
contraction c = 1 - eta, shifts s_t = eta D |Sigma_tk| / Sigma_kk (:mod:`.shifts`). The costs
X of the four accountants (:mod:`.accountants`) and the exact audit depend on the covariance,
the secret and eta only; :meth:`ModelAccount.renyi` turns them into D_alpha values for any
sigma and alpha without recomputing the minorants.
"""

from __future__ import annotations

from dataclasses import dataclass

from pufferfish.checks import real
from pufferfish.iteration.accountants import ACCOUNTANTS, accountant_costs, renyi_bound
from pufferfish.iteration.covariance import Covariance
from pufferfish.iteration.exact import ExactAudit, exact_audit
from pufferfish.iteration.shifts import step_shifts

__all__ = ["ModelAccount", "account_quadratic_model"]


@dataclass(frozen=True)
class ModelAccount:
    """The costs X of every accountant (``costs``, keyed by name) and the exact audit at ``audit.sigma``."""

    secret_index: int
    eta: float
    costs: dict
    audit: ExactAudit

    def renyi(self, *, sigma: float, alpha: float) -> dict:
        """D_alpha of every accountant and ``exact`` at noise ``sigma`` (a dict keyed by name)."""
        out = {name: renyi_bound(self.costs[name], sigma=sigma, alpha=alpha) for name in ACCOUNTANTS}
        out["exact"] = self.audit.at(real(sigma, name="sigma", lo=0.0, lo_open=True)).renyi(alpha=alpha)
        return out


def account_quadratic_model(covariance: Covariance, *, secret_index: int, eta: float, diameter: float,
                            sigma: float = 1.0) -> ModelAccount:
    """The four accountants' costs and the exact audit for secret x_k (1-based ``secret_index``).

    O(T) time and memory: the shifts and the minorants over the secret's column, the exact
    audit from the covariance's step sums (closed forms for a stationary or an equal-correlation
    prior, :mod:`.geometric`).
    """
    audit = exact_audit(covariance, secret_index=secret_index, eta=eta, sigma=sigma, diameter=diameter)
    s = step_shifts(covariance, secret_index=secret_index, eta=eta, diameter=diameter, lipschitz=1.0)
    costs = accountant_costs(s, contraction=1.0 - eta, secret_index=secret_index)
    return ModelAccount(secret_index=int(secret_index), eta=float(eta), costs=costs, audit=audit)

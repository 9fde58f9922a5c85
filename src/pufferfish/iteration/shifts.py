"""Per-step shifts of noisy gradient descent on correlated records (paper 002, Section 6.4, App. F.5).

The iteration: w_t = Proj_K(w_{t-1} - eta grad_w l(w_{t-1}, x_t)) + Z_t, Z_t ~ N(0, sigma^2 I),
one pass over the records x_1..x_T (step t uses x_t), w_T released. The adversary's prior is
x ~ N(mu, Sigma); the secret pair is x_k = a versus x_k = b, |a - b| <= D (the diameter of
the records' domain).

Coupling (why s_t below is a valid shift). Conditioning a Gaussian on x_k = a gives
E[x_t | x_k = a] = mu_t + (Sigma_tk / Sigma_kk)(a - mu_k) and a conditional covariance
Sigma - Sigma_{.k} Sigma_{k.} / Sigma_kk that does not depend on a. So x | x_k = b has the law
of x + (b - a) Sigma_{.k} / Sigma_kk with x ~ (x | x_k = a): the coupling
x'_t = x_t + (b - a) Sigma_tk / Sigma_kk moves record t by at most D |Sigma_tk| / Sigma_kk,
surely. The two gradient steps then differ, uniformly in w, by

    |eta grad_w l(w, x_t) - eta grad_w l(w, x'_t)| <= eta min(K |x_t - x'_t|, 2 L)
                                                   <= s_t := eta min(K D |Sigma_tk| / Sigma_kk, 2 L),

K the Lipschitz constant of grad_w l in the record and L a bound on |grad_w l| (infinite if
there is none). The projection is 1-Lipschitz, so it does not increase the difference.
s_t = 0 where Sigma_tk = 0, and s_k = eta min(K D, 2 L) (the secret's own step).

These shifts feed the accountants (:mod:`pufferfish.iteration.accountants`): Theorem 5.2
bounds D_alpha(w_T | x_k = a || w_T | x_k = b) for each coupled pair of datasets, and joint
quasi-convexity of D_alpha over the coupling carries the bound to the mixtures.
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.checks import integer, real
from pufferfish.errors import InvalidArgumentError
from pufferfish.iteration.covariance import (Covariance, DenseCovariance, EqualCorrelation, StationaryCovariance,
                                             as_vector, check_covariance)

__all__ = ["shifts_from_column", "step_shifts"]


def _positive(value, name: str) -> float:
    return real(value, name=name, lo=0.0, lo_open=True)


def _gradient_bound(value) -> float:
    """L > 0, or +inf (no bound on the gradient): the one argument where inf is meaningful."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == math.inf:
        return math.inf
    return _positive(value, "gradient_bound")


def shifts_from_column(column, *, secret_index: int, eta: float, diameter: float, lipschitz: float = 1.0,
                       gradient_bound: float = math.inf) -> np.ndarray:
    """s_t = eta min(K D |Sigma_tk| / Sigma_kk, 2 L), t = 1..T, from the secret's column Sigma_{.k}.

    ``column`` is Sigma_{.k} (length T, Sigma_kk = column[k - 1] > 0), ``secret_index`` the
    1-based k, ``lipschitz`` K, ``diameter`` D, ``gradient_bound`` L (default: none, +inf).
    See the module docstring for the coupling that makes these valid shifts.
    """
    return _shifts(column, secret_index, eta, diameter, lipschitz, gradient_bound, overwrite=False)


def _shifts(column, secret_index, eta, diameter, lipschitz, gradient_bound, *, overwrite: bool) -> np.ndarray:
    """:func:`shifts_from_column`, computed in ``column``'s own array if ``overwrite`` (a fresh column)."""
    col = as_vector(column, name="column")
    k = integer(secret_index, name="secret_index", lo=1, hi=col.size)
    eta = _positive(eta, "eta")
    diameter = real(diameter, name="diameter", lo=0.0)
    lipschitz = real(lipschitz, name="lipschitz", lo=0.0)
    bound = _gradient_bound(gradient_bound)
    own = float(col[k - 1])
    if not own > 0:
        raise InvalidArgumentError(f"column[{k - 1}] = {own!r}: the secret's variance Sigma_kk must be > 0")
    shift = np.abs(col, out=col if overwrite else None)   # in place from here: the same operations, one array
    shift /= own
    shift *= lipschitz * diameter
    if bound < math.inf:
        np.minimum(shift, 2.0 * bound, out=shift)
    shift *= eta
    return shift


def step_shifts(covariance: Covariance, *, secret_index: int, eta: float, diameter: float, lipschitz: float = 1.0,
                gradient_bound: float = math.inf) -> np.ndarray:
    """The shifts s_1..s_T of :func:`shifts_from_column` for a :class:`~pufferfish.iteration.covariance.Covariance`."""
    check_covariance(covariance)
    # the package's covariances return a new column: the shifts are computed in it (no second array)
    fresh = any(type(covariance).column is cls.column for cls in (DenseCovariance, StationaryCovariance,
                                                                   EqualCorrelation))
    return _shifts(covariance.column(secret_index), secret_index, eta, diameter, lipschitz, gradient_bound,
                   overwrite=fresh)

r"""Per-step shifts of noisy gradient descent on correlated records (paper 002, Section 6.4, App. F.5).

The iteration: :math:`w_t = \Pi_K\bigl(w_{t-1} - \eta \nabla_w \ell(w_{t-1}, x_t)\bigr) + Z_t`,
:math:`Z_t \sim N(0, \sigma^2 I)`, one pass over the records :math:`x_1, \dots, x_T`, :math:`w_T` released.
The adversary's prior is :math:`x \sim N(\mu, \Sigma)`; the secret pair is :math:`x_k = a` versus
:math:`x_k = b`, :math:`|a - b| \le D`.

Coupling (why :math:`s_t` is a valid shift). Conditioning on :math:`x_k = a` moves the mean of
:math:`x_t` by :math:`(\Sigma_{tk} / \Sigma_{kk})(a - \mu_k)` and leaves a covariance that does not depend
on :math:`a`, so :math:`x'_t = x_t + (b - a) \Sigma_{tk} / \Sigma_{kk}` couples the two conditionals and
moves record :math:`t` by at most :math:`D |\Sigma_{tk}| / \Sigma_{kk}`, surely. The two gradient steps
then differ, uniformly in :math:`w`, by at most

.. math::

   s_t = \eta \min\bigl(K D\, |\Sigma_{tk}| / \Sigma_{kk},\ 2L\bigr),

:math:`K` the Lipschitz constant of :math:`\nabla_w \ell` in the record and :math:`L` a bound on
:math:`|\nabla_w \ell|` (infinite if none); the projection is 1-Lipschitz. :math:`s_t = 0` where
:math:`\Sigma_{tk} = 0`, and :math:`s_k = \eta \min(K D, 2L)`.

These shifts feed the accountants (:mod:`pufferfish.iteration.accountants`): Theorem 5.2 bounds
:math:`D_\alpha(w_T \mid x_k = a \,\|\, w_T \mid x_k = b)` for each coupled pair of datasets, and joint
quasi-convexity of :math:`D_\alpha` over the coupling carries the bound to the mixtures
(docs/math/iteration.md, "The setting").
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.checks import as_vector, integer, real
from pufferfish.errors import InvalidArgumentError
from pufferfish.iteration.covariance import Covariance, check_covariance
from pufferfish.iteration.dense_covariance import DenseCovariance
from pufferfish.iteration.equal_correlation import EqualCorrelation
from pufferfish.iteration.stationary_covariance import StationaryCovariance

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
    r"""The per-step shifts from the secret's column :math:`\Sigma_{\cdot k}` of the prior's covariance.

    .. math::

       s_t = \eta \min\bigl(K D\, |\Sigma_{tk}| / \Sigma_{kk},\ 2L\bigr), \qquad t = 1, \dots, T

    (the module docstring gives the coupling that makes these valid shifts).

    Parameters
    ----------
    column : array_like
        :math:`\Sigma_{\cdot k}`, length :math:`T`, finite, with :math:`\Sigma_{kk} > 0`.
    secret_index : int
        The secret's 1-based position :math:`k`, :math:`1 \le k \le T`.
    eta : float
        The step size :math:`\eta > 0`.
    diameter : float
        :math:`D \ge 0`, the diameter of the records' domain.
    lipschitz : float, optional
        :math:`K \ge 0`, the gradient's Lipschitz constant in the record (default 1).
    gradient_bound : float, optional
        :math:`L > 0`, a bound on the gradient's norm (default :math:`+\infty`: none).

    Returns
    -------
    numpy.ndarray
        :math:`s_1, \dots, s_T \ge 0`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value not finite or out of range, ``secret_index`` past the column, :math:`\Sigma_{kk} \le 0`.
    """
    col = as_vector(column, name="column")
    k = integer(secret_index, name="secret_index", lo=1, hi=col.size)
    return _shifts(col, k, *_parameters(eta, diameter, lipschitz, gradient_bound), overwrite=False)


def _parameters(eta, diameter, lipschitz, gradient_bound) -> tuple[float, float, float, float]:
    """(eta, D, K, L) checked: eta > 0, D >= 0, K >= 0, L > 0 or inf."""
    return (_positive(eta, "eta"), real(diameter, name="diameter", lo=0.0), real(lipschitz, name="lipschitz", lo=0.0),
            _gradient_bound(gradient_bound))


def _shifts(col: np.ndarray, k: int, eta: float, diameter: float, lipschitz: float, bound: float, *,
            overwrite: bool) -> np.ndarray:
    """The shifts of the column ``col`` (validated arguments), in ``col``'s own array if ``overwrite`` (a fresh column)."""
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
    r"""The shifts :math:`s_1, \dots, s_T` of :func:`shifts_from_column` for a :class:`~pufferfish.iteration.covariance.Covariance`.

    Parameters
    ----------
    covariance : pufferfish.iteration.covariance.Covariance
        The prior's covariance (its column :math:`k` is read, :math:`O(T)`).
    secret_index : int
        The secret's 1-based position :math:`k`, :math:`1 \le k \le T`.
    eta : float
        The step size :math:`\eta > 0`.
    diameter : float
        :math:`D \ge 0`, the diameter of the records' domain.
    lipschitz : float, optional
        :math:`K \ge 0`, the gradient's Lipschitz constant in the record (default 1).
    gradient_bound : float, optional
        :math:`L > 0`, a bound on the gradient's norm (default :math:`+\infty`: none).

    Returns
    -------
    numpy.ndarray
        :math:`s_1, \dots, s_T \ge 0`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        ``covariance`` not a Covariance, or a value out of range (as :func:`shifts_from_column`).
    """
    check_covariance(covariance)
    k = integer(secret_index, name="secret_index", lo=1)                 # and <= T: the covariance's column checks it
    parameters = _parameters(eta, diameter, lipschitz, gradient_bound)
    # the package's covariances return a new column: the shifts are computed in it (no second array)
    fresh = any(type(covariance).column is cls.column for cls in (DenseCovariance, StationaryCovariance,
                                                                   EqualCorrelation))
    return _shifts(as_vector(covariance.column(k), name="column"), k, *parameters, overwrite=fresh)

r"""GMM priors: fitting, the :math:`W_2` transport weights :math:`w^*`, Theorem 2 and Corollary 2 of paper 004.

N. Ding, "Approximation of Pufferfish Privacy for Gaussian Priors", IEEE TIFS 19 (2024),
Section IV. The adversary's prior for secret :math:`s_i` is a one-dimensional Gaussian
mixture :math:`\sum_m \alpha_{im}\, g(x; \mu_{im}, \sigma_{im}^2)` (:class:`pufferfish.mixture.GMM`;
``stds`` are standard deviations).

* :func:`fit_gmm` fits it with scikit-learn's ``GaussianMixture`` (EM, k-means init), after
  the treatment of rounded data chosen by config ``gaussian.gmm.rounding``
  (:data:`~pufferfish.gaussian.settings.ROUNDINGS`; :func:`data_resolution`, :func:`components_below_resolution`);
* :func:`w2_weights` solves the linear program below eq. (12) for :math:`w^*`;
* :func:`theorem2` is eq. (13), :func:`corollary2` eq. (15).

Derivations, and why rounded data are dequantised before the fit: docs/math/paper004-gaussian.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
import warnings

import numpy as np
import pandas as pd

from pufferfish.checks import choice, instance, integer, real, reals
from pufferfish.errors import (ArgumentTypeError, DataError, InvalidArgumentError, InvalidDistributionError,
                              NotApplicableError)
from pufferfish.gaussian.methods import check_epsilon, tau_star
from pufferfish.gaussian.settings import ROUNDINGS
from pufferfish.mixture import GMM

__all__ = ["REG_COVAR", "check_secret_rows", "fit_gmm", "numeric_values", "data_resolution", "components_below_resolution",
           "w2_cost", "w2_weights", "theorem2_terms", "theorem2", "corollary2"]

#: scikit-learn's default ``reg_covar``, added to every variance (the floor of ``none``)
REG_COVAR = 1e-6
#: the stream appended to ``random_state`` for the dequantisation noise
_DEQUANTISE_STREAM = 1


def _gmms(gmm_i, gmm_j) -> None:
    instance(gmm_i, GMM, name="gmm_i")
    instance(gmm_j, GMM, name="gmm_j")


def numeric_values(values, *, name: str = "values") -> np.ndarray:
    """``values`` as a 1-D float array (a data column as a CSV gives it back).

    Parameters
    ----------
    values : array-like or pandas.Series
        The column; numbers written as text (``"0.5"``) are numbers.
    name : str
        What the column is, for the message.

    Returns
    -------
    numpy.ndarray
        The values as floats.

    Raises
    ------
    ArgumentTypeError
        ``values`` is a string or None.
    DataError
        No values, or a value that is not a finite number (one line naming it and its row).
    """
    if values is None or isinstance(values, (str, bytes)):
        raise ArgumentTypeError(f"{name} = {values!r}: must be a column of numbers, not {type(values).__name__}")
    series = pd.Series(np.asarray(values, dtype=object).ravel() if not isinstance(values, pd.Series) else values)
    if series.empty:
        raise DataError(f"{name}: no values (a GMM needs at least one number)")
    numbers = pd.to_numeric(series, errors="coerce")
    bad = series[numbers.isna() | ~np.isfinite(numbers.astype(float))]
    if len(bad):
        raise DataError(f"{name}: a GMM needs numbers, found {bad.iloc[0]!r} (row {bad.index[0]})")
    return numbers.to_numpy(dtype=float)


def data_resolution(values) -> float | None:
    r"""The resolution h of a data column: the smallest gap between two of its distinct values.

    1 for integers with two neighbouring values (education-num, cholesterol in mg/dl); the
    rounding of the data is then a uniform error on :math:`[-h/2, h/2]`, of standard deviation
    :math:`h / \sqrt{12}`.

    Parameters
    ----------
    values : array-like
        The column (numbers, as :func:`numeric_values` reads them).

    Returns
    -------
    float or None
        h > 0, or None when the column has fewer than two distinct values.

    Raises
    ------
    ArgumentTypeError, DataError
        As :func:`numeric_values`.
    """
    return _resolution(numeric_values(values))


def _resolution(x: np.ndarray) -> float | None:
    distinct = np.unique(x)
    return float(np.min(np.diff(distinct))) if distinct.size >= 2 else None


def components_below_resolution(gmm: GMM, resolution: float) -> list[int]:
    r"""The components of ``gmm`` narrower than the rounding of the data: :math:`\sigma < h / \sqrt{12}`.

    Such a component describes one recorded value (an atom), not a density: EM on rounded
    values can shrink a component onto one value until only ``reg_covar`` holds its variance
    (docs/math/paper004-gaussian.md, "Rounded data").

    Parameters
    ----------
    gmm : GMM
        A fitted mixture (components sorted by mean).
    resolution : float
        h > 0 (:func:`data_resolution`).

    Returns
    -------
    list of int
        The indices of those components, in the mixture's order.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Not a GMM, or a resolution that is not a finite number > 0.
    """
    instance(gmm, GMM, name="gmm")
    return _below(gmm, real(resolution, name="resolution", lo=0.0, lo_open=True))


def _below(gmm: GMM, h: float | None) -> list[int]:
    if h is None:
        return []
    return [int(k) for k in np.flatnonzero(gmm.stds < h / math.sqrt(12.0))]


def fit_gmm(values, *, components: int, random_state: int, n_init: int = 10, max_iter: int = 1000,
            label: str = "", rounding: str = "none", resolution: float | None = None) -> GMM:
    """Fit a ``components``-component 1-D Gaussian mixture to ``values`` (scikit-learn EM).

    ``GaussianMixture(n_components=components, covariance_type="full", n_init=n_init,
    max_iter=max_iter, random_state=random_state, reg_covar=...)`` with scikit-learn's other
    defaults (k-means initialisation, ``tol = 1e-3``): deterministic for a given
    ``random_state``. Values recorded to a resolution h are treated by ``rounding``:

    * ``"dequantise"``: fit :math:`x + h U`, :math:`U` uniform on :math:`[-1/2, 1/2]`, drawn from
      ``SeedSequence([random_state, 1])``; ``reg_covar`` = :data:`REG_COVAR`;
    * ``"variance"``: ``reg_covar`` = :math:`h^2 / 12`, the variance of rounding, added to every
      component's variance;
    * ``"none"``: the values as they are, ``reg_covar`` = :data:`REG_COVAR` (a component may
      collapse onto one value: :func:`components_below_resolution`).

    Parameters
    ----------
    values : array-like
        The data (numbers, as :func:`numeric_values` reads them).
    components, random_state, n_init, max_iter : int
        Components (>= 1), the seed (>= 0), EM restarts and iterations (>= 1).
    label : str
        Names the data in messages and in the mixture.
    rounding : str
        One of :data:`~pufferfish.gaussian.settings.ROUNDINGS`.
    resolution : float, optional
        h > 0; by default :func:`data_resolution` of ``values`` (no treatment without one).

    Returns
    -------
    GMM
        Components sorted by mean; ``log_likelihood`` is the mean per row of the values fitted.

    Raises
    ------
    DataError
        Fewer rows or distinct values than components, a value that is not a number.
    ArgumentTypeError, InvalidArgumentError, ConfigError
        An argument of the wrong type or out of range (naming it).
    """
    name = label or "secret"
    components = integer(components, name="components", lo=1)
    random_state = integer(random_state, name="random_state", lo=0)
    n_init, max_iter = integer(n_init, name="n_init", lo=1), integer(max_iter, name="max_iter", lo=1)
    rounding = choice(rounding, ROUNDINGS, name="rounding")
    x = numeric_values(values, name=name)
    h = _resolution(x) if resolution is None else real(resolution, name="resolution", lo=0.0, lo_open=True)
    if x.size < components:
        raise DataError(f"{name}: {x.size} row(s) is fewer than the {components} GMM components")
    distinct = np.unique(x).size
    if distinct < components:
        raise DataError(f"{name}: {distinct} distinct value(s) is fewer than the {components} GMM components")
    return _fit(x, components=components, random_state=random_state, n_init=n_init, max_iter=max_iter, label=label,
                rounding=rounding, h=h)


def _fit(x: np.ndarray, *, components: int, random_state: int, n_init: int, max_iter: int, label: str,
         rounding: str, h: float | None) -> GMM:
    """EM on validated values (:func:`fit_gmm`)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.mixture import GaussianMixture

    reg_covar = REG_COVAR
    if h is not None and rounding == "dequantise":
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([random_state, _DEQUANTISE_STREAM])))
        x = x + h * rng.uniform(-0.5, 0.5, size=x.size)
    elif h is not None and rounding == "variance":
        reg_covar = h * h / 12.0
    model = GaussianMixture(n_components=components, covariance_type="full", n_init=n_init, max_iter=max_iter,
                            random_state=random_state, reg_covar=reg_covar)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x.reshape(-1, 1))
    return GMM(model.weights_, model.means_.ravel(), np.sqrt(model.covariances_.ravel()), n=int(x.size),
               converged=bool(model.converged_), log_likelihood=float(model.score(x.reshape(-1, 1))), label=label)


# ----------------------------------------------------------------------------- W2 weights

def w2_cost(gmm_i: GMM, gmm_j: GMM) -> np.ndarray:
    r"""The cost matrix :math:`C_{ml} = W_2^2(g_{im}, g_{jl}) = (\mu_{im} - \mu_{jl})^2 + (\sigma_{im} - \sigma_{jl})^2`.

    Footnote 5 of the paper (Delon & Desolneux [33, Sec. 2.4.1]).

    Parameters
    ----------
    gmm_i, gmm_j : GMM
        The two mixtures.

    Returns
    -------
    numpy.ndarray
        :math:`D_i \times D_j`.

    Raises
    ------
    ArgumentTypeError
        An argument that is not a GMM.
    """
    _gmms(gmm_i, gmm_j)
    return _cost(gmm_i, gmm_j)


def _cost(gi: GMM, gj: GMM) -> np.ndarray:
    return (gi.means[:, None] - gj.means[None, :]) ** 2 + (gi.stds[:, None] - gj.stds[None, :]) ** 2


def w2_weights(gmm_i: GMM, gmm_j: GMM) -> np.ndarray:
    r"""The transport weights :math:`w^*` of eq. (12): the optimal plan between the component weights.

    .. math::

       w^* = \arg\min_w \sum_{ml} w_{ml} W_2^2(g_{im}, g_{jl}) \quad \text{s.t.}
       \sum_l w_{ml} = \alpha_{im},\ \sum_m w_{ml} = \alpha_{jl},\ w \ge 0

    (footnote 5; Delon & Desolneux [33]), a linear program solved by
    ``scipy.optimize.linprog`` (HiGHS); tiny negative round-off is clipped to 0. When the
    optimum is not unique HiGHS returns one optimal vertex; Theorem 2's proof only uses the
    two marginal constraints of :math:`w`, so any optimal choice is valid.

    Parameters
    ----------
    gmm_i, gmm_j : GMM
        The two mixtures.

    Returns
    -------
    numpy.ndarray
        :math:`D_i \times D_j`, rows the components of ``gmm_i``.

    Raises
    ------
    ArgumentTypeError
        An argument that is not a GMM.
    """
    _gmms(gmm_i, gmm_j)
    return _weights(gmm_i, gmm_j)


def _weights(gi: GMM, gj: GMM) -> np.ndarray:
    from scipy.optimize import linprog

    a, b = gi.weights, gj.weights
    di, dj = a.size, b.size
    rows = np.kron(np.eye(di), np.ones((1, dj)))      # sum_l w_ml = a_m
    cols = np.kron(np.ones((1, di)), np.eye(dj))      # sum_m w_ml = b_l
    res = linprog(_cost(gi, gj).ravel(), A_eq=np.vstack([rows, cols]), b_eq=np.concatenate([a, b]), bounds=(0, None),
                  method="highs")
    if res.status != 0:  # pragma: no cover - the LP is always feasible and bounded
        raise InvalidDistributionError(f"W2 weights: linear program failed ({res.message})")
    return np.clip(res.x.reshape(di, dj), 0.0, None)


def theorem2_terms(gmm_i: GMM, gmm_j: GMM, weights: np.ndarray | None = None) -> tuple[float, float]:
    r"""The two sums of eq. (13): :math:`\sum_{ml} w_{ml} |\mu_{im} - \mu_{jl}|` and :math:`\sum_{ml} w_{ml} |\sigma_{im} - \sigma_{jl}|`.

    Eq. (13) is :math:`b = (\text{first} + \tau^*(\delta)\, \text{second}) / \epsilon`.

    Parameters
    ----------
    gmm_i, gmm_j : GMM
        The two mixtures.
    weights : array-like, optional
        :math:`w` (:math:`D_i \times D_j`, entries >= 0); by default :func:`w2_weights`.

    Returns
    -------
    (float, float)
        The mean term and the standard-deviation term.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Not GMMs, or weights that are not finite numbers >= 0 of the mixtures' shape.
    """
    _gmms(gmm_i, gmm_j)
    if weights is None:
        return _terms(gmm_i, gmm_j, _weights(gmm_i, gmm_j))
    w = reals(weights, name="weights", lo=0.0)
    if w.shape != (gmm_i.components, gmm_j.components):
        raise InvalidArgumentError(f"weights: shape {w.shape}, not ({gmm_i.components}, {gmm_j.components})")
    return _terms(gmm_i, gmm_j, w)


def _terms(gi: GMM, gj: GMM, w: np.ndarray) -> tuple[float, float]:
    dmu = np.abs(gi.means[:, None] - gj.means[None, :])
    dsd = np.abs(gi.stds[:, None] - gj.stds[None, :])
    return float(np.sum(w * dmu)), float(np.sum(w * dsd))


def theorem2(gmm_i: GMM, gmm_j: GMM, *, epsilon, delta):
    r"""Theorem 2, eq. (13): the Laplace scale for two GMM priors.

    .. math::

       b = \frac{1}{\epsilon} \sum_{ml} w^*_{ml} \bigl(|\mu_{im} - \mu_{jl}|
           + \tau^*(\delta)\, |\sigma_{im} - \sigma_{jl}|\bigr)

    Given :math:`w^*` the sum is symmetric in :math:`(i, j)`; both linear programs are solved
    and the larger sum kept, so the result does not depend on the order of the pair even when
    the optimum is not unique. Not valid as stated for every mixture (docs/math/results.md).

    Parameters
    ----------
    gmm_i, gmm_j : GMM
        The two priors.
    epsilon : float or array-like
        :math:`\epsilon > 0` (vectorized).
    delta : float
        :math:`\delta \in (0, 1)`.

    Returns
    -------
    float or numpy.ndarray
        :math:`b` for each :math:`\epsilon`.

    Raises
    ------
    ArgumentTypeError, ConfigError, InvalidArgumentError
        Not GMMs, an :math:`\epsilon \le 0`, a :math:`\delta` outside :math:`(0, 1)`.
    """
    _gmms(gmm_i, gmm_j)
    eps = check_epsilon(epsilon)
    tau = tau_star(delta)
    best = 0.0
    for first, second in ((gmm_i, gmm_j), (gmm_j, gmm_i)):
        mean_term, std_term = _terms(first, second, _weights(first, second))
        best = max(best, mean_term + tau * std_term)
    out = np.asarray(best / eps, dtype=float)
    return float(out) if out.ndim == 0 else out


def corollary2(gmm_i: GMM, gmm_j: GMM, *, epsilon, rtol: float = 1e-9):
    r"""Corollary 2, eq. (15): :math:`b = \sum_m \alpha_m |\mu_{im} - \mu_{jm}| / \epsilon` (claimed pure :math:`\epsilon`).

    Only for mixtures (14) whose components share the number :math:`D`, the weights
    :math:`\alpha_m` and the standard deviations :math:`\sigma_m` (GMM-UBM mean adaptation),
    component :math:`m` of one paired with component :math:`m` of the other (both sorted by mean).

    Parameters
    ----------
    gmm_i, gmm_j : GMM
        The two priors.
    epsilon : float or array-like
        :math:`\epsilon > 0` (vectorized).
    rtol : float
        Relative tolerance of "the same" weights and standard deviations (> 0).

    Returns
    -------
    float or numpy.ndarray
        :math:`b` for each :math:`\epsilon`.

    Raises
    ------
    NotApplicableError
        The mixtures do not share D, the weights or the standard deviations.
    ArgumentTypeError, ConfigError, InvalidArgumentError
        Not GMMs, an :math:`\epsilon \le 0`, an rtol that is not > 0.
    """
    _gmms(gmm_i, gmm_j)
    eps = check_epsilon(epsilon)
    rtol = real(rtol, name="rtol", lo=0.0, lo_open=True)
    if gmm_i.components != gmm_j.components:
        raise NotApplicableError(f"corollary2: the mixtures have {gmm_i.components} and {gmm_j.components} components")
    if not np.allclose(gmm_i.weights, gmm_j.weights, rtol=rtol, atol=0.0):
        raise NotApplicableError("corollary2: the mixtures' component weights differ")
    if not np.allclose(gmm_i.stds, gmm_j.stds, rtol=rtol, atol=0.0):
        raise NotApplicableError("corollary2: the mixtures' component standard deviations differ")
    total = float(np.sum(gmm_i.weights * np.abs(gmm_i.means - gmm_j.means)))
    out = np.asarray(total / eps, dtype=float)
    return float(out) if out.ndim == 0 else out


def check_secret_rows(frame, *, spec: Mapping, secret: Mapping, components: int) -> None:
    """The rows of one secret of a GMM experiment, as its job reads them: those with the
    secret's condition and the attribute present (:func:`pufferfish.data_priors.condition`),
    numeric (:func:`pufferfish.gaussian.gmm.numeric_values`), at least ``components`` distinct values.

    Parameters
    ----------
    frame : pandas.DataFrame
        The dataset's table (at least the attribute and the secret's condition columns).
    spec : Mapping
        The experiment's validated section (``dataset``, ``attribute``, ``missing_values``).
    secret : Mapping
        One of its ``secrets`` (``label``, ``given``).
    components : int
        ``gaussian.gmm.components``.

    Returns
    -------
    None

    Raises
    ------
    DataError
        One line: no row with the condition, a value that is not a number, too few values.
    """
    from pufferfish.data_priors import condition
    from pufferfish.errors import DataError

    cond = condition(frame, attribute=spec["attribute"], given=secret["given"], dataset=spec["dataset"],
                     missing_values=list(spec.get("missing_values", [])))
    values = numeric_values(cond.values, name=f"{spec['attribute']} | {secret['label']}")
    if values.size < components or np.unique(values).size < components:
        raise DataError(f"{np.unique(values).size} distinct value(s) in {values.size} row(s) of "
                        f"{spec['attribute']} | {secret['label']}, fewer than the {components} GMM components "
                        f"(gaussian.gmm.components)")

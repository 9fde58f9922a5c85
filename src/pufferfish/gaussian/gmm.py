"""GMM priors: fitting, the W2 transport weights w*, Theorem 2 and Corollary 2 of paper 004.

N. Ding, "Approximation of Pufferfish Privacy for Gaussian Priors", IEEE TIFS 19 (2024),
Section IV. The adversary's prior for secret s_i is a one-dimensional Gaussian mixture
sum_m alpha_im g(x; mu_im, sigma_im^2) (:class:`pufferfish.mixture.GMM`; ``stds`` are standard deviations).

* :func:`fit_gmm` fits it with scikit-learn's ``GaussianMixture`` (EM, k-means init).
* :func:`w2_weights` solves the linear program below eq. (12) for w*.
* :func:`theorem2` is eq. (13), :func:`corollary2` eq. (15).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from pufferfish.checks import instance, integer, is_real, real, reals
from pufferfish.errors import ArgumentTypeError, ConfigError, DataError, InvalidDistributionError, NotApplicableError
from pufferfish.gaussian.methods import check_epsilon, tau_star
from pufferfish.mixture import GMM

__all__ = ["fit_gmm", "numeric_values", "w2_cost", "w2_weights", "theorem2_terms", "theorem2",
           "corollary2"]


def _gmms(gmm_i, gmm_j) -> None:
    instance(gmm_i, GMM, name="gmm_i")
    instance(gmm_j, GMM, name="gmm_j")


def numeric_values(values, *, name: str = "values") -> np.ndarray:
    """``values`` as a 1-D float array; a non-numeric or non-finite entry is a one-line DataError."""
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


def fit_gmm(values, *, components: int, random_state: int, n_init: int = 10, max_iter: int = 1000,
            label: str = "") -> GMM:
    """Fit a ``components``-component 1-D Gaussian mixture to ``values`` (scikit-learn EM).

    ``GaussianMixture(n_components=components, covariance_type="full", n_init=n_init,
    max_iter=max_iter, random_state=random_state)`` with scikit-learn's other defaults
    (k-means initialisation, ``reg_covar = 1e-6`` added to every variance, ``tol = 1e-3``):
    the result is deterministic for a given ``random_state``. Components are returned
    sorted by mean. Fewer rows (or fewer distinct values) than components, or a value that
    is not a finite number, is a one-line :class:`DataError`.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.mixture import GaussianMixture

    name = label or "secret"
    components = integer(components, name="components", lo=1)
    random_state = integer(random_state, name="random_state", lo=0)
    n_init, max_iter = integer(n_init, name="n_init", lo=1), integer(max_iter, name="max_iter", lo=1)
    x = numeric_values(values, name=name)
    if x.size < components:
        raise DataError(f"{name}: {x.size} row(s) is fewer than the {components} GMM components")
    distinct = np.unique(x).size
    if distinct < components:
        raise DataError(f"{name}: {distinct} distinct value(s) is fewer than the {components} GMM components")
    model = GaussianMixture(n_components=components, covariance_type="full", n_init=n_init, max_iter=max_iter,
                            random_state=random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x.reshape(-1, 1))
    return GMM(model.weights_, model.means_.ravel(), np.sqrt(model.covariances_.ravel()), n=int(x.size),
               converged=bool(model.converged_), log_likelihood=float(model.score(x.reshape(-1, 1))), label=label)


# ----------------------------------------------------------------------------- W2 weights

def w2_cost(gmm_i: GMM, gmm_j: GMM) -> np.ndarray:
    """C[m, l] = W2^2(component m of ``gmm_i``, component l of ``gmm_j``) = (mu - mu')^2 + (sigma - sigma')^2.

    Footnote 5 of the paper (Delon & Desolneux [33, Sec. 2.4.1]).
    """
    _gmms(gmm_i, gmm_j)
    return (gmm_i.means[:, None] - gmm_j.means[None, :]) ** 2 + (gmm_i.stds[:, None] - gmm_j.stds[None, :]) ** 2


def w2_weights(gmm_i: GMM, gmm_j: GMM) -> np.ndarray:
    """w* = argmin sum_ml w_ml W2^2(g_im, g_jl) s.t. sum_l w_ml = alpha_im, sum_m w_ml = alpha_jl, w >= 0.

    The discrete optimal transport between the component weights (eq. (12) and footnote 5;
    Delon & Desolneux [33]), solved as a linear program by ``scipy.optimize.linprog``
    (HiGHS). Returns the D_i x D_j matrix (tiny negative round-off clipped to 0).
    When the optimum is not unique HiGHS returns one optimal vertex; Theorem 2's proof
    only uses the two marginal constraints of w, so any optimal choice is valid.
    """
    from scipy.optimize import linprog
    _gmms(gmm_i, gmm_j)
    a, b = gmm_i.weights, gmm_j.weights
    di, dj = a.size, b.size
    cost = w2_cost(gmm_i, gmm_j)
    rows = np.kron(np.eye(di), np.ones((1, dj)))      # sum_l w_ml = a_m
    cols = np.kron(np.ones((1, di)), np.eye(dj))      # sum_m w_ml = b_l
    res = linprog(cost.ravel(), A_eq=np.vstack([rows, cols]), b_eq=np.concatenate([a, b]), bounds=(0, None),
                  method="highs")
    if res.status != 0:  # pragma: no cover - the LP is always feasible and bounded
        raise InvalidDistributionError(f"W2 weights: linear program failed ({res.message})")
    return np.clip(res.x.reshape(di, dj), 0.0, None)


def theorem2_terms(gmm_i: GMM, gmm_j: GMM, weights: np.ndarray | None = None) -> tuple[float, float]:
    """(sum_ml w*_ml |mu_im - mu_jl|, sum_ml w*_ml |sigma_im - sigma_jl|).

    Eq. (13) is b = (first + tau*(delta) second) / epsilon.
    """
    _gmms(gmm_i, gmm_j)
    w = w2_weights(gmm_i, gmm_j) if weights is None else reals(weights, name="weights", lo=0.0)
    dmu = np.abs(gmm_i.means[:, None] - gmm_j.means[None, :])
    dsd = np.abs(gmm_i.stds[:, None] - gmm_j.stds[None, :])
    return float(np.sum(w * dmu)), float(np.sum(w * dsd))


def theorem2(gmm_i: GMM, gmm_j: GMM, *, epsilon, delta):
    """Theorem 2, eq. (13): b = sum_ml w*_ml (|mu_im - mu_jl| + tau*(delta) |sigma_im - sigma_jl|) / epsilon.

    Given w*, the sum is symmetric in (i, j) (w* of the pair (j, i) is the transpose of
    that of (i, j) when the LP optimum is unique); both LPs are solved and the larger sum
    kept, so the result does not depend on the order of the pair even when the optimum
    is not unique. Vectorized over ``epsilon``.
    """
    _gmms(gmm_i, gmm_j)
    eps = check_epsilon(epsilon)
    tau = tau_star(delta)
    best = 0.0
    for first, second in ((gmm_i, gmm_j), (gmm_j, gmm_i)):
        mean_term, std_term = theorem2_terms(first, second)
        best = max(best, mean_term + tau * std_term)
    out = np.asarray(best / eps, dtype=float)
    return float(out) if out.ndim == 0 else out


def corollary2(gmm_i: GMM, gmm_j: GMM, *, epsilon, rtol: float = 1e-9):
    """Corollary 2, eq. (15): b = sum_m alpha_m |mu_im - mu_jm| / epsilon (claimed pure epsilon).

    Only for mixtures (14) whose components share the number D, the weights alpha_m and the
    standard deviations sigma_m (GMM-UBM mean adaptation), component m of one paired with
    component m of the other (both sorted by mean); otherwise :class:`NotApplicableError`.
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

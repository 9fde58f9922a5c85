"""Attribute privacy with Gaussian data: the GWM sensitivity in closed form.

Paper 002 (Pierquin, Bellet, Tommasi, Boussard, "Renyi Pufferfish Privacy", ICML 2024),
Proposition 6.2 (one released, one protected attribute) and its general form,
Proposition F.1 (Appendix F.3). The formulas are garbled in the text we have; they are
restated here and derived, so that each step can be checked.

Setting. A record x ~ N(mu, Sigma) has d attributes; the protected attributes are the
index set S (the secret is the value s of x_S, anywhere in a box Theta = prod_i [l_i, u_i]
of widths w_i = u_i - l_i); the release is the linear query q(x) = a . x.

Derivation (Gaussian conditioning). Given x_S = s, x_-S is Gaussian with
E[x_-S | s] = mu_-S + Sigma_-S,S Sigma_SS^-1 (s - mu_S) and a covariance that does not
depend on s (the Schur complement Sigma_-S,-S - Sigma_-S,S Sigma_SS^-1 Sigma_S,-S). So
q | s = a_S . s + a_-S . x_-S is Gaussian with variance independent of s and mean

    a . mu + beta . (s - mu_S),   beta = a_S + Sigma_SS^-1 Sigma_S,-S a_-S

(the transpose of a_-S^T Sigma_-S,S Sigma_SS^-1, Sigma symmetric). Two Gaussians on the
line with the same variance are translates: the translation coupling moves every point
by |beta . (s - s')|, and W_inf >= W_1 >= |difference of the means| says no coupling
does better, so

    W_inf(q | s, q | s') = W_p(q | s, q | s') = |beta . (s - s')|  for every p >= 1,

and the GWM sensitivity (the sup over s, s' in Theta) is sum_i |beta_i| w_i (each
coordinate of s - s' ranges over [-w_i, w_i] independently). This is the issue's formula
(beta = a_S + Sigma_SS^-1 Sigma_S,-S a_-S); it is the one the derivation gives, and the
tests check it against a second route (the precision matrix, and Monte Carlo).

For one released attribute r and one protected attribute j (Prop. 6.2): a = e_r, S = {j},
beta = Sigma_jr / Sigma_jj = cov(r, j) / var(j), and the sensitivity is
|cov(r, j) / var(j)| times the width of Theta (:func:`two_column_sensitivity` fits it to
data).

Records independent (Def. F.1: the dataset is n i.i.d. records). For the query summed over
the records, sum_k a . x^(k), and a secret about record k's x_S, the other records have the
same law under both secrets: couple them identically, and the sum moves by exactly the
shift of record k's term. So the sensitivity of the summed query is the same number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pufferfish.checks import real
from pufferfish.errors import ArgumentTypeError, DataError, InvalidArgumentError

__all__ = ["GaussianRecord", "attribute_coefficients", "gaussian_attribute_sensitivity", "conditional_query_law",
           "two_column_sensitivity", "TwoColumnFit"]

#: relative tolerance of the symmetry check of a covariance matrix
SYMMETRY_RTOL = 1e-10


def _matrix(covariance, *, name: str = "covariance") -> np.ndarray:
    try:
        cov = np.array(covariance, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{name} = {covariance!r:.60}: must be a square matrix of real numbers") from None
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1] or cov.shape[0] < 1:
        raise InvalidArgumentError(f"{name}: shape {cov.shape}: must be a square d x d matrix, d >= 1")
    if not np.all(np.isfinite(cov)):
        raise InvalidArgumentError(f"{name}: has a non-finite entry")
    scale = max(float(np.max(np.abs(cov))), np.finfo(float).tiny)
    if np.max(np.abs(cov - cov.T)) > SYMMETRY_RTOL * scale:
        raise InvalidArgumentError(f"{name}: not symmetric (max |Sigma - Sigma^T| = {np.max(np.abs(cov - cov.T)):.3g})")
    cov = (cov + cov.T) / 2.0
    eig = np.linalg.eigvalsh(cov)
    if eig[0] < -SYMMETRY_RTOL * scale:
        raise InvalidArgumentError(f"{name}: not positive semi-definite (smallest eigenvalue {eig[0]:.3g})")
    return cov


def _vector(values, d: int, *, name: str) -> np.ndarray:
    if isinstance(values, (str, bytes)):
        raise ArgumentTypeError(f"{name} = {values!r}: must be a sequence of {d} real numbers")
    try:
        out = np.array(values, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{name} = {values!r:.60}: must be a sequence of {d} real numbers") from None
    if out.shape != (d,):
        raise InvalidArgumentError(f"{name}: shape {out.shape}: must have {d} entries")
    if not np.all(np.isfinite(out)):
        raise InvalidArgumentError(f"{name} = {values!r:.60}: has a non-finite entry")
    return out


def _indices(protected, d: int) -> np.ndarray:
    if isinstance(protected, (str, bytes)) or not isinstance(protected, Sequence | np.ndarray):
        raise ArgumentTypeError(f"protected = {protected!r}: must be a sequence of attribute indices")
    out = []
    for k in protected:
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
            raise ArgumentTypeError(f"protected = {list(protected)!r}: indices must be integers")
        if not 0 <= int(k) < d:
            raise InvalidArgumentError(f"protected = {list(protected)!r}: index {int(k)} outside 0..{d - 1}")
        out.append(int(k))
    if not out:
        raise InvalidArgumentError("protected = []: at least one protected attribute is needed")
    if len(set(out)) != len(out):
        raise InvalidArgumentError(f"protected = {out!r}: an index is repeated")
    return np.array(out, dtype=int)


@dataclass(frozen=True, eq=False)
class GaussianRecord:
    """The prior of one record, N(``mean``, ``covariance``) over d attributes (validated:
    symmetric, positive semi-definite, finite)."""

    mean: np.ndarray
    covariance: np.ndarray

    def __post_init__(self):
        cov = _matrix(self.covariance)
        object.__setattr__(self, "covariance", cov)
        object.__setattr__(self, "mean", _vector(self.mean, cov.shape[0], name="mean"))

    @property
    def dimension(self) -> int:
        return int(self.covariance.shape[0])


def attribute_coefficients(covariance, weights, protected) -> np.ndarray:
    """beta = a_S + Sigma_SS^-1 Sigma_S,-S a_-S (paper 002, Prop. F.1; module docstring).

    Args:
        covariance: Sigma, d x d, symmetric positive semi-definite with Sigma_SS invertible.
        weights: a, the linear query q(x) = a . x (d numbers).
        protected: S, the indices of the protected attributes (distinct, at least one).

    Returns:
        beta (one entry per protected attribute, in the order of ``protected``): q | x_S = s
        has mean a . mu + beta . (s - mu_S) and a variance independent of s.
    """
    cov = _matrix(covariance)
    d = cov.shape[0]
    a = _vector(weights, d, name="weights")
    s = _indices(protected, d)
    rest = np.setdiff1d(np.arange(d), s)
    sigma_ss = cov[np.ix_(s, s)]
    if np.linalg.matrix_rank(sigma_ss) < len(s):
        raise InvalidArgumentError(f"covariance: Sigma_SS of the protected attributes {s.tolist()} is singular "
                                   "(a protected attribute is a deterministic function of the others)")
    if rest.size == 0:
        return a[s].copy()
    return a[s] + np.linalg.solve(sigma_ss, cov[np.ix_(s, rest)] @ a[rest])


def _widths(widths, k: int) -> np.ndarray:
    w = _vector(widths, k, name="widths")
    if np.any(w < 0):
        raise InvalidArgumentError(f"widths = {w.tolist()!r}: must be >= 0 (the sides of the secret box Theta)")
    return w


def gaussian_attribute_sensitivity(covariance, weights, protected, widths) -> float:
    """The GWM sensitivity sup_{s, s' in Theta} W_inf(q | s, q | s') = sum_i |beta_i| w_i.

    Paper 002, Prop. 6.2 (one protected attribute) and Prop. F.1 (several). ``widths``:
    the sides w_i of the box Theta of protected values (order of ``protected``). The same
    number bounds W_p for every p (the conditionals are translates), so it feeds the GWM
    (W_inf: Laplace, Gaussian) and the DAGWM (W_2: Cauchy) alike, and it holds unchanged
    for the query summed over independent records (module docstring).
    """
    beta = attribute_coefficients(covariance, weights, protected)
    return float(np.sum(np.abs(beta) * _widths(widths, beta.size)))


def conditional_query_law(record: GaussianRecord, weights, protected, value) -> tuple[float, float]:
    """(mean, variance) of q = a . x given x_S = ``value`` under ``record`` (Gaussian conditioning).

    mean = a . mu + beta . (s - mu_S); variance = a_-S^T (Sigma_-S,-S - Sigma_-S,S Sigma_SS^-1
    Sigma_S,-S) a_-S (the Schur complement), which does not depend on s.
    """
    if not isinstance(record, GaussianRecord):
        raise ArgumentTypeError(f"record = {record!r:.60}: must be a GaussianRecord")
    cov, mu = record.covariance, record.mean
    d = record.dimension
    a = _vector(weights, d, name="weights")
    s = _indices(protected, d)
    v = _vector(value, s.size, name="value")
    beta = attribute_coefficients(cov, a, s.tolist())
    rest = np.setdiff1d(np.arange(d), s)
    mean = float(a @ mu + beta @ (v - mu[s]))
    if rest.size == 0:
        return mean, 0.0
    schur = cov[np.ix_(rest, rest)] - cov[np.ix_(rest, s)] @ np.linalg.solve(cov[np.ix_(s, s)], cov[np.ix_(s, rest)])
    return mean, float(max(a[rest] @ schur @ a[rest], 0.0))


@dataclass(frozen=True)
class TwoColumnFit:
    """Prop. 6.2 with the Gaussian fitted to two data columns: ``beta`` = cov(r, j) / var(j)
    (sample moments), ``width`` = the protected column's observed range, ``sensitivity`` =
    |beta| width."""

    rows: int
    beta: float
    width: float
    sensitivity: float


def two_column_sensitivity(released, protected) -> TwoColumnFit:
    """Prop. 6.2 for data: fit N(mu, Sigma) to the pairs (released r, protected j) by the sample
    covariance, take Theta = [min j, max j], and return |cov(r, j) / var(j)| (max j - min j).

    Valid for the fitted Gaussian prior only: the data's own conditionals may need more
    (the experiment compares them, :mod:`pufferfish.sensitivity.experiments`). The sample
    covariance's normalisation (n or n - 1) cancels in the ratio. Rows must be complete
    (the caller drops those with a missing value); a protected column with a single value
    (var(j) = 0) has no secret pair and is refused.
    """
    r = np.asarray(released, dtype=float)
    j = np.asarray(protected, dtype=float)
    if r.ndim != 1 or j.shape != r.shape:
        raise InvalidArgumentError(f"released, protected: shapes {r.shape} and {j.shape}: must be two columns "
                                   "of the same length")
    if r.size < 2:
        raise DataError(f"released: {r.size} row(s); a covariance needs at least 2")
    if not (np.all(np.isfinite(r)) and np.all(np.isfinite(j))):
        raise DataError("released, protected: a value is missing or not finite (drop incomplete rows first)")
    cov = np.cov(r, j)
    if cov[1, 1] == 0:
        raise DataError(f"protected: a single value ({j[0]:g}); a secret pair needs two")
    beta = float(cov[0, 1] / cov[1, 1])
    width = float(j.max() - j.min())
    real(beta, name="beta")
    return TwoColumnFit(rows=int(r.size), beta=beta, width=width, sensitivity=abs(beta) * width)

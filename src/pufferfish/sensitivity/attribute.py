r"""Attribute privacy with Gaussian data: the GWM sensitivity in closed form.

Paper 002 (Pierquin, Bellet, Tommasi, Boussard, "Renyi Pufferfish Privacy", ICML 2024),
Proposition 6.2 (one released, one protected attribute) and its general form, Proposition
F.1 (Appendix F.3); the derivation is in docs/math/closed-forms.md, "Attribute privacy with
Gaussian data". A record :math:`x \sim N(\mu, \Sigma)` has its attributes :math:`S` protected
(:math:`x_S` anywhere in a box :math:`\Theta` of widths :math:`w_i`) and releases
:math:`q(x) = a \cdot x`. Gaussian conditioning leaves :math:`q \mid x_S = s` Gaussian with a
variance that does not depend on :math:`s` and a mean that moves by :math:`\beta \cdot (s - s')`,

.. math::

   \beta = a_S + \Sigma_{SS}^{-1} \Sigma_{S,-S}\, a_{-S},

so the two laws are translates, :math:`W_\infty = W_p = |\beta \cdot (s - s')|`, and the GWM
sensitivity is :math:`\sum_i |\beta_i| w_i` (:func:`attribute_coefficients`,
:func:`gaussian_attribute_sensitivity`). For one released column :math:`r` and one protected
column :math:`j`, :math:`\beta = \operatorname{cov}(r, j) / \operatorname{var}(j)`
(:func:`two_column_sensitivity` fits it to data). For a query summed over independent records
the number is the same (couple the other records identically).
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


def _has_bool(values) -> bool:
    """Whether a (nested) array-like holds a bool: ``True`` is not the number 1 here (pufferfish.checks)."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iuf":
        return False
    try:
        return any(isinstance(v, (bool, np.bool_)) for v in np.asarray(values, dtype=object).ravel())
    except (TypeError, ValueError):
        return False


def _matrix(covariance, *, name: str = "covariance") -> np.ndarray:
    if _has_bool(covariance):
        raise ArgumentTypeError(f"{name} = {covariance!r:.60}: must be a square matrix of real numbers, not bools")
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
    if _has_bool(values):
        raise ArgumentTypeError(f"{name} = {values!r:.60}: must be a sequence of {d} real numbers, not bools")
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
    r"""The coefficients :math:`\beta = a_S + \Sigma_{SS}^{-1} \Sigma_{S,-S}\, a_{-S}` (paper 002, Prop. F.1).

    :math:`q \mid x_S = s` has mean :math:`a \cdot \mu + \beta \cdot (s - \mu_S)` and a variance that does
    not depend on :math:`s` (module docstring).

    Parameters
    ----------
    covariance : array_like
        :math:`\Sigma`, :math:`d \times d`, symmetric positive semi-definite with :math:`\Sigma_{SS}` invertible.
    weights : array_like
        :math:`a`, the linear query :math:`q(x) = a \cdot x` (:math:`d` numbers).
    protected : sequence of int
        :math:`S`, the indices of the protected attributes (distinct, at least one).

    Returns
    -------
    numpy.ndarray
        :math:`\beta`, one entry per protected attribute, in the order of ``protected``.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A matrix not square, symmetric or finite, weights of another length, an index out of
        range or repeated, :math:`\Sigma_{SS}` singular.
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
    r"""The GWM sensitivity :math:`\sup_{s, s' \in \Theta} W_\infty(q \mid s, q \mid s') = \sum_i |\beta_i| w_i` (paper 002, Prop. 6.2 and F.1).

    The same number bounds :math:`W_p` for every :math:`p` (the conditionals are translates), so it
    feeds the GWM (:math:`W_\infty`: Laplace, Gaussian) and the DAGWM (:math:`W_2`: Cauchy) alike, and
    it holds unchanged for the query summed over independent records.

    Parameters
    ----------
    covariance, weights, protected
        As :func:`attribute_coefficients`.
    widths : array_like
        The sides :math:`w_i \ge 0` of the box :math:`\Theta` of protected values (order of ``protected``).

    Returns
    -------
    float
        :math:`\sum_i |\beta_i| w_i \ge 0`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        As :func:`attribute_coefficients`; widths negative, not finite or of another length.
    """
    beta = attribute_coefficients(covariance, weights, protected)
    return float(np.sum(np.abs(beta) * _widths(widths, beta.size)))


def conditional_query_law(record: GaussianRecord, weights, protected, value) -> tuple[float, float]:
    r"""The mean and variance of :math:`q = a \cdot x` given :math:`x_S` = ``value`` (Gaussian conditioning).

    .. math::

       \text{mean} = a \cdot \mu + \beta \cdot (s - \mu_S), \qquad
       \text{variance} = a_{-S}^\top \bigl(\Sigma_{-S,-S} - \Sigma_{-S,S} \Sigma_{SS}^{-1} \Sigma_{S,-S}\bigr) a_{-S},

    the variance (a Schur complement) independent of :math:`s`.

    Parameters
    ----------
    record : GaussianRecord
        :math:`N(\mu, \Sigma)`.
    weights, protected
        As :func:`attribute_coefficients`.
    value : array_like
        :math:`s`, one value per protected attribute.

    Returns
    -------
    (float, float)
        The mean and the variance.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        As :func:`attribute_coefficients`; ``record`` not a GaussianRecord, values of another length.
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


def _column(values, name: str) -> np.ndarray:
    if values is None or isinstance(values, (str, bytes)):
        raise ArgumentTypeError(f"{name} = {values!r:.60}: must be a column of numbers")
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"{name}: a value is not a number ({values!r:.60})") from None


def two_column_sensitivity(released, protected) -> TwoColumnFit:
    r"""Prop. 6.2 fitted to data: :math:`|\operatorname{cov}(r, j) / \operatorname{var}(j)|\,(\max j - \min j)`.

    :math:`N(\mu, \Sigma)` is fitted to the pairs (released :math:`r`, protected :math:`j`) by the sample
    covariance (its normalisation cancels in the ratio) and :math:`\Theta = [\min j, \max j]`. Valid
    for the fitted Gaussian prior only: the data's own conditionals may need more
    (:mod:`pufferfish.sensitivity.experiments` compares them).

    Parameters
    ----------
    released : array_like
        The released column :math:`r`, finite, complete rows only.
    protected : array_like
        The protected column :math:`j`, as many values, not all equal.

    Returns
    -------
    TwoColumnFit
        The fit and its sensitivity.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        Values not finite, columns of different lengths or too short, a protected column with a
        single value (:math:`\operatorname{var}(j) = 0`: no secret pair).
    """
    r = _column(released, "released")
    j = _column(protected, "protected")
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

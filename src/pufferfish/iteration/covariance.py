"""The adversary's prior on the records: a Gaussian N(mu, Sigma) over x_1..x_T (scalar records).

Paper 002 (Pierquin, Bellet, Tommasi, Boussard, ICML 2024), Section 6.4 and Appendix F.5:
the shifts of the iteration depend on the prior only through the secret's column
Sigma_{.k} / Sigma_kk (:mod:`pufferfish.iteration.shifts`), and the exact audit of the
quadratic-loss model through that column and one quadratic form q^T Sigma q
(:mod:`pufferfish.iteration.exact`). A covariance here is anything with those two
operations, so a stationary prior of a million records never builds its T x T matrix:

* :class:`DenseCovariance` -- a matrix given in full (checked symmetric, positive semi-definite);
* :class:`StationaryCovariance` -- Sigma_tu = gamma(|t - u|), a Toeplitz matrix given by its
  autocovariance gamma(0..T-1); q^T Sigma q by one FFT convolution (O(T log T)) for any q, and
  for the step weights q_t = (1 - eta)^(T-t) by their lag sums (O(T), :mod:`.geometric`);
* :class:`EqualCorrelation` -- Sigma_tt = v, Sigma_tu = rho v (t != u), 0 <= rho <= 1
  (paper 002, Fig. 6, "all elements equally correlated"); closed forms, O(T);
* :func:`decaying_correlation` -- Sigma_tu = v rho^|t-u| (Fig. 6, "dependencies decreasing
  over time"), a :class:`StationaryCovariance`;
* :func:`biased_autocovariance` -- gamma(h) = (1/n) sum_t (x_t - xbar)(x_{t+h} - xbar), the
  estimator that divides by n, whose Toeplitz matrix is positive semi-definite (it is
  (1/n) X^T X for the n + h x h matrix X of shifted copies of the centred series), by FFT.

The step weights' sums (:meth:`Covariance.step_variance` = Var(q^T x), :meth:`Covariance.step_covariance`
= Cov(q^T x, x_k), and the latter for every k at once) are what the exact audit reads
(docs/math/iteration.md, "Closed forms of the step weights"). Indices of records are 1-based,
as the paper's k.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pufferfish.checks import integer, real
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError
from pufferfish.iteration.geometric import (contraction_powers, discounted_cumsum, lag_sums, noise_gain,
                                            significant_lags, step_weights, weight_sum)

__all__ = ["Covariance", "DenseCovariance", "StationaryCovariance", "EqualCorrelation", "decaying_correlation",
           "biased_autocovariance", "as_vector", "check_covariance", "conditional_variance"]

#: relative size below which a negative conditional variance is rounding (clipped to 0), not an invalid prior
PSD_RTOL = 1e-9


def _label(name) -> str:
    """``name``, the argument name a message uses: a non-empty string."""
    if not isinstance(name, str) or not name:
        raise ArgumentTypeError(f"name = {name!r}: must be a non-empty string (the argument's name)")
    return name


def as_vector(values, *, name: str, nonnegative: bool = False, min_size: int = 1) -> np.ndarray:
    """``values`` as a 1-D float array of finite numbers (one line naming ``name`` otherwise)."""
    _label(name)
    min_size = integer(min_size, name="min_size", lo=0)
    if values is None or isinstance(values, (str, bytes, dict, set)):
        raise ArgumentTypeError(f"{name} = {values!r}: must be a sequence of numbers, not {type(values).__name__}")
    try:
        array = np.asarray(values)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{name}: must be a sequence of numbers") from None
    if array.dtype == bool or array.dtype.kind not in "iuf":
        raise ArgumentTypeError(f"{name}: must hold real numbers, not {array.dtype}")
    if array.ndim != 1:
        raise InvalidArgumentError(f"{name}: must be one-dimensional, has shape {array.shape}")
    if array.size < min_size:
        raise InvalidArgumentError(f"{name}: must hold at least {min_size} value(s), has {array.size}")
    array = array.astype(float, copy=False)
    if array.size:   # two reductions, no temporary: NaN propagates through min and max
        lo, hi = array.min(), array.max()
        if math.isfinite(lo) and math.isfinite(hi) and (lo >= 0 or not nonnegative):
            return array
    bad = ~np.isfinite(array)
    if nonnegative:
        bad |= array < 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        rule = "finite and >= 0" if nonnegative else "finite"
        raise InvalidArgumentError(f"{name}[{i}] = {array[i]!r}: must be {rule}")
    return array


class Covariance:
    """A T x T covariance of the records seen through two operations (subclasses implement them).

    ``size`` is T; :meth:`column` is Sigma_{.k} (1-based k); :meth:`quadratic` is q^T Sigma q.
    From them, generically (a subclass may compute them faster): :meth:`record_variance` Sigma_kk
    (:meth:`record_variances` all of them), and for the step weights q_t = (1 - eta)^(T-t) of the
    exact audit :meth:`step_variance` q^T Sigma q, :meth:`step_covariance` q^T Sigma_{.k} and
    :meth:`step_covariances` (every k). :meth:`column` returns a new array.
    """

    size: int

    def column(self, secret_index: int) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def quadratic(self, q) -> float:  # pragma: no cover - interface
        raise NotImplementedError

    def _index(self, secret_index) -> int:
        return integer(secret_index, name="secret_index", lo=1, hi=self.size)

    def record_variance(self, secret_index: int) -> float:
        """Sigma_kk, the prior variance of record k.

        Parameters
        ----------
        secret_index : int
            k, 1-based, 1 <= k <= T.

        Returns
        -------
        float
            Sigma_kk > 0.

        Raises
        ------
        InvalidArgumentError
            ``secret_index`` outside [1, T].
        """
        return float(self.column(secret_index)[self._index(secret_index) - 1])

    def record_variances(self) -> np.ndarray:
        """Sigma_11..Sigma_TT, the diagonal (a new array)."""
        return np.array([self.record_variance(k) for k in range(1, self.size + 1)])

    def constant_variance(self) -> float | None:
        """The variance Sigma_kk shared by every record, or None if they differ (or it is not known here)."""
        return None

    def step_variance(self, eta: float) -> float:
        """Var(q^T x) = q^T Sigma q for the step weights q_t = (1 - eta)^(T-t) (:func:`.geometric.step_weights`).

        Parameters
        ----------
        eta : float
            The step size, in (0, 1].

        Returns
        -------
        float
            q^T Sigma q.

        Raises
        ------
        InvalidArgumentError
            ``eta`` outside (0, 1].
        """
        return self.quadratic(step_weights(self.size, eta))

    def step_covariance(self, eta: float, secret_index: int) -> float:
        """Cov(q^T x, x_k) = q^T Sigma_{.k} for the step weights q_t = (1 - eta)^(T-t).

        Parameters
        ----------
        eta : float
            The step size, in (0, 1].
        secret_index : int
            k, 1-based, 1 <= k <= T.

        Returns
        -------
        float
            q^T Sigma_{.k}.

        Raises
        ------
        InvalidArgumentError
            ``eta`` outside (0, 1] or ``secret_index`` outside [1, T].
        """
        return float(np.dot(step_weights(self.size, eta), self.column(secret_index)))

    def step_covariances(self, eta: float) -> np.ndarray:
        """q^T Sigma_{.k} for k = 1..T (a subclass computes them at once; this generic one column by column).

        Parameters
        ----------
        eta : float
            The step size, in (0, 1].

        Returns
        -------
        numpy.ndarray
            T values, the k-th for record k.

        Raises
        ------
        InvalidArgumentError
            ``eta`` outside (0, 1].
        """
        q = step_weights(self.size, eta)
        return np.array([np.dot(q, self.column(k)) for k in range(1, self.size + 1)])

    def _weights(self, q) -> np.ndarray:
        q = as_vector(q, name="q")
        if q.size != self.size:
            raise InvalidArgumentError(f"q: has {q.size} entries, the covariance is {self.size} x {self.size}")
        return q

    def conditional_quadratic(self, q, secret_index: int) -> float:
        """q^T (Sigma - Sigma_{.k} Sigma_{k.} / Sigma_kk) q >= 0: the variance of q^T x given x_k.

        Gaussian conditioning: x | x_k has covariance Sigma - Sigma_{.k} Sigma_{k.} / Sigma_kk
        whatever the value of x_k, so this is Var(q^T x | x_k) = q^T Sigma q - (q^T Sigma_{.k})^2 /
        Sigma_kk. A negative value beyond :data:`PSD_RTOL` q^T Sigma q is not rounding: the
        matrix is not positive semi-definite, and that is refused.
        """
        q = self._weights(q)
        col = self.column(secret_index)
        k = self._index(secret_index)
        return conditional_variance(self.quadratic(q), float(np.dot(q, col)), col[k - 1], first_index=k)


def conditional_variance(total, cross, own, *, first_index: int = 1):
    """total - cross^2 / own >= 0: Var(q^T x | x_k) from Var(q^T x), Cov(q^T x, x_k) and Var(x_k).

    Gaussian conditioning (:meth:`Covariance.conditional_quadratic`). ``cross`` (and ``own``) may
    be arrays, one entry per record k (``first_index`` is the record of entry 0, for the message).
    A negative value within :data:`PSD_RTOL` |total| is rounding and becomes 0; beyond it the
    covariance is not positive semi-definite, and that is refused naming the first such record.

    Parameters
    ----------
    total : float
        q^T Sigma q (finite).
    cross : float or array_like
        q^T Sigma_{.k} (finite).
    own : float or array_like
        Sigma_kk > 0.
    first_index : int, optional
        The 1-based record of the first entry of ``cross`` (default 1).

    Returns
    -------
    float or numpy.ndarray
        The conditional variances, >= 0 (a float when ``cross`` and ``own`` are scalars).

    Raises
    ------
    InvalidArgumentError
        A non-finite input, ``own`` <= 0, or a conditional variance below -PSD_RTOL |total|.
    """
    total = real(total, name="total")
    first_index = integer(first_index, name="first_index", lo=1)
    scalar = np.ndim(cross) == 0 and np.ndim(own) == 0
    cross = as_vector(np.atleast_1d(cross), name="cross")
    if np.ndim(own) == 0:
        own = real(own, name="own", lo=0.0, lo_open=True)
    else:
        own = as_vector(own, name="own")
        if own.size != cross.size:
            raise InvalidArgumentError(f"own: has {own.size} entries, cross has {cross.size}")
        if not own.min() > 0:
            raise InvalidArgumentError(f"own = {float(own[np.flatnonzero(own <= 0)[0]])!r}: a variance must be > 0")
    value = np.square(cross)             # total - cross^2 / own, in one array
    value /= own
    np.subtract(total, value, out=value)
    negative = value < 0
    if negative.any():
        worst = value < -PSD_RTOL * max(abs(total), 1e-300)
        if worst.any():
            i = int(np.flatnonzero(worst)[0])
            raise InvalidArgumentError(f"covariance: not positive semi-definite (the conditional variance "
                                       f"of q^T x given x_{first_index + i} is {value[i]:.3g} < 0)")
        value[negative] = 0.0
    return float(value[0]) if scalar else value


def check_covariance(value, *, name: str = "covariance") -> Covariance:
    """``value`` if it is a :class:`Covariance`, else an ArgumentTypeError naming ``name`` and the type (one line)."""
    _label(name)
    if not isinstance(value, Covariance):
        raise ArgumentTypeError(f"{name}: must be a Covariance (DenseCovariance, StationaryCovariance, "
                                f"EqualCorrelation...), not {type(value).__name__}")
    return value


def _check_variance(value, name: str = "variance") -> float:
    return real(value, name=name, lo=0.0, lo_open=True)


@dataclass(frozen=True)
class DenseCovariance(Covariance):
    """A covariance given as a full matrix (symmetric, positive semi-definite, positive diagonal)."""

    matrix: np.ndarray = field(repr=False)

    def __post_init__(self):
        m = self.matrix
        if isinstance(m, (str, bytes)) or m is None:
            raise ArgumentTypeError(f"matrix = {m!r}: must be a square array of numbers")
        m = np.asarray(m)
        if m.dtype == bool or m.dtype.kind not in "iuf":
            raise ArgumentTypeError(f"matrix: must hold real numbers, not {m.dtype}")
        m = m.astype(float)
        if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0:
            raise InvalidArgumentError(f"matrix: must be a non-empty square matrix, has shape {m.shape}")
        if not np.isfinite(m).all():
            raise InvalidArgumentError("matrix: has a non-finite entry")
        scale = float(np.abs(m).max())
        if not np.allclose(m, m.T, rtol=0, atol=1e-12 * scale):
            raise InvalidArgumentError("matrix: must be symmetric")
        if (np.diag(m) <= 0).any():
            i = int(np.flatnonzero(np.diag(m) <= 0)[0])
            raise InvalidArgumentError(f"matrix[{i}, {i}] = {m[i, i]!r}: a variance must be > 0")
        if np.linalg.eigvalsh((m + m.T) / 2).min() < -1e-10 * scale:
            raise InvalidArgumentError("matrix: must be positive semi-definite")
        m.setflags(write=False)
        object.__setattr__(self, "matrix", m)

    @property
    def size(self) -> int:
        return self.matrix.shape[0]

    def column(self, secret_index: int) -> np.ndarray:
        return self.matrix[:, self._index(secret_index) - 1].copy()

    def quadratic(self, q) -> float:
        q = self._weights(q)
        return float(q @ self.matrix @ q)

    def record_variance(self, secret_index: int) -> float:
        k = self._index(secret_index)
        return float(self.matrix[k - 1, k - 1])

    def record_variances(self) -> np.ndarray:
        return np.diag(self.matrix).copy()

    def step_covariances(self, eta: float) -> np.ndarray:
        return step_weights(self.size, eta) @ self.matrix


@dataclass(frozen=True)
class StationaryCovariance(Covariance):
    """Sigma_tu = gamma(|t - u|) for t, u = 1..T, from the autocovariance gamma(0..T-1).

    gamma(0) > 0 and |gamma(h)| <= gamma(0) are checked (a Cauchy-Schwarz necessity);
    positive semi-definiteness is the caller's (it holds for :func:`biased_autocovariance`
    and rho^h), and a violation that shows in a conditional variance is refused there.
    """

    autocovariance: np.ndarray = field(repr=False)

    def __post_init__(self):
        g = as_vector(self.autocovariance, name="autocovariance").copy()
        _check_variance(g[0], "autocovariance[0]")
        if (np.abs(g) > g[0] * (1 + 1e-12)).any():
            i = int(np.flatnonzero(np.abs(g) > g[0] * (1 + 1e-12))[0])
            raise InvalidArgumentError(f"autocovariance[{i}] = {g[i]!r}: exceeds autocovariance[0] = {g[0]!r} "
                                       f"in absolute value (not a covariance)")
        g.setflags(write=False)
        object.__setattr__(self, "autocovariance", g)

    @property
    def size(self) -> int:
        return self.autocovariance.size

    def _rows(self, k: int, first: int) -> np.ndarray:
        """Sigma_tk for t = first..T (1-based, validated): gamma(k - t) backwards, then gamma(t - k)."""
        g = self.autocovariance
        before = g[k - first:0:-1] if first < k else g[:0]          # t = first..k-1
        return np.concatenate([before, g[max(first - k, 0):self.size - k + 1]])

    def column(self, secret_index: int) -> np.ndarray:
        return self._rows(self._index(secret_index), 1)

    def record_variance(self, secret_index: int) -> float:
        self._index(secret_index)
        return float(self.autocovariance[0])

    def record_variances(self) -> np.ndarray:
        return np.full(self.size, self.autocovariance[0])

    def constant_variance(self) -> float:
        return float(self.autocovariance[0])

    def step_variance(self, eta: float) -> float:
        """q^T Sigma q = gamma(0) A_0 + 2 sum_{h>=1} gamma(h) A_h with the closed-form lag sums
        A_h of the step weights (:func:`.geometric.lag_sums`): one dot product, O(T); the lags
        beyond :func:`.geometric.significant_lags` (A_h < 5e-300 A_0) are left out."""
        count = significant_lags(self.size, eta)
        a = lag_sums(self.size, eta, count=count)
        g = self.autocovariance
        return float(g[0] * a[0] + 2.0 * np.dot(g[1:count], a[1:]))

    def step_covariance(self, eta: float, secret_index: int) -> float:
        """q^T Sigma_{.k} = sum_t c^(T-t) gamma(|t - k|) over the steps whose weight c^(T-t) is
        significant (:func:`.geometric.significant_lags`): O(min(T, 690 / |log c|))."""
        k = self._index(secret_index)
        count = significant_lags(self.size, eta)
        q = contraction_powers(eta, count)[::-1]                 # q_t for t = T-count+1..T
        return float(np.dot(q, self._rows(k, self.size - count + 1)))

    def step_covariances(self, eta: float) -> np.ndarray:
        """q^T Sigma_{.k} for every k = 1..T in O(T): with c = 1 - eta,
        q^T Sigma_{.k} = F_{T-k} + c^(T-k) P_{k-1}, F_m = sum_{j<=m} c^(m-j) gamma(j) (the steps
        t >= k, :func:`.geometric.discounted_cumsum`) and P_m = sum_{j=1}^{m} c^j gamma(j) (the
        steps t < k; terms with c^j < 2.3e-300 left out)."""
        g, size = self.autocovariance, self.size
        out = discounted_cumsum(g, eta)[::-1]                    # F_{T-k}, k = 1..T (a reversed view)
        count = significant_lags(size, eta)
        if count > 1:
            powers = contraction_powers(eta, count)                  # c^0..c^(count-1)
            prefix = np.cumsum(powers[1:] * g[1:count])             # P_1..P_{count-1}
            ks = np.arange(max(2, size - count + 1), size + 1)       # c^(T-k) significant, k >= 2
            out[ks - 1] += powers[size - ks] * prefix[np.minimum(ks - 1, count - 1) - 1]
        return out

    def quadratic(self, q) -> float:
        """q^T Sigma q = gamma(0) sum q_t^2 + 2 sum_{h >= 1} gamma(h) A_h, A_h = sum_t q_t q_{t+h}.

        The autocorrelation A of q is one FFT convolution of q with its reverse, O(T log T)
        instead of the O(T^2) matrix product: ``scipy.fft`` rfft of both, zero-padded to
        ``next_fast_len(2T - 1)``, their product, irfft (the operations of
        ``scipy.signal.fftconvolve``, bit for bit, without importing scipy.signal, which costs
        a workflow job about a second).
        """
        q = self._weights(q)
        g = self.autocovariance
        if q.size == 1:
            return float(g[0] * q[0] ** 2)
        from scipy import fft

        n = fft.next_fast_len(2 * q.size - 1, True)
        lags = fft.irfft(fft.rfft(q, n) * fft.rfft(q[::-1], n), n)[q.size:2 * q.size - 1]   # A_1 .. A_{T-1}
        return float(g[0] * np.dot(q, q) + 2.0 * np.dot(g[1:], lags))


@dataclass(frozen=True)
class EqualCorrelation(Covariance):
    """Sigma_tt = v, Sigma_tu = rho v for t != u (every pair equally correlated), 0 <= rho <= 1.

    Sigma = v ((1 - rho) I + rho 1 1^T) is positive semi-definite for rho in [0, 1] (its
    eigenvalues are v (1 - rho) and v (1 - rho + T rho)), so q^T Sigma q =
    v ((1 - rho) |q|^2 + rho (sum q)^2) in O(T).
    """

    size: int
    rho: float
    variance: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "size", integer(self.size, name="size", lo=1))
        object.__setattr__(self, "rho", real(self.rho, name="rho", lo=0.0, hi=1.0))
        object.__setattr__(self, "variance", _check_variance(self.variance))

    def column(self, secret_index: int) -> np.ndarray:
        k = self._index(secret_index)
        col = np.full(self.size, self.rho * self.variance)
        col[k - 1] = self.variance
        return col

    def quadratic(self, q) -> float:
        q = self._weights(q)
        return float(self.variance * ((1.0 - self.rho) * np.dot(q, q) + self.rho * q.sum() ** 2))

    def record_variance(self, secret_index: int) -> float:
        self._index(secret_index)
        return float(self.variance)

    def record_variances(self) -> np.ndarray:
        return np.full(self.size, float(self.variance))

    def constant_variance(self) -> float:
        return float(self.variance)

    def step_variance(self, eta: float) -> float:
        """v ((1 - rho) sum q_t^2 + rho (sum q_t)^2), both sums in closed form: O(1)."""
        return float(self.variance * ((1.0 - self.rho) * noise_gain(self.size, eta)
                                      + self.rho * weight_sum(self.size, eta) ** 2))

    def step_covariance(self, eta: float, secret_index: int) -> float:
        """v (rho sum_t q_t + (1 - rho) q_k): O(1)."""
        k = self._index(secret_index)
        own = contraction_powers(eta, 1, start=self.size - k)[0]
        return float(self.variance * (self.rho * weight_sum(self.size, eta) + (1.0 - self.rho) * own))

    def step_covariances(self, eta: float) -> np.ndarray:
        return self.variance * (self.rho * weight_sum(self.size, eta) + (1.0 - self.rho) * step_weights(self.size, eta))


def decaying_correlation(size: int, rho: float, variance: float = 1.0) -> StationaryCovariance:
    """Sigma_tu = v rho^|t - u|, 0 <= rho < 1 (an AR(1) prior; paper 002, Fig. 6, decreasing dependencies).

    Positive definite: it is the covariance of the stationary AR(1) process
    x_t = rho x_{t-1} + sqrt(v (1 - rho^2)) e_t.
    """
    size = integer(size, name="size", lo=1)
    rho = real(rho, name="rho", lo=0.0, hi=1.0, hi_open=True)
    variance = _check_variance(variance)
    lags = np.arange(size, dtype=float)
    with np.errstate(under="ignore"):
        gamma = variance * np.power(rho, lags) if rho > 0 else np.where(lags == 0, variance, 0.0)
    return StationaryCovariance(gamma)


def biased_autocovariance(values) -> np.ndarray:
    """gamma(h) = (1/n) sum_{t=1}^{n-h} (x_t - xbar)(x_{t+h} - xbar), h = 0..n-1, by FFT.

    Dividing by n (not n - h) makes the Toeplitz matrix positive semi-definite: with the
    centred series y zero-padded, gamma(h) = (1/n) sum_t y_t y_{t+h} is the autocorrelation
    of a finite sequence, whose Fourier transform |Y(f)|^2 / n is non-negative (Bochner).
    gamma(0) is the population variance of the column (ddof = 0). A constant series
    (gamma(0) = 0) is refused: no record is informative about another.
    """
    x = as_vector(values, name="values", min_size=1)
    y = x - x.mean()
    n = y.size
    size = 1 << int(math.ceil(math.log2(2 * n))) if n > 1 else 2
    spectrum = np.fft.rfft(y, size)
    gamma = np.fft.irfft(spectrum * np.conj(spectrum), size)[:n] / n
    if not gamma[0] > 0:
        raise InvalidArgumentError("values: the series is constant (variance 0): no prior to estimate")
    return gamma

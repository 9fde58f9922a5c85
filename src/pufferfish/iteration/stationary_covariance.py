r"""Stationary priors: :math:`\Sigma_{tu} = \gamma(|t - u|)`, a Toeplitz matrix given by its autocovariance.

Paper 002 (Pierquin, Bellet, Tommasi, Boussard, ICML 2024), Section 6.4 and Fig. 6:

* :class:`StationaryCovariance` -- :math:`q^\top \Sigma q` by one FFT convolution for any :math:`q`, and
  for the step weights :math:`q_t = (1 - \eta)^{T-t}` by their lag sums (:math:`O(T)`,
  :mod:`pufferfish.iteration.geometric`);
* :func:`decaying_correlation` (:class:`DecayingCorrelation`) -- :math:`\Sigma_{tu} = v \rho^{|t-u|}`
  (Fig. 6, "dependencies decreasing over time"), an AR(1) prior with closed-form step sums;
* :func:`biased_autocovariance` -- the estimator that divides by :math:`n`, whose Toeplitz matrix is
  positive semi-definite, by FFT (the prior of a real series).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pufferfish.checks import as_vector, integer, real
from pufferfish.errors import InvalidArgumentError
from pufferfish.iteration.covariance import Covariance
from pufferfish.iteration.geometric import (contraction_powers, discounted_cumsum, geometric_sums, lag_sums,
                                            significant_lags)

__all__ = ["StationaryCovariance", "DecayingCorrelation", "decaying_correlation", "biased_autocovariance"]


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
        real(g[0], name="autocovariance[0]", lo=0.0, lo_open=True)
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
        A_h of the step weights (:func:`pufferfish.iteration.geometric.lag_sums`): one dot product, O(T); the lags
        beyond :func:`pufferfish.iteration.geometric.significant_lags` (A_h < 5e-300 A_0) are left out."""
        count = significant_lags(self.size, eta)
        a = lag_sums(self.size, eta, count=count)
        g = self.autocovariance
        return float(g[0] * a[0] + 2.0 * np.dot(g[1:count], a[1:]))

    def step_covariance(self, eta: float, secret_index: int) -> float:
        """q^T Sigma_{.k} = sum_t c^(T-t) gamma(|t - k|) over the steps whose weight c^(T-t) is
        significant (:func:`pufferfish.iteration.geometric.significant_lags`): O(min(T, 690 / |log c|))."""
        k = self._index(secret_index)
        count = significant_lags(self.size, eta)
        q = contraction_powers(eta, count)[::-1]                 # q_t for t = T-count+1..T
        return float(np.dot(q, self._rows(k, self.size - count + 1)))

    def step_covariances(self, eta: float) -> np.ndarray:
        """q^T Sigma_{.k} for every k = 1..T in O(T): with c = 1 - eta,
        q^T Sigma_{.k} = F_{T-k} + c^(T-k) P_{k-1}, F_m = sum_{j<=m} c^(m-j) gamma(j) (the steps
        t >= k, :func:`pufferfish.iteration.geometric.discounted_cumsum`) and P_m = sum_{j=1}^{m} c^j gamma(j) (the
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


@dataclass(frozen=True, init=False)
class DecayingCorrelation(StationaryCovariance):
    """Sigma_tu = v rho^|t - u|, 0 <= rho < 1: the stationary AR(1) prior of :func:`decaying_correlation`.

    A :class:`StationaryCovariance` (its autocovariance v rho^h) that also knows ``rho`` and
    ``variance``, so that :meth:`conditional_moments` computes Var(q^T x | x_k) from the process's
    innovations, without the difference that loses digits as rho -> 1 (docs/math/iteration.md,
    "Accuracy of the conditional variance").
    """

    rho: float
    variance: float

    def __init__(self, size: int, rho: float, variance: float = 1.0):
        size = integer(size, name="size", lo=1)
        rho = real(rho, name="rho", lo=0.0, hi=1.0, hi_open=True)
        variance = real(variance, name="variance", lo=0.0, lo_open=True)
        lags = np.arange(size, dtype=float)
        with np.errstate(under="ignore"):
            gamma = variance * np.power(rho, lags) if rho > 0 else np.where(lags == 0, variance, 0.0)
        object.__setattr__(self, "rho", rho)
        object.__setattr__(self, "variance", variance)
        StationaryCovariance.__init__(self, gamma)

    def conditional_moments(self, eta: float, secret_index: int) -> tuple[float, float]:
        r"""As :meth:`~pufferfish.iteration.covariance.Covariance.conditional_moments`, the conditional variance
        from the innovations:

        .. math::

           \operatorname{Var}(q^\top x \mid x_k) = v (1 - \rho^2)
           \Bigl(\sum_{j<k} \bigl(\textstyle\sum_{t \le j} q_t \rho^{j-t}\bigr)^2
           + \sum_{j>k} \bigl(\textstyle\sum_{t \ge j} q_t \rho^{t-j}\bigr)^2\Bigr)

        (the records after k are x_k's future, those before its past, independent given x_k: a
        sum of squares, no difference; docs/math/iteration.md).
        """
        k = self._index(secret_index)
        first, past, future = self._innovations(eta)
        past = past[:max(k - first, 0)]                             # P_j, first <= j < k
        tail = future[max(k + 1 - first, 0):]                       # B_j, j > k and j >= first
        total = float(np.dot(past, past)) + float(np.dot(tail, tail))
        if k < first - 1:                                           # B_j = rho^(first-j) B_first for k < j < first
            total += self._early(eta, future[0], np.array([first - 1.0 - k]))[0]
        return self.step_covariance(eta, k), total * self._spread()

    def every_conditional_moments(self, eta: float) -> tuple[np.ndarray, np.ndarray]:
        first, past, future = self._innovations(eta)
        head = float(future[0])
        np.square(past, out=past)
        np.square(future, out=future)
        suffix = np.cumsum(future[::-1])[::-1]                      # sum_{j >= first + i} B_j^2
        data = np.zeros(self.size)
        np.cumsum(past[:-1], out=data[first:])                      # sum_{first <= j < k} P_j^2, k > first
        data[first - 1:-1] += suffix[1:]                            # sum_{j > k} B_j^2, k >= first
        if first > 1:
            data[:first - 1] += suffix[0] + self._early(eta, head, first - 1.0 - np.arange(1, first))
        data *= self._spread()
        return self.step_covariances(eta), data

    def _spread(self) -> float:
        """v (1 - rho^2), the variance of one innovation."""
        return self.variance * (1.0 - self.rho) * (1.0 + self.rho)

    def _innovations(self, eta: float) -> tuple[int, np.ndarray, np.ndarray]:
        """(first, P, B): the first record whose step weight is significant (q_t >= e^-690,
        :func:`pufferfish.iteration.geometric.significant_lags`; the earlier ones are left out, as in the step sums), and
        P_j = sum_{first <= t <= j} q_t rho^(j-t), B_j = sum_{t >= j} q_t rho^(t-j) for j = first..T."""
        count = significant_lags(self.size, eta)
        q = contraction_powers(eta, count)[::-1]                    # q_first..q_T
        return (self.size - count + 1, discounted_cumsum(q, 1.0 - self.rho),
                discounted_cumsum(q[::-1], 1.0 - self.rho)[::-1])

    def _early(self, eta: float, head: float, gaps: np.ndarray) -> np.ndarray:
        """sum_{m=1}^{n} (rho^m head)^2 = head^2 rho^2 G(n) for each n of ``gaps``: the terms B_j^2 of the
        records j = first - m before the first significant one (their own weights left out)."""
        return head * head * self.rho * self.rho * geometric_sums(gaps, 1.0 - self.rho, power=2)


def decaying_correlation(size: int, rho: float, variance: float = 1.0) -> DecayingCorrelation:
    """Sigma_tu = v rho^|t - u|, 0 <= rho < 1 (an AR(1) prior; paper 002, Fig. 6, decreasing dependencies).

    Positive definite: it is the covariance of the stationary AR(1) process
    x_t = rho x_{t-1} + sqrt(v (1 - rho^2)) e_t.

    Parameters
    ----------
    size : int
        T >= 1.
    rho : float
        The lag-1 correlation, in [0, 1).
    variance : float, optional
        v > 0 (default 1).

    Returns
    -------
    DecayingCorrelation
        A :class:`StationaryCovariance` of autocovariance v rho^h.

    Raises
    ------
    InvalidArgumentError
        ``size`` < 1, ``rho`` outside [0, 1), ``variance`` <= 0 or not finite.
    """
    return DecayingCorrelation(size, rho, variance)


def biased_autocovariance(values) -> np.ndarray:
    r"""The biased sample autocovariance, by FFT.

    .. math::

       \gamma(h) = \frac1n \sum_{t=1}^{n-h} (x_t - \bar x)(x_{t+h} - \bar x), \qquad h = 0, \dots, n - 1.

    Dividing by :math:`n` (not :math:`n - h`) makes the Toeplitz matrix positive semi-definite: it is
    the autocorrelation of a finite sequence, whose Fourier transform :math:`|Y(f)|^2 / n` is
    non-negative (Bochner). :math:`\gamma(0)` is the population variance (ddof = 0).

    Parameters
    ----------
    values : array_like
        :math:`x_1, \dots, x_n`, finite, at least one.

    Returns
    -------
    numpy.ndarray
        :math:`\gamma(0), \dots, \gamma(n - 1)`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        Not finite numbers, none, or a constant series (:math:`\gamma(0) = 0`: no record is
        informative about another).
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

r"""The equal-correlation prior: :math:`\Sigma_{tt} = v`, :math:`\Sigma_{tu} = \rho v` for :math:`t \ne u`.

Paper 002 (Pierquin, Bellet, Tommasi, Boussard, ICML 2024), Fig. 6, "all elements equally
correlated" (:math:`0 \le \rho \le 1`): :class:`EqualCorrelation` computes every operation of
:class:`~pufferfish.iteration.covariance.Covariance` in closed form, :math:`O(T)`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pufferfish.checks import integer, real
from pufferfish.iteration.covariance import Covariance
from pufferfish.iteration.geometric import contraction_powers, geometric_sums, noise_gain, step_weights, weight_sum

__all__ = ["EqualCorrelation"]


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
        object.__setattr__(self, "variance", real(self.variance, name="variance", lo=0.0, lo_open=True))

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

    def conditional_moments(self, eta: float, secret_index: int) -> tuple[float, float]:
        """As :meth:`~pufferfish.iteration.covariance.Covariance.conditional_moments`, the conditional variance
        without a difference:
        v (1 - rho) (sum_{t != k} q_t^2 + rho (sum_{t != k} q_t)^2) (docs/math/iteration.md)."""
        k = self._index(secret_index)
        return self.step_covariance(eta, k), float(self._conditional(eta, np.array([k]))[0])

    def every_conditional_moments(self, eta: float) -> tuple[np.ndarray, np.ndarray]:
        return self.step_covariances(eta), self._conditional(eta, np.arange(1, self.size + 1))

    def _conditional(self, eta: float, ks: np.ndarray) -> np.ndarray:
        """Var(q^T x | x_k) for the 1-based records ``ks`` (validated): the sums over t != k split at k,
        t > k (T - k terms c^0, c^1, ...) and t < k (c^(T-k+1) times a sum of k - 1 terms)."""
        apart = contraction_powers(eta, self.size, start=1)[self.size - ks]       # c^(T-k+1)
        after, before = (self.size - ks).astype(float), (ks - 1).astype(float)
        linear = geometric_sums(after, eta) + apart * geometric_sums(before, eta)
        square = geometric_sums(after, eta, power=2) + apart * apart * geometric_sums(before, eta, power=2)
        return self.variance * (1.0 - self.rho) * (square + self.rho * linear * linear)

r"""A covariance of the records given as a full matrix (paper 002, Section 6.4: any Gaussian prior).

:class:`DenseCovariance` checks the matrix once (symmetric, positive semi-definite, positive
diagonal) and computes the operations of :class:`~pufferfish.iteration.covariance.Covariance`
from it directly: :math:`O(T^2)` memory, for priors small enough to write down.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pufferfish.errors import ArgumentTypeError, InvalidArgumentError
from pufferfish.iteration.covariance import Covariance
from pufferfish.iteration.geometric import step_weights

__all__ = ["DenseCovariance"]


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

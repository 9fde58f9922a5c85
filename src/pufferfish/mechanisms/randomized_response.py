"""k-ary randomized response on a finite domain of m values (Warner 1965; Kairouz et al. 2016).

RR(eps_A) reports the true value with probability e^eps_A / (e^eps_A + m - 1) and each other
value with probability 1 / (e^eps_A + m - 1). Two rows of its channel differ only on the two
inputs' own columns, where their ratio is e^eps_A: the channel is eps_A-LDP, and no smaller
epsilon holds (m >= 2). The output law of an input pmf lambda is the mixture
lambda C = other + (keep - other) lambda, in closed form (no m x m product).

Every probability is computed from t = e^-eps_A, keep = 1 / (1 + (m - 1) t) and other = t keep,
and the gap keep - other = -expm1(-eps_A) keep: no overflow for a large eps_A, no cancellation
for a small one; the logarithms are computed directly (:meth:`RandomizedResponse.log_matrix`),
so that an entry below the smallest float keeps its exact log. Derivations in
``docs/math/mechanisms.md`` (section "Randomized response").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pufferfish.checks import integer, real
from pufferfish.errors import InvalidArgumentError
from pufferfish.lattice.pmf import MAX_LATTICE_POINTS
from pufferfish.mechanisms.channel import check_input_pmf

__all__ = ["RandomizedResponse"]


@dataclass(frozen=True)
class RandomizedResponse:
    """k-ary randomized response RR(eps_A) on a domain of ``size`` values (inputs and outputs 0..m-1).

    Parameters
    ----------
    size : int
        m >= 2, the number of values of the domain.
    epsilon : float
        eps_A >= 0 (0: the output is uniform, whatever the input).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A size that is not an integer >= 2, or an eps_A that is not a finite real >= 0.
    """

    size: int
    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "size", integer(self.size, name="size", lo=2))
        object.__setattr__(self, "epsilon", real(self.epsilon, name="epsilon", lo=0.0))

    @property
    def _others(self) -> float:
        """(m - 1) e^-eps_A: the total weight of the other values against the true one."""
        return (self.size - 1) * math.exp(-self.epsilon)

    @property
    def keep(self) -> float:
        """P(y = x) = e^eps_A / (e^eps_A + m - 1) = 1 / (1 + (m - 1) e^-eps_A)."""
        return 1.0 / (1.0 + self._others)

    @property
    def other(self) -> float:
        """P(y = v) for each v != x: 1 / (e^eps_A + m - 1) = e^-eps_A keep."""
        return math.exp(-self.epsilon) / (1.0 + self._others)

    @property
    def log_keep(self) -> float:
        """log P(y = x) = -log1p((m - 1) e^-eps_A)."""
        return -math.log1p(self._others)

    @property
    def log_other(self) -> float:
        """log P(y = v), v != x: -eps_A - log1p((m - 1) e^-eps_A) (exact where the probability underflows)."""
        return -self.epsilon - math.log1p(self._others)

    @property
    def channel_epsilon(self) -> float:
        """The epsilon of the channel, max over outputs and pairs of inputs of the log ratio: eps_A."""
        return self.epsilon

    def matrix(self) -> np.ndarray:
        """The m x m channel C[x, y] = P(y | x): ``keep`` on the diagonal, ``other`` elsewhere.

        Returns
        -------
        numpy.ndarray
            C, rows summing to 1 to rounding.

        Raises
        ------
        InvalidArgumentError
            m^2 above ``MAX_LATTICE_POINTS`` entries (use :meth:`output_law`, which needs none).
        """
        return self._square(self.keep, self.other)

    def log_matrix(self) -> np.ndarray:
        """log C: ``log_keep`` on the diagonal, ``log_other`` elsewhere (see :meth:`matrix`).

        Returns
        -------
        numpy.ndarray
            log C (m x m), exact where ``other`` underflows.

        Raises
        ------
        InvalidArgumentError
            m^2 above ``MAX_LATTICE_POINTS`` entries.
        """
        return self._square(self.log_keep, self.log_other)

    def _square(self, diagonal: float, off: float) -> np.ndarray:
        if self.size ** 2 > MAX_LATTICE_POINTS:
            raise InvalidArgumentError(f"size = {self.size}: the channel has {self.size ** 2} entries, at most "
                                       f"MAX_LATTICE_POINTS = {MAX_LATTICE_POINTS}")
        out = np.full((self.size, self.size), off)
        np.fill_diagonal(out, diagonal)
        return out

    def output_law(self, pmf) -> np.ndarray:
        """The output law of the input pmf lambda: P(y) = other + (keep - other) lambda(y).

        Parameters
        ----------
        pmf : array_like
            lambda, m masses >= 0 summing to 1 (within ``PMF_ATOL``), in the domain's order.

        Returns
        -------
        numpy.ndarray
            The m output masses (keep - other = -expm1(-eps_A) keep: no cancellation).

        Raises
        ------
        InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
            A pmf that is not m such masses.
        """
        masses = check_input_pmf(pmf, self.size)
        gap = -math.expm1(-self.epsilon) * self.keep
        return self.other + gap * masses

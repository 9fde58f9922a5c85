"""Two-sided geometric (discrete Laplace) noise, and the geometric mechanism clamped to a domain.

G on the integers with P(G = g) = (1 - r) / (1 + r) r^|g|, r = e^-eps_A (Ghosh, Roughgarden and
Sundararajan 2009; scipy's ``dlaplace(eps_A)``). In closed form (no sum, no cancellation):

* P(G >= g) = r^g / (1 + r) for g >= 0, and 1 - r^(1-g) / (1 + r) for g <= 0 (both 1 / (1 + r)
  at 0; the subtracted term is at most 1/2: no cancellation); P(G <= g) = P(G >= -g);
* sd(G) = sqrt(2 r) / (1 - r), with 1 - r = -expm1(-eps_A).

:class:`ClampedGeometric` is y = clamp(x + G, min X, max X) for x in an integer domain X: an
interior output y has P(y | x) = P(G = y - x), the two ends the tails P(G <= min X - x) =
r^(x - min X) / (1 + r) and P(G >= max X - x) = r^(max X - x) / (1 + r). Every ratio of two
rows at one output is at most e^(eps_A |x - x'|), with equality at both ends: the channel is
exactly eps_A |x - x'|-XDP (clamping is post-processing). Probabilities and their logarithms
are computed each from its own closed form (an entry below the smallest float keeps its exact
log). Derivations in ``docs/math/mechanisms.md`` (section "Geometric").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pufferfish.checks import instance, integer, real, reals
from pufferfish.errors import InvalidArgumentError
from pufferfish.lattice.pmf import MAX_LATTICE_POINTS
from pufferfish.mechanisms.channel import check_input_pmf

__all__ = ["TwoSidedGeometric", "ClampedGeometric"]


def _integers(values, *, name: str) -> np.ndarray:
    """``values`` as a float array of integers (each checked), any shape."""
    out = reals(values, name=name)
    bad = np.flatnonzero(out.ravel() != np.floor(out.ravel()))
    if bad.size:
        raise InvalidArgumentError(f"{name}: {float(out.ravel()[bad[0]])!r} is not an integer")
    return out


@dataclass(frozen=True)
class TwoSidedGeometric:
    """Two-sided geometric noise with P(G = g) proportional to e^(-eps_A |g|) on the integers.

    Parameters
    ----------
    epsilon : float
        eps_A > 0 (the scale is 1 / eps_A).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        An eps_A that is not a finite real > 0.
    """

    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", real(self.epsilon, name="epsilon", lo=0.0, lo_open=True))

    @property
    def ratio(self) -> float:
        """r = e^-eps_A."""
        return math.exp(-self.epsilon)

    @property
    def norm(self) -> float:
        """P(G = 0) = (1 - r) / (1 + r) = -expm1(-eps_A) / (1 + r)."""
        return -math.expm1(-self.epsilon) / (1.0 + self.ratio)

    @property
    def log_norm(self) -> float:
        """log P(G = 0): log(-expm1(-eps_A)) - log1p(r) below eps_A = 1, -2 atanh(r) above (no cancellation)."""
        if self.epsilon < 1.0:
            return math.log(-math.expm1(-self.epsilon)) - math.log1p(self.ratio)
        return -2.0 * math.atanh(self.ratio)

    @property
    def std(self) -> float:
        """sd(G) = sqrt(2 r) / (1 - r) = sqrt(2) e^(-eps_A / 2) / -expm1(-eps_A)."""
        return math.sqrt(2.0) * math.exp(-self.epsilon / 2.0) / -math.expm1(-self.epsilon)

    def pmf(self, values) -> np.ndarray:
        """P(G = g) = (1 - r) / (1 + r) e^(-eps_A |g|) for each integer g.

        Parameters
        ----------
        values : int or array_like
            Integers g (any shape; finite, integer-valued floats are accepted).

        Returns
        -------
        numpy.ndarray
            One probability per g, in the shape of ``values``.

        Raises
        ------
        InvalidArgumentError, ArgumentTypeError
            A value that is not a finite integer.
        """
        return self.norm * np.exp(-self.epsilon * np.abs(_integers(values, name="values")))

    def log_pmf(self, values) -> np.ndarray:
        """log P(G = g) = log P(G = 0) - eps_A |g| (exact where P(G = g) underflows); see :meth:`pmf`."""
        return self.log_norm - self.epsilon * np.abs(_integers(values, name="values"))

    def sf(self, values) -> np.ndarray:
        """P(G >= g): r^g / (1 + r) for g >= 0, 1 - r^(1 - g) / (1 + r) for g < 0 (the subtracted term <= 1/2).

        Parameters
        ----------
        values : int or array_like
            Integers g (any shape).

        Returns
        -------
        numpy.ndarray
            One tail probability per g, in the shape of ``values``.

        Raises
        ------
        InvalidArgumentError, ArgumentTypeError
            A value that is not a finite integer.
        """
        return self._sf(_integers(values, name="values"))

    def log_sf(self, values) -> np.ndarray:
        """log P(G >= g): -eps_A g - log1p(r) for g >= 0, log1p(-r^(1 - g) / (1 + r)) for g < 0; see :meth:`sf`."""
        return self._log_sf(_integers(values, name="values"))

    def cdf(self, values) -> np.ndarray:
        """P(G <= g) = P(G >= -g) (symmetry); see :meth:`sf`."""
        return self._sf(-_integers(values, name="values"))

    def log_cdf(self, values) -> np.ndarray:
        """log P(G <= g) = log P(G >= -g) (symmetry); see :meth:`sf`."""
        return self._log_sf(-_integers(values, name="values"))

    def _sf(self, g: np.ndarray) -> np.ndarray:
        upper = np.exp(-self.epsilon * np.maximum(g, 0.0)) / (1.0 + self.ratio)
        lower = 1.0 - np.exp(-self.epsilon * (1.0 - np.minimum(g, 0.0))) / (1.0 + self.ratio)
        return np.where(g >= 0, upper, lower)

    def _log_sf(self, g: np.ndarray) -> np.ndarray:
        upper = -self.epsilon * np.maximum(g, 0.0) - math.log1p(self.ratio)
        lower = np.log1p(-np.exp(-self.epsilon * (1.0 - np.minimum(g, 0.0))) / (1.0 + self.ratio))
        return np.where(g >= 0, upper, lower)


@dataclass(frozen=True)
class ClampedGeometric:
    """The geometric mechanism y = clamp(x + G, min X, max X) on an integer domain X.

    Parameters
    ----------
    domain : sequence of int
        X: at least 2 strictly increasing integers (the inputs, the rows of the channel). The
        outputs are every integer from min X to max X (the columns).
    epsilon : float
        eps_A > 0 of the noise (:class:`TwoSidedGeometric`).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A domain that is not such integers, a channel of more than ``MAX_LATTICE_POINTS``
        entries, or a bad eps_A.
    """

    domain: tuple
    epsilon: float

    def __post_init__(self):
        noise = TwoSidedGeometric(self.epsilon)
        instance(self.domain, (list, tuple, np.ndarray), name="domain")
        values = tuple(integer(v, name=f"domain[{k}]") for k, v in enumerate(self.domain))
        if len(values) < 2 or any(b <= a for a, b in zip(values, values[1:])):
            raise InvalidArgumentError(f"domain = {values!r}: must be at least 2 strictly increasing integers")
        entries = len(values) * (values[-1] - values[0] + 1)
        if entries > MAX_LATTICE_POINTS:
            raise InvalidArgumentError(f"domain: the channel has {entries} entries ({len(values)} inputs x outputs "
                                       f"{values[0]}..{values[-1]}), at most MAX_LATTICE_POINTS = {MAX_LATTICE_POINTS}")
        object.__setattr__(self, "domain", values)
        object.__setattr__(self, "epsilon", noise.epsilon)

    @property
    def noise(self) -> TwoSidedGeometric:
        """The noise G."""
        return TwoSidedGeometric(self.epsilon)

    @property
    def outputs(self) -> np.ndarray:
        """The integers min X, ..., max X (the columns of the channel)."""
        return np.arange(self.domain[0], self.domain[-1] + 1)

    @property
    def channel_epsilon(self) -> float:
        """The epsilon of the channel, max over outputs and pairs of inputs of the log ratio: eps_A (max X - min X)."""
        # the product rounded up: at or above the true eps_A (max X - min X) (issue 39)
        value = self.epsilon * (self.domain[-1] - self.domain[0])
        return math.nextafter(value, math.inf) if value > 0 else value

    def pair_epsilons(self) -> np.ndarray:
        """E[x, x'] = eps_A |x - x'| for every pair of the domain: the channel's exact epsilon of each pair.

        Returns
        -------
        numpy.ndarray
            E (domain x domain), symmetric, 0 on the diagonal.
        """
        x = np.asarray(self.domain, dtype=float)
        value = self.epsilon * np.abs(x[:, None] - x[None, :])
        return np.where(value > 0, np.nextafter(value, np.inf), value)     # rounded up (issue 39)

    def log_matrix(self) -> np.ndarray:
        """log P(y | x): interior log P(G = y - x), ends -eps_A d - log1p(r) with d the distance to the end.

        Returns
        -------
        numpy.ndarray
            log C (domain x :attr:`outputs`), exact where C underflows.
        """
        noise = self.noise
        x = np.asarray(self.domain, dtype=float)[:, None]
        y = self.outputs.astype(float)[None, :]
        out = noise.log_norm - self.epsilon * np.abs(y - x)
        tail = -math.log1p(noise.ratio)
        out[:, 0] = tail - self.epsilon * (x[:, 0] - y[0, 0])
        out[:, -1] = tail - self.epsilon * (y[0, -1] - x[:, 0])
        return out

    def matrix(self) -> np.ndarray:
        """P(y | x), each entry from its closed form (see :meth:`log_matrix`).

        Returns
        -------
        numpy.ndarray
            C (domain x :attr:`outputs`), rows summing to 1 to rounding (positive terms only).
        """
        noise = self.noise
        r = noise.ratio
        x = np.asarray(self.domain, dtype=float)[:, None]
        y = self.outputs.astype(float)[None, :]
        out = (-math.expm1(-self.epsilon) / (1.0 + r)) * np.exp(-self.epsilon * np.abs(y - x))
        out[:, 0] = np.exp(-self.epsilon * (x[:, 0] - y[0, 0])) / (1.0 + r)
        out[:, -1] = np.exp(-self.epsilon * (y[0, -1] - x[:, 0])) / (1.0 + r)
        return out

    def output_law(self, pmf) -> np.ndarray:
        """The output law of an input pmf lambda on the domain: sum_x lambda(x) P(. | x).

        Parameters
        ----------
        pmf : array_like
            lambda, one mass >= 0 per value of the domain (in its order), summing to 1.

        Returns
        -------
        numpy.ndarray
            One mass per output (:attr:`outputs`).

        Raises
        ------
        InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
            A pmf that is not such masses.
        """
        return check_input_pmf(pmf, len(self.domain)) @ self.matrix()

"""Probability mass functions on the integer lattice (sums of users: :mod:`pufferfish.lattice.sums`).

The multi-user paper (000, Section 3) models each user i as a random variable D_i on a
finite integer alphabet, present with probability zeta_i; the query answer is the sum
X = f(D) = sum_i D_i. The priors of a secret pair are laws of X (eqs. 7-9).

A :class:`LatticePMF` keeps float64 probabilities and, while the problem is small, the
same probabilities as exact fractions: the transport plan and Delta* (Lemma 7) compare
CDF values for equality, which rounding would otherwise turn into spurious plan entries.
Config decimals such as 0.01 are read as the fraction 1/100, and data-derived users as
count / total, so every paper example is computed in exact arithmetic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from collections.abc import Sequence

import numpy as np

from pufferfish.errors import InvalidDistributionError

__all__ = ["LatticePMF", "PMF_ATOL"]

#: |sum of probabilities - 1| allowed in a user-supplied pmf
PMF_ATOL = 1e-9


def _as_fraction(value) -> Fraction:
    """The decimal the user wrote: 0.1 (a float) becomes Fraction(1, 10), not 3602879701896397/2**55."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    return Fraction(repr(float(value)))


@dataclass(frozen=True, eq=False)
class LatticePMF:
    """A pmf on consecutive integers: ``probs[k] = Pr(X = offset + k)``.

    The first and last entries are non-zero (the array spans exactly the hull of the
    support); interior zeros are allowed. ``exact`` holds the same masses as fractions
    when known, else ``None``.
    """

    offset: int
    probs: np.ndarray
    exact: tuple[Fraction, ...] | None = field(default=None, repr=False)

    def __post_init__(self):
        probs = np.array(self.probs, dtype=float)  # a private copy
        if probs.ndim != 1 or probs.size == 0:
            raise InvalidDistributionError("a lattice pmf needs a non-empty 1-D array of probabilities")
        if not np.all(np.isfinite(probs)) or np.any(probs < 0):
            raise InvalidDistributionError("a lattice pmf has a negative or non-finite probability")
        nonzero = np.flatnonzero(probs > 0)
        if nonzero.size == 0:
            raise InvalidDistributionError("a lattice pmf has no positive mass")
        first, last = int(nonzero[0]), int(nonzero[-1])
        exact = self.exact
        if exact is not None:
            exact = tuple(exact)[first:last + 1]
        probs = probs[first:last + 1]
        probs.setflags(write=False)
        object.__setattr__(self, "offset", int(self.offset) + first)
        object.__setattr__(self, "probs", probs)
        object.__setattr__(self, "exact", exact)

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_values(cls, values: Sequence[int], probabilities: Sequence[float], *, name: str = "pmf",
                    atol: float = PMF_ATOL) -> "LatticePMF":
        """Build a pmf from integer ``values`` and their ``probabilities``.

        Refuses (with :class:`InvalidDistributionError` naming ``name``) negative or
        non-finite probabilities, non-integer or repeated values, and masses whose sum
        differs from 1 by more than ``atol``; within ``atol`` the masses are renormalized.
        """
        values = list(values)
        probabilities = list(probabilities)
        if len(values) != len(probabilities) or not values:
            raise InvalidDistributionError(f"{name}: values and probabilities must be non-empty lists of equal length")
        ints = []
        for v in values:
            if isinstance(v, (bool, np.bool_)) or not float(v).is_integer():
                raise InvalidDistributionError(f"{name}: value {v!r} is not an integer")
            ints.append(int(v))
        if len(set(ints)) != len(ints):
            raise InvalidDistributionError(f"{name}: a value is repeated")
        for v, p in zip(ints, probabilities):
            if not (isinstance(p, (int, float, Fraction, np.integer, np.floating)) and math.isfinite(float(p)) and p >= 0):
                raise InvalidDistributionError(f"{name}: probability of value {v} is {p!r}, must be finite and >= 0")
        fracs = [_as_fraction(p) for p in probabilities]
        total = sum(fracs)
        if abs(float(total) - 1.0) > atol:
            raise InvalidDistributionError(f"{name}: probabilities sum to {float(total)!r}, must sum to 1 (within {atol:g})")
        lo, hi = min(ints), max(ints)
        exact = [Fraction(0)] * (hi - lo + 1)
        for v, f in zip(ints, fracs):
            exact[v - lo] = f / total
        return cls(lo, np.array([float(f) for f in exact]), tuple(exact))

    @classmethod
    def from_counts(cls, values: Sequence[int], counts: Sequence[int], *, name: str = "pmf") -> "LatticePMF":
        """The empirical pmf of integer ``values`` observed ``counts`` times (exact count / total)."""
        counts = [int(c) for c in counts]
        if any(c < 0 for c in counts) or sum(counts) == 0:
            raise InvalidDistributionError(f"{name}: counts must be >= 0 and not all zero")
        total = sum(counts)
        return cls.from_values(values, [Fraction(c, total) for c in counts], name=name)

    @classmethod
    def point(cls, value: int) -> "LatticePMF":
        """The point mass at ``value`` (a user that reports ``value``; 0 for an absent user)."""
        return cls(int(value), np.ones(1), (Fraction(1),))

    @classmethod
    def bernoulli(cls, p: float) -> "LatticePMF":
        """Bernoulli(p): Pr(1) = p, Pr(0) = 1 - p."""
        if not 0.0 <= float(p) <= 1.0:
            raise InvalidDistributionError(f"Bernoulli probability {p!r} must be in [0, 1]")
        f = _as_fraction(p)
        return cls(0, np.array([1.0 - float(f), float(f)]), (1 - f, f))

    # ----------------------------------------------------------------- properties
    @property
    def lo(self) -> int:
        """Smallest atom."""
        return self.offset

    @property
    def hi(self) -> int:
        """Largest atom."""
        return self.offset + self.probs.size - 1

    @property
    def values(self) -> np.ndarray:
        """The lattice points ``lo, lo + 1, ..., hi``."""
        return np.arange(self.lo, self.hi + 1)

    @property
    def support(self) -> np.ndarray:
        """The atoms with positive mass."""
        return self.values[self.probs > 0]

    def pmf_on(self, lo: int, hi: int) -> np.ndarray:
        """Probabilities at ``lo, ..., hi`` (zero outside the hull)."""
        out = np.zeros(hi - lo + 1)
        a, b = max(lo, self.lo), min(hi, self.hi)
        if a <= b:
            out[a - lo:b - lo + 1] = self.probs[a - self.lo:b - self.lo + 1]
        return out

    def exact_on(self, lo: int, hi: int) -> list[Fraction] | None:
        """Exact probabilities at ``lo, ..., hi``, or ``None`` when not known exactly."""
        if self.exact is None:
            return None
        return [self.exact[x - self.lo] if self.lo <= x <= self.hi else Fraction(0) for x in range(lo, hi + 1)]

    def cdf_on(self, lo: int, hi: int) -> np.ndarray:
        """F(x) = Pr(X <= x) at ``x = lo, ..., hi`` (each value rounded once from exact fractions when known)."""
        start = min(lo, self.lo)  # mass below lo counts too
        exact = self.exact_on(start, hi)
        if exact is None:
            cdf = np.cumsum(self.pmf_on(start, hi))
        else:
            acc, values = Fraction(0), []
            for f in exact:
                acc += f
                values.append(float(acc))
            cdf = np.array(values)
        return cdf[lo - start:]

    def mean(self) -> float:
        """E[X]."""
        if self.exact is not None:
            return float(sum(f * (self.lo + k) for k, f in enumerate(self.exact)))
        return float(np.dot(self.values, self.probs))

    def log_mgf(self, t: float) -> float:
        """log E[exp(t X)], computed in log space."""
        from scipy.special import logsumexp
        mask = self.probs > 0
        return float(logsumexp(np.log(self.probs[mask]) + t * self.values[mask]))

    def is_binary(self) -> bool:
        """True when the support lies in {0, 1} (a Bernoulli user)."""
        return self.lo >= 0 and self.hi <= 1

    def shift(self, a: int) -> "LatticePMF":
        """The law of X + a."""
        return LatticePMF(self.offset + int(a), self.probs, self.exact)

    def __repr__(self) -> str:
        body = ", ".join(f"{x}: {p:.6g}" for x, p in zip(self.values, self.probs) if p > 0)
        if len(body) > 200:
            body = body[:197] + "..."
        return f"LatticePMF({{{body}}})"

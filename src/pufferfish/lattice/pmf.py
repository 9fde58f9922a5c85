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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import KW_ONLY, InitVar, dataclass, field
from fractions import Fraction

import numpy as np

from pufferfish.checks import instance, integer, is_integer, is_real, real
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError, InvalidDistributionError

__all__ = ["LatticePMF", "PMF_ATOL", "MAX_LATTICE_POINTS", "check_lattice_size", "check_sum_size"]

#: |sum of probabilities - 1| allowed in a pmf (beyond it: refused, unless ``normalize=True`` is passed)
PMF_ATOL = 1e-9
#: the most lattice points a pmf, a sum of users or the common hull of two priors may span
#: (checked before anything of that size is allocated; 10^7 float64 masses take 80 MB)
MAX_LATTICE_POINTS = 10_000_000


def check_lattice_size(points: int, *, name: str, what: str = "") -> int:
    r"""Refuse a lattice of more than :data:`MAX_LATTICE_POINTS` points, before it is allocated.

    ``what`` says where the points come from (e.g. ``"values from 0 to 1000000000"``).

    Parameters
    ----------
    points : int
        The number of lattice points, :math:`\ge 0`.
    name : str
        The argument named in the message.
    what : str
        Where the points come from (optional, for the message).

    Returns
    -------
    int
        ``points``.

    Raises
    ------
    ArgumentTypeError
        ``points`` not an integer or ``name`` not a string.
    InvalidArgumentError
        ``points`` negative or above :data:`MAX_LATTICE_POINTS`.
    """
    instance(name, str, name="name")
    points = integer(points, name="points", lo=0)
    if points > MAX_LATTICE_POINTS:
        raise InvalidArgumentError(f"{name}: {points} lattice points{f' ({what})' if what else ''}, "
                                   f"at most MAX_LATTICE_POINTS = {MAX_LATTICE_POINTS} allowed")
    return points


def check_sum_size(users, *, name: str = "users") -> list:
    r"""The entry check of :func:`~pufferfish.lattice.sums.sum_of_users` and ``convolve``; returns ``list(users)``.

    Every user is a :class:`LatticePMF`, and the law of their sum, whose hull has
    sum(len - 1) + 1 points, fits in :data:`MAX_LATTICE_POINTS` (checked before any convolution).

    Parameters
    ----------
    users : iterable of pufferfish.lattice.pmf.LatticePMF
        The laws to be summed.
    name : str
        The argument named in messages.

    Returns
    -------
    list of pufferfish.lattice.pmf.LatticePMF
        ``list(users)``.

    Raises
    ------
    ArgumentTypeError
        ``users`` not an iterable of :class:`LatticePMF` (naming the first that is not).
    InvalidArgumentError
        The sum's hull would exceed :data:`MAX_LATTICE_POINTS`.
    """
    if isinstance(users, (LatticePMF, str, bytes, Mapping)) or not isinstance(users, Iterable):
        raise ArgumentTypeError(f"{name} = {users!r}: must be a list of LatticePMF, not {type(users).__name__}")
    users = list(users)
    points = 1
    for k, user in enumerate(users):
        if not isinstance(user, LatticePMF):
            hint = " (pass user.pmf, the law of a User)" if hasattr(user, "pmf") else ""
            raise ArgumentTypeError(f"{name}[{k}] = {_short(user)}: must be a LatticePMF, "
                                    f"not {type(user).__name__}{hint}")
        points += user.probs.size - 1
    check_lattice_size(points, name=name, what="the hull of their sum")
    return users


#: the zero every exact pmf shares (tuple.count finds it by identity)
_ZERO = Fraction(0)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _as_fraction(value) -> Fraction:
    """The decimal the user wrote: 0.1 (a float) becomes Fraction(1, 10), not 3602879701896397/2**55."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    return Fraction(repr(float(value)))


def _listed(values, *, name: str) -> list:
    """``values`` (a list, tuple, array, range...) as a list; a string, mapping or number is refused."""
    if values is None or isinstance(values, (str, bytes, Mapping, set, frozenset)) or not isinstance(values, Iterable):
        raise ArgumentTypeError(f"{name} = {_short(values)}: must be a list, not {type(values).__name__}")
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise InvalidDistributionError(f"{name}: must be one-dimensional, got shape {values.shape}")
    return list(values)


def _float_masses(probs, *, name: str) -> np.ndarray:
    """``probs`` as a private 1-D float64 array; refuses strings, bools, complex and None entries."""
    if isinstance(probs, np.ndarray):
        if probs.dtype.kind not in "iuf":
            if probs.dtype.kind != "O":
                raise ArgumentTypeError(f"{name}: must hold real numbers, not {probs.dtype} values")
            for k, v in enumerate(probs.ravel()):
                if not is_real(v):
                    raise ArgumentTypeError(f"{name}[{k}] = {_short(v)}: must be a real number, not {type(v).__name__}")
        return np.array(probs, dtype=float)
    items = _listed(probs, name=name)
    for k, v in enumerate(items):
        if not is_real(v):
            raise ArgumentTypeError(f"{name}[{k}] = {_short(v)}: must be a real number, not {type(v).__name__}")
    return np.array([float(v) for v in items], dtype=float)


@dataclass(frozen=True, eq=False)
class LatticePMF:
    """A pmf on consecutive integers: ``probs[k] = Pr(X = offset + k)``.

    The first and last entries are non-zero (the array spans exactly the hull of the
    support); interior zeros are allowed. ``exact`` holds the same masses as fractions
    when known, else ``None``.

    Every construction is checked here, once: ``offset`` an integer; ``probs`` a non-empty
    1-D list of finite reals >= 0 (no strings, bools or NaN), at most
    :data:`MAX_LATTICE_POINTS` long, summing to 1 within :data:`PMF_ATOL` (the masses are
    kept as given), or to any positive total with ``normalize=True`` (they are divided by
    it); ``exact``, if given, the same masses as fractions. Anything else raises
    :class:`~pufferfish.errors.InvalidDistributionError` (a ``ValueError``) or
    :class:`~pufferfish.errors.ArgumentTypeError` (a ``TypeError``) naming the argument.
    """

    offset: int
    probs: np.ndarray
    exact: tuple[Fraction, ...] | None = field(default=None, repr=False)
    _: KW_ONLY
    normalize: InitVar[bool] = False

    def __post_init__(self, normalize: bool):
        offset = integer(self.offset, name="offset")
        if not isinstance(normalize, (bool, np.bool_)):
            raise ArgumentTypeError(f"normalize = {normalize!r}: must be True or False")
        if isinstance(self.probs, np.ndarray) and self.probs.ndim != 1:
            raise InvalidDistributionError(f"probs: a lattice pmf needs a 1-D array, got shape {self.probs.shape}")
        if hasattr(self.probs, "__len__"):
            check_lattice_size(len(self.probs), name="probs")
        probs = _float_masses(self.probs, name="probs")  # a private copy
        if probs.size == 0:
            raise InvalidDistributionError("probs = []: a lattice pmf needs at least one probability")
        with np.errstate(over="ignore"):
            total = float(np.sum(probs))
        if not (math.isfinite(total) and probs.min() >= 0):  # NaN, inf or a negative mass somewhere
            bad = np.flatnonzero(~np.isfinite(probs) | (probs < 0))
            if bad.size:
                k = int(bad[0])
                raise InvalidDistributionError(f"probs[{k}] = {probs[k]!r}: a probability must be finite and >= 0")
            raise InvalidDistributionError(f"probs: the masses sum to {total!r} (overflow)")
        if total == 0.0:
            raise InvalidDistributionError("probs: a lattice pmf has no positive mass (all probabilities are 0)")
        exact = self.exact
        if exact is not None:
            exact = self._check_exact(exact, probs)
        if normalize:
            probs /= total
            if exact is not None:
                exact_total = sum(exact)
                exact = tuple(f / exact_total for f in exact)
        elif not abs(total - 1.0) <= PMF_ATOL:
            raise InvalidDistributionError(f"probs: sum to {total!r}, must sum to 1 (within PMF_ATOL = {PMF_ATOL:g}); "
                                           "pass normalize=True to divide by the sum")
        nonzero = np.flatnonzero(probs)
        first, last = int(nonzero[0]), int(nonzero[-1])
        if exact is not None:
            exact = exact[first:last + 1]
        probs = probs[first:last + 1]
        probs.setflags(write=False)
        object.__setattr__(self, "offset", offset + first)
        object.__setattr__(self, "probs", probs)
        object.__setattr__(self, "exact", exact)

    @staticmethod
    def _check_exact(exact, probs: np.ndarray) -> tuple[Fraction, ...]:
        """``exact`` as a tuple of non-negative fractions equal to ``probs`` (to 1e-12 relative)."""
        exact = tuple(_listed(exact, name="exact"))
        if len(exact) != probs.size:
            raise InvalidDistributionError(f"exact: {len(exact)} fractions for {probs.size} probabilities")
        kinds = set(map(type, exact))
        if not kinds <= {Fraction, int}:
            k, f = next((k, f) for k, f in enumerate(exact) if type(f) not in (Fraction, int))
            raise ArgumentTypeError(f"exact[{k}] = {_short(f)}: must be a Fraction, not {type(f).__name__}")
        if int in kinds:
            exact = tuple(_ZERO if f == 0 else Fraction(f) for f in exact)
        nonzero = np.flatnonzero(probs)
        if len(exact) - exact.count(_ZERO) != nonzero.size:  # a zero of one is not a zero of the other
            k = next(k for k, f in enumerate(exact) if (f != 0) != (probs[k] != 0))
            raise InvalidDistributionError(f"exact[{k}] = {exact[k]}: differs from probs[{k}] = {probs[k]!r}")
        values = np.array([float(exact[k]) for k in nonzero])
        bad = np.flatnonzero((values < 0) | (np.abs(values - probs[nonzero]) > 1e-12 * probs[nonzero]))
        if bad.size:
            k = int(nonzero[bad[0]])
            raise InvalidDistributionError(f"exact[{k}] = {exact[k]}: differs from probs[{k}] = {probs[k]!r}")
        return exact

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_values(cls, values: Sequence[int], probabilities: Sequence[float], *, name: str = "pmf",
                    atol: float = PMF_ATOL, normalize: bool = False) -> "LatticePMF":
        """Build a pmf from integer ``values`` and their ``probabilities``.

        Refuses (naming ``name``) values that are not integers (``1.5``, ``True``, ``"2"``)
        or repeat, values spanning more than :data:`MAX_LATTICE_POINTS` lattice points
        (before anything that large is allocated), probabilities that are not finite reals
        >= 0, and masses whose sum differs from 1 by more than ``atol``. Within ``atol``
        the masses are rescaled to sum exactly to 1 (as exact fractions); with
        ``normalize=True`` any positive total is divided out.
        """
        values = _listed(values, name=f"{name}: values")
        probabilities = _listed(probabilities, name=f"{name}: probabilities")
        atol = real(atol, name="atol", lo=0.0, hi=1.0, hi_open=True)
        if not isinstance(normalize, (bool, np.bool_)):
            raise ArgumentTypeError(f"normalize = {normalize!r}: must be True or False")
        if len(values) != len(probabilities) or not values:
            raise InvalidDistributionError(f"{name}: values and probabilities must be non-empty lists of equal length "
                                           f"(got {len(values)} and {len(probabilities)})")
        ints = []
        for v in values:
            if not is_integer(v):
                raise InvalidDistributionError(f"{name}: value {_short(v)} is not an integer")
            ints.append(int(v))
        if len(set(ints)) != len(ints):
            repeated = next(v for v in ints if ints.count(v) > 1)
            raise InvalidDistributionError(f"{name}: value {repeated} is repeated")
        lo, hi = min(ints), max(ints)
        check_lattice_size(hi - lo + 1, name=name, what=f"values from {lo} to {hi}")
        for v, p in zip(ints, probabilities):
            if not (is_real(p) and math.isfinite(float(p)) and p >= 0):
                raise InvalidDistributionError(f"{name}: probability of value {v} is {_short(p)}, must be finite and >= 0")
        fracs = [_as_fraction(p) for p in probabilities]
        total = sum(fracs)
        if total == 0:
            raise InvalidDistributionError(f"{name}: every probability is 0")
        if not normalize and abs(float(total) - 1.0) > atol:
            raise InvalidDistributionError(f"{name}: probabilities sum to {float(total)!r}, must sum to 1 (within "
                                           f"{atol:g}); pass normalize=True to divide by the sum")
        exact = [_ZERO] * (hi - lo + 1)
        probs = np.zeros(hi - lo + 1)
        for v, f in zip(ints, fracs):
            exact[v - lo] = f / total
            probs[v - lo] = float(exact[v - lo])
        return cls(lo, probs, tuple(exact))

    @classmethod
    def from_counts(cls, values: Sequence[int], counts: Sequence[int], *, name: str = "pmf") -> "LatticePMF":
        """The empirical pmf of integer ``values`` observed ``counts`` times (exact count / total)."""
        counts = _listed(counts, name=f"{name}: counts")
        for k, c in enumerate(counts):
            if not (is_integer(c) and c >= 0):
                raise InvalidDistributionError(f"{name}: counts[{k}] = {_short(c)}, must be an integer >= 0")
        counts = [int(c) for c in counts]
        total = sum(counts)
        if total == 0:
            raise InvalidDistributionError(f"{name}: counts must not be all zero")
        return cls.from_values(values, [Fraction(c, total) for c in counts], name=name)

    @classmethod
    def point(cls, value: int) -> "LatticePMF":
        """The point mass at ``value`` (a user that reports ``value``; 0 for an absent user)."""
        return cls(integer(value, name="value"), np.ones(1), (Fraction(1),))

    @classmethod
    def bernoulli(cls, p: float) -> "LatticePMF":
        """Bernoulli(p): Pr(1) = p, Pr(0) = 1 - p, for a real p in [0, 1]."""
        real(p, name="Bernoulli probability p", lo=0.0, hi=1.0, error=InvalidDistributionError)
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
        lo, hi = _window(lo, hi)
        out = np.zeros(hi - lo + 1)
        a, b = max(lo, self.lo), min(hi, self.hi)
        if a <= b:
            out[a - lo:b - lo + 1] = self.probs[a - self.lo:b - self.lo + 1]
        return out

    def exact_on(self, lo: int, hi: int) -> list[Fraction] | None:
        """Exact probabilities at ``lo, ..., hi``, or ``None`` when not known exactly."""
        lo, hi = _window(lo, hi)
        if self.exact is None:
            return None
        return [self.exact[x - self.lo] if self.lo <= x <= self.hi else Fraction(0) for x in range(lo, hi + 1)]

    def cdf_on(self, lo: int, hi: int) -> np.ndarray:
        """F(x) = Pr(X <= x) at ``x = lo, ..., hi`` (each value rounded once from exact fractions when known)."""
        lo, hi = _window(lo, hi)
        start = min(lo, self.lo)  # mass below lo counts too
        stop = min(hi, self.hi)   # beyond the last atom F keeps its value there
        exact = self.exact_on(start, stop)
        if exact is None:
            cdf = np.cumsum(self.pmf_on(start, stop))
        else:
            acc, values = Fraction(0), []
            for f in exact:
                acc += f
                values.append(float(acc))
            cdf = np.array(values)
        head = cdf[lo - start:] if lo <= stop else cdf[:0]
        if stop >= hi:
            return head
        return np.concatenate((head, np.full(hi - max(lo, stop + 1) + 1, cdf[-1])))

    def mean(self) -> float:
        """E[X]."""
        if self.exact is not None:
            return float(sum(f * (self.lo + k) for k, f in enumerate(self.exact)))
        return float(np.dot(self.values, self.probs))

    def log_mgf(self, t: float) -> float:
        """log E[exp(t X)], computed in log space."""
        from scipy.special import logsumexp

        t = real(t, name="t")
        mask = self.probs > 0
        return float(logsumexp(np.log(self.probs[mask]) + t * self.values[mask]))

    def is_binary(self) -> bool:
        """True when the support lies in {0, 1} (a Bernoulli user)."""
        return self.lo >= 0 and self.hi <= 1

    def shift(self, a: int) -> "LatticePMF":
        """The law of X + a."""
        return LatticePMF(self.offset + integer(a, name="a"), self.probs, self.exact)

    def __repr__(self) -> str:
        body = ", ".join(f"{x}: {p:.6g}" for x, p in zip(self.values, self.probs) if p > 0)
        if len(body) > 200:
            body = body[:197] + "..."
        return f"LatticePMF({{{body}}})"


def _window(lo, hi) -> tuple[int, int]:
    """Integer bounds lo <= hi of a window of at most :data:`MAX_LATTICE_POINTS` points."""
    lo, hi = integer(lo, name="lo"), integer(hi, name="hi")
    if hi < lo:
        raise InvalidArgumentError(f"hi = {hi}: must be >= lo = {lo}")
    check_lattice_size(hi - lo + 1, name="window", what=f"from {lo} to {hi}")
    return lo, hi

r"""Weakly dependent records: the GWM sensitivity from the independent case plus a dependence term.

Paper 002 (Pierquin et al., ICML 2024), Proposition 6.1, proved in Appendix F.1 by the
triangle inequality (restated in docs/math/closed-forms.md, "Weak dependence"). :math:`\theta` is
a joint prior of :math:`n` records, :math:`\bar\theta` the product of its marginals. For a query
:math:`F` of the records and a secret :math:`s` (record :math:`i` takes value :math:`v`),
:math:`W_\infty` is a metric on laws, so for a secret pair :math:`(s_i, s_j)`

.. math::

   W_\infty(F \mid \theta, s_i;\ F \mid \theta, s_j)
   \le \Delta + 2 \max_s W_\infty(F \mid \theta, s;\ F \mid \bar\theta, s),

where :math:`\Delta` is the sensitivity under independence. Everything here is computed exactly on
the integer lattice with the project's :math:`W_\infty`
(:func:`pufferfish.lattice.distances.wasserstein_inf`), for a joint pmf of :math:`n` integer-valued
records and the query :math:`F = \sum_k c_k x_k` with integer weights (the sum by default).
:func:`weak_dependence_bound` returns the bound, its two terms and, for comparison, the exact
sensitivity under :math:`\theta`.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pufferfish.checks import integer
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError, InvalidDistributionError
from pufferfish.lattice.distances import wasserstein_inf
from pufferfish.lattice.pmf import LatticePMF

__all__ = ["JointLatticePrior", "RecordSecret", "WeakDependenceBound", "product_of_marginals", "query_given",
           "weak_dependence_bound"]

#: tolerance of the total mass of a joint pmf
MASS_TOL = 1e-12


@dataclass(frozen=True, eq=False)
class JointLatticePrior:
    """theta: a joint pmf of n records, record k taking the integer values ``values[k]``.

    ``probs`` has one axis per record (shape ``(len(values[0]), ..., len(values[n-1]))``),
    entries >= 0 summing to 1 (within :data:`MASS_TOL`). They are kept as exact fractions
    (a float is read as the dyadic rational it is, then the total is divided out), so that
    conditionals and products of marginals are exact: two laws that are translates stay
    translates, and the lattice W_inf sees no rounding.
    """

    values: tuple[tuple[int, ...], ...]
    probs: np.ndarray

    def __post_init__(self):
        if isinstance(self.values, (str, bytes)) or not isinstance(self.values, Sequence):
            raise ArgumentTypeError(f"values = {self.values!r:.60}: must be one sequence of integers per record")
        if not self.values:
            raise InvalidArgumentError("values = []: at least one record is needed")
        for k, row in enumerate(self.values):
            if isinstance(row, (str, bytes)) or not isinstance(row, Sequence | np.ndarray):
                raise ArgumentTypeError(f"values[{k}] = {row!r:.60}: must be a sequence of the record's integer values")
        vals = tuple(tuple(integer(v, name=f"values[{k}][{m}]") for m, v in enumerate(row))
                     for k, row in enumerate(self.values))
        try:
            raw = np.array(self.probs, dtype=object)
            floats = raw.astype(float)
        except (TypeError, ValueError):
            raise ArgumentTypeError(f"probs = {self.probs!r:.60}: must be an array of probabilities") from None
        if isinstance(self.probs, (str, bytes)) or any(isinstance(v, (bool, np.bool_, str, bytes)) for v in raw.flat):
            raise ArgumentTypeError(f"probs = {self.probs!r:.60}: must be an array of probabilities (numbers)")
        shape = tuple(len(v) for v in vals)
        if not vals or raw.shape != shape:
            raise InvalidArgumentError(f"probs: shape {raw.shape}: must be {shape} (one axis per record, "
                                       "one entry per value)")
        for k, row in enumerate(vals):
            if len(set(row)) != len(row):
                raise InvalidArgumentError(f"values[{k}] = {list(row)!r}: a value is repeated")
        if not np.all(np.isfinite(floats)) or np.any(floats < 0):
            raise InvalidDistributionError("probs: every probability must be finite and >= 0")
        exact = np.empty(shape, dtype=object)
        for index, value in np.ndenumerate(raw):
            exact[index] = value if isinstance(value, Fraction) else Fraction(float(value))
        total = sum(exact.flat, Fraction(0))
        if abs(float(total) - 1.0) > MASS_TOL:
            raise InvalidDistributionError(f"probs: total mass {float(total)!r}: must be 1")
        probs = exact / total   # exact fractions (floats read as the dyadic rationals they are)
        object.__setattr__(self, "values", vals)
        object.__setattr__(self, "probs", probs)

    @property
    def records(self) -> int:
        return len(self.values)

    def marginal(self, record: int) -> np.ndarray:
        """The marginal pmf of ``record`` (on ``values[record]``), exact fractions."""
        k = integer(record, name="record", lo=0, hi=self.records - 1)
        axes = tuple(m for m in range(self.records) if m != k)
        return self.probs.sum(axis=axes)


@dataclass(frozen=True)
class RecordSecret:
    """The secret "record ``record`` takes value ``value``"."""

    record: int
    value: int

    def __post_init__(self):
        object.__setattr__(self, "record", integer(self.record, name="record", lo=0))
        object.__setattr__(self, "value", integer(self.value, name="value"))


def product_of_marginals(prior: JointLatticePrior) -> JointLatticePrior:
    r""":math:`\bar\theta`: the records made independent, each with its marginal under :math:`\theta`.

    Parameters
    ----------
    prior : JointLatticePrior
        :math:`\theta`.

    Returns
    -------
    JointLatticePrior
        The product of the marginals (exact fractions).

    Raises
    ------
    ArgumentTypeError
        ``prior`` is not a JointLatticePrior.
    """
    if not isinstance(prior, JointLatticePrior):
        raise ArgumentTypeError(f"prior = {prior!r:.60}: must be a JointLatticePrior")
    probs = np.array(Fraction(1), dtype=object)
    for k in range(prior.records):
        probs = np.multiply.outer(probs, prior.marginal(k))
    return JointLatticePrior(prior.values, probs)


def _weights(weights, n: int) -> tuple[int, ...]:
    if weights is None:
        return (1,) * n
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence | np.ndarray) or len(weights) != n:
        raise InvalidArgumentError(f"weights = {weights!r:.60}: must be {n} integers (one per record)")
    return tuple(integer(w, name=f"weights[{k}]") for k, w in enumerate(weights))


def _check_secret(prior: JointLatticePrior, secret, name: str = "secret") -> tuple[int, int]:
    if not isinstance(secret, RecordSecret):
        raise ArgumentTypeError(f"{name} = {secret!r:.60}: must be a RecordSecret(record, value)")
    k = integer(secret.record, name=f"{name}.record", lo=0, hi=prior.records - 1)
    v = integer(secret.value, name=f"{name}.value")
    if v not in prior.values[k]:
        raise InvalidArgumentError(f"{name}.value = {v}: record {k} takes the values {list(prior.values[k])}")
    return k, prior.values[k].index(v)


def query_given(prior: JointLatticePrior, secret: RecordSecret, *, weights=None) -> LatticePMF:
    r"""The law of :math:`F = \sum_k c_k x_k` given the secret (record :math:`i` takes value :math:`v`), under ``prior``.

    Parameters
    ----------
    prior : JointLatticePrior
        The joint prior of the records.
    secret : RecordSecret
        The record and its value.
    weights : sequence of int, optional
        :math:`c`, integers, one per record (default: all 1).

    Returns
    -------
    pufferfish.lattice.pmf.LatticePMF
        The conditional law of :math:`F`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A secret of probability 0 (the conditional is undefined), a record or value the prior does
        not have, weights of another length or not integers.
    """
    if not isinstance(prior, JointLatticePrior):
        raise ArgumentTypeError(f"prior = {prior!r:.60}: must be a JointLatticePrior")
    k, index = _check_secret(prior, secret)
    c = _weights(weights, prior.records)
    slab = np.take(prior.probs, index, axis=k)
    mass = sum(np.asarray(slab).flat, Fraction(0))
    if mass <= 0:
        raise InvalidArgumentError(f"secret record {k} = {secret.value}: has probability 0 under the prior")
    others = [m for m in range(prior.records) if m != k]
    totals: dict[int, Fraction] = {}
    for combo in itertools.product(*(range(len(prior.values[m])) for m in others)):
        p = slab[combo] if others else slab
        if p == 0:
            continue
        value = c[k] * secret.value + sum(c[m] * prior.values[m][i] for m, i in zip(others, combo))
        totals[value] = totals.get(value, Fraction(0)) + p / mass
    support = sorted(totals)
    return LatticePMF.from_values(support, [totals[v] for v in support], name=f"F | x{k} = {secret.value}")


@dataclass(frozen=True)
class WeakDependenceBound:
    """Prop. 6.1 on one joint prior: ``bound`` = ``independent`` + 2 ``dependence``.

    ``independent``: Delta, the largest W_inf between the query's laws given two secrets of
    a pair under theta_bar; ``dependence``: max over the secrets of W_inf(F|theta,s ;
    F|theta_bar,s); ``exact``: the largest W_inf between the laws given the two secrets of
    a pair under theta itself (the sensitivity the bound bounds, ``exact <= bound``).
    """

    independent: int
    dependence: int
    bound: int
    exact: int


def weak_dependence_bound(prior: JointLatticePrior, pairs: Sequence[tuple[RecordSecret, RecordSecret]], *,
                          weights=None) -> WeakDependenceBound:
    r"""Paper 002, Prop. 6.1: the sensitivity under :math:`\theta` from :math:`\bar\theta`'s and the dependence term.

    .. math::

       W_\infty(F \mid \theta, s_i;\ F \mid \theta, s_j) \le \Delta + 2 \max_s W_\infty(F \mid \theta, s;\ F \mid \bar\theta, s)

    (module docstring; docs/math/closed-forms.md, "Weak dependence").

    Parameters
    ----------
    prior : JointLatticePrior
        :math:`\theta`.
    pairs : sequence of (RecordSecret, RecordSecret)
        The secret pairs (at least one).
    weights : sequence of int, optional
        :math:`c` of the query (default: all 1).

    Returns
    -------
    WeakDependenceBound
        :math:`\Delta`, the dependence term, the bound and the exact sensitivity under :math:`\theta`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        No pair, a pair that is not two RecordSecrets, a secret of probability 0, bad weights.
    """
    if not isinstance(prior, JointLatticePrior):
        raise ArgumentTypeError(f"prior = {prior!r:.60}: must be a JointLatticePrior")
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Sequence):
        raise ArgumentTypeError(f"pairs = {pairs!r:.60}: must be a sequence of (RecordSecret, RecordSecret) tuples")
    pairs = list(pairs)
    if not pairs:
        raise InvalidArgumentError("pairs = []: at least one secret pair is needed")
    bar = product_of_marginals(prior)
    laws: dict = {}

    def law(which, joint, secret):
        key = (which, secret.record, secret.value)
        if key not in laws:
            laws[key] = query_given(joint, secret, weights=weights)
        return laws[key]

    independent = exact = dependence = 0
    for n, pair in enumerate(pairs):
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise ArgumentTypeError(f"pairs[{n}] = {pair!r:.60}: must be a (RecordSecret, RecordSecret) tuple")
        for m, secret in enumerate(pair):
            _check_secret(prior, secret, name=f"pairs[{n}][{m}]")
        first, second = pair
        independent = max(independent, wasserstein_inf(law("bar", bar, first), law("bar", bar, second)))
        exact = max(exact, wasserstein_inf(law("theta", prior, first), law("theta", prior, second)))
        for secret in pair:
            dependence = max(dependence, wasserstein_inf(law("theta", prior, secret), law("bar", bar, secret)))
    return WeakDependenceBound(int(independent), int(dependence), int(independent + 2 * dependence), int(exact))

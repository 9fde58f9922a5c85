"""The tupling mechanism (paper 003, as its abstract and introduction describe it), audited exactly.

The user's value x goes through a base mechanism A (a finite channel: randomized response or the
clamped geometric mechanism); k dummies are drawn i.i.d. from a dummy law nu on A's outputs; the
k + 1 values are released in a uniformly random order. With n = k + 1 and mu_b = lambda_b A:

    P_b(t) = sum_i (1/n) mu_b(t_i) prod_{j != i} nu(t_j) = prod_j nu(t_j) (1/n) sum_i mu_b(t_i) / nu(t_i)

(the real value sits at position i with probability 1/n). Hence, with Z_i i.i.d. nu and
w = (mu0 - e^eps mu1) / nu, sum_t [P0(t) - e^eps P1(t)]^+ = E[(sum_i w(Z_i))^+] / n, and
the DistP delta is the larger of the two directions (:mod:`pufferfish.distp.sums` computes
the expectation exactly or as a certified interval). nu must put mass on every output A can
report, else a tuple holding such an output would show the real value: refused. Pure eps
equals the base's for every k (the ratio of two sums is at most the largest ratio of terms,
attained by the tuple (t, ..., t)); k = 0 is the base; delta does not increase with k (one
more dummy inserted at a random place is post-processing).

Proofs: ``docs/math/paper003-distribution.md`` (section "Tupling").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from pufferfish.checks import choice, integer, real
from pufferfish.distp.divergences import check_channel, check_law, pure_epsilon
from pufferfish.distp.grid import directed_float
from pufferfish.distp.sums import (MAX_COUNT_VECTORS, certified_positive_part, count_vectors,
                                   exact_positive_part_bounds)
from pufferfish.errors import InvalidArgumentError

__all__ = ["MAX_EPSILON", "DUMMY_DISTRIBUTIONS", "TuplingDelta", "Tupling", "tupling_over"]

#: the largest epsilon of :meth:`Tupling.delta` (e^eps overflows beyond ~709)
MAX_EPSILON = 700.0
#: the dummy laws :func:`tupling_over` builds
DUMMY_DISTRIBUTIONS = ("uniform", "marginal")
#: the certified route first brings both directions to this relative width (cheap), then refines the one(s) that matter
_LOOSE = 1e-3
#: :meth:`Tupling.tuple_law` lists at most this many tuples
_MAX_TUPLES = 1_000_000


@dataclass(frozen=True)
class TuplingDelta:
    """delta <= the DistP delta at ``epsilon`` <= delta_upper: a certified interval.

    ``method``: ``"exact"`` (count vectors, every rounding bounded: an interval of relative width
    about 1e-12), ``"grid"`` (certified interval, grid ``step``),
    ``"chernoff"`` (below the absolute tolerance: [0, bound]), ``"zero"`` (no output has
    P0 > e^eps P1: delta = 0 exactly). ``within_tolerance``: delta_upper <= delta (1 + rtol) + atol.
    """

    epsilon: float
    delta: float
    delta_upper: float
    method: str
    step: float
    within_tolerance: bool


@dataclass(frozen=True, eq=False)
class Tupling:
    """The tupling mechanism: a base channel, ``dummies`` = k >= 0, and the dummy law nu on its outputs.

    Parameters
    ----------
    channel : array_like
        The base mechanism A as a row-stochastic matrix (inputs x outputs).
    dummies : int
        k >= 0 (0: the base mechanism itself).
    dummy_law : array_like
        nu, a pmf on the outputs, positive on every output some row of A reaches.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        A channel that is not row-stochastic, a bad k, a bad nu, or a nu that leaves out an
        output of A (the real value would show).
    """

    channel: np.ndarray
    dummies: int
    dummy_law: np.ndarray

    def __post_init__(self):
        matrix = check_channel(self.channel)
        dummies = integer(self.dummies, name="dummies", lo=0)
        nu = check_law(self.dummy_law, name="dummy_law")
        if nu.size != matrix.shape[1]:
            raise InvalidArgumentError(f"dummy_law: {nu.size} masses for {matrix.shape[1]} outputs of the channel")
        exposed = np.flatnonzero((matrix.max(axis=0) > 0) & (nu == 0))
        if exposed.size:
            raise InvalidArgumentError(f"dummy_law: no mass on output {int(exposed[0])}, which the base mechanism "
                                       "reports: a tuple holding it would show the real value")
        object.__setattr__(self, "channel", matrix)
        object.__setattr__(self, "dummies", dummies)
        object.__setattr__(self, "dummy_law", nu)

    def output_laws(self, lambda0, lambda1) -> tuple[np.ndarray, np.ndarray]:
        """mu_b = lambda_b A, the base's output laws of the two input laws (validated, named)."""
        size = self.channel.shape[0]
        return (check_law(lambda0, name="lambda0", size=size) @ self.channel,
                check_law(lambda1, name="lambda1", size=size) @ self.channel)

    def pure_epsilon(self, lambda0, lambda1) -> float:
        """max_t |log P0(t) / P1(t)| over tuples = the base's max_y |log mu0(y) / mu1(y)| (inf as there).

        Parameters
        ----------
        lambda0, lambda1 : array_like
            The two input laws (pmfs on the channel's inputs).

        Returns
        -------
        float
            The pure eps of (eps, 0)-DistP for the pair, the same for every k.

        Raises
        ------
        InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
            Input laws that do not fit the channel.
        """
        return pure_epsilon(*self.output_laws(lambda0, lambda1))

    def delta(self, lambda0, lambda1, *, epsilon, rtol: float = 1e-6, atol: float = 1e-15,
              max_points: int = 1_000_000) -> TuplingDelta:
        """The DistP delta(eps) of the pair: exactly while C(M + k, k) is small, else a certified interval.

        Parameters
        ----------
        lambda0, lambda1 : array_like
            The two input laws (pmfs on the channel's inputs).
        epsilon : float
            eps in [0, :data:`MAX_EPSILON`] (keyword).
        rtol, atol : float
            The target of the certified route: delta_upper <= delta (1 + rtol) + atol.
        max_points : int
            The widest grid window of the certified route.

        Returns
        -------
        TuplingDelta
            By count vectors over the M outputs nu reaches (at most ``MAX_COUNT_VECTORS``; every
            rounding bounded, :func:`~pufferfish.distp.sums.exact_positive_part_bounds`), or by the
            certified grid; ``delta_upper`` is an upper bound on the delta of the channel given. 0 exactly when mu0 <= e^eps mu1 and mu1 <= e^eps mu0 everywhere
            (eps at least the pure eps; checked with e^eps bracketed, in exact fractions).

        Raises
        ------
        InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
            Bad laws or parameters.
        """
        eps = real(epsilon, name="epsilon", lo=0.0, hi=MAX_EPSILON)
        rel, floor = real(rtol, name="rtol", lo=0.0, lo_open=True), real(atol, name="atol", lo=0.0)
        mu0, mu1 = self.output_laws(lambda0, lambda1)
        seen = self.dummy_law > 0
        mu0, mu1, nu, n = mu0[seen], mu1[seen], self.dummy_law[seen], self.dummies + 1
        bounds = [_w_bounds(a, b, nu, eps) for a, b in ((mu0, mu1), (mu1, mu0))]
        if all(float(np.max(hi)) <= 0.0 for _, hi in bounds):      # mu0 <= e^eps mu1 and back, certified
            return TuplingDelta(eps, 0.0, 0.0, "zero", math.nan, True)
        if count_vectors(nu.size, n) <= MAX_COUNT_VECTORS:
            ends = [exact_positive_part_bounds(lo, hi, nu, n) for lo, hi in bounds]
            lower = math.nextafter(max(low for low, _ in ends) / n, -math.inf) if n > 1 else max(low for low, _ in ends)
            upper = math.nextafter(max(high for _, high in ends) / n, math.inf) if n > 1 else max(h for _, h in ends)
            lower = max(lower, 0.0)
            return TuplingDelta(eps, lower, upper, "exact", math.nan, upper <= lower * (1 + rel) + floor)
        return _certified(bounds, nu, n, eps, rel, floor, max_points)

    def tuple_law(self, mu) -> np.ndarray:
        """P(t) = prod_j nu(t_j) (1/n) sum_i mu(t_i) / nu(t_i) for every ordered tuple t (n = k + 1 axes).

        Parameters
        ----------
        mu : array_like
            The base's output law (a pmf on the outputs).

        Returns
        -------
        numpy.ndarray
            The law of the released tuple, one axis per position (outputs in the channel's order).

        Raises
        ------
        InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
            A bad mu, or more than 10^6 tuples.
        """
        law = check_law(mu, name="mu")
        n, size = self.dummies + 1, self.dummy_law.size
        if law.size != size or size ** n > _MAX_TUPLES:
            raise InvalidArgumentError(f"mu: {law.size} masses for {size} outputs, {size}^{n} tuples (at most "
                                       f"{_MAX_TUPLES})")
        nu = self.dummy_law
        product, total = np.ones(()), np.zeros(())
        for _ in range(n):                        # one more position t: the real value there, or before it
            total = total[..., None] * nu + product[..., None] * law
            product = product[..., None] * nu
        return total / n


def _exp_interval(eps: float) -> tuple[Fraction, Fraction]:
    """[lo, hi] containing e^eps: the ends of an arb ball at 192 bits (exact 1 at eps = 0)."""
    from flint import arb, ctx

    saved = ctx.prec
    ctx.prec = 192
    try:
        ball = arb(eps).exp()
        ends = [end.man_exp() for end in (ball.lower(), ball.upper())]
    finally:
        ctx.prec = saved
    return tuple(Fraction(int(m)) * Fraction(2) ** int(e) for m, e in ends)


def _w_bounds(a: np.ndarray, b: np.ndarray, nu: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """w = (a - e^eps b) / nu, rounded down (w_lo) and up (w_hi) from exact fractions."""
    lo_e, hi_e = _exp_interval(eps)
    lo = [directed_float((Fraction(x) - hi_e * Fraction(y)) / Fraction(z), up=False) for x, y, z in zip(a, b, nu)]
    hi = [directed_float((Fraction(x) - lo_e * Fraction(y)) / Fraction(z), up=True) for x, y, z in zip(a, b, nu)]
    return np.array(lo), np.array(hi)


def _certified(bounds, nu, n, eps, rtol, atol, max_points) -> TuplingDelta:
    """Both directions (``bounds``: their [w_lo, w_hi]), first to a loose tolerance; only a direction whose
    upper end reaches the other's lower end can be the maximum, and only those are then refined to ``rtol``."""

    def run(direction: int, tolerance: float, start=None):
        lo, hi = bounds[direction]
        return certified_positive_part(lo, hi, nu, n, rtol=tolerance, atol=atol * n, max_points=max_points,
                                       first_step=start)

    results = [run(0, max(rtol, _LOOSE)), run(1, max(rtol, _LOOSE))]
    if rtol < _LOOSE:
        floor = max(r.lower for r in results)
        results = [run(d, rtol, _next_step(r, rtol, atol * n))
                   if r.upper >= floor and r.upper > r.lower * (1 + rtol) + atol * n else r
                   for d, r in enumerate(results)]
    lower = float(max(r.lower for r in results)) / n
    upper = float(max(r.upper for r in results)) / n
    grid = [r for r in results if r.method == "grid"]
    step = min((r.step for r in grid), default=math.nan)
    method = "grid" if grid else ("chernoff" if any(r.method == "chernoff" for r in results) else "exact")
    if all(r.method == "zero" for r in results):
        method = "zero"
    return TuplingDelta(eps, lower, upper, method, step, upper <= lower * (1 + rtol) + atol)


def _next_step(loose, rtol: float, atol: float) -> float | None:
    """The step a loose grid result predicts for the target (width ~ step^2, aiming at half of it)."""
    if loose.method != "grid" or not loose.upper > loose.lower:
        return None
    wanted = (0.5 * (loose.lower * rtol + atol)) / (loose.upper - loose.lower)
    return loose.step / 2.0 ** max(0, round(-math.log2(wanted) / 2.0))


def tupling_over(base, *, dummies, dummy_distribution: str = "uniform", marginal=None) -> Tupling:
    """The tupling mechanism over a :class:`~pufferfish.mechanisms.RandomizedResponse` or
    :class:`~pufferfish.mechanisms.ClampedGeometric` base, with the dummy law named.

    Parameters
    ----------
    base : RandomizedResponse or ClampedGeometric
        The base mechanism A (its channel; RR's outputs are its inputs, the geometric
        mechanism's every integer from min X to max X).
    dummies : int
        k >= 0.
    dummy_distribution : str
        ``"uniform"`` (uniform on A's outputs) or ``"marginal"`` (``marginal``, a pmf on A's
        inputs, e.g. the released column's law over the whole dataset, put on the same values
        among the outputs).
    marginal : array_like, optional
        The input pmf of ``"marginal"`` (required there, refused otherwise).

    Returns
    -------
    Tupling

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        An unknown base or dummy law, a marginal that does not fit, or a dummy law that leaves
        out an output A reports (e.g. a marginal with a zero, or the geometric mechanism on a
        domain with gaps).
    """
    from pufferfish.mechanisms import ClampedGeometric, RandomizedResponse
    kind = choice(dummy_distribution, DUMMY_DISTRIBUTIONS, name="dummy_distribution")
    if isinstance(base, RandomizedResponse):
        channel, places = base.matrix(), np.arange(base.size)
    elif isinstance(base, ClampedGeometric):
        channel, places = base.matrix(), np.asarray(base.domain) - base.domain[0]
    else:
        raise InvalidArgumentError(f"base = {base!r}: must be a RandomizedResponse or a ClampedGeometric")
    if (kind == "marginal") != (marginal is not None):
        raise InvalidArgumentError("marginal: required with dummy_distribution = 'marginal', and only there")
    if kind == "uniform":
        return Tupling(channel, dummies, np.full(channel.shape[1], 1.0 / channel.shape[1]))
    law = check_law(marginal, name="marginal")
    if law.size != places.size:
        raise InvalidArgumentError(f"marginal: {law.size} masses for {places.size} inputs of the base mechanism")
    nu = np.zeros(channel.shape[1])
    nu[places] = law
    return Tupling(channel, dummies, nu)

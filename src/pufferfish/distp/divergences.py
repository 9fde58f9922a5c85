"""Divergences of two output laws P0, P1 on one finite set (paper 003, Def. 1, Def. 2, Table I).

* :func:`hockey_stick` -- sum_t [P0(t) - e^eps P1(t)]^+, the smallest delta with
  P0(S) <= e^eps P1(S) + delta for every set S (one direction);
* :func:`distp_delta` -- its maximum over both directions: (eps, delta)-DistP of a pair
  (Def. 11) holds exactly for delta >= this value;
* :func:`pure_epsilon` -- max_t |log P0(t) / P1(t)|, inf where one law is 0 and the other not;
* :func:`f_divergence` -- the f-divergences of Table I (KL, reverse KL, total variation,
  chi^2, Hellinger), with the usual conventions at zeros.

Every sum is a sum of non-negative terms (math.fsum): nothing is computed as 1 minus another
sum, and differences P0 - P1 are formed entry by entry (exact when the two are within a
factor 2). Derivations and conventions: ``docs/math/paper003-distribution.md``.
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.certified import arb_upper_float, upper
from pufferfish.checks import choice, real, reals
from pufferfish.errors import ComputationError, InvalidArgumentError, InvalidDistributionError
from pufferfish.lattice.pmf import PMF_ATOL
from pufferfish.mechanisms.channel import output_law

__all__ = ["F_DIVERGENCES", "check_law", "check_law_pair", "check_channel", "hockey_stick", "distp_delta", "pure_epsilon", "f_divergence"]

#: the f-divergences of the paper's Table I, by the name :func:`f_divergence` takes
F_DIVERGENCES = ("kl", "reverse_kl", "total_variation", "chi2", "hellinger")

#: from this epsilon on, e^eps P1(t) is formed in logarithms (e^eps overflows at 709.78)
_LOG_FORM_ABOVE = 700.0

#: u = 2^-53, the unit roundoff of float64
_U = 2.0 ** -53
#: the assumed relative error of math.exp (4 ulps; libm's is below 1)
_EXP_REL = 8.0 * _U
#: a float route is kept where its error bound is at most this fraction of the value
_ACCEPT = 2.0 ** -34
#: the precisions (bits) of the arb routes, tried in turn
_PRECISIONS = (128, 256, 512, 1024, 2048, 4096)
_SMALLEST = 5e-324
#: below this |d| = |P0/P1 - 1| the KL integrand is summed as its series (log1p loses digits there)
_SERIES_BELOW = 1e-2


def check_law_pair(p0, p1) -> tuple[np.ndarray, np.ndarray]:
    """Two pmfs on one finite set: vectors of equal length, masses >= 0 summing to 1 (``PMF_ATOL``).

    Parameters
    ----------
    p0, p1 : array_like
        The two laws, one mass per outcome, in the same order.

    Returns
    -------
    tuple of numpy.ndarray
        The two float vectors, as given (not renormalised).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        Not two such vectors of the same length (the message names ``p0`` or ``p1``).
    """
    first, second = check_law(p0, name="p0"), check_law(p1, name="p1")
    if first.size != second.size:
        raise InvalidArgumentError(f"p1: {second.size} masses, p0 has {first.size}: the two laws must be on one set")
    return first, second


def check_law(values, *, name: str, size: int | None = None) -> np.ndarray:
    """One pmf on a finite set: a non-empty vector of finite masses >= 0 summing to 1 within ``PMF_ATOL``.

    Parameters
    ----------
    values : array_like
        The masses.
    name : str
        The name the error messages use.
    size : int, optional
        The number of masses required (e.g. the inputs of a channel).

    Returns
    -------
    numpy.ndarray
        The masses as a float vector (as given).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        Not such a vector (the message names ``name``).
    """
    masses = reals(values, name=name, lo=0.0)
    if masses.ndim != 1:
        raise InvalidArgumentError(f"{name}: must be a vector of masses, got shape {masses.shape}")
    if size is not None and masses.size != size:
        raise InvalidArgumentError(f"{name}: {masses.size} masses, must be {size} (one per input)")
    total = math.fsum(masses.tolist())
    if not abs(total - 1.0) <= PMF_ATOL:
        raise InvalidDistributionError(f"{name}: sums to {total!r}, must sum to 1 (within PMF_ATOL = {PMF_ATOL:g})")
    return masses


def check_channel(channel) -> np.ndarray:
    """A finite channel: a matrix (inputs x outputs) of entries in [0, 1] whose rows sum to 1 (``PMF_ATOL``).

    Parameters
    ----------
    channel : array_like
        The matrix, row x the law of the output given the input x.

    Returns
    -------
    numpy.ndarray
        The matrix as floats.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        Not such a matrix (the message names ``channel``).
    """
    matrix = reals(channel, name="channel", lo=0.0, hi=1.0)
    if matrix.ndim != 2 or 0 in matrix.shape:
        raise InvalidArgumentError(f"channel: shape {matrix.shape}, must be a matrix (inputs x outputs)")
    output_law(matrix, np.full(matrix.shape[0], 1.0 / matrix.shape[0]))      # the rows sum to 1
    return matrix


def hockey_stick(p0, p1, *, epsilon) -> float:
    """sum_t [P0(t) - e^eps P1(t)]^+: the smallest delta with P0(S) <= e^eps P1(S) + delta for all S.

    Parameters
    ----------
    p0, p1 : array_like
        Two pmfs on one finite set (:func:`check_law_pair`).
    epsilon : float
        eps >= 0 (keyword).

    Returns
    -------
    float
        The sum of the positive terms (fsum); each term is exact to a few ulps of
        P0(t) + e^eps P1(t).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        Bad laws or an epsilon that is not a finite real >= 0.
    """
    p, q = check_law_pair(p0, p1)
    return _hockey_stick(p, q, real(epsilon, name="epsilon", lo=0.0))


def _hockey_stick(p: np.ndarray, q: np.ndarray, epsilon: float) -> float:
    """The certified sum of [p - e^eps q]^+: the float route with its error bound added, else arb balls."""
    if epsilon < _LOG_FORM_ABOVE:
        scaled = math.exp(epsilon) * q
        terms = p - scaled
        # |term_fl - term| <= (exp's error + u) e^eps q + u |term|; a term within that of 0 may be positive
        errors = (_EXP_REL + _U) * scaled + _U * np.abs(terms) + 2.0 ** -1070
        near = terms > -errors
        if not near.any():
            return 0.0                                  # every term surely <= 0
        value = math.fsum(np.maximum(terms, 0.0).tolist())
        error = math.fsum(errors[near].tolist()) * (1.0 + 2.0 ** -40) + _U * value
        if error <= _ACCEPT * (value - error):
            return upper(value, error)
    return _ball_hockey_stick(p, q, epsilon)


def _ball_hockey_stick(p: np.ndarray, q: np.ndarray, epsilon: float) -> float:
    """sum [p - e^eps q]^+ in arb balls: each term's positive part bounded from above and below, the precision doubled
    until the two sums agree to ``_ACCEPT`` relative; 0 when every term is surely <= 0."""
    from flint import arb, ctx

    rows = [(float(a), float(b)) for a, b in zip(p.tolist(), q.tolist()) if a > 0]
    saved = ctx.prec
    try:
        for precision in _PRECISIONS:
            ctx.prec = precision
            big, high, low, open_terms = arb(epsilon).exp(), arb(0), arb(0), 0
            for a, b in rows:
                term = arb(a) - big * arb(b)
                if term > 0:
                    high, low = high + term.upper(), low + term.lower()
                elif not term < 0:
                    high, open_terms = high + term.upper(), open_terms + 1
            if open_terms == 0 and high == 0:
                return 0.0
            if low.lower() > 0 and high.upper() - low.lower() <= _ACCEPT * low.lower():
                return arb_upper_float(high)
            if high.upper() < arb(2) ** -1075:
                return _SMALLEST
    finally:
        ctx.prec = saved
    raise ComputationError(f"hockey stick at epsilon = {epsilon!r}: not certified at {_PRECISIONS[-1]} bits")


def distp_delta(p0, p1, *, epsilon) -> float:
    """The delta of (eps, delta)-DistP of a pair (Def. 11): the larger hockey stick of the two directions.

    Parameters
    ----------
    p0, p1 : array_like
        The output laws lambda0 A and lambda1 A (:func:`check_law_pair`).
    epsilon : float
        eps >= 0 (keyword).

    Returns
    -------
    float
        max(:func:`hockey_stick` (p0, p1), :func:`hockey_stick` (p1, p0)).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        As :func:`hockey_stick`.
    """
    p, q = check_law_pair(p0, p1)
    eps = real(epsilon, name="epsilon", lo=0.0)
    return max(_hockey_stick(p, q, eps), _hockey_stick(q, p, eps))


def pure_epsilon(p0, p1) -> float:
    """max_t |log P0(t) - log P1(t)| over the outcomes either law reaches (Def. 1, delta = 0).

    Parameters
    ----------
    p0, p1 : array_like
        Two pmfs on one finite set (:func:`check_law_pair`).

    Returns
    -------
    float
        The smallest eps of (eps, 0)-DistP for the pair; inf where one law puts mass on an
        outcome and the other none; 0 for two equal laws.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        As :func:`check_law_pair`.
    """
    p, q = check_law_pair(p0, p1)
    return _pure_epsilon(p, q)


def _pure_epsilon(p: np.ndarray, q: np.ndarray) -> float:
    """max |log p - log q|, certified: log1p((p - q) / q) where p, q are within a factor 2 (p - q exact, 8 u of the
    value), log p - log q elsewhere (|value| >= log 2; each log within 4 ulps of its value); the largest value plus
    its error bound, one float up."""
    reached = (p > 0) | (q > 0)
    if np.any(reached & ((p == 0) | (q == 0))):
        return math.inf
    a, b = p[reached], q[reached]
    if not a.size:
        return 0.0
    close = (a <= 2.0 * b) & (b <= 2.0 * a)
    with np.errstate(divide="ignore", invalid="ignore"):
        near = np.abs(np.log1p((a - b) / b))
        log_a, log_b = np.log(a), np.log(b)
    far = np.abs(log_a - log_b)
    value = np.where(close, near, far)
    error = np.where(close, 8.0 * _U * value, 8.0 * _U * (np.abs(log_a) + np.abs(log_b)) + _U * far)
    error = np.where(value > 0, error * (1.0 + 2.0 ** -40) + 2.0 ** -1070, 0.0)
    top = value + error
    return float(np.nextafter(np.max(top), math.inf)) if np.max(top) > 0 else 0.0


def f_divergence(p0, p1, name: str) -> float:
    """D_f(P0 || P1) = sum_t P1(t) f(P0(t) / P1(t)) for the f of Table I named ``name``.

    ``kl`` f(t) = t log t; ``reverse_kl`` f(t) = -log t; ``total_variation`` |t - 1| / 2;
    ``chi2`` (t - 1)^2; ``hellinger`` (sqrt t - 1)^2 (= 2 H^2 with H the Hellinger distance).
    At zeros: 0 f(0/0) = 0 and 0 f(a/0) = a lim_{t->inf} f(t)/t, so KL and chi^2 are inf
    where P0 has mass that P1 has not, reverse KL where P1 has mass that P0 has not.

    Parameters
    ----------
    p0, p1 : array_like
        Two pmfs on one finite set (:func:`check_law_pair`).
    name : str
        One of :data:`F_DIVERGENCES`.

    Returns
    -------
    float
        D_f >= 0 (inf as above), each term computed without cancellation (the KL integrand
        from (P0 - P1) / P1 by log1p or its series).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        Bad laws or an unknown name.
    """
    p, q = check_law_pair(p0, p1)
    kind = choice(name, F_DIVERGENCES, name="name")
    if kind == "reverse_kl":
        p, q, kind = q, p, "kl"
    if kind in ("kl", "chi2") and np.any((q == 0) & (p > 0)):
        return math.inf
    return _ball_divergence(p, q, kind)


def _ball_term(kind: str, a, b):
    """The term of D_f at masses a = P0(t), b = P1(t) (arb balls; b > 0 where kind is kl or chi2 and a > 0)."""
    if kind == "total_variation":
        return abs(a - b) / 2
    if kind == "hellinger":
        return (a - b) ** 2 / (a.sqrt() + b.sqrt()) ** 2
    if kind == "chi2":
        return (a - b) ** 2 / b
    return a * (a / b).log()                            # kl, a > 0


def _ball_divergence(p: np.ndarray, q: np.ndarray, kind: str) -> float:
    """sum_t of the terms of D_f in arb balls, the precision doubled until the ball is ``_ACCEPT`` narrow;
    its upper end rounded up (0 for two equal laws)."""
    from flint import arb, ctx

    rows = [(float(a), float(b)) for a, b in zip(p.tolist(), q.tolist())
            if a != b and not (kind == "kl" and a == 0)]          # equal masses: a term of exactly 0
    saved = ctx.prec
    try:
        for precision in _PRECISIONS:
            ctx.prec = precision
            total = arb(0)
            for a, b in rows:
                total += _ball_term(kind, arb(a), arb(b))
            if not rows:
                return 0.0
            width = total.upper() - total.lower()
            if width <= _ACCEPT * abs(total).lower() or (kind != "kl" and total.upper() < arb(2) ** -1075):
                return arb_upper_float(total)
    finally:
        ctx.prec = saved
    raise ComputationError(f"{kind} divergence: not certified at {_PRECISIONS[-1]} bits")

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

from pufferfish.checks import choice, real, reals
from pufferfish.errors import InvalidArgumentError, InvalidDistributionError
from pufferfish.lattice.pmf import PMF_ATOL
from pufferfish.mechanisms.channel import output_law

__all__ = ["F_DIVERGENCES", "check_law", "check_law_pair", "check_channel", "hockey_stick", "distp_delta", "pure_epsilon", "f_divergence"]

#: the f-divergences of the paper's Table I, by the name :func:`f_divergence` takes
F_DIVERGENCES = ("kl", "reverse_kl", "total_variation", "chi2", "hellinger")

#: from this epsilon on, e^eps P1(t) is formed in logarithms (e^eps overflows at 709.78)
_LOG_FORM_ABOVE = 700.0

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
    if epsilon < _LOG_FORM_ABOVE:
        return math.fsum(np.maximum(p - math.exp(epsilon) * q, 0.0).tolist())
    seen = p > 0                                 # e^eps overflows: P0 (1 - e^(eps + log P1 - log P0))^+
    with np.errstate(divide="ignore"):
        exponent = np.minimum(epsilon + np.log(q[seen]) - np.log(p[seen]), 0.0)
    return math.fsum((p[seen] * -np.expm1(exponent)).tolist())


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
    reached = (p > 0) | (q > 0)
    if np.any(reached & ((p == 0) | (q == 0))):
        return math.inf
    both = p[reached], q[reached]
    return float(np.max(np.abs(np.log(both[0]) - np.log(both[1])))) if both[0].size else 0.0


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
        return _kl(q, p)
    if kind == "kl":
        return _kl(p, q)
    if kind == "total_variation":
        return math.fsum(np.abs(p - q).tolist()) / 2.0
    if kind == "hellinger":
        gaps = (p - q) / np.where(p + q > 0, np.sqrt(p) + np.sqrt(q), 1.0)
        return math.fsum((gaps * gaps).tolist())
    if np.any((q == 0) & (p > 0)):
        return math.inf
    seen = q > 0
    return math.fsum(((p[seen] - q[seen]) ** 2 / q[seen]).tolist())


def _kl(p: np.ndarray, q: np.ndarray) -> float:
    """sum p log(p/q) = sum q phi(p/q) + (sum p - sum q), phi(t) = t log t - t + 1 >= 0 term by term."""
    if np.any((q == 0) & (p > 0)):
        return math.inf
    seen = q > 0
    a, b = p[seen], q[seen]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        d = (a - b) / b
        far = d > 1.0                            # p/q > 2: p (log p - log q - 1) + q, no overflow of p/q
        terms = np.where(far, a * (np.log(a) - np.log(b) - 1.0) + b, b * _phi(np.where(far, 0.0, d)))
    return math.fsum(terms.tolist()) + math.fsum(p.tolist() + (-q).tolist())


def _phi(d: np.ndarray) -> np.ndarray:
    """phi(1 + d) = (1 + d) log1p(d) - d = sum_{k>=2} (-d)^k / (k (k - 1)), by the series for small |d| (d <= 1)."""
    out = np.empty_like(d)
    small = np.abs(d) < _SERIES_BELOW
    x = d[small]
    series = np.zeros_like(x)
    for k in range(12, 1, -1):                   # |d| < 1e-2: the terms beyond k = 12 are below 1e-26 of d^2
        series = series * (-x) + (1.0 / (k * (k - 1)))
    out[small] = series * x * x
    big = d[~small]
    gone = big == -1.0                           # P0(t) = 0: phi(0) = 1 (0 log 0 = 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out[~small] = np.where(gone, 1.0, (1.0 + big) * np.log1p(big) - big)
    return out

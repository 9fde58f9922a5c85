"""Finite channels: the output law of an input pmf and the epsilon of every pair of inputs.

A local mechanism on a finite domain is a channel C (row x: the law of the output given the
input x). Shared by :mod:`pufferfish.mechanisms.randomized_response` and
:mod:`pufferfish.mechanisms.geometric`:

* :func:`output_law` -- lambda C, the output law of an input pmf lambda;
* :func:`channel_epsilons` -- E[x, x'] = max over outputs y of |log C[x, y] - log C[x', y]|
  (inf where one row puts mass on y and the other not), from the logarithms of the entries
  so that entries below the smallest float still count. max E is the epsilon of the channel
  as a local DP mechanism; E[x, x'] <= eps d(x, x') for every pair is eps d-XDP.

Public functions validate their arguments; the ``_`` cores take validated arrays.
"""

from __future__ import annotations

import numpy as np

from pufferfish.checks import integer, reals
from pufferfish.errors import InvalidArgumentError, InvalidDistributionError
from pufferfish.lattice.pmf import PMF_ATOL

__all__ = ["output_law", "channel_epsilons", "check_input_pmf"]


def check_input_pmf(pmf, size: int) -> np.ndarray:
    """``pmf`` as a float vector of ``size`` masses >= 0 summing to 1 within ``PMF_ATOL``.

    Parameters
    ----------
    pmf : array_like
        The masses, one per input of the channel, in its order.
    size : int
        The number of inputs (>= 1).

    Returns
    -------
    numpy.ndarray
        The masses as given (not renormalised).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        Not a vector of ``size`` finite reals >= 0 (naming ``pmf``), masses that do not sum to 1,
        or a size that is not an integer >= 1.
    """
    size = integer(size, name="size", lo=1)
    values = reals(pmf, name="pmf", lo=0.0)
    if values.ndim != 1 or values.size != size:
        raise InvalidArgumentError(f"pmf: {values.size} masses in shape {values.shape}, must be a vector of {size}")
    total = float(values.sum())
    if not abs(total - 1.0) <= PMF_ATOL:
        raise InvalidDistributionError(f"pmf: sums to {total!r}, must sum to 1 (within PMF_ATOL = {PMF_ATOL:g})")
    return values


def output_law(channel, pmf) -> np.ndarray:
    """The output law lambda C of the input pmf lambda through the channel C: sum_x lambda(x) C[x, .].

    Parameters
    ----------
    channel : array_like
        A row-stochastic matrix (inputs x outputs): entries in [0, 1], rows summing to 1 within
        ``PMF_ATOL``.
    pmf : array_like
        lambda, one mass per input (row).

    Returns
    -------
    numpy.ndarray
        One mass per output (column).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        A channel that is not such a matrix, or a pmf that does not fit it.
    """
    matrix = reals(channel, name="channel", lo=0.0, hi=1.0)
    if matrix.ndim != 2:
        raise InvalidArgumentError(f"channel: shape {matrix.shape}, must be a matrix (inputs x outputs)")
    rows = matrix.sum(axis=1)
    bad = np.flatnonzero(~(np.abs(rows - 1.0) <= PMF_ATOL))
    if bad.size:
        raise InvalidDistributionError(f"channel: row {int(bad[0])} sums to {float(rows[bad[0]])!r}, must sum to 1 "
                                       f"(within PMF_ATOL = {PMF_ATOL:g})")
    return check_input_pmf(pmf, matrix.shape[0]) @ matrix


def channel_epsilons(log_channel) -> np.ndarray:
    """E[x, x'] = max_y |log C[x, y] - log C[x', y]|: the epsilon of every pair of inputs.

    Parameters
    ----------
    log_channel : array_like
        log C (inputs x outputs): reals <= 0, -inf where C is 0 (the ``log_matrix()`` of a
        mechanism of this package). Outputs that neither row reaches are skipped.

    Returns
    -------
    numpy.ndarray
        The symmetric matrix E (inputs x inputs), 0 on the diagonal; inf where one row reaches
        an output the other does not. Each entry is exact to the rounding of the logarithms
        (a few units in the last place of the largest |log C| of the two rows).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        Not a matrix of reals <= 0 or -inf, or NaN.
    """
    values = np.asarray(log_channel, dtype=float) if _is_numeric(log_channel) else None
    if values is None or values.ndim != 2 or values.size == 0:
        raise InvalidArgumentError("log_channel: must be a non-empty matrix of log probabilities")
    if np.isnan(values).any() or (values > 0).any():
        raise InvalidArgumentError("log_channel: entries must be log probabilities (<= 0 or -inf, not NaN)")
    return _channel_epsilons(values)


def _is_numeric(value) -> bool:
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        return False
    return array.dtype.kind in "iuf"


def _channel_epsilons(log_channel: np.ndarray) -> np.ndarray:
    size = log_channel.shape[0]
    out = np.zeros((size, size))
    reached = np.isfinite(log_channel)
    for x in range(size):
        one_only = reached[x] ^ reached             # outputs reached by exactly one of the two rows
        both = reached[x] & reached
        with np.errstate(invalid="ignore"):
            gaps = np.where(both, np.abs(log_channel[x] - log_channel), 0.0).max(axis=1)
        out[x] = np.where(one_only.any(axis=1), np.inf, gaps)
    # each gap is one rounded difference of the floats given: one float up is at or above it (issue 39)
    return np.where((out > 0) & np.isfinite(out), np.nextafter(out, np.inf), out)

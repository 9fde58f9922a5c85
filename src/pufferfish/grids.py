"""Parameter grids written in config.yaml: explicit lists or ``{start, stop, step}``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from pufferfish.checks import is_real, real
from pufferfish.errors import ArgumentTypeError, ConfigError, InvalidArgumentError

__all__ = ["expand_grid", "check_epsilons", "check_deltas"]

#: decimals kept when a grid is built from ``{start, stop, step}``
GRID_DECIMALS = 10
#: the most values a grid may have (a typo such as step: 1e-9 would otherwise never end)
MAX_GRID = 100_000


def expand_grid(spec, *, name: str = "grid") -> np.ndarray:
    r"""Return the values of a grid spec as a float array.

    ``spec`` is a non-empty list of numbers, or a mapping ``{start, stop, step}`` meaning
    ``start, start + step, ..., stop`` with ``stop`` included; those values are rounded
    to :data:`GRID_DECIMALS` decimals so that, e.g., ``0.1 + 2 * 0.1`` is written 0.3.
    Strings, booleans and non-finite values are refused (one line naming ``name``); a
    ``{start, stop, step}`` with more than :data:`MAX_GRID` values is refused before any
    value is made.

    Parameters
    ----------
    spec : list or collections.abc.Mapping
        Numbers, or ``{start, stop, step}``.
    name : str
        The config key named in messages.

    Returns
    -------
    numpy.ndarray
        The grid's values (rounded to :data:`GRID_DECIMALS` decimals for a range).

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        A non-number, a missing key or ``step <= 0``.
    ConfigError
        ``stop < start``, or a range of more than :data:`MAX_GRID` values.
    """
    if isinstance(spec, Mapping):
        missing = [k for k in ("start", "stop", "step") if k not in spec]
        if missing:
            raise InvalidArgumentError(f"{name}: missing key {missing[0]!r}")
        start, stop, step = (real(spec[k], name=f"{name}.{k}") for k in ("start", "stop", "step"))
        if not step > 0:
            raise InvalidArgumentError(f"{name}.step = {spec['step']}: must be > 0")
        if stop < start:
            raise ConfigError(f"{name}.stop = {spec['stop']}: must be >= start ({spec['start']})")
        span = (stop - start) / step  # inf when step is tiny next to stop - start
        if not span < MAX_GRID:
            raise ConfigError(f"{name}: {{start: {spec['start']}, stop: {spec['stop']}, step: {spec['step']}}} "
                              f"has more than {MAX_GRID} values, at most {MAX_GRID} allowed")
        count = int(math.floor(span + 1e-9)) + 1
        values = np.round(start + step * np.arange(count), GRID_DECIMALS)
        return values.astype(float)
    if isinstance(spec, (Sequence, np.ndarray)) and not isinstance(spec, (str, bytes)):
        return _real_vector(spec, name=name)
    raise ArgumentTypeError(f"{name} = {spec!r}: must be a list of numbers or {{start, stop, step}}")


def _real_vector(values, *, name: str) -> np.ndarray:
    """A non-empty 1-D float array of finite reals (a single number counts as a list of one)."""
    if values is None or isinstance(values, (str, bytes, Mapping, set, frozenset)):
        raise ArgumentTypeError(f"{name} = {values!r}: must be a number or a list of numbers, "
                                f"not {type(values).__name__}")
    if is_real(values):
        values = [values]
    array = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
    if array.ndim != 1:
        raise InvalidArgumentError(f"{name}: must be one-dimensional, got shape {array.shape}")
    if array.size == 0:
        raise InvalidArgumentError(f"{name} = []: must not be empty")
    if array.dtype.kind in "iuf":
        out = array.astype(float)
        bad = np.flatnonzero(~np.isfinite(out))
        if bad.size:
            k = int(bad[0])
            raise InvalidArgumentError(f"{name}[{k}] = {out[k]!r}: must be finite")
        return out
    return np.array([real(v, name=f"{name}[{k}]") for k, v in enumerate(array)], dtype=float)


def check_epsilons(epsilons, *, name: str = "epsilons") -> np.ndarray:
    r"""``epsilons`` as a non-empty 1-D float array of finite values > 0 (a number counts as one).

    Strings, booleans, ``None``, NaN, inf, zero, negative values and an empty grid are
    refused with one line naming ``name`` and the offending entry.

    Parameters
    ----------
    epsilons : float or sequence of float
        The grid.
    name : str
        Its name in messages.

    Returns
    -------
    numpy.ndarray
        A non-empty 1-D float array of finite values > 0.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        A non-number, an empty grid, or an entry not finite and > 0 (naming it).
    """
    values = _real_vector(epsilons, name=name)
    for k, value in enumerate(values):
        if not value > 0:
            raise InvalidArgumentError(f"{name}[{k}] = {float(value)!r}: must be finite and > 0")
    return values


def check_deltas(deltas, *, name: str = "deltas") -> np.ndarray:
    r"""``deltas`` as a non-empty 1-D float array of values in the open interval (0, 1).

    Parameters
    ----------
    deltas : float or sequence of float
        The grid.
    name : str
        What messages call it.

    Returns
    -------
    numpy.ndarray
        A non-empty 1-D float array of values in (0, 1).

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        A non-number, an empty grid, or an entry outside (0, 1).
    """
    values = _real_vector(deltas, name=name)
    for k, value in enumerate(values):
        if not (0.0 < value < 1.0):
            raise InvalidArgumentError(f"{name}[{k}] = {float(value)!r}: must be in (0, 1)")
    return values

"""Parameter grids written in config.yaml: explicit lists or ``{start, stop, step}``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from pufferfish.errors import ConfigError

__all__ = ["expand_grid", "check_epsilons", "check_deltas"]

#: decimals kept when a grid is built from ``{start, stop, step}``
GRID_DECIMALS = 10
#: the most values a grid may have (a typo such as step: 1e-9 would otherwise never end)
MAX_GRID = 100_000


def expand_grid(spec, *, name: str = "grid") -> np.ndarray:
    """Return the values of a grid spec as a float array.

    ``spec`` is a list of numbers, or a mapping ``{start, stop, step}`` meaning
    ``start, start + step, ..., stop`` with ``stop`` included; those values are rounded
    to :data:`GRID_DECIMALS` decimals so that, e.g., ``0.1 + 2 * 0.1`` is written 0.3.
    """
    if isinstance(spec, Mapping):
        try:
            start, stop, step = (float(spec[k]) for k in ("start", "stop", "step"))
        except KeyError as err:
            raise ConfigError(f"{name}: missing key {err.args[0]!r}") from None
        for key, value in (("start", start), ("stop", stop), ("step", step)):
            if not math.isfinite(value):
                raise ConfigError(f"{name}.{key} = {spec[key]!r}: must be finite")
        if not step > 0:
            raise ConfigError(f"{name}.step = {spec['step']}: must be > 0")
        if stop < start:
            raise ConfigError(f"{name}.stop = {spec['stop']}: must be >= start ({spec['start']})")
        span = (stop - start) / step  # inf when step is tiny next to stop - start
        if not span < MAX_GRID:
            raise ConfigError(f"{name}: {{start: {spec['start']}, stop: {spec['stop']}, step: {spec['step']}}} "
                              f"has more than {MAX_GRID} values, at most {MAX_GRID} allowed")
        count = int(math.floor(span + 1e-9)) + 1
        values = np.round(start + step * np.arange(count), GRID_DECIMALS)
        return values.astype(float)
    if isinstance(spec, Sequence) and not isinstance(spec, (str, bytes)):
        if len(spec) == 0:
            raise ConfigError(f"{name}: must not be empty")
        return np.asarray([float(v) for v in spec], dtype=float)
    raise ConfigError(f"{name} = {spec!r}: must be a list of numbers or {{start, stop, step}}")


def check_epsilons(epsilons, *, name: str = "epsilon") -> np.ndarray:
    """Return ``epsilons`` as a float array, refusing any value that is not finite and > 0."""
    values = np.atleast_1d(np.asarray(epsilons, dtype=float))
    for k, value in enumerate(values):
        if not (math.isfinite(value) and value > 0):
            raise ConfigError(f"{name}[{k}] = {float(value)!r}: must be finite and > 0")
    return values


def check_deltas(deltas, *, name: str = "delta") -> np.ndarray:
    """Return ``deltas`` as a float array, refusing any value outside the open interval (0, 1)."""
    values = np.atleast_1d(np.asarray(deltas, dtype=float))
    for k, value in enumerate(values):
        if not (0.0 < value < 1.0):
            raise ConfigError(f"{name}[{k}] = {float(value)!r}: must be in (0, 1)")
    return values

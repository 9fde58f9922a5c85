"""Argument checks at the boundary of the public API: one line naming the argument and the value.

A wrong type (a string, a bool or ``None`` where a number goes) is an
:class:`~pufferfish.errors.ArgumentTypeError` (a ``TypeError``); a value the function cannot
honour (NaN, inf, out of range) an :class:`~pufferfish.errors.InvalidArgumentError` (a
``ValueError``). Booleans are never numbers here, although Python counts ``True`` as 1.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from pufferfish.errors import ArgumentTypeError, InvalidArgumentError

__all__ = ["real", "integer", "instance", "is_real", "is_integer", "reals", "choice", "function", "search"]


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def is_real(value) -> bool:
    """A real number: int, float, Fraction, numpy int/float (0-d arrays too); never a bool."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.dtype.kind in "iuf"
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def is_integer(value) -> bool:
    """An integer-valued real number (``2`` and ``2.0``, not ``2.5``, ``nan`` or ``True``)."""
    if not is_real(value):
        return False
    if isinstance(value, (numbers.Integral, np.integer)):
        return True
    number = float(value)
    return math.isfinite(number) and number.is_integer()


def real(value, *, name: str, lo: float | None = None, hi: float | None = None, lo_open: bool = False,
         hi_open: bool = False, error: type[ValueError] = InvalidArgumentError) -> float:
    """``value`` as a finite float in the stated range, else one line naming ``name`` and the value.

    ``lo``/``hi`` are inclusive unless ``lo_open``/``hi_open``; e.g. ``real(e, name="epsilon",
    lo=0, lo_open=True)`` accepts exactly the finite e > 0. A value out of range raises
    ``error`` (default :class:`InvalidArgumentError`).
    """
    if not is_real(value):
        raise ArgumentTypeError(f"{name} = {_show(value)}: must be a real number, not {type(value).__name__}")
    number = float(value)
    ok = math.isfinite(number)
    if ok and lo is not None:
        ok = number > lo if lo_open else number >= lo
    if ok and hi is not None:
        ok = number < hi if hi_open else number <= hi
    if not ok:
        if lo is not None and hi is not None:
            rule = f"must be in {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
        elif lo is not None:
            rule = f"must be finite and {'>' if lo_open else '>='} {lo:g}"
        elif hi is not None:
            rule = f"must be finite and {'<' if hi_open else '<='} {hi:g}"
        else:
            rule = "must be finite"
        raise error(f"{name} = {_show(value)}: {rule}")
    return number


def integer(value, *, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as an int (integral floats such as ``3.0`` are accepted), within [lo, hi] if given."""
    if not is_real(value):
        raise ArgumentTypeError(f"{name} = {_show(value)}: must be an integer, not {type(value).__name__}")
    if not is_integer(value):
        raise InvalidArgumentError(f"{name} = {_show(value)}: must be an integer")
    number = int(value)
    if lo is not None and number < lo:
        raise InvalidArgumentError(f"{name} = {_show(value)}: must be an integer >= {lo}")
    if hi is not None and number > hi:
        raise InvalidArgumentError(f"{name} = {_show(value)}: must be an integer <= {hi}")
    return number


def instance(value, cls, *, name: str, hint: str = ""):
    """``value`` if it is an instance of ``cls`` (a class or tuple), else an :class:`ArgumentTypeError`."""
    if not isinstance(value, cls):
        names = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
        raise ArgumentTypeError(f"{name} = {_show(value)}: must be a {names}, not {type(value).__name__}"
                                + (f" ({hint})" if hint else ""))
    return value


def reals(values, *, name: str, lo: float | None = None, hi: float | None = None, lo_open: bool = False,
          hi_open: bool = False, empty: bool = False) -> np.ndarray:
    """``values`` (a real number or an array-like of them) as a float array of the same shape, every
    entry checked as :func:`real` checks one (``name[k]`` names the entry); an empty array is
    refused unless ``empty``."""
    if is_real(values):
        return np.asarray(real(values, name=name, lo=lo, hi=hi, lo_open=lo_open, hi_open=hi_open))
    if values is None or isinstance(values, (str, bytes, dict, set, frozenset)):
        raise ArgumentTypeError(f"{name} = {_show(values)}: must be a number or an array of numbers, "
                                f"not {type(values).__name__}")
    array = values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)
    if array.size == 0 and not empty:
        raise InvalidArgumentError(f"{name} = {_show(values)}: must not be empty")
    if array.dtype.kind not in "iuf" or array.dtype == object:
        flat = array.ravel()
        for k, v in enumerate(flat):
            if not is_real(v):
                where = f"{name}[{k}]" if array.ndim == 1 else f"{name} (entry {k})"
                raise ArgumentTypeError(f"{where} = {_show(v)}: must be a real number, not {type(v).__name__}")
    out = np.asarray(array, dtype=float)
    ok = np.isfinite(out)
    if lo is not None:
        ok &= (out > lo) if lo_open else (out >= lo)
    if hi is not None:
        ok &= (out < hi) if hi_open else (out <= hi)
    bad = np.flatnonzero(~ok.ravel())
    if bad.size:
        k = int(bad[0])
        where = f"{name}[{k}]" if out.ndim == 1 else f"{name} (entry {k})"
        real(float(out.ravel()[k]), name=where, lo=lo, hi=hi, lo_open=lo_open, hi_open=hi_open)
    return out


def choice(value, options, *, name: str) -> str:
    """``value`` if it is one of the strings ``options``, else one line naming ``name``."""
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{name} = {_show(value)}: must be a string, one of {', '.join(map(str, options))}")
    if value not in options:
        raise InvalidArgumentError(f"{name} = {_show(value)}: must be one of {', '.join(map(str, options))}")
    return value


def function(value, *, name: str):
    """``value`` if it is callable, else an :class:`ArgumentTypeError` naming ``name``."""
    if not callable(value):
        raise ArgumentTypeError(f"{name} = {_show(value)}: must be a function, not {type(value).__name__}")
    return value


def search(rtol, max_steps) -> tuple[float, int]:
    """The relative tolerance (finite, > 0) and step budget (an integer >= 1) of a search for a scale."""
    return real(rtol, name="rtol", lo=0.0, lo_open=True), integer(max_steps, name="max_steps", lo=1)

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

__all__ = ["real", "integer", "instance", "is_real", "is_integer", "reals", "as_vector", "choice", "function",
           "search", "label"]


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def is_real(value) -> bool:
    r"""A real number: int, float, Fraction, numpy int/float (0-d arrays too); never a bool.

    Parameters
    ----------
    value : object
        Anything.

    Returns
    -------
    bool
        Whether ``value`` is a real number (a predicate: it never raises).
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.dtype.kind in "iuf"
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def is_integer(value) -> bool:
    r"""An integer-valued real number (``2`` and ``2.0``, not ``2.5``, ``nan`` or ``True``).

    Parameters
    ----------
    value : object
        The value tested (of any type).

    Returns
    -------
    bool
        Whether ``value`` is a finite integer-valued real (never raises).
    """
    if not is_real(value):
        return False
    if isinstance(value, (numbers.Integral, np.integer)):
        return True
    number = float(value)
    return math.isfinite(number) and number.is_integer()


def real(value, *, name: str, lo: float | None = None, hi: float | None = None, lo_open: bool = False,
         hi_open: bool = False, error: type[ValueError] = InvalidArgumentError) -> float:
    r"""``value`` as a finite float in the stated range, else one line naming ``name`` and the value.

    ``lo``/``hi`` are inclusive unless ``lo_open``/``hi_open``; e.g. ``real(e, name="epsilon",
    lo=0, lo_open=True)`` accepts exactly the finite e > 0. A value out of range raises
    ``error`` (default :class:`InvalidArgumentError`).

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        What the message calls it.
    lo, hi : float, optional
        The bounds (inclusive unless open).
    lo_open, hi_open : bool
        Exclude ``lo`` / ``hi``.
    error : type
        The exception class of a value out of range.

    Returns
    -------
    float
        ``value`` as a finite float.

    Raises
    ------
    ArgumentTypeError
        ``value`` not a real number (booleans are not).
    InvalidArgumentError
        Not finite or out of range (or ``error`` if given).
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
    r"""``value`` as an int (integral floats such as ``3.0`` are accepted), within [lo, hi] if given.

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Its name in the message.
    lo, hi : int, optional
        Inclusive bounds.

    Returns
    -------
    int
        ``value`` as an int.

    Raises
    ------
    ArgumentTypeError
        Not a real number.
    InvalidArgumentError
        Not integer-valued, or outside ``[lo, hi]``.
    """
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
    r"""``value`` if it is an instance of ``cls`` (a class or tuple), else an :class:`ArgumentTypeError`.

    Parameters
    ----------
    value : object
        The value to check.
    cls : type or tuple of type
        The accepted classes.
    name : str
        The argument named in the message.
    hint : str
        Advice appended to the message.

    Returns
    -------
    object
        ``value``, unchanged.

    Raises
    ------
    ArgumentTypeError
        ``value`` is not an instance of ``cls``.
    """
    if not isinstance(value, cls):
        names = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
        raise ArgumentTypeError(f"{name} = {_show(value)}: must be a {names}, not {type(value).__name__}"
                                + (f" ({hint})" if hint else ""))
    return value


def reals(values, *, name: str, lo: float | None = None, hi: float | None = None, lo_open: bool = False,
          hi_open: bool = False, empty: bool = False) -> np.ndarray:
    r"""``values`` (a real number or an array-like of them) as a float array of the same shape, every
    entry checked as :func:`real` checks one (``name[k]`` names the entry); an empty array is
    refused unless ``empty``.

    Parameters
    ----------
    values : float or array-like
        A real number or an array-like of them.
    name : str
        The argument named in messages (``name[k]`` for an entry).
    lo, hi : float, optional
        Bounds, as for :func:`real`.
    lo_open, hi_open : bool
        Exclude the bounds.
    empty : bool
        Accept an empty array.

    Returns
    -------
    numpy.ndarray
        A float array of the shape of ``values``.

    Raises
    ------
    ArgumentTypeError
        ``values`` or an entry not a real number.
    InvalidArgumentError
        An empty array (unless ``empty``), or an entry not finite or out of range.
    """
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


def as_vector(values, *, name: str, nonnegative: bool = False, min_size: int = 1) -> np.ndarray:
    """``values`` as a 1-D float array of finite numbers.

    Parameters
    ----------
    values : array_like
        The numbers.
    name : str
        The argument's name, for the message.
    nonnegative : bool, optional
        Refuse negative values (default False).
    min_size : int, optional
        The fewest values accepted (default 1).

    Returns
    -------
    numpy.ndarray
        A 1-D float array.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        One line naming ``name``: not 1-D numbers, a value not finite (or negative), too few values.
    """
    label(name)
    min_size = integer(min_size, name="min_size", lo=0)
    if values is None or isinstance(values, (str, bytes, dict, set)):
        raise ArgumentTypeError(f"{name} = {values!r}: must be a sequence of numbers, not {type(values).__name__}")
    try:
        array = np.asarray(values)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{name}: must be a sequence of numbers") from None
    if array.dtype == bool or array.dtype.kind not in "iuf":
        raise ArgumentTypeError(f"{name}: must hold real numbers, not {array.dtype}")
    if array.ndim != 1:
        raise InvalidArgumentError(f"{name}: must be one-dimensional, has shape {array.shape}")
    if array.size < min_size:
        raise InvalidArgumentError(f"{name}: must hold at least {min_size} value(s), has {array.size}")
    array = array.astype(float, copy=False)
    if array.size:   # two reductions, no temporary: NaN propagates through min and max
        lo, hi = array.min(), array.max()
        if math.isfinite(lo) and math.isfinite(hi) and (lo >= 0 or not nonnegative):
            return array
    bad = ~np.isfinite(array)
    if nonnegative:
        bad |= array < 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        rule = "finite and >= 0" if nonnegative else "finite"
        raise InvalidArgumentError(f"{name}[{i}] = {array[i]!r}: must be {rule}")
    return array


def choice(value, options, *, name: str) -> str:
    r"""``value`` if it is one of the strings ``options``, else one line naming ``name``.

    Parameters
    ----------
    value : object
        The value to check.
    options : sequence of str
        The accepted strings.
    name : str
        The argument's name in messages.

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    ArgumentTypeError
        ``value`` not a string.
    InvalidArgumentError
        ``value`` not among ``options``.
    """
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{name} = {_show(value)}: must be a string, one of {', '.join(map(str, options))}")
    if value not in options:
        raise InvalidArgumentError(f"{name} = {_show(value)}: must be one of {', '.join(map(str, options))}")
    return value


def function(value, *, name: str):
    r"""``value`` if it is callable, else an :class:`ArgumentTypeError` naming ``name``.

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        The argument's name for the message.

    Returns
    -------
    callable
        ``value``.

    Raises
    ------
    ArgumentTypeError
        ``value`` is not callable.
    """
    if not callable(value):
        raise ArgumentTypeError(f"{name} = {_show(value)}: must be a function, not {type(value).__name__}")
    return value


def search(rtol, max_steps) -> tuple[float, int]:
    r"""The relative tolerance (finite, > 0) and step budget (an integer >= 1) of a search for a scale.

    Parameters
    ----------
    rtol : float
        Relative tolerance, finite and > 0.
    max_steps : int
        Step budget, an integer >= 1.

    Returns
    -------
    tuple
        ``(rtol, max_steps)`` as ``(float, int)``.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Either value of the wrong type or out of range.
    """
    return real(rtol, name="rtol", lo=0.0, lo_open=True), integer(max_steps, name="max_steps", lo=1)


def label(name) -> str:
    r"""``name``, the argument name a message uses, if it is a non-empty string.

    Parameters
    ----------
    name : object
        The name a check was given for its argument.

    Returns
    -------
    str
        ``name``, unchanged.

    Raises
    ------
    ArgumentTypeError
        ``name`` not a string, or empty.
    """
    if not isinstance(name, str) or not name:
        raise ArgumentTypeError(f"name = {name!r}: must be a non-empty string (the argument's name)")
    return name

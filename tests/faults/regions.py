"""The vocabulary of the fault catalog: a :class:`Region` of a computation's inputs, a :class:`Computation`, and
the builders that cut an argument's range into regions (:mod:`tests.faults.catalog`)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Region:
    """A region of a computation's inputs: ``holds(arguments)`` on the call's arguments by name."""

    name: str
    holds: Callable[[dict], bool]


@dataclass(frozen=True)
class Computation:
    """One exact computation: ``target`` ``"module:function"`` or ``"module:Class.method"``."""

    name: str
    target: str
    regions: tuple[Region, ...]
    fields: tuple[str, ...] = ()


# ------------------------------------------------------------------------------ region builders
def bands(arg: str, cuts: list[float], label: str | None = None, value: Callable | None = None) -> tuple[Region, ...]:
    """The whole range of ``arg`` (or of ``value(arguments)``) cut at ``cuts``: (0, c1], (c1, c2], ..., (cn, inf)."""
    label = label or arg
    get = value or (lambda a: a[arg])
    edges = [-math.inf, *cuts, math.inf]
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        if lo == -math.inf:
            name = f"{label} <= {hi:g}"
        elif hi == math.inf:
            name = f"{label} > {lo:g}"
        else:
            name = f"{lo:g} < {label} <= {hi:g}"
        out.append(Region(name, lambda a, lo=lo, hi=hi: lo < float(get(a)) <= hi))
    return tuple(out)


def at_most(arg: str, bound: float, label: str | None = None, value: Callable | None = None) -> Region:
    get = value or (lambda a: a[arg])
    return Region(f"{label or arg} <= {bound:g}", lambda a: float(get(a)) <= bound)


def above(arg: str, bound: float, label: str | None = None, value: Callable | None = None) -> Region:
    get = value or (lambda a: a[arg])
    return Region(f"{label or arg} > {bound:g}", lambda a: float(get(a)) > bound)


def eps_regions(arg: str = "epsilon", small: float = 0.01, large: float = 5.0) -> tuple[Region, ...]:
    return at_most(arg, small, "epsilon"), above(arg, large, "epsilon")


def alpha_regions(arg: str = "alpha", near: float = 1.1, large: float = 20.0) -> tuple[Region, ...]:
    return at_most(arg, near, "alpha"), above(arg, large, "alpha")

"""Wrap one exact computation where it is looked up: record the regions its calls reach, or nudge its result.

A computation of the catalog (:mod:`tests.faults.catalog`) names its function as
``"package.module:name"`` or ``"package.module:Class.method"``. :func:`install` replaces the
function object everywhere it is looked up: the attribute of its module (or of its class),
and every other loaded module's attribute, class attribute or module-level dict value that
is the same object (``from x import f`` copies, registries). A module imported later copies
the replaced attribute. In a child process (the CLI run as a command, Snakemake's jobs) the
same fault is installed by ``tests/faults/site/sitecustomize.py`` from the environment variable
:data:`ENVIRONMENT`, when the module defining the function is first imported (an import
hook: importing it earlier would change what the child loads).

* Recording: every call binds its arguments, evaluates the regions' predicates, and reports
  the regions where the result is one a fault would change (a finite, non-zero float in it).
* Fault: in one region only, the result is multiplied by :data:`FACTOR` (floats, float
  arrays, tuples and lists of them, the float fields a catalog entry names of a dataclass).
"""
from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.abc
import importlib.util
import inspect
import math
import os
import sys
import types

import numpy as np

#: the relative fault: every result in the region is multiplied by this
FACTOR = 1.0 + 1e-6
#: ``<computation>@<region>``: the fault a child process installs (tests/faults/site/sitecustomize.py)
ENVIRONMENT = "PUFFERFISH_FAULT"


# ------------------------------------------------------------------------------ perturbing a result
def perturb(value, fields: tuple[str, ...] = ()):
    """``value`` with every float in it multiplied by :data:`FACTOR` (``fields``: the dataclass fields to touch)."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, np.integer, str)):
        return value
    if isinstance(value, (float, np.floating)):
        return type(value)(value * FACTOR) if math.isfinite(value) else value
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            out = value * FACTOR
            if not value.flags.writeable:
                out.setflags(write=False)
            return out
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = fields or tuple(f.name for f in dataclasses.fields(value) if f.init)
        return dataclasses.replace(value, **{n: perturb(getattr(value, n)) for n in names})
    if isinstance(value, tuple):
        items = [perturb(v, fields) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, list):
        return [perturb(v, fields) for v in value]
    if isinstance(value, dict):
        return {k: perturb(v, fields) for k, v in value.items()}
    return value


def changes(value, fields: tuple[str, ...] = ()) -> bool:
    """Whether :func:`perturb` would change ``value`` (it holds a finite, non-zero float where the fault acts)."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, np.integer, str)):
        return False
    if isinstance(value, (float, np.floating)):
        return bool(math.isfinite(value) and value != 0)
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f" and bool(np.any(np.isfinite(value) & (value != 0)))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = fields or tuple(f.name for f in dataclasses.fields(value) if f.init)
        return any(changes(getattr(value, n)) for n in names)
    if isinstance(value, (tuple, list)):
        return any(changes(v, fields) for v in value)
    if isinstance(value, dict):
        return any(changes(v, fields) for v in value.values())
    return False


# ------------------------------------------------------------------------------ where a function is looked up
def split_target(target: str) -> tuple[str, list[str]]:
    module, _, path = target.partition(":")
    return module, path.split(".")


def resolve(target: str):
    """(owner, attribute name, the raw attribute) of ``target`` in its (imported) module."""
    module_name, path = split_target(target)
    owner = importlib.import_module(module_name)
    for name in path[:-1]:
        owner = getattr(owner, name)
    raw = owner.__dict__[path[-1]] if isinstance(owner, type) else getattr(owner, path[-1])
    return owner, path[-1], raw


def _function(raw):
    """The plain function inside ``raw`` (a staticmethod or classmethod unwrapped) and how to rewrap it."""
    if isinstance(raw, staticmethod):
        return raw.__func__, staticmethod
    if isinstance(raw, classmethod):
        return raw.__func__, classmethod
    return raw, None


def _replace_everywhere(original, wrapper) -> None:
    """Replace ``original`` by ``wrapper`` in every loaded module, its classes and its module-level dicts."""
    for module in list(sys.modules.values()):
        if not isinstance(module, types.ModuleType):
            continue
        try:
            items = list(vars(module).items())
        except TypeError:
            continue
        for name, value in items:
            if value is original:
                setattr(module, name, wrapper)
            elif isinstance(value, type) and getattr(value, "__module__", None) == module.__name__:
                for attr, member in list(vars(value).items()):
                    if member is original:
                        setattr(value, attr, wrapper)
                    elif isinstance(member, (staticmethod, classmethod)) and member.__func__ is original:
                        setattr(value, attr, type(member)(wrapper))
            elif type(value) is dict:
                for key, member in list(value.items()):
                    if member is original:
                        value[key] = wrapper


def install(target: str, call) -> None:
    """Replace the function of ``target`` by ``call(original, *args, **kwargs)`` wherever it is looked up.

    Now if its module is loaded, else right after the module is first imported (importing it here
    would change the order in which the package's modules load, and what a child process loads).
    """
    module = split_target(target)[0]
    if module in sys.modules:
        _install_now(target, call)
    else:
        _ON_IMPORT.pending.setdefault(module, []).append((target, call))
        if _ON_IMPORT not in sys.meta_path:
            sys.meta_path.insert(0, _ON_IMPORT)


def _install_now(target: str, call) -> None:
    owner, attr, raw = resolve(target)
    original, rewrap = _function(raw)
    if getattr(original, "__fault_wrapped__", False):
        raise RuntimeError(f"{target}: already wrapped")

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        return call(original, *args, **kwargs)

    wrapper.__fault_wrapped__ = True
    setattr(owner, attr, rewrap(wrapper) if rewrap else wrapper)
    _replace_everywhere(original, wrapper)


class _OnImport(importlib.abc.MetaPathFinder):
    """Installs the wrappers of a module right after the module is executed (its first import)."""

    def __init__(self):
        self.pending: dict[str, list] = {}
        self.busy = False

    def find_spec(self, name, path, target=None):
        if self.busy or name not in self.pending:
            return None
        self.busy = True
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.busy = False
        if spec is None or spec.loader is None:
            return spec
        execute, installs = spec.loader.exec_module, self.pending.pop(name)

        def exec_module(module):
            execute(module)
            for target, call in installs:
                _install_now(target, call)

        spec.loader.exec_module = exec_module
        return spec


_ON_IMPORT = _OnImport()


def arguments(original, args, kwargs) -> dict:
    """The arguments of a call of ``original`` by name, defaults applied."""
    signature = _SIGNATURES.get(original)
    if signature is None:
        signature = _SIGNATURES[original] = inspect.signature(original)
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


_SIGNATURES: dict = {}


def holds(region, arguments: dict) -> bool:
    """The region's predicate on ``arguments`` (False where it cannot be evaluated on them).

    A predicate reading an argument the function does not take is a mistake of the catalog (the
    region could never be reached): it raises, so that the recording run fails and says so.
    """
    try:
        return bool(region.holds(arguments))
    except KeyError as exc:
        raise RuntimeError(f"tests/faults/catalog.py: region {region.name!r} reads the argument {exc} "
                           f"that the function does not take (it takes {sorted(arguments)})") from None
    except Exception:  # noqa: BLE001 - a predicate that does not apply to these arguments
        return False


# ------------------------------------------------------------------------------ one fault
def install_fault(computation, region) -> None:
    """Multiply the result of ``computation`` by :data:`FACTOR` on the calls whose arguments are in ``region``."""
    def call(original, *args, **kwargs):
        inside = holds(region, arguments(original, args, kwargs))
        result = original(*args, **kwargs)
        return perturb(result, computation.fields) if inside else result

    install(computation.target, call)


# ------------------------------------------------------------------------------ recording
def install_recorder(computation, pending, report) -> None:
    """Report, on every call of ``computation``, the regions whose predicate holds and whose result a fault
    would change: ``pending()`` gives the regions still to look for (the current test's), ``report(region)``
    notes one."""
    def call(original, *args, **kwargs):
        result = original(*args, **kwargs)
        regions = pending(computation)
        if regions and changes(result, computation.fields):
            named = arguments(original, args, kwargs)
            for region in regions:
                if holds(region, named):
                    report(computation, region)
        return result

    install(computation.target, call)


def install_from_environment() -> None:
    """The fault named by :data:`ENVIRONMENT` (a child process), installed when its module is imported."""
    value = os.environ.get(ENVIRONMENT)
    if not value:
        return
    from tests.faults.catalog import find

    install_fault(*find(value))

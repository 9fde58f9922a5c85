"""Lazy attributes for package ``__init__`` modules (PEP 562): import a submodule when a name is first used.

Every workflow job starts a new interpreter; importing a package should cost only what the
job uses (``import pufferfish`` loads numpy and nothing heavier). :func:`attach` returns the
``__getattr__`` and ``__dir__`` of a package from a map name -> defining module.
"""

from __future__ import annotations

from importlib import import_module


def attach(package: str, exports: dict[str, str], submodules: tuple[str, ...] = ()):
    """``__getattr__``/``__dir__`` for ``package``: ``exports`` maps a public name to the module defining it."""

    def __getattr__(name: str):
        if name in exports:
            value = getattr(import_module(exports[name]), name)
        elif name in submodules:
            value = import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        globals_of(package)[name] = value        # cached: later lookups do not come back here
        return value

    def __dir__():
        return sorted(set(globals_of(package)) | set(exports) | set(submodules))

    return __getattr__, __dir__


def globals_of(package: str) -> dict:
    import sys
    return vars(sys.modules[package])

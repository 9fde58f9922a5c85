"""Rule params that Snakemake's report shows readably, and that rerun jobs exactly as before.

The report lists a job's params as ``name=str(value)``: a config section passed as a param
(see ``workflow/rules/common.smk``: a job reruns when a param of builtin type changes) shows
as a Python dict, quotes and all. :class:`ReadableDict` and :class:`ReadableList` are a
``dict`` and a ``list`` whose ``str`` is YAML flow style, the notation of ``config.yaml``
(``{kind: plan, rest: [D1, D2, D3], epsilons: {start: 0.1, stop: 1.0, step: 0.1}}``), while
their ``repr``, which Snakemake records to decide reruns, is the plain ``dict``/``list`` repr:
a job reruns on exactly the same edits, and a results tree made before this module keeps its
jobs up to date. ``workflow/rules/report.smk`` wraps every rule's params with
:func:`readable_param` once all rules exist. The scripts receive them pickled: they are a
``dict`` and a ``list`` to every reader.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

__all__ = ["ReadableDict", "ReadableList", "readable", "readable_param", "flow_style"]


def flow_style(value) -> str:
    """``value`` (plain dicts, lists, strings, numbers, booleans, None) in YAML flow style, one line.

    Falls back to ``repr`` of the plain value for anything YAML's safe dumper cannot write.
    """
    import yaml

    plain = _plain(value)
    try:
        text = yaml.safe_dump(plain, default_flow_style=True, width=2**31 - 1, sort_keys=False, allow_unicode=True)
    except yaml.YAMLError:
        return repr(plain)
    return text.strip().removesuffix("...").strip()


def _plain(value):
    """``value`` with every dict and list (subclasses included) as a plain ``dict`` / ``list``."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class _FlowStyle:
    """Mixin before a container type: ``str`` in YAML flow style (:func:`flow_style`), ``repr`` the container's."""

    __slots__ = ()

    def __str__(self) -> str:
        return flow_style(self)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return super().__repr__()       # the container's own (dict.__repr__, list.__repr__)


class ReadableDict(_FlowStyle, dict):
    """A ``dict`` whose ``str`` is YAML flow style (:func:`flow_style`) and whose ``repr`` is the dict's."""

    __slots__ = ()


class ReadableList(_FlowStyle, list):
    """A ``list`` whose ``str`` is YAML flow style (:func:`flow_style`) and whose ``repr`` is the list's."""

    __slots__ = ()


def readable(value):
    """A plain ``dict`` as :class:`ReadableDict`, a plain ``list`` as :class:`ReadableList`; anything else as is."""
    if type(value) is dict:
        return ReadableDict(value)
    if type(value) is list:
        return ReadableList(value)
    return value


def readable_param(item):
    """A rule's param item made readable: a value through :func:`readable`, a function (a param
    evaluated per job) wrapped so that its result is; the wrapper keeps the function's signature,
    from which Snakemake decides what to pass it (wildcards, input, output...)."""
    if not callable(item):
        return readable(item)
    function: Callable = item

    @wraps(function)
    def evaluated(*args, **kwargs):
        return readable(function(*args, **kwargs))

    return evaluated

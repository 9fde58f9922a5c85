"""Typed settings shared by the experiments, and the helpers every paper's settings module uses.

Each paper defines the typed settings it consumes, next to its code
(``pufferfish.<paper>.settings``, declared by its :class:`pufferfish.papers.Paper`); the
settings more than one of them reads are here (:class:`AuditSettings`,
:class:`DatasetSettings`, :class:`Encoding`). :mod:`pufferfish.pipeline.config` validates config.yaml against its
schema and builds all of them, once (:class:`pufferfish.pipeline.config.Settings`).

Every class is a frozen dataclass built by ``from_config`` from its section of the
*validated* config: **every default lives in the schema** (no field has a default of its
own), and each class names the part of the schema it types (``schema_path``, a JSON
pointer; a test holds the two together). A key that is missing (the mapping was not
validated) or that a class does not know is a :class:`ConfigError` naming it
(:func:`read_section`). Grids (``epsilons``, ``deltas``) are expanded and checked here, once
(:func:`epsilon_grid`, :func:`delta_grid`), so the code that computes reads tuples of floats.

Snakemake jobs get their section as a plain mapping param and call the section's
``from_config`` themselves: Snakemake reruns a job when a param changes, but it only
compares params of builtin types (a dataclass param would silently stop the reruns on a
config edit).

What a config entry reads of a dataset is a :class:`DataRequest`: each paper declares its own
(``data_requests(config)``), and :mod:`pufferfish.pipeline.data_checks` checks them on the
cached data before any job.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pufferfish.errors import ConfigError
from pufferfish.grids import check_deltas, check_epsilons, expand_grid

__all__ = ["AuditSettings", "DatasetSettings", "Encoding", "DataRequest", "read_section", "join_key", "floats",
           "epsilon_grid", "delta_grid"]


def read_section(mapping, where: str, *, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> Mapping:
    """``mapping`` if it is a mapping with every ``required`` key and no key outside ``required + optional``.

    ``where`` is the section's path in config.yaml (``""`` for the top level). The guard of a
    typed class against a mapping the schema has not validated (a job's param, a test): the
    class reads every key it declares and refuses one it does not, never a silently dropped value.
    """
    if not isinstance(mapping, Mapping):
        raise ConfigError(f"config: {where or 'the configuration'} = {mapping!r}: must be a mapping")
    unknown = sorted(set(mapping) - set(required) - set(optional), key=str)
    if unknown:
        raise ConfigError(f"config: {join_key(where, unknown[0])}: not a key the typed settings know (add a "
                          "field for it, and the key to the schema)")
    missing = [key for key in required if key not in mapping]
    if missing:
        raise ConfigError(f"config: {join_key(where, missing[0])}: missing (validate the configuration first: "
                          "pufferfish.pipeline.config.validate_config fills in the schema's defaults)")
    return mapping


def join_key(where: str, key) -> str:
    """The config path of ``key`` below ``where`` (``a.b`` + ``c`` -> ``a.b.c``)."""
    return f"{where}.{key}" if where else str(key)


def floats(values, where: str) -> tuple[float, ...]:
    """``values`` (a list of numbers at config path ``where``) as a tuple of floats."""
    try:
        if isinstance(values, (str, bytes, Mapping)):
            raise TypeError
        return tuple(float(v) for v in values)
    except (TypeError, ValueError):
        raise ConfigError(f"config: {where} = {values!r}: must be a list of numbers") from None


def _grid(spec, where: str, check) -> tuple[float, ...]:
    """The values of grid ``spec`` (a list or ``{start, stop, step}``), each accepted by ``check``."""
    try:
        return tuple(float(v) for v in check(expand_grid(spec, name=where), name=where))
    except ConfigError as err:
        raise ConfigError(f"config: {err}") from None


def epsilon_grid(spec, where: str) -> tuple[float, ...]:
    """The epsilons of grid ``spec`` at config path ``where``: finite and > 0 (:func:`pufferfish.grids.check_epsilons`)."""
    return _grid(spec, where, check_epsilons)


def delta_grid(spec, where: str) -> tuple[float, ...]:
    """The deltas of grid ``spec`` at config path ``where``: in (0, 1) (:func:`pufferfish.grids.check_deltas`)."""
    return _grid(spec, where, check_deltas)


@dataclass(frozen=True)
class AuditSettings:
    """Config ``audit``: a scale violates its target when the achieved loss exceeds
    target * (1 + ``rtol``); the bisection for theta_min / b_min stops at relative width
    ``bisection_rtol`` or after ``bisection_max_steps`` steps."""

    schema_path: ClassVar[str] = "/properties/audit"
    rtol: float
    bisection_rtol: float
    bisection_max_steps: int

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "audit") -> AuditSettings:
        s = read_section(section, where, required=("rtol", "bisection_rtol", "bisection_max_steps"))
        return cls(float(s["rtol"]), float(s["bisection_rtol"]), int(s["bisection_max_steps"]))


@dataclass(frozen=True)
class DatasetSettings:
    """One key of config ``datasets`` (read by :func:`pufferfish.pipeline.fetch.download`).

    ``source`` is ``ucimlrepo`` (with ``uci_id``) or ``archive`` (with ``url``, ``member``,
    ``sha256`` and the ``read_csv`` options); ``rows`` and ``columns`` are checked after reading;
    ``max_bytes`` caps every body and member the download reads (``None``: not given).
    """

    schema_path: ClassVar[str] = "/properties/datasets/additionalProperties"
    name: str
    source: str
    rows: int
    columns: tuple[str, ...]
    uci_id: int | None
    url: str | None
    member: str | tuple[str, ...] | None
    sha256: str | None
    read_csv: dict | None
    citation: str | None
    max_bytes: int | None

    @classmethod
    def from_config(cls, name: str, section: Mapping) -> DatasetSettings:
        where = f"datasets.{name}"
        s = read_section(section, where, required=("source", "rows", "columns"),
                         optional=("uci_id", "url", "member", "sha256", "read_csv", "citation", "max_bytes"))
        member = s.get("member")
        return cls(name=name, source=str(s["source"]), rows=int(s["rows"]), columns=tuple(map(str, s["columns"])),
                   uci_id=None if s.get("uci_id") is None else int(s["uci_id"]), url=s.get("url"),
                   member=tuple(member) if isinstance(member, list) else member, sha256=s.get("sha256"),
                   read_csv=None if s.get("read_csv") is None else dict(s["read_csv"]), citation=s.get("citation"),
                   max_bytes=None if s.get("max_bytes") is None else int(s["max_bytes"]))


@dataclass(frozen=True)
class Encoding:
    """How a data user's attribute becomes integers: ``numeric`` (as they are), ``codes``
    (``values[0]`` -> 1, ``values[1]`` -> 2, ...) or ``indicator`` (``values`` -> 1, else 0)."""

    kind: str
    values: tuple = ()

    @classmethod
    def from_config(cls, spec, *, where: str) -> Encoding:
        if spec == "numeric":
            return cls("numeric")
        if isinstance(spec, Mapping) and len(spec) == 1 and next(iter(spec)) in ("codes", "indicator"):
            kind = next(iter(spec))
            return cls(kind, tuple(spec[kind]))
        raise ConfigError(f"config: {where} = {spec!r}: must be numeric, {{codes: [...]}} or {{indicator: [...]}}")

    def as_config(self):
        """The form config.yaml writes (what :func:`pufferfish.data_priors.encode` reads)."""
        return "numeric" if self.kind == "numeric" else {self.kind: list(self.values)}


@dataclass(frozen=True)
class DataRequest:
    """What one entry of config.yaml reads of a dataset, checked on the cached table before any job.

    Declared by the entry's paper (``data_requests(config)`` of its settings module, on the
    validated mapping) and checked by :func:`pufferfish.pipeline.data_checks.check_data`.

    ``where`` is the entry's config key and ``dataset`` a key of ``datasets``; ``columns`` are
    the (config key, column) of every column it reads (a missing column is reported at its
    own key). ``reader`` is the function its job reads the rows with; it is called as
    ``reader(frame, **arguments)`` on the cached table (only the requests' columns, read with
    pandas' ``low_memory`` as the job reads it) and raises a
    :class:`~pufferfish.errors.PufferfishError` on what the job will refuse, reported at
    ``where`` (a message starting with ``label``, the entry's name in the reader's own
    messages, has it replaced by ``where``). A settings module sits below the code that reads
    the data (which imports it), so the paper's declaration hands it the reader: a small
    function of the declaration's module that imports the job's code when it is called.
    """

    where: str
    dataset: str
    columns: tuple[tuple[str, str], ...]
    reader: Callable[..., Any]
    arguments: Mapping[str, Any]
    label: str
    low_memory: bool

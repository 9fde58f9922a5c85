"""The papers: each a package that declares itself once, found through Python's entry points.

A paper is a package holding one :class:`Paper` (by convention ``PAPER`` in its ``paper``
module), registered by one line of its distribution's ``pyproject.toml``::

    [project.entry-points."pufferfish.papers"]
    <key> = "<package>.paper:PAPER"

The entry point's name is the paper's config key. Everything shared is derived from the
declared papers (:func:`declared`): the config's schema and typed settings and each paper's
own checks (:mod:`pufferfish.pipeline.config`), what the cached data can tell
(:mod:`pufferfish.pipeline.data_checks`), the registry's method records
(:mod:`pufferfish.registry`), the workflow (the ``Snakefile`` includes each paper's rules
file; the report's front page gathers each paper's section; the reproduction table reads
each paper's printed values) and the ``pufferfish`` command (each paper's subcommands).

A paper from outside this repository is a distribution of its own with the same entry point
(docs/for-researchers.md, "Adding a paper"). This module imports no paper: it reads their
declarations when first asked, in one order (:func:`declared`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from pufferfish.errors import ConfigError, PufferfishError

__all__ = ["GROUP", "Paper", "Command", "DeclarationError", "declared", "keys", "get", "selected", "present"]

#: the entry-point group of the papers
GROUP = "pufferfish.papers"
#: a paper's key: a config key, a Snakemake name and a Python identifier at once
KEY = re.compile(r"[a-z][a-z0-9_]*")


class DeclarationError(PufferfishError, TypeError):
    """An installed paper's declaration is broken (its entry point does not load, is not a
    :class:`Paper`, or names a paper that is not installed): the paper package's to fix; the
    message names the entry point."""


@dataclass(frozen=True)
class Command:
    """One subcommand of ``pufferfish`` that a paper adds.

    ``add_parser(subparsers, formatter_class)`` adds it to the argparse subparsers (with the
    name ``name``, its help line, description and arguments); ``run(args)`` computes and
    returns the text to print (the user's mistakes are
    :class:`~pufferfish.errors.PufferfishError`; a :class:`~pufferfish.errors.UsageError`
    exits with status 2). ``example`` is its example, shown under ``pufferfish --help``
    when it is the first command.
    """

    name: str
    add_parser: Callable[..., Any]
    run: Callable[[Any], str]
    example: str = ""


@dataclass(frozen=True, kw_only=True)
class Paper:
    r"""The one declaration of a paper: everything the shared code needs of it.

    Attributes
    ----------
    key : str
        Its section of ``config.yaml``, the name of its entry point and of its ``papers``
        switch (lower-case letters, digits, ``_``).
    title : str
        One line naming it, e.g. ``Distribution privacy (paper 003)``.
    settings : callable
        ``settings(section, config)``: the typed settings of its validated section (``config``
        is the whole validated configuration, for what the section reads of it, e.g. ``seed``).
    schema : pathlib.Path
        Its section's JSON schema (YAML), in its package: merged into the config's schema
        under ``properties.<key>``; its own ``$defs`` join the shared ones.
    check_references : callable
        ``check_references(config)``: the cross-references no schema can state, on the
        validated configuration; a mistake is one :class:`~pufferfish.errors.ConfigError` line.
    check_keys : callable, optional
        ``check_keys(config)``, before the schema: keys the schema would misread.
    data_requests : callable, optional
        ``data_requests(config)``: what its entries read of the datasets
        (:class:`~pufferfish.settings.DataRequest`), checked on the cached data before any job.
    rules : str or pathlib.Path
        Its Snakemake rules file: a path relative to the workflow's directory (the papers of
        this repository: ``workflow/rules/<key>.smk``) or absolute (a paper installed from
        elsewhere ships it in its package).
    report : str or pathlib.Path
        Its section of the report's front page (reStructuredText with Snakemake's Jinja
        variables, one or more ``#.`` items of "How the results are made"), resolved as ``rules``.
    paper_values : str or pathlib.Path, optional
        The numbers the paper prints beside the file and column of ours
        (``pufferfish.pipeline.report.load_paper_values``), resolved as ``rules``.
    methods : tuple of pufferfish.registry.Method
        The calibration methods it registers (its module's records; the registry lists them
        in the papers' order).
    commands : tuple of Command
        The subcommands of ``pufferfish`` it adds.
    needs : tuple of str
        The papers whose outputs its rules read: they come before it, and where the
        configuration has their sections, a ``papers`` list that names it must name them too.
    order : int
        Where it comes among the papers (its checks, rules, audit rows, report section and
        commands): by ``order``, then key, after every paper it ``needs``.
    renamed_from : tuple of str
        Keys its section had before: a config that still uses one stops, naming ``key``.
    """

    key: str
    title: str
    settings: Callable[[Any, Mapping], Any]
    schema: Path
    check_references: Callable[[Mapping], None]
    rules: str | Path
    report: str | Path
    check_keys: Callable[[Mapping], None] | None = None
    data_requests: Callable[[Mapping], Sequence] | None = None
    paper_values: str | Path | None = None
    methods: tuple = ()
    commands: tuple[Command, ...] = ()
    needs: tuple[str, ...] = ()
    order: int = 1000
    renamed_from: tuple[str, ...] = ()

    def __post_init__(self):
        if not isinstance(self.key, str) or not KEY.fullmatch(self.key):
            raise DeclarationError(f"Paper.key = {self.key!r}: must be lower-case letters, digits and _")
        for name in ("settings", "check_references"):
            if not callable(getattr(self, name)):
                raise DeclarationError(f"Paper {self.key}: {name} must be callable")
        for name in ("check_keys", "data_requests"):
            if getattr(self, name) is not None and not callable(getattr(self, name)):
                raise DeclarationError(f"Paper {self.key}: {name} must be callable or None")
        if not all(isinstance(c, Command) for c in self.commands):
            raise DeclarationError(f"Paper {self.key}: commands must be Command records")
        if not isinstance(self.order, int) or isinstance(self.order, bool):
            raise DeclarationError(f"Paper {self.key}: order = {self.order!r}: must be an integer")

    def path(self, name: str, basedir: str | Path) -> Path | None:
        """Its file ``name`` (``rules``, ``report`` or ``paper_values``) as an absolute path:
        a relative one below ``basedir``, the workflow's directory (``None`` if it has none)."""
        value = getattr(self, name)
        if value is None:
            return None
        value = Path(value)
        return value if value.is_absolute() else Path(basedir) / value


def _load(entry) -> Paper:
    try:
        paper = entry.load()
    except Exception as err:  # a broken paper package: named, whatever it raised
        raise DeclarationError(f"paper {entry.name} ({entry.value}): does not load: "
                               f"{type(err).__name__}: {' '.join(str(err).split())}") from err
    if not isinstance(paper, Paper):
        raise DeclarationError(f"paper {entry.name} ({entry.value}): not a pufferfish.papers.Paper")
    if paper.key != entry.name:
        raise DeclarationError(f"paper {entry.name} ({entry.value}): declares key {paper.key!r}; the entry "
                               "point's name must be the key")
    return paper


def _ordered(papers: Sequence[Paper]) -> tuple[Paper, ...]:
    """By ``order`` then key, each after the papers it needs (a stable topological order)."""
    by_key = {p.key: p for p in papers}
    for paper in papers:
        for need in paper.needs:
            if need not in by_key:
                raise DeclarationError(f"paper {paper.key}: needs paper {need!r}, which is not installed")
    waiting, placed = sorted(papers, key=lambda p: (p.order, p.key)), []
    while waiting:
        done = {p.key for p in placed}
        ready = next((p for p in waiting if set(p.needs) <= done), None)
        if ready is None:
            raise DeclarationError("papers " + ", ".join(p.key for p in waiting) + ": they need each other")
        placed.append(ready)
        waiting.remove(ready)
    return tuple(placed)


@functools.cache
def declared() -> tuple[Paper, ...]:
    """Every installed paper (the entry points of group :data:`GROUP`), in their order.

    Returns
    -------
    tuple of Paper
        By ``order``, then key, each after the papers it needs.

    Raises
    ------
    DeclarationError
        No paper is installed (the package's metadata is missing or stale); an entry point
        does not load or is not a :class:`Paper`; two distributions declare the same key; a
        paper needs one that is not installed, or papers need each other.
    """
    papers: dict[str, Paper] = {}
    entries = entry_points(group=GROUP)
    if not entries:  # this package declares its own papers: its metadata is missing or stale
        raise DeclarationError(f"no paper is installed (entry-point group {GROUP}): reinstall the package "
                               "(make setup, or pip install -e .)")
    for entry in entries:
        paper = _load(entry)
        if paper.key in papers and papers[paper.key] is not paper:
            raise DeclarationError(f"paper {paper.key}: declared twice (two installed distributions)")
        papers[paper.key] = paper
    return _ordered(list(papers.values()))


def keys() -> list[str]:
    """The keys of the declared papers, in their order (:func:`declared`)."""
    return [p.key for p in declared()]


def get(key: str) -> Paper:
    """The declared paper ``key``.

    Raises
    ------
    KeyError
        No installed paper has that key.
    """
    for paper in declared():
        if paper.key == key:
            return paper
    raise KeyError(f"no installed paper {key!r} (installed: {', '.join(keys()) or 'none'})")


def present(config: Mapping) -> tuple[Paper, ...]:
    """The declared papers with a section in ``config``, in their order."""
    return tuple(p for p in declared() if p.key in config)


def selected(config: Mapping) -> tuple[Paper, ...]:
    """The papers a run of ``config`` runs, in their order: those its ``papers`` lists, else
    every paper with a section.

    A listed paper must have a section, and a paper it needs that has one must be listed
    too (its rules read that paper's outputs). ``papers`` itself is checked by the schema
    (a list of declared keys).

    Parameters
    ----------
    config : collections.abc.Mapping
        The configuration, validated by the schema.

    Returns
    -------
    tuple of Paper
        The papers to run.

    Raises
    ------
    ConfigError
        One line naming ``papers`` and the key at fault.
    """
    chosen = config.get("papers")
    if chosen is None:
        return present(config)
    for k, key in enumerate(chosen):
        if key not in config:
            raise ConfigError(f"config: papers[{k}] = {key!r}: the configuration has no section {key}")
    picked = tuple(p for p in declared() if p.key in chosen)
    for paper in picked:
        missing = [need for need in paper.needs if need in config and need not in chosen]
        if missing:
            raise ConfigError(f"config: papers: {paper.key} reads the outputs of {', '.join(missing)}: list "
                              f"{'them' if len(missing) > 1 else 'it'} too")
    return picked

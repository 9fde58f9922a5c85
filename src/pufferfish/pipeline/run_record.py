"""What ``results/provenance.json`` records of a run beyond the outputs' hashes, each derived
rather than listed by hand (:mod:`pufferfish.pipeline.report` writes the record):

* :func:`job_outputs`: every file the jobs of a run write, from the workflow's rules: each final
  target and every other output of the job that makes it (an audit table written beside a
  figure, the CDF table beside a transport plan), so that every file a table, a figure or the
  summary is computed from is hashed;
* :func:`imported_distributions`: every installed distribution the package imports (found in
  its source, lazy imports inside functions included) or that runs it (``snakemake``), with
  every distribution those require in turn (their ``Requires-Dist``, markers evaluated), and
  its version;
* :func:`dataset_retrieval`: where a dataset's bytes were read (``read_from`` of its record in
  ``data/raw/``: the URL, or the mirror's path) and when (the cached table's modification time).
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterable
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

__all__ = ["job_outputs", "imported_distributions", "dataset_retrieval", "RUNNER", "RUN_SPECIFIC"]

#: the distribution that runs the package's jobs (the workflow's engine)
RUNNER = "snakemake"
#: the fields of a dataset's provenance that describe this run's retrieval, not the data: they
#: differ between two runs that read the same bytes from different mirrors or at other times
RUN_SPECIFIC = ("read_from", "retrieved")


def job_outputs(targets: Iterable[str], rules) -> list[str]:
    """Every output under ``results/`` of the jobs that make ``targets`` (sorted, unique).

    For each target, each rule that produces it (``rule.is_producer``) is expanded with the
    target's wildcards, and all of that rule's outputs are listed (logs are not outputs).
    """
    found: set[str] = set()
    for target in targets:
        found.add(str(target))
        for rule in rules:
            if not rule.is_producer(target):
                continue
            outputs, _ = rule.expand_output(rule.get_wildcards(target))
            found.update(str(o) for o in outputs)
    return sorted(f for f in found if f.startswith("results/"))


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b|import[ \t]+([\w., \t]+))", re.M)


def _imported_modules(package_dir: Path) -> set[str]:
    """The top-level names of every module imported anywhere in the source under ``package_dir``
    (``import a.b, c`` and ``from a.b import x`` statements, at any indentation: lazy imports inside
    functions count; relative imports and the standard library do not)."""
    names: set[str] = set()
    for path in sorted(package_dir.rglob("*.py")):
        for match in _IMPORT.finditer(path.read_text(encoding="utf-8")):
            if match.group(1):
                names.add(match.group(1))
            else:
                names.update(part.split()[0].split(".")[0] for part in match.group(2).split(",") if part.split())
    return names - set(sys.stdlib_module_names)


def _required(distribution: str) -> list[str]:
    """The distributions ``distribution`` requires on this interpreter (extras left out)."""
    from packaging.requirements import InvalidRequirement, Requirement

    out = []
    for text in metadata.requires(distribution) or []:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            out.append(requirement.name)
    return out


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def imported_distributions(runners: tuple[str, ...] = (RUNNER,)) -> dict[str, str]:
    """``{distribution: version}`` of every installed distribution the run imports, sorted by name.

    The start: the distribution of this package itself, those that provide a module its source
    imports (``importlib.metadata.packages_distributions``) and the ``runners``; then, until
    nothing is added, every distribution one of them requires. A requirement that is not
    installed (an optional one) is not imported, and not listed.
    """
    return dict(_versions(tuple(runners)))


@functools.lru_cache(maxsize=4)
def _versions(runners: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """:func:`imported_distributions`, computed once a process (reading every installed
    distribution's metadata takes seconds)."""
    package_dir = Path(__file__).resolve().parents[1]          # src/pufferfish
    providers = metadata.packages_distributions()
    own = package_dir.name
    todo = [d for name in sorted(_imported_modules(package_dir) - {own}) for d in providers.get(name, [])]
    todo += list(providers.get(own, [])) + list(runners)
    versions: dict[str, str] = {}
    while todo:
        name = todo.pop()
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        key = _key(dist.metadata["Name"])
        if key in versions:
            continue
        versions[key] = dist.version
        todo.extend(_required(name))
    return tuple(sorted(versions.items()))


def dataset_retrieval(record: dict, record_path: str | Path) -> dict:
    """Where and when the bytes of a dataset were read: ``read_from`` (its record's: ``network``, read
    from its url, or the path of the file in the mirror) and ``retrieved`` (UTC, ISO 8601 to the second: the modification time of
    the cached table ``data/raw/<dataset>.csv`` beside the record, written when it was read;
    ``None`` if that file is not there)."""
    table = Path(record_path).with_suffix(".csv")
    try:
        stamp = datetime.fromtimestamp(table.stat().st_mtime, tz=timezone.utc)
        retrieved = stamp.replace(microsecond=0).isoformat().replace("+00:00", "Z")
    except OSError:
        retrieved = None
    return {"read_from": record.get("read_from"), "retrieved": retrieved}

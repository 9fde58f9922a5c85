"""Reviewers' view: the audit summary, the paper-versus-reproduction table, provenance.

* :func:`audit_summary` folds every ``results/audit/*.csv`` (both papers share its columns)
  into one row per (experiment, panel, method).
* :func:`reproduction_table` compares every number the papers state (declared, with the
  reason for any expected difference, in each paper's ``paper_values`` file, e.g.
  ``workflow/report/paper_values/<paper>.yaml``) with the value read off our outputs.
* :func:`provenance` records package versions, the git commit, a hash of the resolved
  config, each dataset's source, where and when its bytes were read, sha256 and row count,
  and the sha256 of every output of the run; the workflow writes it after all of them. Its
  only times are the datasets' retrieval times, so reruns on the same cached data give the
  same bytes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import platform
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: pandas is imported where it is used
    import pandas as pd

from pufferfish.errors import ConfigError

__all__ = ["audit_summary", "SUMMARY_COLUMNS", "AUDIT_REQUIRED", "reproduction_table", "REPRODUCTION_COLUMNS",
           "STRENGTHS", "VERDICTS", "check_paper_value", "provenance", "PROVENANCE_FIELDS", "config_hash",
           "git_state_key", "provenance_summary", "violation_lines", "audit_violations", "NOT_COMPUTED",
           "file_sha256", "producible"]

log = logging.getLogger("pufferfish")

SUMMARY_COLUMNS = ["experiment", "panel", "method", "claimed", "rows", "max_epsilon_ratio", "max_delta_ratio",
                   "min_scale_ratio", "max_scale_ratio", "noise_free_rows", "violations", "max_renyi_ratio",
                   "baseline_failures", "verdict"]
#: the ``verdict`` of a summary row: no flagged row; only flagged rows of a baseline shown on purpose
#: to fail (``claimed`` False); flagged rows the project claims
VERDICTS = ("holds", "baseline fails, as expected", "violated")
#: the columns :func:`audit_summary` reads from every audit table (the shared audit schema has these
#: and more: ``noise``, ``guarantee``, ``alpha``, ``renyi_achieved``, ``claimed``, which are read
#: where present)
AUDIT_REQUIRED = ["experiment", "panel", "method", "epsilon", "delta", "scale", "epsilon_achieved", "delta_achieved",
                  "scale_min", "violation"]
REPRODUCTION_COLUMNS = ["source", "item", "paper_value", "our_value", "status", "strength", "note"]
#: what a match of a paper value shows (``strength`` of every item of a paper's values file):
#: ``printed``, a number the paper prints, ours computed from the paper's priors or the data;
#: ``derived``, no number printed: the paper's closed form evaluated by hand, or a claim it states
#: made a count of exceptions; ``by construction``, a match that follows from the inputs whatever
#: the method computes (0 = 0, a CDF of 1, an input itself, a range declared in config.yaml, an
#: axis maximum max|t| / epsilon)
STRENGTHS = ("printed", "derived", "by construction")
#: what each field of ``results/provenance.json`` holds (written into the record itself, as ``fields``)
PROVENANCE_FIELDS = {
    "fields": "this description of the fields",
    "python": "the version of the Python interpreter that wrote the record",
    "packages": "every installed distribution the run imports, with its version: those providing a module the "
                "package's source imports, the package itself and snakemake, which runs it, and every distribution "
                "they require in turn (pufferfish.pipeline.run_record.imported_distributions)",
    "git": "the commit checked out and whether tracked files were modified (null outside git)",
    "config_sha256": "sha256 of the resolved configuration (config.yaml with any --config/--configfile, the "
                     "schema's defaults filled in) serialised as canonical JSON (sorted keys, separators ',' and "
                     "':', non-JSON values as text): not the sha256 of the bytes of config.yaml "
                     "(pufferfish.pipeline.report.config_hash)",
    "datasets": "per dataset: source, UCI id, url (where the data are published), member, sha256 of the bytes "
                "read and whether it matched a pin, rows, citation; read_from, where this run read the bytes "
                "(network: downloaded from url; else the path of the file in the mirror UCI_MIRROR), and retrieved, when (UTC: the modification time "
                "of the cached table data/raw/<dataset>.csv)",
    "outputs_sha256": "sha256 of every file the run's jobs wrote under results/: each final target and every "
                      "other output of the job that makes it (pufferfish.pipeline.run_record.job_outputs), "
                      "logs, the report and this record aside",
}


# ------------------------------------------------------------------------------ audit summary
def _ratio(num: pd.Series, den: pd.Series) -> pd.Series:
    """num / den with x/0 = inf (x > 0) and 0/0 = 1 (both zero: no loss against a zero target)."""
    import numpy as np
    num, den = num.astype(float), den.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    out[(num == 0) & (den == 0)] = 1.0
    return out


def _scale_ratio(scale: pd.Series, scale_min: pd.Series) -> pd.Series:
    """scale / scale_min where the tight scale is positive; empty (NaN) where it is 0 (no noise is
    needed: any scale attains the target, and a ratio to 0 says nothing) or not computed."""
    import numpy as np
    scale, scale_min = scale.astype(float), scale_min.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (scale / scale_min).where(scale_min > 0)


def _flags(column: pd.Series) -> pd.Series:
    """The ``violation`` column as booleans, whether pandas read it as bool or as text."""
    return column.astype(str).str.lower().isin(["true", "1"])


def _claimed(data: pd.DataFrame) -> pd.Series:
    """The ``claimed`` column as booleans: False only where a table says so (a baseline shown on
    purpose to fail, e.g. an accountant that treats correlated records as independent); rows of tables
    without it are claimed."""
    if "claimed" not in data.columns:
        import pandas as pd
        return pd.Series(True, index=data.index)
    return ~data["claimed"].astype(str).str.lower().isin(["false", "0"])


def _column(data: pd.DataFrame, name: str) -> pd.Series:
    """A column of the audit tables, all missing where no table has it (e.g. ``renyi_achieved``)."""
    import numpy as np
    import pandas as pd

    return data[name] if name in data.columns else pd.Series(np.nan, index=data.index)


def _guarantees(data: pd.DataFrame) -> pd.Series:
    """The guarantee each audit row is checked against: its ``guarantee`` column where written,
    else ``epsilon_delta`` when it has a delta and ``epsilon`` otherwise (the tables of paper 004)."""
    import numpy as np
    import pandas as pd

    inferred = pd.Series(np.where(_column(data, "delta").isna(), "epsilon", "epsilon_delta"), index=data.index)
    return _column(data, "guarantee").fillna(inferred).astype(str)


def audit_summary(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """One row per (experiment, panel, method, claimed) of the audit tables.

    Parameters
    ----------
    frames
        Audit tables, each with at least the columns :data:`AUDIT_REQUIRED` (every table of the
        shared audit schema has them); ``guarantee``, ``renyi_achieved`` and ``claimed`` are read
        where present.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUMMARY_COLUMNS`: ``claimed`` (False for a baseline shown on purpose to
        fail; rows of a table without the column are claimed); ``rows``;
        ``max_epsilon_ratio`` = max epsilon_achieved / epsilon over rows whose target is pure
        epsilon; ``max_delta_ratio`` = max delta_achieved / delta over (epsilon, delta) rows;
        ``max_renyi_ratio`` = max renyi_achieved / epsilon over Renyi rows (D_alpha <= epsilon);
        each row is compared with its own guarantee only (a ratio of another guarantee is
        empty). ``min_scale_ratio`` / ``max_scale_ratio`` = min / max of scale / scale_min (the
        smallest scale of the same noise and guarantee: theta_min, b_min, sigma_min, gamma_min)
        over the rows whose tight scale is positive; ``noise_free_rows`` = rows whose tight
        scale is 0 (the secret pair's priors meet the target without noise: no ratio there, and
        both scale ratios are empty when every row is such); ``violations`` = rows flagged by
        the audit among the claimed rows; ``baseline_failures`` = flagged rows of a baseline
        (``claimed`` False: e.g. an accountant that treats correlated records as independent, a
        closed form audited on the data's own conditionals), which are not the project's violations but are counted,
        never hidden; ``verdict`` (:data:`VERDICTS`): ``violated`` where ``violations`` > 0, else
        ``baseline fails, as expected`` where ``baseline_failures`` > 0, else ``holds``.

    Raises
    ------
    DataError
        No table, or a table without one of :data:`AUDIT_REQUIRED` (named).
    """
    import numpy as np
    import pandas as pd

    from pufferfish.errors import DataError
    if not frames:
        raise DataError("audit summary: no audit table")
    for k, frame in enumerate(frames):
        missing = [c for c in AUDIT_REQUIRED if c not in frame.columns]
        if missing:
            raise DataError(f"audit summary: audit table {k + 1} of {len(frames)} has no column(s) {', '.join(missing)}")
    data = pd.concat(frames, ignore_index=True)
    data["panel"] = data["panel"].fillna("").astype(str)
    guarantee = _guarantees(data)
    data["epsilon_ratio"] = np.where(guarantee == "epsilon", _ratio(data["epsilon_achieved"], data["epsilon"]), np.nan)
    data["delta_ratio"] = np.where(guarantee == "epsilon_delta", _ratio(data["delta_achieved"], data["delta"]), np.nan)
    data["renyi_ratio"] = np.where(guarantee == "renyi", _ratio(_column(data, "renyi_achieved"), data["epsilon"]),
                                   np.nan)
    data["scale_ratio"] = _scale_ratio(data["scale"], data["scale_min"])
    data["noise_free"] = data["scale_min"].astype(float) == 0
    flagged, claimed = _flags(data["violation"]), _claimed(data)
    data["claimed"] = claimed
    data["violation"] = flagged & claimed
    data["baseline_failure"] = flagged & ~claimed
    grouped = data.groupby(["experiment", "panel", "method", "claimed"], sort=False)
    out = grouped.agg(rows=("method", "size"), max_epsilon_ratio=("epsilon_ratio", "max"),
                      max_delta_ratio=("delta_ratio", "max"), min_scale_ratio=("scale_ratio", "min"),
                      max_scale_ratio=("scale_ratio", "max"), noise_free_rows=("noise_free", "sum"),
                      violations=("violation", "sum"), max_renyi_ratio=("renyi_ratio", "max"),
                      baseline_failures=("baseline_failure", "sum")).reset_index()
    for column in ("noise_free_rows", "violations", "baseline_failures"):
        out[column] = out[column].astype(int)
    holds, baseline_fails, violated = VERDICTS
    out["verdict"] = np.select([out["violations"] > 0, out["baseline_failures"] > 0], [violated, baseline_fails],
                               default=holds)
    return out[SUMMARY_COLUMNS]


def violation_lines(summary: pd.DataFrame) -> list[str]:
    """One ``WARNING`` line per (experiment, panel, method) with violations, then one ``NOTE`` line
    per baseline that fails as shown on purpose (``baseline_failures``, see :func:`audit_summary`)."""
    def ratio(row) -> float:
        ratios = [row.get(c, math.nan) for c in ("max_delta_ratio", "max_renyi_ratio", "max_epsilon_ratio")]
        return max((r for r in ratios if r == r), default=math.nan)  # skip NaN (r != r)

    def where(row) -> str:
        return f"{row['experiment']}" + (f" [{row['panel']}]" if row["panel"] == row["panel"] and row["panel"] else "")

    lines = []
    for row in summary[summary.violations > 0].to_dict("records"):
        lines.append(f"WARNING: {where(row)}: {row['method']} violates its target in {row['violations']} of "
                     f"{row['rows']} rows (achieved/target up to {ratio(row):.6g}); "
                     f"see results/audit/{row['experiment']}.csv")
    failures = summary["baseline_failures"] if "baseline_failures" in summary.columns else None
    if failures is not None:
        for row in summary[failures.fillna(0) > 0].to_dict("records"):
            lines.append(f"NOTE: {where(row)}: baseline {row['method']} (not claimed by the project) misses its "
                         f"target in {int(row['baseline_failures'])} of {row['rows']} rows, as the audit shows; "
                         f"see results/audit/{row['experiment']}.csv")
    return lines


# ------------------------------------------------------------------------------ reproduction
def _read(path: Path, cache: dict) -> pd.DataFrame:
    import pandas as pd
    if path not in cache:
        if path.suffix == ".json":
            with open(path, encoding="utf-8") as handle:
                cache[path] = pd.json_normalize(json.load(handle))
        else:
            cache[path] = pd.read_csv(path, keep_default_na=False, na_values=[""], float_precision="round_trip")
    return cache[path]


class NotComputed(Exception):
    """A paper value whose counterpart this run does not compute; ``str(err)`` says why."""


def _select(spec: Mapping, root: Path, cache: dict) -> float:
    """The number an item of a paper's values file points at in our outputs.

    ``file`` (CSV or JSON under ``root``), optional ``where`` (column -> value filters,
    compared as text; a list of values keeps the rows with any of them), ``expr`` (a pandas
    expression of the columns, default the ``column``) and ``reduce`` (``single`` (default),
    ``max``, ``min``, ``range`` (max - min), ``sum``, ``count``, ``len``).
    Raises :class:`NotComputed` when a ``where`` value is in no row (e.g. an epsilon that
    the experiment's grid no longer holds), :class:`ConfigError` when the item itself is
    wrong (a column the file does not have, several values for ``single``).
    """
    import pandas as pd
    frame = _read(root / spec["file"], cache)
    for column, value in spec.get("where", {}).items():
        if column not in frame.columns:
            raise ConfigError(f"paper_values: {spec['file']} has no column {column!r}")
        wanted = [str(v) for v in value] if isinstance(value, list) else [str(value)]
        selected = frame[frame[column].astype(str).isin(wanted)]
        if selected.empty and spec.get("reduce", "single") not in ("sum", "count"):
            raise NotComputed(f"no row of {spec['file']} has {column} = {value} (not in this run's grid or panels)")
        frame = selected
    reduce = spec.get("reduce", "single")
    if reduce == "count":
        return float(len(frame))
    if reduce == "len":  # length of a list-valued field (e.g. the columns of a dataset record)
        return float(len(frame[spec["column"]].iloc[0]))
    values = frame.eval(spec["expr"]) if "expr" in spec else frame[spec["column"]]
    values = pd.to_numeric(pd.Series(values), errors="coerce").dropna()
    if reduce == "sum":  # nothing selected sums to 0 (e.g. a zero entry of a sparse plan)
        return float(values.sum())
    if values.empty:
        raise ConfigError(f"paper_values: nothing selected by {dict(spec)!r}")
    if reduce == "range":
        return float(values.max() - values.min())
    if reduce == "single":
        if len(values) != 1:
            raise ConfigError(f"paper_values: {dict(spec)!r} selects {len(values)} values, expected one")
        return float(values.iloc[0])
    return float(getattr(values, reduce)())


#: the status of a paper value whose counterpart this run does not compute
NOT_COMPUTED = "not computed"


def reproduction_table(items: Sequence[Mapping], root: str | Path = ".",
                       produced: Sequence[str] | None = None) -> pd.DataFrame:
    """Compare each paper value with ours: ``match`` within the item's tolerance, else ``differs``.

    Every ``differs`` must carry the item's one-line ``note`` (a misprint, unstated
    parameters, another dataset version...): an unexplained difference is logged as a
    warning and written with the note ``UNEXPLAINED``. An item this run does not compute
    is ``not computed``, with the reason as its note, never a failure: its file is not
    among ``produced`` (the outputs this config makes; ``None``: every file is), or its
    ``where`` selects no row (e.g. the epsilon it is stated at is no longer in the
    experiment's grid). Each row carries the item's ``strength`` (:data:`STRENGTHS`: what a
    match shows); an item without a valid one raises :class:`ConfigError` naming it.
    """
    import pandas as pd
    rows, cache = [], {}
    produced = None if produced is None else {str(Path(p)) for p in produced}
    for item in items:
        check_paper_value(item)
        paper = float(item["paper_value"])
        file = item["ours"]["file"]
        strength = item["strength"]
        try:
            if produced is not None and str(Path(file)) not in produced:
                raise NotComputed(f"{file} is not made by this config")
            ours = _select(item["ours"], Path(root), cache)
        except NotComputed as reason:
            log.warning("reproduction: %s / %s not computed: %s", item["source"], item["item"], reason)
            rows.append({"source": item["source"], "item": item["item"], "paper_value": _fmt(paper), "our_value": math.nan,
                         "status": NOT_COMPUTED, "strength": strength, "note": str(reason)})
            continue
        tol = float(item.get("tolerance", 0.0))
        bound = tol * (abs(paper) if item.get("relative", False) else 1.0)
        status = "match" if abs(ours - paper) <= bound else "differs"
        note = item.get("note", "")
        if status == "differs" and not note:
            note = "UNEXPLAINED"
            log.warning("reproduction: %s / %s differs (paper %s, ours %s) with no explanation",
                        item["source"], item["item"], paper, ours)
        rows.append({"source": item["source"], "item": item["item"], "paper_value": _fmt(paper),
                     "our_value": _fmt(ours), "status": status, "strength": strength,
                     "note": note if status == "differs" or note else ""})
    return pd.DataFrame(rows, columns=REPRODUCTION_COLUMNS)


def check_paper_value(item: Mapping) -> None:
    """An item of a paper's values file has what the table needs: ``source``, ``item``, a numeric
    ``paper_value``, ``ours`` with a ``file`` and a ``strength`` among :data:`STRENGTHS`.

    Raises
    ------
    ConfigError
        One line naming the item and the key that is missing or wrong.
    """
    name = f"paper_values: {item.get('source', '?')} / {item.get('item', '?')}" if isinstance(item, Mapping) \
        else f"paper_values: {item!r}"
    if not isinstance(item, Mapping):
        raise ConfigError(f"{name}: an item must be a mapping")
    for key in ("source", "item", "paper_value", "ours", "strength"):
        if key not in item:
            raise ConfigError(f"{name}: no {key!r}")
    if not isinstance(item["ours"], Mapping) or "file" not in item["ours"]:
        raise ConfigError(f"{name}: 'ours' needs a 'file'")
    if item["strength"] not in STRENGTHS:
        raise ConfigError(f"{name}: strength {item['strength']!r} is not one of {', '.join(STRENGTHS)}")
    value = item["paper_value"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{name}: paper_value {value!r} is not a finite number")


def _fmt(value: float):
    return int(value) if float(value).is_integer() and abs(value) < 1e15 else float(f"{value:.10g}")


# ------------------------------------------------------------------------------ provenance
def config_hash(config: Mapping) -> str:
    """sha256 of the resolved config as canonical JSON (sorted keys, separators ``,`` and ``:``,
    non-JSON values as text): a digest of the settings the run used, not of the bytes of
    ``config.yaml`` (the record says so in its ``fields``)."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def git_state(repo: str | Path) -> dict:
    """The commit checked out in ``repo`` and whether tracked files are modified (None outside git)."""
    commit = _git(["rev-parse", "HEAD"], Path(repo))
    status = _git(["status", "--porcelain", "--untracked-files=no"], Path(repo))
    return {"commit": commit, "modified_tracked_files": bool(status) if status is not None else None}


def git_state_key(repo: str | Path) -> str:
    """A short digest of ``git_state(repo)`` (the commit and whether tracked files are modified).

    The provenance rule's rerun trigger: a new commit or a modified tracked file changes it, so
    the record is rewritten; the record itself holds the state at the time the job ran.
    It is a digest, not the state, because Snakemake's report shows a job's params as they are
    when the report is built, which could then contradict the record (the report shows the
    record, read from the file: :func:`provenance_summary`).
    """
    state = json.dumps(git_state(repo), sort_keys=True)
    return hashlib.sha256(state.encode("utf-8")).hexdigest()[:16]


def provenance_summary(path: str | Path) -> dict:
    """What the report shows of a written ``provenance.json``: every key but ``outputs_sha256``,
    which becomes ``outputs`` (the number of files listed). Read from the file the run wrote, so
    that the report and the file cannot disagree.

    Raises
    ------
    OutputError
        The file cannot be read or is not a JSON object.
    """
    from pufferfish.errors import OutputError
    try:
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError) as err:
        raise OutputError(f"provenance: {path} cannot be read: {getattr(err, 'strerror', None) or err}") from None
    if not isinstance(record, dict):
        raise OutputError(f"provenance: {path} is not a JSON object")
    summary = {k: v for k, v in record.items() if k != "outputs_sha256"}
    summary["outputs"] = len(record.get("outputs_sha256") or {})
    return summary


def file_sha256(path: str | Path) -> str:
    """sha256 of the bytes of ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def provenance(*, config: Mapping, dataset_records: Sequence[str | Path], repo: str | Path,
               outputs: Sequence[str | Path] = ()) -> dict:
    """Versions, commit, config hash, dataset checksums and sources and the sha256 of every
    output of this run; the record's ``fields`` say what each field holds (:data:`PROVENANCE_FIELDS`).

    ``outputs`` are the files the run produced (the workflow passes every output of the jobs
    that make its final targets, so the record is written only after all of them exist);
    each must exist, or this raises :class:`~pufferfish.errors.OutputError` naming it: a
    record never lists a file the run did not make. The only times it holds are the
    datasets' ``retrieved``: a rerun that reads the same cached data writes the same bytes.
    """
    from pufferfish.errors import OutputError

    from pufferfish.pipeline.run_record import dataset_retrieval, imported_distributions

    datasets = {}
    for path in dataset_records:
        with open(path, encoding="utf-8") as handle:
            rec = json.load(handle)
        datasets[rec["dataset"]] = {k: rec.get(k) for k in ("source", "uci_id", "url", "member", "sha256",
                                                            "sha256_verified", "rows", "citation")}
        datasets[rec["dataset"]].update(dataset_retrieval(rec, path))
    files = {}
    for path in sorted({str(p) for p in outputs}):
        try:
            files[path] = file_sha256(path)
        except OSError as err:
            raise OutputError(f"provenance: output {path} of this run cannot be read: {err.strerror or err}") from None
    record = {
        "fields": PROVENANCE_FIELDS,
        "python": platform.python_version(),
        "packages": imported_distributions(),
        "git": git_state(repo),
        "config_sha256": config_hash(config),
        "datasets": datasets,
    }
    if files:
        record["outputs_sha256"] = files
    return record


# ------------------------------------------------------------------------------ helpers for the rules
def load_paper_values(paths: str | Path | Sequence[str | Path]) -> list[dict]:
    """The items of one or more paper-values files (each paper's ``paper_values``, in the
    papers' order), each item checked (:func:`check_paper_value`).

    A file is YAML with a list ``items``; an item holds ``source``, ``item`` (what it is),
    ``paper_value`` (the number printed in the paper), ``strength`` (what a match shows, one of
    :data:`STRENGTHS`: ``printed``, the paper prints it and ours is computed from its priors or
    the data; ``derived``, the paper's closed form evaluated by hand or a claim it states made a
    count of exceptions; ``by construction``, a match that follows from the inputs), ``ours``
    (``file`` under the working directory, optional ``where``, then ``column`` or ``expr`` and
    ``reduce``), optional ``tolerance`` (``relative: true``: times the paper's value) and
    ``note`` (the one-line reason when they differ).

    Raises
    ------
    ConfigError
        A file has no ``items`` list, or an item lacks a key or has a bad ``strength``.
    """
    import yaml

    from pufferfish.pipeline.config import SAFE_LOADER
    items = []
    for path in [paths] if isinstance(paths, (str, Path)) else paths:
        with open(path, encoding="utf-8") as handle:
            found = (yaml.load(handle, Loader=SAFE_LOADER) or {}).get("items")  # noqa: S506 (a safe loader)
        if not isinstance(found, list):
            raise ConfigError(f"paper_values: {path} has no list 'items'")
        for item in found:
            check_paper_value(item)
        items.extend(found)
    return items


def paper_value_files(paths: str | Path | Sequence[str | Path]) -> list[str]:
    """Every output file the reproduction table reads (sorted, unique) of :func:`load_paper_values`."""
    return sorted({item["ours"]["file"] for item in load_paper_values(paths)})


def producible(paths: Sequence[str], rules) -> list[str]:
    """The ``paths`` that one of the workflow's ``rules`` makes (an experiment removed from config: none)."""
    return [p for p in paths if any(rule.is_producer(p) for rule in rules)]


def read_violation_lines(summary_csv: str | Path) -> list[str]:
    """:func:`violation_lines` of a written summary (nothing if it does not exist)."""
    if not Path(summary_csv).exists():
        return []
    from pufferfish.files import read_table
    return violation_lines(read_table(summary_csv))


def audit_violations(audit_csv: str | Path) -> list[str]:
    """One line per row of an audit table whose scale misses its target (for figure captions).

    Each line names the method, the panel (if any), the target (ε; ε and δ; or α and ε, in the
    report's Unicode) and what the scale achieves, e.g. ``lemma6 at ε = 0.1: exact loss 0.12``.
    """
    from pufferfish.files import read_table
    table = read_table(audit_csv)
    lines = []
    table = table.assign(guarantee=_guarantees(table), claimed=_claimed(table))
    for row in table[_flags(table["violation"])].to_dict("records"):
        where = f" (panel {row['panel']})" if row["panel"] else ""
        where += "" if row["claimed"] else " (baseline, not claimed)"
        if row["guarantee"] == "epsilon_delta":
            target = (f"(ε, δ) = ({_fmt(row['epsilon'])}, {_fmt(row['delta'])}): "
                      f"exact δ {_fmt(row['delta_achieved'])}")
        elif row["guarantee"] == "renyi":
            target = (f"(α, ε) = ({_fmt(row['alpha'])}, {_fmt(row['epsilon'])}): "
                      f"exact D_α {_fmt(row['renyi_achieved'])}")
        else:
            target = f"ε = {_fmt(row['epsilon'])}: exact loss {_fmt(row['epsilon_achieved'])}"
        lines.append(f"{row['method']}{where} at {target}")
    return lines


def write_audit_summary(tables: Sequence[str | Path], out: str | Path) -> pd.DataFrame:
    """Step ``audit_summary``: :func:`audit_summary` of every table the workflow lists in
    ``AUDIT_TABLES`` (a table without one of :data:`AUDIT_REQUIRED` is a DataError naming it)."""
    from pufferfish.errors import DataError
    from pufferfish.files import read_table, write_csv
    frames = [read_table(t) for t in tables]
    for path, frame in zip(tables, frames):
        missing = [c for c in AUDIT_REQUIRED if c not in frame.columns]
        if missing:
            raise DataError(f"audit summary: {path} is not an audit table: no column(s) {', '.join(missing)}")
    summary = audit_summary(frames)
    for line in violation_lines(summary):
        if line.startswith("NOTE: "):
            log.info(line.removeprefix("NOTE: "))
        else:
            log.warning(line.removeprefix("WARNING: "))
    write_csv(summary, out)
    return summary


def write_reproduction(values_yaml: str | Path | Sequence[str | Path], out: str | Path, root: str | Path = ".",
                       produced: Sequence[str] | None = None) -> pd.DataFrame:
    """Step ``reproduction``: the items of the papers' value files ``values_yaml`` (those of the
    papers the run runs; ``produced``: the files this config makes, see :func:`reproduction_table`)."""
    from pufferfish.files import write_csv
    table = reproduction_table(load_paper_values(values_yaml), root, produced)
    log.info("reproduction: %d items, %d match, %d differ, %d not computed", len(table),
             int((table.status == "match").sum()), int((table.status == "differs").sum()),
             int((table.status == NOT_COMPUTED).sum()))
    write_csv(table, out)
    return table


def write_provenance(*, config: Mapping, dataset_records: Sequence[str | Path], repo: str | Path,
                     out: str | Path, outputs: Sequence[str | Path] = ()) -> dict:
    """Step ``provenance``: written (atomically) after every output it lists."""
    from pufferfish.files import write_json
    record = provenance(config=config, dataset_records=dataset_records, repo=repo, outputs=outputs)
    write_json(record, out)
    return record

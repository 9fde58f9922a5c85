"""What the cached data can tell of config.yaml, checked when the workflow loads, before any job.

Each paper declares what its entries read of a dataset (the ``data_requests(config)`` of its
declaration, :class:`pufferfish.papers.Paper`: a list of
:class:`~pufferfish.settings.DataRequest`); :func:`check_data` checks those of the papers the
run runs, without knowing any paper: every column a request reads exists where the
dataset's columns are known (:func:`known_columns`: the cached table's record, else
``read_csv.names``), and on a cached table that is the one the spec asks for
(:func:`cached_dataset`) each request's reader, the function its job reads the rows with,
runs on them.
Where the data are not cached yet, the jobs make the same checks when they run.

A mistake is a :class:`~pufferfish.errors.ConfigError` of one line naming the config key,
e.g. ``config: <section>.<entry>.given.jobb: no column 'jobb' in dataset bank (columns: ...)``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

from pufferfish import papers
from pufferfish.errors import ConfigError, PufferfishError
from pufferfish.settings import DataRequest

__all__ = ["check_data", "cached_dataset", "known_columns", "data_requests"]

#: the fields of a dataset spec that decide the bytes of data/raw/<dataset>.csv, by source (ucimlrepo, archive)
_SOURCE_FIELDS = (("uci_id",), ("url", "member"))


def cached_dataset(name: str, spec: Mapping, raw_dir: str | Path = "data/raw") -> dict | None:
    r"""The provenance record of ``data/raw/<name>.json`` if the cached table is the one ``spec`` asks for.

    The cache is current when both files exist and the record's source, UCI id, URL,
    member, ``read_csv`` options, row count and pinned sha256 equal the spec's (then the
    download job will not fetch anything else); otherwise ``None``.

    Parameters
    ----------
    name : str
        The dataset's key.
    spec : collections.abc.Mapping
        Its entry of ``datasets``.
    raw_dir : str or pathlib.Path
        The download cache.

    Returns
    -------
    dict or None
        The provenance record, or ``None`` when the cache is absent, unreadable or stale.

    Raises
    ------
    TypeError
        ``raw_dir`` not a path (an unreadable record is ``None``, not an error).
    """
    raw_dir = Path(raw_dir)
    csv, record_path = raw_dir / f"{name}.csv", raw_dir / f"{name}.json"
    if not (csv.is_file() and record_path.is_file()):
        return None
    try:
        with open(record_path, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(record, Mapping):
        return None
    fields = _SOURCE_FIELDS[spec.get("source") == "archive"]
    same = record.get("source") == spec.get("source") and all(record.get(k) == spec.get(k) for k in fields)
    same = same and dict(record.get("read_csv") or {}) == dict(spec.get("read_csv") or {})
    same = same and record.get("rows") == spec.get("rows")
    same = same and (record.get("sha256_expected") or "").lower() == (spec.get("sha256") or "").lower()
    return dict(record) if same and isinstance(record.get("columns"), list) else None


def known_columns(name: str, spec: Mapping, raw_dir: str | Path = "data/raw") -> list[str] | None:
    r"""Every column the table of dataset ``name`` will have, when it is known before any job.

    From the cached table's record (:func:`cached_dataset`), else from ``read_csv.names``
    (archive sources name their columns in config); ``None`` when only the download can tell.

    Parameters
    ----------
    name : str
        The dataset's key in ``datasets``.
    spec : collections.abc.Mapping
        The dataset's spec.
    raw_dir : str or pathlib.Path
        Where the download job caches its tables.

    Returns
    -------
    list of str or None
        The columns, or ``None`` when only the download can tell.

    Raises
    ------
    TypeError
        As :func:`cached_dataset`.
    """
    record = cached_dataset(name, spec, raw_dir)
    if record is not None:
        return [str(c) for c in record["columns"]]
    names = (spec.get("read_csv") or {}).get("names")
    usecols = (spec.get("read_csv") or {}).get("usecols")
    if isinstance(names, list) and usecols is None:
        return [str(c) for c in names]
    return None


def data_requests(config: Mapping) -> list[DataRequest]:
    r"""Every data request of the validated ``config``: those of each paper the run runs
    (``data_requests`` of its declaration, :func:`pufferfish.papers.selected`), in the papers' order.

    Parameters
    ----------
    config : collections.abc.Mapping
        The whole configuration, validated.

    Returns
    -------
    list of pufferfish.settings.DataRequest
        Every selected paper's requests, in the papers' order.

    Raises
    ------
    KeyError
        A section the schema would have completed is missing (pass a validated config).
    """
    return [request for paper in papers.selected(config) if paper.data_requests is not None
            for request in paper.data_requests(config)]


def check_data(config: Mapping, raw_dir: str | Path = "data/raw") -> None:
    r"""What can be checked of the data before any job runs (called by the workflow after
    :func:`pufferfish.pipeline.config.load_settings`).

    * every column a dataset declares in ``columns`` is in its cached table;
    * every column a request reads (:func:`data_requests`) exists, where the dataset's
      columns are known (:func:`known_columns`);
    * on a cached table, every request's reader accepts the rows: the function its job reads
      them with (conditioning values that match some row, encodings that fit, enough numeric rows).

    Parameters
    ----------
    config : collections.abc.Mapping
        The whole configuration, validated (:func:`pufferfish.pipeline.config.load_settings`).
    raw_dir : str or pathlib.Path
        Where the download job caches ``<dataset>.csv`` and its record ``<dataset>.json``.

    Returns
    -------
    None
        Everything checkable before the jobs holds.

    Raises
    ------
    ConfigError
        One line naming the config key and what the data say.
    """
    datasets = config.get("datasets", {})
    for name, spec in datasets.items():
        record = cached_dataset(name, spec, raw_dir)
        if record is not None:
            present = set(map(str, record["columns"]))
            for k, column in enumerate(spec.get("columns", [])):
                if str(column) not in present:
                    raise ConfigError(f"config: datasets.{name}.columns[{k}] = {column!r}: not a column of the cached "
                                      f"{Path(raw_dir) / name}.csv (columns: {', '.join(record['columns'])})")
    requests = data_requests(config)
    for request in requests:
        columns = known_columns(request.dataset, datasets[request.dataset], raw_dir)
        if columns is None:
            continue
        for key, column in request.columns:
            if str(column) not in columns:
                raise ConfigError(f"config: {key}: no column {column!r} in dataset {request.dataset} "
                                  f"(columns: {', '.join(columns)})")
    _check_rows([r for r in requests if cached_dataset(r.dataset, datasets[r.dataset], raw_dir)], raw_dir)


def _check_rows(requests: Sequence[DataRequest], raw_dir) -> None:
    """Each request's reader on its cached table, read as its job reads it (``low_memory``);
    only the columns some request reads (a column's values do not depend on the others)."""
    usecols: dict[tuple, set] = defaultdict(set)
    for request in requests:
        usecols[(request.dataset, request.low_memory)].update(str(column) for _, column in request.columns)
    frames: dict[tuple, object] = {}
    for request in requests:
        key = (request.dataset, request.low_memory)
        frame = _cached_frame(request.dataset, raw_dir, frames, low_memory=request.low_memory, usecols=usecols[key])
        if frame is None:
            continue
        try:
            request.reader(frame, **request.arguments)
        except PufferfishError as err:
            message = str(err).splitlines()[0] if str(err) else type(err).__name__
            message = message.removeprefix("config: ").removeprefix(request.label).removeprefix(":").strip()
            raise ConfigError(f"config: {request.where}: {message}") from None


def _cached_frame(name: str, raw_dir, frames: dict, *, low_memory: bool, usecols=None):
    import pandas as pd

    key = (name, low_memory)
    if key not in frames:
        try:
            frames[key] = pd.read_csv(Path(raw_dir) / f"{name}.csv", low_memory=low_memory,
                                      usecols=sorted(usecols) if usecols else None)
        except (OSError, ValueError, pd.errors.ParserError):  # unreadable: the job will say so
            frames[key] = None
    return frames[key]

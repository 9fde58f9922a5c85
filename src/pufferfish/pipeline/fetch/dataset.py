"""One dataset of ``config.yaml`` from its source to ``data/raw/``: read, capped, verified,
parsed, checked, written.

The steps, each in its module: the bytes of the spec's source are streamed to a scratch
directory beside the cache (:mod:`.stream`), from the mirror (:mod:`.mirror`) or the network
(:mod:`.network`, resolved through UCI's API for ``ucimlrepo``: :mod:`.ucimlrepo_api`), an
archive's member extracted after the zip-bomb check (:mod:`.archive`); their SHA-256 is
checked against the pin or the record (:mod:`.record`); they are parsed and the table checked
(:mod:`.table`); the CSV and the provenance are written atomically, only after every check
has passed. The scratch directory is gone when :func:`fetch_dataset` returns or raises.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pufferfish.errors import ConfigError, DownloadError
from pufferfish.files import atomic_path, remove_quietly, write_csv, write_json
from pufferfish.pipeline.fetch.archive import describe_member, extract_member, member_path
from pufferfish.pipeline.fetch.mirror import MIRROR_ENV, mirror_file, mirror_from_env, stage_mirror_file
from pufferfish.pipeline.fetch.network import NETWORK, Timeouts, stream_url
from pufferfish.pipeline.fetch.record import Provenance, record_path_for, verify_sha256, write_first_record
from pufferfish.pipeline.fetch.stream import SizeCap, Staged, scratch_directory
from pufferfish.pipeline.fetch.table import check_round_trip, check_table, parse_csv
from pufferfish.pipeline.fetch.ucimlrepo_api import mirrored_data_url, ucimlrepo_data_url

__all__ = ["download", "fetch_dataset"]

log = logging.getLogger(__name__)


def download(dataset: str, spec: Mapping, *, csv_path: str | os.PathLike, json_path: str | os.PathLike,
             mirror: str | os.PathLike | None = None, timeouts: Timeouts | None = None,
             record_path: str | os.PathLike | None = None) -> Provenance:
    """Fetch and check ``dataset``, then write its table to ``csv_path`` and provenance to ``json_path``.

    The CSV is the parsed table as ``to_csv(index=False)``, so ``pd.read_csv(csv_path)``
    gives it back (missing values as NaN); this is checked before the file is put in
    place. Both files are written atomically, and only after every check has passed;
    if writing either fails, neither is left behind. The bytes read on the way are
    streamed to a scratch directory in ``csv_path``'s directory, removed before this returns.

    An ``archive`` member without a ``sha256`` pin is checked against, or on its first
    download recorded in, ``record_path`` (:func:`~pufferfish.pipeline.fetch.record.record_path_for`).

    Parameters
    ----------
    dataset : str
        The key of the dataset in ``config["datasets"]`` (used in messages).
    spec : collections.abc.Mapping
        The dataset's entry of ``config["datasets"]``.
    csv_path, json_path : str or os.PathLike
        Where to write the table and its :class:`~pufferfish.pipeline.fetch.record.Provenance`.
    mirror : str or os.PathLike, optional
        A local mirror of archive.ics.uci.edu; ``None``: ``$UCI_MIRROR`` if set, else the network.
    timeouts : Timeouts, optional
        The limits of each network request (``None``: ``$PUFFERFISH_DOWNLOAD_TIMEOUTS`` or the defaults).
    record_path : str or os.PathLike, optional
        The record file of an unpinned member's SHA-256; ``None``:
        :func:`~pufferfish.pipeline.fetch.record.record_path_for` ``(json_path)``.

    Returns
    -------
    Provenance
        The provenance record written to ``json_path``.

    Raises
    ------
    DownloadError, DataError, ConfigError
        See :func:`fetch_dataset`, plus a :class:`~pufferfish.errors.DataError` if the CSV
        would not read back as the parsed table.
    """
    record_path = record_path_for(json_path) if record_path is None else Path(record_path)
    frame, record = fetch_dataset(dataset, spec, mirror=mirror, timeouts=timeouts, record_path=record_path,
                                  scratch=Path(csv_path).parent)
    first_record = record.sha256_record is not None and record.sha256_source is None
    try:
        with atomic_path(csv_path) as tmp:
            write_csv(frame, tmp)
            check_round_trip(dataset, frame, tmp)
        write_json(record.to_dict(), json_path)
        if first_record:
            write_first_record(record, record_path)
    except BaseException:
        remove_quietly(csv_path, json_path)
        raise
    if first_record:
        log.warning("dataset %s: %s is not pinned (no datasets.%s.sha256): recorded its sha256 %s in %s; "
                    "a later download with other bytes is refused", dataset, describe_member(record.member, record.url),
                    dataset, record.sha256, record_path)
    log.info("dataset %s: wrote %s and %s", dataset, csv_path, json_path)
    return record


def fetch_dataset(dataset: str, spec: Mapping, *, mirror: str | os.PathLike | None = None,
                  timeouts: Timeouts | None = None, record_path: str | os.PathLike | None = None,
                  scratch: str | os.PathLike | None = None) -> tuple[pd.DataFrame, Provenance]:
    """Read ``dataset`` as its ``spec`` says, check it, and return the table and its provenance.

    Parameters
    ----------
    dataset : str
        The key of the dataset in ``config["datasets"]`` (used in messages).
    spec : collections.abc.Mapping
        ``source`` (``ucimlrepo`` with ``uci_id``, or ``archive`` with ``url``, ``member``
        (a name, or a list of names into nested zips) and optionally ``sha256``), ``rows``,
        ``columns``, and optionally ``max_bytes`` (the cap of every body and member,
        default 1 GiB), ``read_csv`` and ``citation``.
    mirror : str or os.PathLike, optional
        A local mirror of archive.ics.uci.edu; ``None``: ``$UCI_MIRROR`` if set, else the network.
    timeouts : Timeouts, optional
        The limits of each network request (``None``: ``$PUFFERFISH_DOWNLOAD_TIMEOUTS`` or the defaults).
    record_path : str or os.PathLike, optional
        For an ``archive`` member without a ``sha256`` pin, the record file of its SHA-256:
        if it exists (and names the same URL and member) the bytes must match it, else the
        provenance names it for :func:`download` to write. ``None``: no record is read or
        kept (the member is then not verified at all).
    scratch : str or os.PathLike, optional
        Where the scratch directory of the bytes read is made (``None``: the system's
        temporary directory); it is removed before this returns.

    Returns
    -------
    tuple
        ``(frame, provenance)``: the table (a :class:`pandas.DataFrame`) and its
        :class:`~pufferfish.pipeline.fetch.record.Provenance`.

    Raises
    ------
    DownloadError
        The bytes cannot be obtained (no network, a timeout, not in the mirror, not a zip,
        no such member, a corrupt record file), are over the cap or fail the zip-bomb
        check, or their SHA-256 differs from the pin or from the recorded hash.
    DataError
        The bytes do not parse, or the table has other ``rows`` or lacks some of ``columns``.
    ConfigError
        The spec lacks a key its source needs, ``member`` is malformed, or ``max_bytes`` is
        not an integer >= 1.
    """
    source = _require(dataset, spec, "source")
    rows = _require(dataset, spec, "rows")
    columns = _require(dataset, spec, "columns")
    options = dict(spec.get("read_csv") or {})
    cap = SizeCap.of(dataset, spec)
    root = Path(mirror).resolve() if mirror is not None else mirror_from_env()
    if root is not None and not root.is_dir():
        raise DownloadError(f"dataset {dataset}: {MIRROR_ENV}={root} is not a directory")

    with scratch_directory(scratch, dataset) as work:
        read = _read_source(dataset, spec, source, root=root, timeouts=timeouts, work=work, cap=cap)
        check = verify_sha256(dataset, spec, read.staged.sha256, url=read.url, member=read.member,
                              where=read.where, record_path=record_path)
        log.info("dataset %s: read %d bytes of %s from %s, sha256 %s%s", dataset, read.staged.size, read.where,
                 read.read_from, check.sha256, f" (verified against the "
                 f"{'pin' if check.source == 'config' else 'recorded hash'})" if check.expected else "")
        frame = parse_csv(read.staged.path, read_csv=options, dataset=dataset, where=read.where)
    check_table(dataset, frame, rows=rows, columns=columns)
    record = Provenance(
        dataset=dataset, source=source, url=read.url, uci_id=read.uci_id, member=read.member,
        sha256=check.sha256, sha256_expected=check.expected, sha256_verified=check.expected is not None,
        archive_sha256=read.archive_sha256, read_from=read.read_from, rows=len(frame),
        columns=tuple(str(c) for c in frame.columns), read_csv=options, citation=spec.get("citation"),
        sha256_source=check.source, sha256_record=check.record_file,
    )
    log.info("dataset %s: %d rows x %d columns", dataset, *frame.shape)
    return frame, record


@dataclass(frozen=True)
class _Read:
    """The bytes of a source, staged: what :func:`fetch_dataset` records of them."""

    staged: Staged
    url: str
    where: str
    read_from: str
    uci_id: int | None = None
    member: str | tuple[str, ...] | None = None
    archive_sha256: str | None = None


def _read_source(dataset: str, spec: Mapping, source: str, *, root: Path | None, timeouts: Timeouts | None,
                 work: Path, cap: SizeCap) -> _Read:
    """Stage the bytes a validated ``spec`` names in ``work``: a ``data.csv``, or an archive's member."""
    if source == "ucimlrepo":
        uci_id = _require(dataset, spec, "uci_id")
        url = mirrored_data_url(uci_id) if root is not None else \
            ucimlrepo_data_url(uci_id, dataset=dataset, timeouts=timeouts)
        staged, read_from = _stage_url(dataset, url, work / "data.part", root=root, cap=cap, timeouts=timeouts)
        return _Read(staged, url=url, where=url, read_from=read_from, uci_id=uci_id)
    if source == "archive":
        url = _require(dataset, spec, "url")
        path = member_path(_require(dataset, spec, "member"), dataset=dataset)
        archive, read_from = _stage_url(dataset, url, work / "archive.part", root=root, cap=cap, timeouts=timeouts)
        staged = extract_member(dataset, archive.path, path, scratch=work, cap=cap,
                                where=url if read_from == NETWORK else read_from)
        member = path[0] if len(path) == 1 else path
        return _Read(staged, url=url, where=describe_member(member, url), read_from=read_from, member=member,
                     archive_sha256=archive.sha256)
    raise ConfigError(f"dataset {dataset}: datasets.{dataset}.source = {source!r}: must be one of ucimlrepo, archive")


def _stage_url(dataset: str, url: str, dest: Path, *, root: Path | None, cap: SizeCap,
               timeouts: Timeouts | None) -> tuple[Staged, str]:
    """The bytes of ``url`` in ``dest``, from the mirror ``root`` if set, else the network; and where from."""
    if root is not None:
        path = mirror_file(dataset, root, url)
        return stage_mirror_file(dataset, path, url, dest, cap=cap), str(path)
    return stream_url(url, dest, dataset=dataset, cap=cap, timeouts=timeouts), NETWORK


def _require(dataset: str, spec: Mapping, key: str):
    if spec.get(key) is None:
        raise ConfigError(f"dataset {dataset}: datasets.{dataset}.{key} is missing")
    return spec[key]

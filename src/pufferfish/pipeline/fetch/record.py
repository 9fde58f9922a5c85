"""The dataset record: what a download read and what it was checked against.

:class:`Provenance` is ``data/raw/<dataset>.json``. Checksums: a ``sha256`` in the spec pins
the bytes parsed; without one, an archive member's hash is recorded at its first download in
``data/raw/<dataset>.sha256.json`` (:func:`record_path_for`, trust on first use) and every
later download must match it (:func:`verify_sha256`). The zip itself is not verified (a
mirror may repack it).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pufferfish.errors import ConfigError, DownloadError
from pufferfish.files import write_json
from pufferfish.pipeline.fetch.archive import describe_member, member_path
from pufferfish.pipeline.fetch.messages import one_line

__all__ = ["Provenance", "Verification", "verify_sha256", "write_first_record", "record_path_for",
           "read_recorded_sha256"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Provenance:
    """Where a dataset's table came from and what was checked (``data/raw/{dataset}.json``).

    Attributes:
        dataset: the key of the dataset in ``config["datasets"]``.
        source: ``"ucimlrepo"`` or ``"archive"``.
        url: the URL of the bytes parsed (for ``archive``, of the zip holding ``member``).
        uci_id: the UCI dataset id (``ucimlrepo`` only).
        member: the member of the zip that was parsed (``archive`` only): its name, or
            the list of names from the outer zip down for a member of a nested zip.
        sha256: SHA-256 of the bytes parsed (for ``archive``, of the member).
        sha256_expected: the SHA-256 the bytes were checked against, if any: the pin of
            the spec, or the hash recorded at the first download of an unpinned member.
        sha256_verified: whether ``sha256`` was checked against ``sha256_expected`` (and matched).
        sha256_source: where ``sha256_expected`` came from: ``"config"`` (the spec's pin),
            ``"recorded"`` (the record file of an earlier download), or ``None`` (nothing
            to check against: a ``ucimlrepo`` table, or the first download of an unpinned
            member, whose hash is recorded now).
        sha256_record: the record file of an unpinned ``archive`` member (``None`` when
            pinned, for ``ucimlrepo``, or when no record file is kept).
        archive_sha256: SHA-256 of the whole zip (``archive`` only; a mirror may hold a
            repack, so only the member is pinned).
        read_from: the mirror file read, or ``"network"``.
        rows: number of rows of the table.
        columns: every column of the table, in order.
        read_csv: the ``pandas.read_csv`` options used (empty: pandas' defaults).
        citation: how to cite the dataset (from the spec).
    """

    dataset: str
    source: str
    url: str
    sha256: str
    sha256_verified: bool
    read_from: str
    rows: int
    columns: tuple[str, ...]
    uci_id: int | None = None
    member: str | tuple[str, ...] | None = None
    sha256_expected: str | None = None
    archive_sha256: str | None = None
    read_csv: Mapping = field(default_factory=dict, hash=False)
    citation: str | None = None
    sha256_source: str | None = None
    sha256_record: str | None = None

    def to_dict(self) -> dict:
        """A JSON-ready dict (lists for tuples)."""
        record = asdict(self)
        record["columns"] = list(self.columns)
        record["read_csv"] = dict(self.read_csv)
        if isinstance(self.member, tuple):
            record["member"] = list(self.member)
        return record


@dataclass(frozen=True)
class Verification:
    """The outcome of :func:`verify_sha256` (the fields ``sha256*`` of :class:`Provenance`).

    Attributes:
        sha256: the hash of the bytes.
        expected: the hash they matched, or ``None`` when there was nothing to check against.
        source: ``"config"``, ``"recorded"`` or ``None`` (as ``Provenance.sha256_source``).
        record_file: the record file of an unpinned archive member, or ``None``.
    """

    sha256: str
    expected: str | None
    source: str | None
    record_file: str | None


def verify_sha256(dataset: str, spec: Mapping, digest: str, *, url: str, member, where: str,
                  record_path: str | os.PathLike | None) -> Verification:
    """Check ``digest`` against the spec's pin, or for an unpinned archive member against its record.

    Parameters
    ----------
    dataset : str
        The dataset's key (in messages).
    spec : collections.abc.Mapping
        Its entry of ``config["datasets"]``.
    digest : str
        The lower-case hex SHA-256 of the bytes parsed.
    url : str
        The URL of the bytes (of the zip, for a member).
    member : str or tuple of str or None
        The member (``None`` for ``ucimlrepo``).
    where : str
        The bytes in words (in messages).
    record_path : str or os.PathLike or None
        The record file of an unpinned member (``None``: none is read or kept).

    Returns
    -------
    Verification
        What the bytes matched.

    Raises
    ------
    DownloadError
        The hash differs from the pin or the record, or the record cannot be read.
    """
    expected, pin_source, record_file = spec.get("sha256"), None, None
    if expected is not None:
        expected, pin_source = str(expected).lower(), "config"
    elif member is not None and record_path is not None:
        record_file = str(record_path)
        expected = read_recorded_sha256(record_path, dataset=dataset, url=url, member=member)
        pin_source = "recorded" if expected is not None else None
    if expected is not None and digest != expected:
        origin = (f" (recorded at its first download in {record_file}; pin datasets.{dataset}.sha256 or delete "
                  f"that file to accept the new bytes)") if pin_source == "recorded" else ""
        raise DownloadError(f"dataset {dataset}: sha256 mismatch for {where}: expected {expected}, "
                            f"found {digest}{origin}")
    if member is not None and expected is None and record_path is None:
        log.warning("dataset %s: %s is not pinned (no datasets.%s.sha256) and no record is kept: not verified",
                    dataset, where, dataset)
    return Verification(digest, expected, pin_source, record_file)


def write_first_record(record: Provenance, record_path: str | os.PathLike) -> None:
    """Write the record file of an unpinned member read for the first time (atomically).

    Parameters
    ----------
    record : Provenance
        The download's provenance (its ``url``, ``member`` and ``sha256``).
    record_path : str or os.PathLike
        The record file (:func:`record_path_for`).

    Returns
    -------
    None
        The file is written.

    Raises
    ------
    OutputError
        It cannot be written.
    """
    member = list(record.member) if isinstance(record.member, tuple) else record.member
    write_json({"dataset": record.dataset, "url": record.url, "member": member, "sha256": record.sha256,
                "note": "SHA-256 of the member recorded at its first download (no sha256 pin in the "
                        "config); later downloads must match it. Pin it in config.yaml, or delete this "
                        "file to accept other bytes."}, record_path)


def record_path_for(json_path: str | os.PathLike) -> Path:
    """The record file of an unpinned member's SHA-256 beside its provenance: ``<dir>/<name>.sha256.json``.

    Parameters
    ----------
    json_path : str or os.PathLike
        The provenance file ``<dir>/<name>.json``.

    Returns
    -------
    pathlib.Path
        ``<dir>/<name>.sha256.json``.

    Raises
    ------
    TypeError
        ``json_path`` not a path.
    """
    json_path = Path(json_path)
    return json_path.with_name(json_path.stem + ".sha256.json")


def read_recorded_sha256(record_path: str | os.PathLike, *, dataset: str, url: str, member) -> str | None:
    """The SHA-256 recorded at the first download of ``member`` of ``url``, or ``None`` if there is none.

    A record of another URL or member (the spec changed) does not apply: ``None``, and the
    new member is recorded anew. An unreadable record is a :class:`DownloadError`.

    Parameters
    ----------
    record_path : str or os.PathLike
        The record file.
    dataset : str
        The dataset's key (in messages).
    url : str
        The archive's URL.
    member : str or list of str
        The spec's ``member``.

    Returns
    -------
    str or None
        The recorded lower-case hex SHA-256, or ``None``.

    Raises
    ------
    DownloadError
        The record file exists but cannot be read or parsed.
    """
    path = Path(record_path)
    if not path.exists():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        recorded, digest = (record["url"], member_path(record["member"])), str(record["sha256"]).lower()
    except (OSError, ValueError, KeyError, TypeError, ConfigError) as err:
        raise DownloadError(f"dataset {dataset}: cannot read the recorded sha256 in {path} ({one_line(err)}); "
                            "delete it to record the member anew") from err
    if recorded != (url, member_path(member)):
        log.warning("dataset %s: %s records %s, not %s: recording anew", dataset, path,
                    describe_member(record["member"], record["url"]), describe_member(member, url))
        return None
    return digest

"""Obtain the UCI datasets of ``config.yaml``: download or offline mirror, verify, record.

A dataset spec (a value of ``config["datasets"]``) names where the bytes come from:
``source: ucimlrepo`` (UCI's standardized ``data.csv`` of ``uci_id``, the file
``ucimlrepo.fetch_ucirepo`` reads, its URL resolved through UCI's API as ``fetch_ucirepo``
does, parsed with ``pandas.read_csv``) or ``source: archive`` (the ``member`` of the zip at
``url``, or a list of names for a member of a zip inside the zip, parsed with
``pandas.read_csv(**spec["read_csv"])``). The table is then checked against the spec:
exactly ``rows`` rows and every name of ``columns``; nothing is cleaned or dropped here.

Checksums of an archive member: a ``sha256`` in the spec pins its bytes; without one the
first download records the hash in ``data/raw/<dataset>.sha256.json`` (:func:`record_path_for`,
trust on first use) and every later download must match it. The zip itself is not verified
(a mirror may repack it). If ``UCI_MIRROR`` names a directory laid out like the UCI site,
``https://archive.ics.uci.edu/<path>`` is read from ``$UCI_MIRROR/<path>`` and the network
is never touched. The user's guide: docs/for-researchers.md, "Archive members", and
docs/getting-started.md, "Offline use".

``ucimlrepo.fetch_ucirepo`` itself is not called: it hands the URL straight to
``pandas.read_csv``, so the bytes could not be hashed, pinned or written atomically, a
stalled connection would hang (no timeout), its errors name neither dataset nor URL, and it
cannot read a mirror. This module makes the same two requests with
:func:`urllib.request.urlopen` and a timeout.

Every file is written atomically (:mod:`pufferfish.files`) and only after every check has
passed. The errors a user can fix are :class:`~pufferfish.errors.DownloadError`,
:class:`~pufferfish.errors.DataError` and :class:`~pufferfish.errors.ConfigError`, each one
line starting with ``dataset <name>:``.
"""

from __future__ import annotations

import hashlib
import http.client
import io
import json
import logging
import os
import ssl
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath

import pandas as pd
from ucimlrepo.fetch import API_BASE_URL, DATASET_FILE_BASE_URL

from pufferfish.errors import ConfigError, DataError, DownloadError
from pufferfish.files import atomic_path, remove_quietly, write_csv, write_json

__all__ = [
    "MIRROR_ENV", "UCI_SITE", "DEFAULT_TIMEOUT", "NETWORK", "Provenance",
    "download", "fetch_dataset", "mirror_from_env", "mirror_path", "ucimlrepo_data_url",
    "parse_csv", "check_table", "sha256_hex", "member_path", "describe_member", "record_path_for",
    "read_recorded_sha256",
]

log = logging.getLogger(__name__)

#: environment variable naming a local mirror of archive.ics.uci.edu
MIRROR_ENV = "UCI_MIRROR"
#: the site a mirror stands for; every URL read from a mirror must start with it
UCI_SITE = "https://archive.ics.uci.edu/"
#: seconds a connection may stay silent before the download is given up
DEFAULT_TIMEOUT = 60.0
#: what ``Provenance.read_from`` says when the bytes came over the network
NETWORK = "network"

_WAY_OUT = f"set {MIRROR_ENV} to a local mirror of archive.ics.uci.edu (see README)"


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


# --------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------

def download(dataset: str, spec: Mapping, *, csv_path: str | os.PathLike, json_path: str | os.PathLike,
             mirror: str | os.PathLike | None = None, timeout: float = DEFAULT_TIMEOUT,
             record_path: str | os.PathLike | None = None) -> Provenance:
    """Fetch and check ``dataset``, then write its table to ``csv_path`` and provenance to ``json_path``.

    The CSV is the parsed table as ``to_csv(index=False)``, so ``pd.read_csv(csv_path)``
    gives it back (missing values as NaN); this is checked before the file is put in
    place. Both files are written atomically, and only after every check has passed;
    if writing either fails, neither is left behind.

    An ``archive`` member without a ``sha256`` pin is checked against, or on its first
    download recorded in, ``record_path`` (:func:`record_path_for`).

    Parameters
    ----------
    dataset : str
        The key of the dataset in ``config["datasets"]`` (used in messages).
    spec : collections.abc.Mapping
        The dataset's entry of ``config["datasets"]``.
    csv_path, json_path : str or os.PathLike
        Where to write the table and its :class:`Provenance`.
    mirror : str or os.PathLike, optional
        A local mirror of archive.ics.uci.edu; ``None``: ``$UCI_MIRROR`` if set, else the network.
    timeout : float
        Seconds a network connection may stay silent.
    record_path : str or os.PathLike, optional
        The record file of an unpinned member's SHA-256; ``None``:
        :func:`record_path_for` ``(json_path)``.

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
    frame, record = fetch_dataset(dataset, spec, mirror=mirror, timeout=timeout, record_path=record_path)
    first_record = record.sha256_record is not None and record.sha256_source is None
    try:
        with atomic_path(csv_path) as tmp:
            write_csv(frame, tmp)
            _check_round_trip(dataset, frame, tmp)
        write_json(record.to_dict(), json_path)
        if first_record:
            write_json({"dataset": dataset, "url": record.url, "member": _json_member(record.member),
                        "sha256": record.sha256,
                        "note": "SHA-256 of the member recorded at its first download (no sha256 pin in the "
                                "config); later downloads must match it. Pin it in config.yaml, or delete this "
                                "file to accept other bytes."}, record_path)
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
                  timeout: float = DEFAULT_TIMEOUT,
                  record_path: str | os.PathLike | None = None) -> tuple[pd.DataFrame, Provenance]:
    """Read ``dataset`` as its ``spec`` says, check it, and return the table and its provenance.

    Parameters
    ----------
    dataset : str
        The key of the dataset in ``config["datasets"]`` (used in messages).
    spec : collections.abc.Mapping
        ``source`` (``ucimlrepo`` with ``uci_id``, or ``archive`` with ``url``, ``member``
        (a name, or a list of names into nested zips) and optionally ``sha256``), ``rows``,
        ``columns``, and optionally ``read_csv`` and ``citation``.
    mirror : str or os.PathLike, optional
        A local mirror of archive.ics.uci.edu; ``None``: ``$UCI_MIRROR`` if set, else the network.
    timeout : float
        Seconds a network connection may stay silent.
    record_path : str or os.PathLike, optional
        For an ``archive`` member without a ``sha256`` pin, the record file of its SHA-256:
        if it exists (and names the same URL and member) the bytes must match it, else the
        provenance names it for :func:`download` to write. ``None``: no record is read or
        kept (the member is then not verified at all).

    Returns
    -------
    tuple
        ``(frame, provenance)``: the table (a :class:`pandas.DataFrame`) and its :class:`Provenance`.

    Raises
    ------
    DownloadError
        The bytes cannot be obtained (no network, not in the mirror, not a zip, no such
        member, a corrupt record file) or their SHA-256 differs from the pin or from the
        recorded hash.
    DataError
        The bytes do not parse, or the table has other ``rows`` or lacks some of ``columns``.
    ConfigError
        The spec lacks a key its source needs, or ``member`` is malformed.
    """
    source = _require(dataset, spec, "source")
    rows = _require(dataset, spec, "rows")
    columns = _require(dataset, spec, "columns")
    options = dict(spec.get("read_csv") or {})
    root = Path(mirror).resolve() if mirror is not None else mirror_from_env()
    if root is not None and not root.is_dir():
        raise DownloadError(f"dataset {dataset}: {MIRROR_ENV}={root} is not a directory")

    data, url, uci_id, member, where, read_from, archive_sha256 = _read_source(
        dataset, spec, source, root=root, timeout=timeout)
    digest, expected, pin_source, record_file = _verify(dataset, spec, source, data, url=url, member=member,
                                                        where=where, record_path=record_path)
    log.info("dataset %s: read %d bytes of %s from %s, sha256 %s%s", dataset, len(data), where, read_from,
             digest, f" (verified against the {'pin' if pin_source == 'config' else 'recorded hash'})"
             if expected else "")

    frame = parse_csv(data, read_csv=options, dataset=dataset, where=where)
    check_table(dataset, frame, rows=rows, columns=columns)
    record = Provenance(
        dataset=dataset, source=source, url=url, uci_id=uci_id, member=member,
        sha256=digest, sha256_expected=expected, sha256_verified=expected is not None,
        archive_sha256=archive_sha256, read_from=str(read_from), rows=len(frame),
        columns=tuple(str(c) for c in frame.columns), read_csv=options, citation=spec.get("citation"),
        sha256_source=pin_source, sha256_record=record_file,
    )
    log.info("dataset %s: %d rows x %d columns", dataset, *frame.shape)
    return frame, record


def _read_source(dataset: str, spec: Mapping, source: str, *, root: Path | None, timeout: float):
    """The bytes of a validated ``spec``: ``(data, url, uci_id, member, where, read_from, archive_sha256)``."""
    member = None
    if source == "ucimlrepo":
        uci_id = _require(dataset, spec, "uci_id")
        if root is not None:
            url = f"{DATASET_FILE_BASE_URL}/{uci_id}/data.csv"
            read_from = _mirror_file(dataset, root, url)
            data = _read_mirror(dataset, read_from, url)
        else:
            url = ucimlrepo_data_url(uci_id, dataset=dataset, timeout=timeout)
            read_from = NETWORK
            data = _read_url(dataset, url, timeout=timeout)
        where, archive_sha256 = url, None
    elif source == "archive":
        url = _require(dataset, spec, "url")
        path = member_path(_require(dataset, spec, "member"), dataset=dataset)
        member = path[0] if len(path) == 1 else path
        uci_id = None
        if root is not None:
            read_from = _mirror_file(dataset, root, url)
            archive = _read_mirror(dataset, read_from, url)
        else:
            read_from = NETWORK
            archive = _read_url(dataset, url, timeout=timeout)
        archive_sha256 = sha256_hex(archive)
        data = _zip_member(dataset, archive, path, where=str(read_from) if root is not None else url)
        where = describe_member(member, url)
    else:
        raise ConfigError(f"dataset {dataset}: datasets.{dataset}.source = {source!r}: "
                          "must be one of ucimlrepo, archive")
    return data, url, uci_id, member, where, read_from, archive_sha256


def _verify(dataset: str, spec: Mapping, source: str, data: bytes, *, url: str, member, where: str,
            record_path: str | os.PathLike | None):
    """Check ``data`` against the pin or the recorded hash: ``(digest, expected, pin_source, record_file)``."""
    digest = sha256_hex(data)
    expected, pin_source, record_file = spec.get("sha256"), None, None
    if expected is not None:
        expected, pin_source = str(expected).lower(), "config"
    elif source == "archive" and record_path is not None:
        record_file = str(record_path)
        expected = read_recorded_sha256(record_path, dataset=dataset, url=url, member=member)
        pin_source = "recorded" if expected is not None else None
    if expected is not None and digest != expected:
        origin = (f" (recorded at its first download in {record_file}; pin datasets.{dataset}.sha256 or delete "
                  f"that file to accept the new bytes)") if pin_source == "recorded" else ""
        raise DownloadError(f"dataset {dataset}: sha256 mismatch for {where}: expected {expected}, "
                            f"found {digest}{origin}")
    if source == "archive" and expected is None and record_path is None:
        log.warning("dataset %s: %s is not pinned (no datasets.%s.sha256) and no record is kept: not verified",
                    dataset, where, dataset)
    return digest, expected, pin_source, record_file


def member_path(member, *, dataset: str = "?") -> tuple[str, ...]:
    """The spec's ``member`` as a tuple of names, outer zip first (a string is one name).

    Parameters
    ----------
    member : str or list of str
        The spec's ``member``.
    dataset : str
        The dataset's key (in messages).

    Returns
    -------
    tuple of str
        The names, outer zip first.

    Raises
    ------
    ConfigError
        Anything but a non-empty name or a non-empty list of them.
    """
    names = (member,) if isinstance(member, str) else tuple(member) if isinstance(member, (list, tuple)) else None
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ConfigError(f"dataset {dataset}: datasets.{dataset}.member = {member!r}: must be a member name "
                          "or a non-empty list of names (a member of a zip inside the zip)")
    return names


def describe_member(member, url: str) -> str:
    """``member a of URL``, or ``member b of member a of URL`` for a member of a nested zip.

    Parameters
    ----------
    member : str or list of str
        The spec's ``member``.
    url : str
        The archive's URL.

    Returns
    -------
    str
        The description used in messages.

    Raises
    ------
    ConfigError
        ``member`` malformed (:func:`member_path`).
    """
    path = member_path(member)
    return " of ".join(f"member {name}" for name in reversed(path)) + f" of {url}"


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
        raise DownloadError(f"dataset {dataset}: cannot read the recorded sha256 in {path} ({_one_line(err)}); "
                            "delete it to record the member anew") from err
    if recorded != (url, member_path(member)):
        log.warning("dataset %s: %s records %s, not %s: recording anew", dataset, path,
                    describe_member(record["member"], record["url"]), describe_member(member, url))
        return None
    return digest


def mirror_from_env(environ: Mapping[str, str] | None = None) -> Path | None:
    """The mirror named by ``$UCI_MIRROR`` as an absolute path, or ``None`` if unset or empty.

    Parameters
    ----------
    environ : collections.abc.Mapping, optional
        The environment (``None``: :data:`os.environ`).

    Returns
    -------
    pathlib.Path or None
        The mirror's absolute path, or ``None``.

    Raises
    ------
    RuntimeError
        The path cannot be resolved (a symlink loop).
    """
    value = (os.environ if environ is None else environ).get(MIRROR_ENV, "")
    return Path(value).resolve() if value.strip() else None


def mirror_path(mirror: str | os.PathLike, url: str) -> Path:
    """The file of ``mirror`` that stands for ``url`` (``https://archive.ics.uci.edu/<path>``).

    The URL path is percent-decoded (``%2B`` and ``+`` both name ``+``). A URL of another
    site, with a query, or with a ``..`` in its path is refused (``DownloadError``).

    Parameters
    ----------
    mirror : str or os.PathLike
        The mirror's root directory.
    url : str
        A URL under :data:`UCI_SITE`.

    Returns
    -------
    pathlib.Path
        The mirror's file for ``url``.

    Raises
    ------
    DownloadError
        A URL of another site, with a query, or with ``..`` in its path.
    """
    parts = urllib.parse.urlsplit(url)
    if not url.startswith(UCI_SITE) or parts.query or parts.fragment:
        raise DownloadError(f"{url} cannot be read from a mirror: only {UCI_SITE}<path> URLs can")
    relative = PurePosixPath(urllib.parse.unquote(parts.path).lstrip("/"))
    if not relative.parts or any(part in ("..", ".") for part in relative.parts):
        raise DownloadError(f"{url} cannot be read from a mirror: it names no file inside the mirror")
    # not resolved further: a mirror may hold symbolic links to files kept elsewhere
    return Path(mirror).resolve().joinpath(*relative.parts)


def ucimlrepo_data_url(uci_id: int, *, dataset: str, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Ask UCI's API for the ``data.csv`` URL of dataset ``uci_id``, as ``fetch_ucirepo`` does.

    Parameters
    ----------
    uci_id : int
        The UCI dataset id.
    dataset : str
        The dataset's key (in messages).
    timeout : float
        Seconds a network connection may stay silent.

    Returns
    -------
    str
        The URL of the dataset's ``data.csv``.

    Raises
    ------
    DownloadError
        UCI cannot be reached, does not answer with JSON, or has no such dataset or file.
    """
    api_url = f"{API_BASE_URL}?id={int(uci_id)}"
    answer = _read_url(dataset, api_url, timeout=timeout)
    try:
        reply = json.loads(answer)
        status, metadata = reply.get("status"), reply.get("data")
    except (ValueError, AttributeError) as err:
        raise DownloadError(f"dataset {dataset}: {api_url} did not answer with JSON ({_one_line(err)})") from err
    if status != 200 or not isinstance(metadata, Mapping):
        message = reply.get("message") or "dataset not found in repository"
        raise DownloadError(f"dataset {dataset}: UCI has no dataset with id {uci_id} ({_one_line(message)}; {api_url})")
    data_url = metadata.get("data_url")
    if not data_url or not isinstance(data_url, str):
        raise DownloadError(f"dataset {dataset}: UCI dataset id {uci_id} has no data.csv to import ({api_url})")
    log.info("dataset %s: UCI id %s resolves to %s", dataset, uci_id, data_url)
    return data_url


def parse_csv(data: bytes, *, read_csv: Mapping | None = None, dataset: str = "?", where: str = "data") -> pd.DataFrame:
    """Parse ``data`` with ``pandas.read_csv(**read_csv)`` (no options: as ucimlrepo does).

    Parameters
    ----------
    data : bytes
        The CSV bytes.
    read_csv : collections.abc.Mapping, optional
        Options of :func:`pandas.read_csv` (none: pandas' defaults).
    dataset : str
        The dataset's key (in messages).
    where : str
        What the bytes are (in messages).

    Returns
    -------
    pandas.DataFrame
        The parsed table.

    Raises
    ------
    ConfigError
        An option :func:`pandas.read_csv` does not take.
    DataError
        The bytes do not parse.
    """
    options = dict(read_csv or {})
    try:
        return pd.read_csv(io.BytesIO(data), **options)
    except TypeError as err:
        raise ConfigError(f"dataset {dataset}: datasets.{dataset}.read_csv: {_one_line(err)}") from err
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as err:
        raise DataError(f"dataset {dataset}: cannot parse {where} as CSV ({_one_line(err)})") from err


def check_table(dataset: str, frame: pd.DataFrame, *, rows: int, columns) -> None:
    """Refuse (``DataError``) a table without exactly ``rows`` rows or lacking one of ``columns``.

    Parameters
    ----------
    dataset : str
        The dataset's key (in messages).
    frame : pandas.DataFrame
        The parsed table.
    rows : int
        The number of rows expected.
    columns : sequence of str
        Columns that must be present.

    Returns
    -------
    None
        The table passed.

    Raises
    ------
    DataError
        Other than ``rows`` rows, or a column of ``columns`` missing.
    """
    found = [str(c) for c in frame.columns]
    missing = [c for c in columns if c not in found]
    if missing:
        raise DataError(f"dataset {dataset}: columns {_abbrev(missing)} not found "
                        f"(expected {_abbrev(columns)}; found {_abbrev(found)})")
    if len(frame) != rows:
        raise DataError(f"dataset {dataset}: expected {rows} rows, found {len(frame)}")


def sha256_hex(data: bytes) -> str:
    """Lower-case hex SHA-256 of ``data``.

    Parameters
    ----------
    data : bytes
        The bytes.

    Returns
    -------
    str
        64 lower-case hex digits.

    Raises
    ------
    TypeError
        ``data`` not bytes-like.
    """
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------

def _require(dataset: str, spec: Mapping, key: str):
    if spec.get(key) is None:
        raise ConfigError(f"dataset {dataset}: datasets.{dataset}.{key} is missing")
    return spec[key]


def _mirror_file(dataset: str, root: Path, url: str) -> Path:
    try:
        return mirror_path(root, url)
    except DownloadError as err:
        raise DownloadError(f"dataset {dataset}: {err}") from None


def _read_mirror(dataset: str, path: Path, url: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise DownloadError(f"dataset {dataset}: {MIRROR_ENV} is set but {path} is not in the mirror "
                            f"(it stands for {url})") from None
    except OSError as err:
        raise DownloadError(f"dataset {dataset}: cannot read {path} from the mirror ({_one_line(err)})") from err


def _read_url(dataset: str, url: str, *, timeout: float) -> bytes:
    """GET ``url`` (at most ``timeout`` seconds of silence); any failure names the way out."""
    log.info("dataset %s: downloading %s", dataset, url)
    try:
        with urllib.request.urlopen(url, timeout=timeout, context=_ssl_context()) as response:
            return response.read()
    except urllib.error.HTTPError as err:
        raise DownloadError(f"dataset {dataset}: cannot download {url} (HTTP {err.code} {_one_line(err.reason)}); "
                            f"{_WAY_OUT}") from err
    except urllib.error.URLError as err:
        raise DownloadError(f"dataset {dataset}: cannot reach {url} ({_one_line(err.reason)}); {_WAY_OUT}") from err
    except (OSError, http.client.HTTPException) as err:  # timeouts and resets while reading
        reason = _one_line(err) or type(err).__name__
        raise DownloadError(f"dataset {dataset}: cannot reach {url} ({reason}); {_WAY_OUT}") from err


def _ssl_context() -> ssl.SSLContext:
    """The certificate store ucimlrepo uses (certifi's), or the system's if certifi is absent."""
    try:
        import certifi
    except ImportError:  # pragma: no cover - certifi comes with ucimlrepo
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


def _zip_member(dataset: str, archive: bytes, path: tuple[str, ...], *, where: str) -> bytes:
    """The bytes of ``path[-1]``, a member of ``path[-2]``, ..., a member of the zip ``archive``.

    Every error names the member that is missing (or not a zip) and the members above it.
    """
    data, holder = archive, where
    for depth, name in enumerate(path):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                names = zf.namelist()
                data = zf.read(name) if name in names else None
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError, EOFError) as err:
            raise DownloadError(f"dataset {dataset}: {holder} is not a readable zip archive ({_one_line(err)})") from err
        if data is None:
            inner = "".join(f" (which holds {n})" for n in path[depth + 1:][:1])
            raise DownloadError(f"dataset {dataset}: {holder} has no member {name}{inner} (members: {_abbrev(names)})")
        holder = f"member {name} of {holder}"
    return data


def _json_member(member):
    return list(member) if isinstance(member, tuple) else member


def _check_round_trip(dataset: str, frame: pd.DataFrame, path: Path) -> None:
    """Refuse a CSV that ``pd.read_csv`` would not read back as ``frame``."""
    try:
        pd.testing.assert_frame_equal(pd.read_csv(path), frame, check_exact=True)
    except AssertionError as err:
        raise DataError(f"dataset {dataset}: the CSV written would not read back as the table parsed "
                        f"({_one_line(err)}); check datasets.{dataset}.read_csv") from err


def _one_line(value) -> str:
    return " ".join(str(value).split())


def _abbrev(items, limit: int = 40) -> str:
    items = list(items)
    shown = ", ".join(items[:limit])
    return f"[{shown}{', ...' if len(items) > limit else ''}]"

"""Streaming hash-and-cap: bytes copied in chunks to a file of a scratch directory, hashed and
counted on the way, refused the moment they pass their dataset's cap.

Whatever a server, a mirror or an archive holds, a download keeps at most one chunk
(:data:`CHUNK_BYTES`) of it in memory: the network body (:mod:`.network`), the mirror's
file (:mod:`.mirror`) and every archive member, nested ones too (:mod:`.archive`), go
through :func:`stage` into a file of :func:`scratch_directory`, a temporary directory beside
the cache that is removed, with everything in it, when the download ends (complete or
not). The cap of a dataset is its ``max_bytes`` (:class:`SizeCap`, default
:data:`DEFAULT_MAX_BYTES`): counted on the bytes actually received, never taken from a header.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from pufferfish.errors import ConfigError, DownloadError, OutputError
from pufferfish.files import os_cause, remove_quietly
from pufferfish.pipeline.fetch.messages import byte_size

__all__ = ["CHUNK_BYTES", "DEFAULT_MAX_BYTES", "SizeCap", "Staged", "stage", "stage_file", "file_chunks",
           "scratch_directory", "sha256_hex"]

#: bytes read, hashed and written at a time: the memory a download holds of its data
CHUNK_BYTES = 1 << 20
#: the cap of a dataset without ``max_bytes`` (1 GiB); the schema's default of ``datasets.<key>.max_bytes``
DEFAULT_MAX_BYTES = 1 << 30


@dataclass(frozen=True)
class Staged:
    """A file copied in full by :func:`stage`.

    Attributes:
        path: the file, in a scratch directory.
        size: its number of bytes.
        sha256: its lower-case hex SHA-256, computed while it was written.
    """

    path: Path
    size: int
    sha256: str


@dataclass(frozen=True)
class SizeCap:
    """The most bytes one body or member of ``dataset`` may hold: ``datasets.<dataset>.max_bytes``.

    Attributes:
        dataset: the key of the dataset in ``config["datasets"]``.
        max_bytes: the cap, in bytes (at least 1).
    """

    dataset: str
    max_bytes: int

    @classmethod
    def of(cls, dataset: str, spec: Mapping) -> SizeCap:
        """The cap of ``spec``: its ``max_bytes``, or :data:`DEFAULT_MAX_BYTES` when it has none.

        Parameters
        ----------
        dataset : str
            The dataset's key (in messages).
        spec : collections.abc.Mapping
            Its entry of ``config["datasets"]``.

        Returns
        -------
        SizeCap
            The cap.

        Raises
        ------
        ConfigError
            ``max_bytes`` is not an integer >= 1.
        """
        value = spec.get("max_bytes")
        if value is None:
            return cls(dataset, DEFAULT_MAX_BYTES)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"dataset {dataset}: datasets.{dataset}.max_bytes = {value!r}: must be an integer >= 1")
        return cls(dataset, value)

    @property
    def key(self) -> str:
        """The config key of the cap: ``datasets.<dataset>.max_bytes``."""
        return f"datasets.{self.dataset}.max_bytes"

    def refusal(self, what: str, *, declared: int | None = None) -> DownloadError:
        """The one-line error for ``what`` (``member x of URL``, ``url URL``) over the cap.

        Parameters
        ----------
        what : str
            The body or member, in words.
        declared : int, optional
            The size a header or the archive declares (refused before a byte is read);
            ``None``: the bytes went past the cap while they were counted.

        Returns
        -------
        DownloadError
            The error, naming the dataset, ``what``, the cap and the key that raises it.
        """
        found = (f"declares {declared} bytes: refused before reading it" if declared is not None
                 else f"goes on past {self.max_bytes} bytes: stopped there")
        return DownloadError(f"dataset {self.dataset}: {what} {found}; over the cap of {byte_size(self.max_bytes)} "
                             f"({self.key}; raise it if the data are meant to be that large)")

    def check_declared(self, what: str, declared: int | None) -> None:
        """Refuse ``what`` if the size it declares (``None``: none) is over the cap.

        Parameters
        ----------
        what : str
            The body or member, in words.
        declared : int or None
            The size declared by a header or the archive.

        Returns
        -------
        None
            The declared size is within the cap, or there is none.

        Raises
        ------
        DownloadError
            The declared size is over the cap (:meth:`refusal`).
        """
        if declared is not None and declared > self.max_bytes:
            raise self.refusal(what, declared=declared)


def stage(chunks: Iterable[bytes], path: str | os.PathLike, *, cap: SizeCap, what: str) -> Staged:
    """Write ``chunks`` to the new file ``path``, hashing and counting them; stop past the cap.

    Parameters
    ----------
    chunks : iterable of bytes
        The data, a chunk at a time (each at most :data:`CHUNK_BYTES` or so).
    path : str or os.PathLike
        The file to create (it must not exist).
    cap : SizeCap
        The most bytes the data may hold.
    what : str
        The data in words (in messages), e.g. ``member x of URL``.

    Returns
    -------
    Staged
        The file, its size and its SHA-256.

    Raises
    ------
    DownloadError
        The data go past ``cap.max_bytes`` (counted, not declared); the file is removed.
    OutputError
        ``path`` cannot be written (a full disk); the file is removed.
    """
    path = Path(path)
    digest, size = hashlib.sha256(), 0
    try:
        with _written(path) as write:
            for chunk in chunks:            # an error of the source passes as it is
                size += len(chunk)
                if size > cap.max_bytes:
                    raise cap.refusal(what)
                digest.update(chunk)
                write(chunk)
    except BaseException:
        remove_quietly(path)
        raise
    return Staged(path, size, digest.hexdigest())


@contextlib.contextmanager
def _written(path: Path) -> Iterator:
    """``write(chunk)`` into the new file ``path``; an OSError of the file itself (a full disk) is an
    :class:`~pufferfish.errors.OutputError` naming it, never mistaken for one of the source."""
    try:
        out = open(path, "xb")
    except OSError as err:
        raise OutputError(f"cannot write {path}: {os_cause(err, path)}") from None

    def write(chunk: bytes) -> None:
        try:
            out.write(chunk)
        except OSError as err:
            raise OutputError(f"cannot write {path}: {os_cause(err, path)}") from None

    with out:
        yield write


def file_chunks(handle: BinaryIO) -> Iterator[bytes]:
    """The bytes of an open binary file, :data:`CHUNK_BYTES` at a time, to its end.

    Parameters
    ----------
    handle : file-like
        Open for reading bytes.

    Returns
    -------
    collections.abc.Iterator
        The chunks (bytes).
    """
    return iter(lambda: handle.read(CHUNK_BYTES), b"")


def stage_file(source: str | os.PathLike, path: str | os.PathLike, *, cap: SizeCap, what: str) -> Staged:
    """Copy the file ``source`` to ``path`` with :func:`stage` (hashed, counted, capped).

    Parameters
    ----------
    source : str or os.PathLike
        The file to copy.
    path : str or os.PathLike
        The copy (it must not exist).
    cap : SizeCap
        The most bytes ``source`` may hold.
    what : str
        ``source`` in words (in messages).

    Returns
    -------
    Staged
        The copy, its size and its SHA-256.

    Raises
    ------
    OSError
        ``source`` cannot be read.
    DownloadError
        ``source`` is over the cap.
    """
    with open(source, "rb") as handle:
        return stage(file_chunks(handle), path, cap=cap, what=what)


@contextlib.contextmanager
def scratch_directory(beside: str | os.PathLike | None, dataset: str) -> Iterator[Path]:
    """A new directory ``.<dataset>.download-*`` in ``beside`` for the files of one download; removed at exit.

    The directory and everything in it are removed when the block ends, whether the
    download completed or not; directories a download killed by SIGKILL left behind (same
    dataset, same place) are removed first.

    Parameters
    ----------
    beside : str or os.PathLike or None
        Where to make it: the cache directory (created if missing); ``None``: the system's
        temporary directory.
    dataset : str
        The dataset's key (in the name).

    Returns
    -------
    contextlib.AbstractContextManager
        Yields the directory's :class:`pathlib.Path`.

    Raises
    ------
    OSError
        ``beside`` cannot be created or written.
    """
    parent = Path(tempfile.gettempdir() if beside is None else beside)
    prefix = f".{dataset}.download-"
    if beside is not None:
        parent.mkdir(parents=True, exist_ok=True)
        for stale in parent.glob(f"{glob.escape(prefix)}*"):
            shutil.rmtree(stale, ignore_errors=True)
    directory = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


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

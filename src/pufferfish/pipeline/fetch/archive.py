"""Archive members: one member of a zip (or of a zip inside the zip, any depth) extracted in
chunks to a file, after the zip-bomb check.

Before a byte of a member is extracted, :func:`check_member` refuses it when the size its
archive declares is over the dataset's cap, or when it would expand more than
:data:`MAX_RATIO` times (a member declaring more than :data:`RATIO_MIN_BYTES`; below that
a high ratio cannot hurt). The member is then streamed through
:func:`~pufferfish.pipeline.fetch.stream.stage` (hashed, counted, capped on the bytes
actually extracted); :mod:`zipfile` itself stops at the declared size and checks the CRC,
so a header that understates a member cannot let more through.
"""

from __future__ import annotations

import os
import zipfile
import zlib
from pathlib import Path

from pufferfish.errors import ConfigError, DownloadError, PufferfishError
from pufferfish.pipeline.fetch.messages import abbreviate, one_line
from pufferfish.pipeline.fetch.stream import SizeCap, Staged, file_chunks, stage

__all__ = ["MAX_RATIO", "RATIO_MIN_BYTES", "member_path", "describe_member", "check_member", "extract_member"]

#: the largest compression ratio (declared size / compressed size) of a member that is extracted
MAX_RATIO = 100
#: members declaring at most this many bytes (1 MiB) are not held to :data:`MAX_RATIO`
RATIO_MIN_BYTES = 1 << 20

#: what :mod:`zipfile` raises on an archive or member it cannot read
_UNREADABLE = (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, OSError, EOFError,
               zlib.error)


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


def check_member(info: zipfile.ZipInfo, *, cap: SizeCap, what: str) -> None:
    """The zip-bomb check of one member, made on its archive's directory before extraction.

    Parameters
    ----------
    info : zipfile.ZipInfo
        The member's entry.
    cap : SizeCap
        The dataset's cap.
    what : str
        The member in words (in messages), e.g. ``member x of URL``.

    Returns
    -------
    None
        The member may be extracted.

    Raises
    ------
    DownloadError
        It declares more bytes than the cap, or more than :data:`RATIO_MIN_BYTES` at a
        compression ratio above :data:`MAX_RATIO`.
    """
    cap.check_declared(what, info.file_size)
    if info.file_size > RATIO_MIN_BYTES and info.file_size > MAX_RATIO * info.compress_size:
        ratio = f"{info.file_size / info.compress_size:.0f}" if info.compress_size else "infinite"
        raise DownloadError(f"dataset {cap.dataset}: {what} would expand {info.compress_size} bytes to "
                            f"{info.file_size} (compression ratio {ratio}, over {MAX_RATIO}): refused before "
                            "extraction as a zip bomb")


def extract_member(dataset: str, archive: str | os.PathLike, path: tuple[str, ...], *, scratch: str | os.PathLike,
                   cap: SizeCap, where: str) -> Staged:
    """Extract ``path[-1]``, a member of ``path[-2]``, ..., a member of the zip ``archive``, into ``scratch``.

    Each level is checked (:func:`check_member`) and streamed to a file of ``scratch``
    (hashed, counted, capped); the file of an inner zip is removed once its member is out.
    Every error names the member that is missing, unreadable or refused, and the members
    above it.

    Parameters
    ----------
    dataset : str
        The dataset's key (in messages).
    archive : str or os.PathLike
        The zip file.
    path : tuple of str
        The member's names, outer zip first (:func:`member_path`).
    scratch : str or os.PathLike
        The directory for the extracted files.
    cap : SizeCap
        The dataset's cap, for every member on the way.
    where : str
        The archive in words (its URL or mirror file).

    Returns
    -------
    Staged
        The member's file, its size and its SHA-256.

    Raises
    ------
    DownloadError
        A level is not a readable zip, lacks its member, fails the zip-bomb check or the
        cap, or cannot be extracted (a bad CRC, an unsupported compression, encryption).
    """
    current, holder, staged = Path(archive), where, None
    for depth, name in enumerate(path):
        inner = "".join(f" (which holds {n})" for n in path[depth + 1:][:1])
        staged = _extract_one(dataset, current, name, Path(scratch) / f"member-{depth}.part", cap=cap,
                              holder=holder, inner=inner)
        if depth:
            current.unlink(missing_ok=True)
        current, holder = staged.path, f"member {name} of {holder}"
    return staged


def _extract_one(dataset: str, zip_path: Path, name: str, dest: Path, *, cap: SizeCap, holder: str,
                 inner: str) -> Staged:
    what = f"member {name} of {holder}"
    try:
        with zipfile.ZipFile(zip_path) as zf:
            names = zf.namelist()
            if name not in names:
                raise DownloadError(f"dataset {dataset}: {holder} has no member {name}{inner} "
                                    f"(members: {abbreviate(names)})")
            info = zf.getinfo(name)
            check_member(info, cap=cap, what=what)
            try:
                with zf.open(info) as source:
                    return stage(file_chunks(source), dest, cap=cap, what=what)
            except _UNREADABLE as err:
                if isinstance(err, PufferfishError):     # over the cap, or the copy cannot be written
                    raise
                raise DownloadError(f"dataset {dataset}: {what} cannot be extracted ({one_line(err)})") from err
    except _UNREADABLE as err:
        if isinstance(err, PufferfishError):
            raise
        raise DownloadError(f"dataset {dataset}: {holder} is not a readable zip archive ({one_line(err)})") from err

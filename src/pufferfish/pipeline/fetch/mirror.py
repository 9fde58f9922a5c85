"""A local mirror of archive.ics.uci.edu (``UCI_MIRROR``): ``https://archive.ics.uci.edu/<path>``
is read from ``$UCI_MIRROR/<path>`` and the network is never touched.

The mirror's file is copied with :func:`~pufferfish.pipeline.fetch.stream.stage_file`
(hashed, counted, capped) like a body from the network: a mirror is trusted no more than a server.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from pufferfish.errors import DownloadError, PufferfishError
from pufferfish.pipeline.fetch.messages import one_line
from pufferfish.pipeline.fetch.stream import SizeCap, Staged, stage_file

__all__ = ["MIRROR_ENV", "UCI_SITE", "WAY_OUT", "mirror_from_env", "mirror_path", "mirror_file", "stage_mirror_file"]

#: environment variable naming a local mirror of archive.ics.uci.edu
MIRROR_ENV = "UCI_MIRROR"
#: the site a mirror stands for; every URL read from a mirror must start with it
UCI_SITE = "https://archive.ics.uci.edu/"
#: the end of every error of the network path: what a user without network does
WAY_OUT = f"set {MIRROR_ENV} to a local mirror of archive.ics.uci.edu (see README)"


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


def mirror_file(dataset: str, root: str | os.PathLike, url: str) -> Path:
    """:func:`mirror_path`, its error starting with ``dataset <name>:``.

    Parameters
    ----------
    dataset : str
        The dataset's key (in messages).
    root : str or os.PathLike
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
        As :func:`mirror_path`.
    """
    try:
        return mirror_path(root, url)
    except DownloadError as err:
        raise DownloadError(f"dataset {dataset}: {err}") from None


def stage_mirror_file(dataset: str, path: str | os.PathLike, url: str, dest: str | os.PathLike, *,
                      cap: SizeCap) -> Staged:
    """Copy the mirror's file ``path`` (standing for ``url``) to ``dest``, hashed, counted and capped.

    Parameters
    ----------
    dataset : str
        The dataset's key (in messages).
    path : str or os.PathLike
        The mirror's file (:func:`mirror_file`).
    url : str
        The URL it stands for (in messages).
    dest : str or os.PathLike
        The copy (it must not exist).
    cap : SizeCap
        The most bytes the file may hold.

    Returns
    -------
    Staged
        The copy, its size and its SHA-256.

    Raises
    ------
    DownloadError
        The file is not in the mirror, cannot be read, or is over the cap.
    """
    try:
        return stage_file(path, dest, cap=cap, what=f"{path} (the mirror's {url})")
    except PufferfishError:         # over the cap, or the copy cannot be written
        raise
    except FileNotFoundError:
        raise DownloadError(f"dataset {dataset}: {MIRROR_ENV} is set but {path} is not in the mirror "
                            f"(it stands for {url})") from None
    except OSError as err:
        raise DownloadError(f"dataset {dataset}: cannot read {path} from the mirror ({one_line(err)})") from err

"""Atomic, deterministic file output: a reader never sees half a file."""

from __future__ import annotations

import contextlib
import glob
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: pandas is imported where it is used
    import pandas as pd


from pufferfish.errors import OutputError, PufferfishError

__all__ = ["atomic_path", "write_csv", "write_json", "remove_quietly", "check_output_paths", "os_cause",
           "blocking_file", "read_records", "read_user_file"]


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None):
    r"""Yield a temporary path beside ``path``; on success rename it onto ``path``.

    The rename is atomic on one file system, so ``path`` is either absent, the old file
    or the complete new one. On error the temporary file is removed; temporaries left by a
    writer that was killed (``.<name>.*`` beside ``path``) are removed by the next writer.
    An ``OSError`` (the directory is a file, the disk is full, no permission) becomes an
    :class:`~pufferfish.errors.OutputError` whose one line names ``path`` and the cause,
    e.g. ``cannot write results/plans/x.csv: results/plans is a file, not a directory``.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write.
    suffix : str, optional
        Suffix of the temporary file (default: that of ``path``).

    Returns
    -------
    contextlib.AbstractContextManager
        Yields the temporary :class:`pathlib.Path` to write.

    Raises
    ------
    OutputError
        The temporary cannot be made or renamed (naming ``path`` and the cause).
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # temporaries of an earlier writer killed before its rename (SIGKILL leaves no chance to clean up)
        for stale in path.parent.glob(f".{glob.escape(path.name)}.*"):
            remove_quietly(stale)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix or path.suffix or ".tmp", dir=path.parent)
        os.close(fd)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual mode
    except OSError as err:
        raise OutputError(f"cannot write {path}: {os_cause(err, path)}") from None
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except PufferfishError:
        remove_quietly(tmp)
        raise
    except OSError as err:
        remove_quietly(tmp)
        raise OutputError(f"cannot write {path}: {os_cause(err, path, tmp)}") from None
    except BaseException:
        remove_quietly(tmp)
        raise


def os_cause(err: OSError, path: str | os.PathLike, tmp: str | os.PathLike | None = None) -> str:
    r"""The cause of ``err`` in a few words: the ancestor of ``path`` that is a file, else the system's reason.

    Parameters
    ----------
    err : OSError
        The error raised while writing.
    path : str or os.PathLike
        The file being written.
    tmp : str or os.PathLike, optional
        Its temporary file, not named in the cause.

    Returns
    -------
    str
        A few words: the ancestor that is a file, or the system's reason.
    """
    blocking = blocking_file(path)
    if blocking is not None:
        return f"{blocking} is a file, not a directory"
    if Path(path).is_dir():
        return "it is a directory"
    reason = err.strerror or str(err) or type(err).__name__
    other = err.filename if err.filename not in (None, str(path), str(tmp)) else None
    return f"{other}: {reason}" if other else reason


def blocking_file(path: str | os.PathLike) -> Path | None:
    r"""The first ancestor directory of ``path`` that exists but is not a directory, if any.

    Parameters
    ----------
    path : str or os.PathLike
        A path that may not exist yet.

    Returns
    -------
    pathlib.Path or None
        The first ancestor that exists but is not a directory.

    Raises
    ------
    TypeError
        ``path`` is not a path.
    """
    for parent in reversed(Path(path).parents):
        if parent.exists() and not parent.is_dir():
            return parent
        if not parent.exists():
            return None
    return None


def _plain_wildcards(pattern: str) -> str:
    """``a/{name,regex}.csv`` -> ``a/{name}.csv`` (Snakemake shows wildcard constraints inline)."""
    out, k = [], 0
    while k < len(pattern):
        if pattern[k] != "{":
            out.append(pattern[k])
            k += 1
            continue
        depth, j = 1, k + 1
        while j < len(pattern) and depth:
            depth += {"{": 1, "}": -1}.get(pattern[j], 0)
            j += 1
        out.append("{" + pattern[k + 1:j - 1].split(",", 1)[0] + "}")
        k = j
    return "".join(out)


def check_output_paths(paths) -> None:
    r"""Refuse, before any job, output paths that cannot be written.

    ``paths`` may hold wildcards (``results/priors/{user}.csv``): the directory before the
    first ``{`` is checked. An ancestor that exists as a file, an output that exists as a
    directory, or a directory that exists but cannot be written is an
    :class:`~pufferfish.errors.OutputError` naming the path.

    Parameters
    ----------
    paths : iterable of str
        Output paths, possibly with ``{wildcards}``.

    Returns
    -------
    None
        Every path can be written.

    Raises
    ------
    OutputError
        An ancestor is a file, an output is a directory, or a directory is not writable.
    """
    seen = set()
    for pattern in paths:
        pattern = _plain_wildcards(str(pattern))
        fixed = pattern.split("{", 1)[0]
        folder = Path(fixed) if fixed.endswith(("/", os.sep)) else Path(fixed).parent
        if (folder, pattern) in seen:
            continue
        seen.add((folder, pattern))
        blocking = blocking_file(folder / "x")
        if blocking is not None:
            raise OutputError(f"cannot write {pattern}: {blocking} is a file, not a directory (move or remove it)")
        if "{" not in pattern and Path(pattern).is_dir():
            raise OutputError(f"cannot write {pattern}: it is a directory (move or remove it)")
        existing = next((d for d in [folder, *folder.parents] if d.exists()), Path("."))
        if not os.access(existing, os.W_OK | os.X_OK):
            raise OutputError(f"cannot write {pattern}: {existing} is not writable")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_csv(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    r"""Write ``frame`` as CSV (no index, LF line ends, floats in shortest round-trip form).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    path : str or os.PathLike
        Where to write it.

    Returns
    -------
    None
        The file is in place.

    Raises
    ------
    OutputError
        The file cannot be written (:func:`atomic_path`).
    """
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False, lineterminator="\n")


def read_table(path: str | os.PathLike) -> pd.DataFrame:
    """Read a results CSV written by :func:`write_csv` (theta, audit, summary tables).

    Floats come back exactly (``float_precision="round_trip"``), only empty cells are
    missing (a method or label such as "NA" stays text), and ``panel`` is text with ""
    for "no panel".
    """
    import pandas as pd
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"panel": str},
                        float_precision="round_trip")
    if "panel" in frame:
        frame["panel"] = frame["panel"].fillna("")
    return frame


def write_json(obj, path: str | os.PathLike) -> None:
    r"""Write ``obj`` as indented JSON with sorted keys (byte-identical for equal objects).

    Parameters
    ----------
    obj : object
        A JSON-serialisable object (numpy scalars and arrays allowed).
    path : str or os.PathLike
        The destination.

    Returns
    -------
    None
        ``path`` holds the new JSON once this returns.

    Raises
    ------
    OutputError
        ``path`` cannot be written.
    TypeError
        ``obj`` holds something JSON cannot encode.
    """
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, sort_keys=True, default=_default) + "\n", encoding="utf-8")


def _default(value):
    import numpy as np
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def remove_quietly(*paths) -> None:
    r"""Remove files if they exist (used to leave no partial output behind).

    Parameters
    ----------
    *paths : str or os.PathLike
        Files to remove.

    Returns
    -------
    None
        Missing files and directories are skipped.

    Raises
    ------
    PermissionError
        A file exists but cannot be removed.
    """
    for p in paths:
        with contextlib.suppress(FileNotFoundError, IsADirectoryError, NotADirectoryError):
            os.remove(p)


# ------------------------------------------------------------------------------ a user's CSV, read
def read_records(path: str):
    """The user's CSV at ``path`` (one record a row, a header line), read by the ``pufferfish`` command.

    Parameters
    ----------
    path : str
        The file.

    Returns
    -------
    pandas.DataFrame
        Its records.

    Raises
    ------
    pufferfish.errors.DataError
        ``path`` is missing, a directory or not a readable CSV (one line naming it).
    """
    import pandas as pd

    return read_user_file(path, pd.read_csv, path)


def read_user_file(path: str, read, *args, **kwargs):
    """``read(*args, **kwargs)``, with the problems of the user's file at ``path`` as one line.

    Parameters
    ----------
    path : str
        The file ``read`` opens (named in the error).
    read : callable
        The reader, e.g. ``pandas.read_csv``.
    *args, **kwargs
        Passed to ``read``.

    Returns
    -------
    object
        What ``read`` returns.

    Raises
    ------
    pufferfish.errors.DataError
        ``path`` is missing, a directory or not a readable CSV (one line naming it).
    """
    import pandas as pd

    from pufferfish.errors import DataError

    if Path(path).is_dir():
        raise DataError(f"{path}: is a directory, not a CSV file")
    try:
        return read(*args, **kwargs)
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise DataError(f"{path}: not a readable CSV ({str(err).splitlines()[0] if str(err) else type(err).__name__})") from None

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


__all__ = ["atomic_path", "write_csv", "write_json", "remove_quietly"]


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None):
    """Yield a temporary path beside ``path``; on success rename it onto ``path``.

    The rename is atomic on one file system, so ``path`` is either absent, the old file
    or the complete new one. On error the temporary file is removed; temporaries left by a
    writer that was killed (``.<name>.*`` beside ``path``) are removed by the next writer.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # temporaries of an earlier writer killed before its rename (SIGKILL leaves no chance to clean up)
    for stale in path.parent.glob(f".{glob.escape(path.name)}.*"):
        remove_quietly(stale)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix or path.suffix or ".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual mode
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        remove_quietly(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_csv(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write ``frame`` as CSV (no index, LF line ends, floats in shortest round-trip form)."""
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
    """Write ``obj`` as indented JSON with sorted keys (byte-identical for equal objects)."""
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
    """Remove files if they exist (used to leave no partial output behind)."""
    for p in paths:
        with contextlib.suppress(FileNotFoundError, IsADirectoryError):
            os.remove(p)

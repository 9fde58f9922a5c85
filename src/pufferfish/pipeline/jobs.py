"""Glue between Snakemake's ``script:`` directive and the package.

Every workflow script is ``run(main)``: the user's mistakes (:class:`PufferfishError`)
and the system's refusals (``OSError``: an output directory that is a file, a full disk,
no permission) end as one line on stderr (and in the rule's log) naming the path and the
cause, exit status 1 and no output files; anything else is a bug and keeps its traceback.
A job that succeeds returns, and its process exits the normal way.

``python -m pufferfish.pipeline.jobs release-stale-lock`` (run by ``make reproduce``)
removes the lock a Snakemake killed by SIGKILL leaves behind, but only when no Snakemake
process runs in the directory (:func:`release_stale_lock`).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from pufferfish.errors import PufferfishError
from pufferfish.files import os_cause, remove_quietly

__all__ = ["run", "setup_logging", "fail", "error_line", "release_stale_lock", "snakemake_processes", "main"]


def setup_logging(log_path: str | None) -> logging.Logger:
    """Log INFO and above to ``log_path`` (the rule's ``log:``) and WARNING to stderr."""
    logger = logging.getLogger("pufferfish")
    logger.setLevel(logging.INFO)
    for handler in logger.handlers:
        handler.close()
    logger.handlers.clear()
    if log_path:
        handler = logging.FileHandler(log_path, mode="w", encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
        logger.addHandler(handler)
    err = logging.StreamHandler(sys.stderr)
    err.setLevel(logging.WARNING)
    err.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    logger.addHandler(err)
    logger.propagate = False
    return logger


def run(main: Callable, smk) -> None:
    """Call ``main(smk)`` for a Snakemake job ``smk`` (the ``snakemake`` object of a script); on a
    user's mistake end the process with :func:`fail`.

    When ``main`` has returned (every output written), the objects alive are frozen
    (:func:`gc.freeze`): the job's process then exits the normal way (exit handlers, flushed
    streams, module teardown) but the interpreter's collections during that teardown skip
    the hundred thousand long-lived objects of numpy, pandas, scipy and matplotlib, which
    the end of the process frees anyway. That teardown took about 0.29 s a job, 0.04 s
    frozen. Python never promises ``__del__`` for objects alive at exit, so nothing that
    would have run is lost.
    """
    log_path = smk.log[0] if len(smk.log) else None
    outputs = [str(o) for o in smk.output]
    try:
        setup_logging(log_path)
    except OSError as err:  # the log itself cannot be written
        fail(err, outputs=outputs)
    try:
        main(smk)
    except (PufferfishError, OSError) as err:
        fail(err, outputs=outputs, log_path=log_path)
    gc.freeze()


def error_line(err: BaseException) -> str:
    """One line for a user-fixable error: its message, or for an OSError the path and the cause."""
    if isinstance(err, OSError) and not isinstance(err, PufferfishError):
        where = err.filename if err.filename is not None else ""
        cause = os_cause(err, where) if where else (err.strerror or str(err) or type(err).__name__)
        return f"{where}: {cause}" if where else cause
    text = str(err)
    return text.splitlines()[0] if text.strip() else type(err).__name__


def fail(err: BaseException, *, outputs=(), log_path: str | None = None) -> None:
    """Write ``error: <one line>`` to stderr and the log, remove ``outputs``, exit with status 1."""
    message = error_line(err)
    if log_path:
        with contextlib.suppress(OSError):
            with open(log_path, "a", encoding="utf-8") as handle:
                handle.write(f"ERROR {message}\n")
    remove_quietly(*outputs)
    sys.stderr.write(f"error: {message}\n")
    sys.exit(1)


# ------------------------------------------------------------------------------ stale Snakemake locks
def snakemake_processes(directory: str | os.PathLike = ".") -> list[int] | None:
    """Ids of the processes that run Snakemake (or one of its jobs) in ``directory``; ``None`` if unknown.

    Read from ``/proc`` (Linux): a process counts when its working directory is
    ``directory`` and its command line runs ``snakemake`` (``snakemake ...``,
    ``python -m snakemake ...``) or a job script of ``directory/.snakemake/scripts``.
    Without ``/proc`` nothing can be told (``None``).
    """
    proc = Path("/proc")
    if not (proc / "self" / "cmdline").exists():
        return None
    here = Path(directory).resolve()
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = [a.decode("utf-8", "replace") for a in (entry / "cmdline").read_bytes().split(b"\0") if a]
            cwd = Path(os.readlink(entry / "cwd"))
        except OSError:  # gone, or another user's process
            continue
        if cwd != here:
            continue
        runs_snakemake = any(Path(a).name == "snakemake" for a in argv) or any(
            a == "-m" and b == "snakemake" for a, b in zip(argv, argv[1:]))
        runs_job = any(f"{os.sep}.snakemake{os.sep}scripts{os.sep}" in a or a.startswith(f".snakemake{os.sep}scripts")
                       for a in argv)
        if runs_snakemake or runs_job:
            found.append(int(entry.name))
    return sorted(found)


def release_stale_lock(directory: str | os.PathLike = ".") -> str:
    """Remove the lock a killed Snakemake left in ``directory/.snakemake/locks``, if no Snakemake runs there.

    Returns what was done (empty when there was no lock). Raises
    :class:`~pufferfish.errors.PufferfishError` (one line, what to do) when a Snakemake
    process still runs in ``directory``, or when that cannot be told (no ``/proc``).
    """
    locks = Path(directory) / ".snakemake" / "locks"
    if not locks.is_dir() or not any(locks.iterdir()):
        return ""
    running = snakemake_processes(directory)
    if running is None:
        raise PufferfishError(f"{locks} holds a lock and this system cannot tell whether a snakemake still runs here; "
                              "if none does, run `snakemake --unlock`, then `make reproduce` again")
    if running:
        pids = ", ".join(map(str, running))
        raise PufferfishError(f"another snakemake runs in {Path(directory).resolve()} (process {pids}); wait for it "
                              f"to finish or stop it (kill {running[0]}), then run `make reproduce` again")
    shutil.rmtree(locks)
    return (f"removed the lock left in {locks} by a snakemake that was killed (no snakemake runs in "
            f"{Path(directory).resolve()}); the run resumes where it stopped")


def main(argv: list[str] | None = None) -> int:
    """``python -m pufferfish.pipeline.jobs release-stale-lock [DIR]`` (used by ``make reproduce``)."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] != "release-stale-lock" or len(argv) > 2:
        sys.stderr.write("usage: python -m pufferfish.pipeline.jobs release-stale-lock [DIRECTORY]\n")
        return 2
    try:
        done = release_stale_lock(argv[1] if len(argv) == 2 else ".")
    except (PufferfishError, OSError) as err:
        sys.stderr.write(f"error: {error_line(err)}\n")
        return 1
    if done:
        sys.stderr.write(f"note: {done}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How large an iteration run this machine can honour: upper bounds on steps, records and positions, from memory.

Every computation of :mod:`pufferfish.iteration` is O(T) in time and memory, with constants
measured (peak bytes per step or record; ``benchmarks/iteration.py --memory`` prints them):

* :data:`STEP_BYTES` -- one point of the Fig. 6 analogue (the prior of T steps, the shifts, the
  minorants, the exact audit): 40 to 66 bytes per step measured (tracemalloc, T = 10^6), 80 allowed;
* :data:`RECORD_BYTES` + :data:`EXPOSURE_BYTES` per eta -- a series of T records: the values, the
  prior (its autocovariance by FFT), one listed secret at a time, and per eta every record's
  exact audit, its table, figure rows and plotted line: 466 to 508 bytes per record measured for
  two etas (peak RSS, T = 2 10^5 and 2 10^6), 100 + 250 per eta allowed. The dataset's table
  itself (read whole) comes on top;
* :data:`ROW_BYTES` -- a row of ``pufferfish iteration --all-secrets`` (its frame and its text).

The memory a run may use (:func:`memory_budget`) is :data:`MEMORY_FRACTION` of the smallest of the
machine's physical memory, the cgroup limit (a container, a Slurm job) and the address-space
limit (``ulimit -v``), as seen by the process that checks. A size whose peak exceeds it is
refused before anything runs, with one line naming the key, the value and the bound
(:func:`limit_message`). docs/math/iteration.md, "Sizes this machine can honour".
"""

from __future__ import annotations

import os

from pufferfish.checks import integer

__all__ = ["STEP_BYTES", "RECORD_BYTES", "EXPOSURE_BYTES", "ROW_BYTES", "MEMORY_FRACTION", "memory_budget",
           "max_steps", "max_records", "max_rows", "limit_message"]

#: peak bytes per step of one Fig. 6 point (measured 40-66)
STEP_BYTES = 80
#: peak bytes per record of a series beside the per-eta part (values, prior, one listed secret)
RECORD_BYTES = 100
#: peak bytes per record and eta of a series' every-record audit, exposure table and figure
EXPOSURE_BYTES = 250
#: bytes per output row of ``pufferfish iteration --all-secrets`` (data frame and rendered text)
ROW_BYTES = 400
#: the share of the memory limit a run may use (the interpreter, numpy, pandas and matplotlib need the rest)
MEMORY_FRACTION = 0.8


def _cgroup_limit() -> int | None:
    """The cgroup (v2, else v1) memory limit of this process in bytes, or None if there is none."""
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path, encoding="ascii") as handle:
                text = handle.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 1 << 60:
            return int(text)
    return None


def memory_budget() -> int:
    """Bytes a run may use: :data:`MEMORY_FRACTION` of min(physical memory, cgroup limit, ``ulimit -v``).

    Returns
    -------
    int
        The budget in bytes, as this process sees the machine.
    """
    limits = [os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")]
    cgroup = _cgroup_limit()
    if cgroup is not None:
        limits.append(cgroup)
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            limits.append(soft)
    except (ImportError, ValueError, OSError):  # pragma: no cover - not on POSIX
        pass
    return int(MEMORY_FRACTION * min(limits))


def _budget(memory: int | None) -> int:
    return memory_budget() if memory is None else integer(memory, name="memory", lo=0)


def max_steps(memory: int | None = None) -> int:
    """The largest T of a Fig. 6 point within ``memory`` bytes: memory // :data:`STEP_BYTES`.

    Parameters
    ----------
    memory : int, optional
        Bytes available (default :func:`memory_budget`).

    Returns
    -------
    int
        The bound, at least 1.
    """
    return max(1, _budget(memory) // STEP_BYTES)


def max_records(etas: int = 1, memory: int | None = None) -> int:
    """The largest number of records of a series with ``etas`` step sizes within ``memory`` bytes.

    Parameters
    ----------
    etas : int, optional
        How many step sizes the series is run with (default 1).
    memory : int, optional
        Bytes available (default :func:`memory_budget`).

    Returns
    -------
    int
        memory // (:data:`RECORD_BYTES` + etas :data:`EXPOSURE_BYTES`), at least 1.
    """
    etas = integer(etas, name="etas", lo=1)
    return max(1, _budget(memory) // (RECORD_BYTES + EXPOSURE_BYTES * etas))


def max_rows(records: int, etas: int = 1, memory: int | None = None) -> int:
    """The largest number of ``--all-secrets`` output rows beside a series of ``records`` records.

    Parameters
    ----------
    records : int
        T, the series' records.
    etas : int, optional
        How many step sizes (default 1).
    memory : int, optional
        Bytes available (default :func:`memory_budget`).

    Returns
    -------
    int
        What the series leaves of ``memory``, // :data:`ROW_BYTES` (0 if nothing is left).
    """
    records, etas = integer(records, name="records", lo=0), integer(etas, name="etas", lo=1)
    left = _budget(memory) - records * (RECORD_BYTES + EXPOSURE_BYTES * etas)
    return max(0, left // ROW_BYTES)


def limit_message(key: str, value, bound: int, what: str) -> str:
    """``key = value: at most bound what on this machine (...)``: the one line of a refused size.

    Parameters
    ----------
    key : str
        The configuration key or command-line option (with the record or list index).
    value : object
        The size given.
    bound : int
        The largest size this machine can honour.
    what : str
        The unit (``steps``, ``records``...).

    Returns
    -------
    str
        One line, naming the key, the value and the bound, and the memory it was derived from.
    """
    for name, text in (("key", key), ("what", what)):
        if not isinstance(text, str) or not text:
            from pufferfish.errors import ArgumentTypeError
            raise ArgumentTypeError(f"{name} = {text!r}: must be a non-empty string")
    bound = integer(bound, name="bound", lo=0)
    return (f"{key} = {value!r}: at most {bound:,} {what} on this machine ({memory_budget() / 2 ** 30:.1f} GiB "
            f"usable, {MEMORY_FRACTION:.0%} of its memory limit; docs: Sizes this machine can honour)")

"""A warm fault runner (``python -m tests.faults.worker``, started by :mod:`tests.faults.run`, one per CPU).

It imports the third-party libraries the tests load (pytest, Hypothesis, NumPy, SciPy, pandas, Matplotlib,
mpmath, python-flint: about 2 CPU seconds of every fault run) once, then for each task read from stdin (one
JSON line: ``{"args": [pytest arguments], "timeout": seconds}``) forks a child that runs ``pytest.main(args)``
and exits with its status; it writes one JSON line ``{"status": exit status or "timeout", "seconds": ...}``.
Nothing of the package or of the tests is imported before the fork: each child imports them as a fresh
``pytest`` process would, and installs its fault (:mod:`tests.faults.plugin`) itself.
"""
from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import time

#: imported once, before any fork (third-party only: the package and the tests load in each child)
WARM = ("numpy", "scipy.special", "scipy.stats", "scipy.optimize", "scipy.integrate", "scipy.linalg", "pandas",
        "matplotlib", "matplotlib.pyplot", "mpmath", "flint", "hypothesis", "hypothesis.strategies",
        "hypothesis.extra.numpy", "pytest", "_pytest.python", "_pytest.assertion.rewrite", "yaml")


def _warm() -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    for name in WARM:
        try:
            importlib.import_module(name)
        except ImportError:                              # an optional library: its tests import it themselves
            pass


def _child(args: list[str], timeout: float) -> None:
    """The forked child: pytest on ``args``, its output discarded, then exit with its status (never returns)."""
    status = 3
    try:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(max(1, int(timeout)))
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        import pytest

        status = int(pytest.main(args))
    finally:
        os._exit(status)


def main() -> int:
    _warm()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        task = json.loads(line)
        start = time.time()
        pid = os.fork()
        if pid == 0:
            _child(task["args"], task["timeout"])
        _, raw = os.waitpid(pid, 0)
        if os.WIFSIGNALED(raw):
            status = "timeout" if os.WTERMSIG(raw) == signal.SIGALRM else f"signal {os.WTERMSIG(raw)}"
        else:
            status = os.WEXITSTATUS(raw)
        print(json.dumps({"status": status, "seconds": time.time() - start}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

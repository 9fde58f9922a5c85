"""The two complete runs of the tiny project (tests/helpers.py) that the end-to-end tests share.

``tiny`` is the run most tests read (in place, or a copy when they change files);
``tiny_again`` is a second run from an empty directory, for the determinism test. Each is
made once per session, and only when a selected test needs it.

Both start in the background as soon as the tests are collected, and the tests are ordered
so that the two cores stay busy: the unit tests run first (``testpaths`` in pyproject.toml)
while ``tiny`` runs; ``tiny_again`` runs at a lower priority (nice 10), on the cycles the
others leave, and the test that needs it runs last. Each fixture waits for its run.

Under pytest-xdist (``make test``: ``-n auto``) the workers share each run: the controller makes
one directory for the session's runs (``PUFFERFISH_TEST_RUNS``, which the workers inherit), the
first worker to claim a run's directory starts it and writes its exit status there when it ends
(``exit-status``), and the other workers wait for that file. The worker that started a run waits
for it at its end (another worker may still need it), and the controller removes the directory
once every worker has finished, when every test passed.
"""
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.helpers import BackgroundRun

#: fixture name -> scheduling priority of its run
RUNS = {"tiny": 0, "tiny_again": 10}
#: the directory of the session's shared runs under pytest-xdist (set by the controller)
SHARED = "PUFFERFISH_TEST_RUNS"
#: how long a worker waits for a run another worker started (a complete tiny run takes about a minute)
SHARED_TIMEOUT = 1800.0
_started: dict = {}
_roots: list[Path] = []
_shared_key = pytest.StashKey[str]()
_xdist_worker = False       # set by pytest_configure


class SharedRun:
    """A run that another pytest-xdist worker started under ``root``: done when ``root/exit-status`` exists."""

    def __init__(self, root: Path):
        self.root = root

    def wait(self) -> tuple[Path, Path]:
        status = self.root / "exit-status"
        deadline = time.monotonic() + SHARED_TIMEOUT
        while not status.exists():
            if time.monotonic() > deadline:
                raise AssertionError(f"the shared tiny run in {self.root} did not end in {SHARED_TIMEOUT:.0f} s")
            time.sleep(0.2)
        code = int(status.read_text())
        if code != 0:
            tail = (self.root / "snakemake.log").read_text(encoding="utf-8", errors="replace")[-6000:]
            raise AssertionError(f"snakemake failed ({code}) in another worker, log {self.root / 'snakemake.log'}:\n{tail}")
        return self.root / "work", self.root / "mirror"

    def stop(self) -> None:
        """Nothing: the worker that started the run owns it."""


def _record_exit_status(run: BackgroundRun, root: Path) -> None:
    code = run.proc.wait()
    partial = root / "exit-status.partial"
    partial.write_text(str(code))
    partial.rename(root / "exit-status")       # atomic: a waiting worker never reads a partial file


def _start(name: str):
    shared = os.environ.get(SHARED)
    if shared is None or not _xdist_worker:
        root = Path(tempfile.mkdtemp(prefix=f"pufferfish-{name}-"))
        _roots.append(root)
        _started[name] = BackgroundRun.start(root, nice=RUNS[name])
        return _started[name]
    root = Path(shared) / name
    try:
        root.mkdir()
    except FileExistsError:                    # another worker claimed it
        _started[name] = SharedRun(root)
        return _started[name]
    run = BackgroundRun.start(root, nice=RUNS[name])
    assert (run.workdir, run.mirror) == (root / "work", root / "mirror"), "SharedRun.wait names them so"
    threading.Thread(target=_record_exit_status, args=(run, root), daemon=True).start()
    _started[name] = run
    return run


def _uses(item, name: str) -> bool:
    return name in getattr(item, "fixturenames", ())


def _is_xdist_controller(config) -> bool:
    return not hasattr(config, "workerinput") and getattr(config.option, "dist", "no") != "no"


def pytest_configure(config):
    global _xdist_worker
    _xdist_worker = hasattr(config, "workerinput")
    if _is_xdist_controller(config) and SHARED not in os.environ:
        os.environ[SHARED] = tempfile.mkdtemp(prefix="pufferfish-runs-")   # before the workers start
        config.stash[_shared_key] = os.environ[SHARED]


def pytest_collection_modifyitems(session, config, items):
    """The tests that need ``tiny_again`` last (stable: the others keep their order)."""
    items.sort(key=lambda item: _uses(item, "tiny_again"))


def pytest_collection_finish(session):
    if session.config.option.collectonly:
        return
    for name in RUNS:
        if name not in _started and any(_uses(item, name) for item in session.items):
            _start(name)


def pytest_sessionfinish(session, exitstatus):
    shared_owner = _xdist_worker and os.environ.get(SHARED) is not None
    for run in _started.values():
        if shared_owner and isinstance(run, BackgroundRun) and exitstatus != pytest.ExitCode.INTERRUPTED:
            run.proc.wait()                    # another worker may still wait for it
        run.stop()
    if session.testsfailed == 0 and exitstatus == 0:  # otherwise kept for a look
        for root in _roots:
            shutil.rmtree(root, ignore_errors=True)
        if _shared_key in session.config.stash:
            shutil.rmtree(session.config.stash[_shared_key], ignore_errors=True)


@pytest.fixture(scope="session")
def tiny():
    """``(workdir, mirror)`` of a complete Snakemake run of the tiny project."""
    return (_started.get("tiny") or _start("tiny")).wait()


@pytest.fixture(scope="session")
def tiny_again():
    """``(workdir, mirror)`` of a second complete run of the tiny project, from its own empty directory."""
    return (_started.get("tiny_again") or _start("tiny_again")).wait()

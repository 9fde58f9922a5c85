"""The two complete runs of the tiny project (tests/helpers.py) that the end-to-end tests share.

``tiny`` is the run most tests read (in place, or a copy when they change files);
``tiny_again`` is a second run from an empty directory, for the determinism test. Each is
made once per session, and only when a selected test needs it.

Both start in the background as soon as the tests are collected, and the tests are ordered
so that the two cores stay busy: the unit tests run first (``testpaths`` in pyproject.toml)
while ``tiny`` runs; ``tiny_again`` runs at a lower priority (nice 10), on the cycles the
others leave, and the test that needs it runs last. Each fixture waits for its run.
"""
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.helpers import BackgroundRun

#: fixture name -> scheduling priority of its run
RUNS = {"tiny": 0, "tiny_again": 10}
_started: dict[str, BackgroundRun] = {}
_roots: list[Path] = []


def _start(name: str) -> BackgroundRun:
    root = Path(tempfile.mkdtemp(prefix=f"pufferfish-{name}-"))
    _roots.append(root)
    _started[name] = BackgroundRun.start(root, nice=RUNS[name])
    return _started[name]


def _uses(item, name: str) -> bool:
    return name in getattr(item, "fixturenames", ())


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
    for run in _started.values():
        run.stop()
    if session.testsfailed == 0 and exitstatus == 0:  # otherwise kept for a look
        for root in _roots:
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def tiny():
    """``(workdir, mirror)`` of a complete Snakemake run of the tiny project."""
    return (_started.get("tiny") or _start("tiny")).wait()


@pytest.fixture(scope="session")
def tiny_again():
    """``(workdir, mirror)`` of a second complete run of the tiny project, from its own empty directory."""
    return (_started.get("tiny_again") or _start("tiny_again")).wait()

"""The pytest plugin of the fault-injection check (``-p tests.faults.plugin``; driven by :mod:`tests.faults.run`).

* ``--fault-record=FILE``: every computation of the catalog is wrapped by a recorder; FILE
  receives, for each (computation, region), the tests whose calls reached it with a result a
  fault would change, and each test's duration. Under pytest-xdist (``-n``) each worker writes
  ``FILE.<worker id>`` and :func:`tests.faults.run.merge` joins them.
* ``--fault=KEY``: the one fault ``computation@region`` is installed (here and, through
  :data:`~tests.faults.inject.ENVIRONMENT` and ``tests/faults/site``, in every child Python
  process); ``--fault-select=FILE`` keeps only the tests listed there (one node id a line);
  ``--fault-report=FILE`` receives the first test that failed and how.

Both select the Hypothesis profile ``faults`` (tests/conftest.py: derandomized, as in CI, no
shrinking), so that a fault run draws the examples the recording saw.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.faults import catalog, inject

SITE = str(Path(__file__).resolve().parent / "site")


def pytest_addoption(parser):
    group = parser.getgroup("faults", "fault injection (tests/faults)")
    group.addoption("--fault-record", default=None, help="record which tests reach each (computation, region)")
    group.addoption("--fault", default=None, help="the fault computation@region to install")
    group.addoption("--fault-select", default=None, help="a file of node ids: run only those")
    group.addoption("--fault-report", default=None, help="where to write the first failing test")


class _Recorder:
    def __init__(self, path: str):
        self.path = path
        self.current: str | None = None
        self.hits: set[str] = set()
        self.reached: dict[str, list[str]] = {catalog.key(c, r): [] for c, r in catalog.faults()}
        self.durations: dict[str, float] = {}
        self.started = 0.0
        for computation in catalog.CATALOG:
            inject.install_recorder(computation, self.pending, self.report)

    def pending(self, computation):
        if self.current is None:
            return ()
        return [r for r in computation.regions if catalog.key(computation, r) not in self.hits]

    def report(self, computation, region):
        self.hits.add(catalog.key(computation, region))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.current, self.hits, self.started = item.nodeid, set(), time.process_time()
        yield
        self.durations[item.nodeid] = time.process_time() - self.started
        for k in self.hits:
            self.reached[k].append(item.nodeid)
        self.current = None

    def pytest_sessionfinish(self, session, exitstatus):
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        if worker is None and hasattr(session.config, "workerinput"):
            worker = session.config.workerinput.get("workerid")
        if worker is None and getattr(session.config.option, "numprocesses", None):
            return                                      # the xdist controller: the workers record
        path = Path(self.path) if worker is None else Path(f"{self.path}.{worker}")
        path.write_text(json.dumps({"exitstatus": int(exitstatus), "reached": self.reached,
                                    "durations": self.durations}, indent=1), encoding="utf-8")


class _Fault:
    def __init__(self, config):
        self.key = config.getoption("--fault")
        self.report_path = config.getoption("--fault-report")
        self.first: dict | None = None
        computation, region = catalog.find(self.key)
        inject.install_fault(computation, region)
        os.environ[inject.ENVIRONMENT] = self.key          # child processes install it too
        os.environ["PYTHONPATH"] = os.pathsep.join([SITE, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))])

    def pytest_runtest_logreport(self, report):
        if report.failed and self.first is None:
            message = report.longreprtext.strip().splitlines()
            self.first = {"test": report.nodeid, "when": report.when, "message": message[-1][:300] if message else ""}

    def pytest_sessionfinish(self, session, exitstatus):
        if self.report_path:
            Path(self.report_path).write_text(json.dumps({"exitstatus": int(exitstatus), "first": self.first}),
                                              encoding="utf-8")


def pytest_configure(config):
    if config.getoption("--fault-record") or config.getoption("--fault"):
        from hypothesis import settings

        settings.load_profile("faults")
    if config.getoption("--fault-record"):
        config.pluginmanager.register(_Recorder(config.getoption("--fault-record")), "fault-recorder")
    elif config.getoption("--fault"):
        config.pluginmanager.register(_Fault(config), "fault-injector")


def pytest_collection_modifyitems(session, config, items):
    path = config.getoption("--fault-select")
    if not path:
        return
    wanted = set(Path(path).read_text(encoding="utf-8").split("\n")) - {""}
    keep = [item for item in items if item.nodeid in wanted]
    drop = [item for item in items if item.nodeid not in wanted]
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep

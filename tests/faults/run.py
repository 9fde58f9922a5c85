"""``make test-faults``: does the fast tier fail when one exact computation is off by 1e-6 in one region?

First one run of the fast unit tests (``make test``'s selection, ``-m "not slow"``, of ``tests/unit``:
:data:`RECORDED`; in one process, or on ``--record-jobs`` pytest-xdist workers whose recordings are merged)
with every computation of :mod:`tests.faults.catalog` wrapped by a recorder: which tests reach each
(computation, region) with a result a fault would change. It must pass. Then, for each (computation, region), the tests
that reach it are run again (``-x``, fastest first; one fault run per CPU at once, each in a forked child of a
warm worker, :mod:`tests.faults.worker`) with that computation's result multiplied by
1 + 1e-6 on the calls in that region only; the fault is caught when one of them fails. A region no
test reaches is not caught. One line per (computation, region), then ``faults caught: N of M``;
the exit status is 1 unless N = M.

    python -m tests.faults.run [--jobs N] [--only SUBSTRING] [--record FILE] [--keep DIR]

``--record`` reuses a recording (skips the first run); ``--only`` runs the faults whose key
contains the substring; ``--keep`` keeps the recording and the reports in DIR.
"""
from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from tests.faults import catalog

REPO = Path(__file__).resolve().parents[2]
#: the tests the recording runs: the unit tests. The integration tests run Snakemake and the CLI in child
#: processes, where no recorder reaches (they compute with the same functions the unit tests reach)
RECORDED = ("tests/unit",)
#: a fault run that takes longer than this counts as not caught (a hang is no verdict)
TIMEOUT = 900


def _pytest_args(*args: str) -> list[str]:
    return ["-p", "tests.faults.plugin", "-p", "no:cacheprovider", "-q", "--no-header", "-rN",
            "-o", "addopts=--strict-markers", *args]


def _pytest(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", *_pytest_args(*args)]


class Workers:
    """``count`` warm fault runners (:mod:`tests.faults.worker`), lent to one fault run at a time."""

    def __init__(self, count: int):
        self.idle: queue.Queue = queue.Queue()
        self.all = []
        for _ in range(count):
            proc = subprocess.Popen([sys.executable, "-m", "tests.faults.worker"], cwd=REPO, env=_environment(),
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            self.all.append(proc)
        for proc in self.all:
            if json.loads(proc.stdout.readline() or "{}").get("ready"):
                self.idle.put(proc)
        if self.idle.empty():
            raise RuntimeError("faults: no worker started (python -m tests.faults.worker)")

    def run(self, args: list[str]) -> tuple[int | str, float]:
        """pytest ``args`` in a forked child of an idle worker: (exit status or "timeout", seconds)."""
        proc = self.idle.get()
        try:
            proc.stdin.write(json.dumps({"args": args, "timeout": TIMEOUT}) + "\n")
            proc.stdin.flush()
            answer = json.loads(proc.stdout.readline())
        finally:
            self.idle.put(proc)
        return answer["status"], answer["seconds"]

    def close(self) -> None:
        for proc in self.all:
            proc.stdin.close()
            proc.wait(timeout=60)


def _environment() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))])
    env.pop("PUFFERFISH_FAULT", None)
    return env


def _xdist() -> bool:
    """Whether pytest-xdist is installed (the recording then runs on every CPU)."""
    import importlib.util

    return importlib.util.find_spec("xdist") is not None


def merge(path: Path) -> dict:
    """The recording of one run: ``path``, or the union of the per-worker files ``path.gw0``, ``path.gw1``, ..."""
    parts = sorted(path.parent.glob(path.name + ".gw*"))
    if not parts:
        return json.loads(path.read_text(encoding="utf-8"))
    reached: dict[str, list[str]] = {}
    durations: dict[str, float] = {}
    status = 0
    for part in parts:
        one = json.loads(part.read_text(encoding="utf-8"))
        status = max(status, one["exitstatus"])
        durations.update(one["durations"])
        for key, tests in one["reached"].items():
            reached.setdefault(key, []).extend(tests)
    return {"exitstatus": status, "reached": {k: sorted(v) for k, v in reached.items()}, "durations": durations}


def record(path: Path, jobs: int) -> dict:
    """One run of the fast tier with the recorders (on ``jobs`` pytest-xdist workers when it is installed and
    ``jobs`` > 1); its recording (exits if the suite fails)."""
    start = time.time()
    spread = ["-n", str(jobs), "--dist", "loadfile"] if jobs > 1 and _xdist() else []
    proc = subprocess.run(_pytest("-rf", "-m", "not slow", *spread, f"--fault-record={path}", *RECORDED), cwd=REPO,
                          env=_environment(), capture_output=True, text=True)
    if proc.returncode != 0 or not (path.exists() or any(path.parent.glob(path.name + ".gw*"))):
        print(proc.stdout[-6000:], proc.stderr[-3000:], sep="\n")
        sys.exit(f"faults: the fast tier fails without a fault (exit {proc.returncode}); fix it first")
    print(f"recorded the fast tier in {time.time() - start:.0f} s"
          f"{f' on {jobs} workers' if spread else ''}", flush=True)
    recording = merge(path)
    path.write_text(json.dumps(recording, indent=1), encoding="utf-8")
    return recording


def run_fault(key: str, tests: list[str], work: Path, workers: Workers | None = None) -> dict:
    """Run ``tests`` with the fault ``key`` (in a warm worker when given, else a new process); the first
    failure (or None) and how long it took."""
    name = "".join(ch if ch.isalnum() else "_" for ch in key)
    select, report = work / f"{name}.select", work / f"{name}.json"
    select.write_text("\n".join(tests) + "\n", encoding="utf-8")
    files = sorted({t.split("::")[0] for t in tests})
    args = ["-x", f"--fault={key}", f"--fault-select={select}", f"--fault-report={report}", *files]
    start = time.time()
    detail = ""
    if workers is not None:
        code, _ = workers.run(_pytest_args(*args))
        if code == "timeout":
            return {"first": None, "status": "timeout", "seconds": time.time() - start}
    else:
        try:
            proc = subprocess.run(_pytest(*args), cwd=REPO, env=_environment(), capture_output=True, text=True,
                                  timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return {"first": None, "status": "timeout", "seconds": time.time() - start}
        code, detail = proc.returncode, (proc.stdout + proc.stderr)[-2000:]
    out = json.loads(report.read_text(encoding="utf-8")) if report.exists() else {"first": None}
    status = {0: "passed", 1: "failed"}.get(code, f"pytest exit {code}")
    if status.startswith("pytest exit"):
        out["first"] = None
        out["detail"] = detail
    return {**out, "status": status, "seconds": time.time() - start}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("FAULT_JOBS", os.cpu_count() or 1)))
    parser.add_argument("--record-jobs", type=int, default=int(os.environ.get("FAULT_RECORD_JOBS", "1")),
                        help="pytest-xdist workers of the recording (1: one process; more needs an xdist-safe fast "
                             "tier: under -n some unit tests that share module state fail)")
    parser.add_argument("--only", default="")
    parser.add_argument("--record", type=Path, default=None)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--cold", action="store_true", help="a new Python process per fault (no warm workers)")
    args = parser.parse_args(argv)
    work = Path(args.keep or tempfile.mkdtemp(prefix="pufferfish-faults-"))
    work.mkdir(parents=True, exist_ok=True)
    recording = (json.loads(args.record.read_text(encoding="utf-8")) if args.record
                 else record(work / "record.json", args.record_jobs))
    durations = recording["durations"]
    faults = [(c, r) for c, r in catalog.faults() if args.only in catalog.key(c, r)]

    workers = Workers(max(1, args.jobs)) if hasattr(os, "fork") and not args.cold else None

    def tests_of(fault) -> list[str]:
        return sorted(recording["reached"].get(catalog.key(*fault), []), key=lambda t: durations.get(t, 0.0))

    def one(fault):
        key, tests = catalog.key(*fault), tests_of(fault)
        return key, tests, (run_fault(key, tests, work, workers) if tests else None)

    def cost(fault) -> float:
        return sum(durations.get(t, 0.0) for t in tests_of(fault))

    caught = 0
    start = time.time()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(one, f) for f in sorted(faults, key=cost, reverse=True)]
        for future in as_completed(futures):             # one line per fault as it ends
            key, tests, result = future.result()
            if result is None:
                print(f"NOT CAUGHT  {key}: no test of the fast tier reaches it", flush=True)
            elif result["first"] is not None:
                caught += 1
                print(f"caught      {key}: {result['first']['test']} ({result['seconds']:.0f} s)", flush=True)
            else:
                extra = f" ({result['status']})" if result["status"] != "passed" else ""
                print(f"NOT CAUGHT  {key}: {len(tests)} tests reach it, none fails{extra}", flush=True)
    if workers is not None:
        workers.close()
    print(f"ran {len(faults)} faults in {time.time() - start:.0f} s on {max(1, args.jobs)} "
          f"{'warm workers' if workers is not None else 'processes'}", flush=True)
    print(f"faults caught: {caught} of {len(faults)}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if caught == len(faults) else 1


if __name__ == "__main__":
    sys.exit(main())

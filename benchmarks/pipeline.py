"""Benchmark of the Snakemake pipeline: a full run from an empty results/, then an incremental one.

Not a test. It never touches the repository's own results/: it copies the repository
(``git ls-files`` plus untracked, not ignored files; not results/ nor .snakemake/) to a
scratch directory (default /tmp/bench_repo, recreated), copies data/raw there (so the
datasets are cached and no download job runs), and in that copy:

1. times ``snakemake --workflow-profile workflow/profiles/default --cores 2`` (what
   ``make reproduce`` runs, on 2 cores) from an empty results/ (target: <= 30 s);
2. changes the epsilon grid of one experiment (default ``fig6``) in the copy's
   config.yaml and times the same command again (target: <= 8 s); only that
   experiment's jobs (and the reports that gather every experiment) should run.

Both runs list the jobs that ran (rule and wildcards, parsed from Snakemake's log); the
incremental run flags any job of another experiment. Every job is a new Python process:
for each workflow script the benchmark prints the time its jobs spent importing modules
beside the time they spent computing, and their peak resident memory (a ``sitecustomize`` hook placed on the copy's
PYTHONPATH, active only in Snakemake's script processes, times the outermost imports and
the process's life; nothing of it is in the repository). The copy imports the package from
its own src/ (PYTHONPATH). Logs: <scratch>/bench_full.log, <scratch>/bench_incremental.log.
Last line: ``full_seconds: <s>`` (the wall time of the full run, also when it failed).

Run: ``.venv/bin/python benchmarks/pipeline.py [--experiment fig6] [--dest /tmp/bench_repo]``.

With ``--baseline REV [--rounds N]`` it also copies commit REV (``git archive``) beside the
copy and times both trees N times each, alternated (ABBA: the machine's drift falls on both), and
prints the medians and their ratios (issue 24's targets: full <= 1.35x, incremental <= 1.25x).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SKIP = ("results/", ".snakemake/", "data/raw/", ".bench_site/", ".bench_times/")
#: rules that gather every experiment: they rerun whenever any experiment changes
GATHERING = ("all", "report", "audit_summary", "reproduction", "claims", "provenance")


def repo_files() -> list[str]:
    listed = []
    for args in (["ls-files", "-z"], ["ls-files", "-z", "--others", "--exclude-standard"]):
        out = subprocess.run(["git", *args], cwd=REPO, capture_output=True, check=True).stdout
        listed += [f for f in out.decode().split("\0") if f]
    return sorted({f for f in listed if not f.startswith(SKIP) and (REPO / f).is_file()})


def make_copy(dest: Path) -> int:
    if dest.exists():
        if not (dest / ".bench_repo").exists():
            sys.exit(f"{dest} exists and is not a copy made by this script: refusing to delete it")
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    (dest / ".bench_repo").write_text("scratch copy made by benchmarks/pipeline.py\n")
    files = repo_files()
    for f in files:
        target = dest / f
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / f, target)
    if (REPO / "data" / "raw").is_dir():
        shutil.copytree(REPO / "data" / "raw", dest / "data" / "raw", copy_function=shutil.copy2)
    return len(files)


def prepare_data(dest: Path) -> str:
    """The datasets in the copy: copied from data/raw, else downloaded there (untimed, UCI_MIRROR honoured)."""
    if (dest / "data" / "raw").is_dir():
        return "data/raw copied"
    env = dict(os.environ, PYTHONPATH=str(dest / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "--until", "download"], cwd=dest,
                          env=env, capture_output=True, text=True)
    if proc.returncode:
        failure_tail(proc.stdout + proc.stderr)
        sys.exit("no data/raw in the repository and the download into the copy failed (set UCI_MIRROR?)")
    return "no data/raw in the repository: downloaded into the copy first (untimed)"


#: targets of issue 15 (seconds, 2 cores)
FULL_TARGET, INCREMENTAL_TARGET = 30.0, 8.0

#: the timing hook (written to <scratch>/.bench_site/sitecustomize.py, on the jobs' PYTHONPATH)
SITECUSTOMIZE = """\
\"\"\"Timing hook of benchmarks/pipeline.py (scratch copy only): import and compute time of each workflow job.\"\"\"
import os
import sys

if os.environ.get("PUFFERFISH_BENCH_TIMES") and ".snakemake/scripts/" in (sys.argv[0] if sys.argv else ""):
    import _frozen_importlib
    import atexit
    import json
    import time

    _start, _spent, _find_and_load = time.perf_counter(), [0.0, False], _frozen_importlib._find_and_load

    def _timed(name, import_):
        if _spent[1]:                         # an import inside an import: counted by the outer one
            return _find_and_load(name, import_)
        _spent[1], begin = True, time.perf_counter()
        try:
            return _find_and_load(name, import_)
        finally:
            _spent[0] += time.perf_counter() - begin
            _spent[1] = False

    _frozen_importlib._find_and_load = _timed

    @atexit.register
    def _record():
        import resource
        script = os.path.basename(sys.argv[0]).split(".", 1)[-1].rsplit(".py", 1)[0]
        path = os.path.join(os.environ["PUFFERFISH_BENCH_TIMES"], f"{os.getpid()}.json")
        with open(path, "w") as handle:
            json.dump({"script": script, "import": _spent[0], "total": time.perf_counter() - _start,
                       "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}, handle)
"""


def snakemake(dest: Path, log_name: str) -> tuple[int, float, str]:
    site = dest / ".bench_site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    times = dest / ".bench_times" / Path(log_name).stem
    shutil.rmtree(times, ignore_errors=True)
    times.mkdir(parents=True)
    path = os.pathsep.join([str(dest / "src"), str(site)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH")
                                                             else []))
    env = dict(os.environ, PYTHONPATH=path, PUFFERFISH_BENCH_TIMES=str(times))
    # the command `make reproduce` runs (README), on 2 cores
    cmd = [sys.executable, "-m", "snakemake", "--workflow-profile", "workflow/profiles/default", "--cores", "2"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=dest, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    log = proc.stdout + proc.stderr
    (dest / log_name).write_text(log)
    return proc.returncode, seconds, log


def jobs_ran(log: str) -> list[tuple[str, str]]:
    """(rule, wildcards) of every job Snakemake started, in order."""
    jobs, current = [], None
    for line in log.splitlines():
        head = re.match(r"^(?:local)?rule (\w+):\s*$", line)
        if head:
            if current:
                jobs.append(current)
            current = [head.group(1), ""]
            continue
        if current is not None:
            if line.startswith((" ", "\t")):
                wild = re.match(r"^\s+wildcards:\s*(.*)$", line)
                if wild:
                    current[1] = wild.group(1).strip()
            else:
                jobs.append(current)
                current = None
    if current:
        jobs.append(current)
    return [tuple(j) for j in jobs]


def job_durations(log: str) -> list[tuple[float, str]]:
    """(seconds, "rule [wildcards]") of every finished job, from the log's timestamps (1 s resolution)."""
    stamp, started, names, out = None, {}, {}, []
    rule, last = None, None
    for line in log.splitlines():
        m = re.match(r"^\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]$", line)
        if m:
            stamp = datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y")
            continue
        m = re.match(r"^(?:local)?rule (\w+):\s*$", line)
        if m:
            rule = m.group(1)
            continue
        m = re.match(r"^\s+jobid: (\d+)", line)
        if m and stamp is not None:
            last = m.group(1)
            started[last], names[last] = stamp, rule
            continue
        m = re.match(r"^\s+wildcards:\s*(.*)$", line)
        if m and last is not None:
            names[last] = f"{rule} [{m.group(1).strip()}]"
            continue
        m = re.match(r"^Finished jobid: (\d+)", line)
        if m and m.group(1) in started:
            out.append(((stamp - started[m.group(1)]).total_seconds(), names[m.group(1)]))
    return sorted(out, reverse=True)


def show_slowest(log: str, count: int = 6) -> None:
    durations = job_durations(log)
    if durations:
        total = sum(d for d, _ in durations)
        top = ", ".join(f"{name} {d:.0f} s" for d, name in durations[:count])
        print(f"  job time (1 s resolution): {total:.0f} s summed over jobs; slowest: {top}")


def show_imports(dest: Path, log_name: str) -> None:
    """Per workflow script: jobs, mean import and compute seconds per job; and the totals."""
    records = []
    for path in sorted((dest / ".bench_times" / Path(log_name).stem).glob("*.json")):
        try:
            records.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    if not records:
        print("  import/compute times: none recorded (no script job ran)")
        return
    by_script: dict[str, list[dict]] = {}
    for r in records:
        by_script.setdefault(r["script"], []).append(r)
    print(f"  {'script':<26} {'jobs':>4} {'import s/job':>12} {'compute s/job':>13} {'peak MB':>8}"
          "   (process life, from sitecustomize)")
    for script, rs in sorted(by_script.items(), key=lambda kv: -sum(r["total"] for r in kv[1])):
        imp = sum(r["import"] for r in rs) / len(rs)
        comp = sum(r["total"] - r["import"] for r in rs) / len(rs)
        peak = max(r.get("max_rss_mb", float("nan")) for r in rs)
        print(f"  {script:<26} {len(rs):>4} {imp:12.2f} {comp:13.2f} {peak:8.0f}")
    total_imp = sum(r["import"] for r in records)
    total = sum(r["total"] for r in records)
    print(f"  imports: {total_imp:.1f} s of {total:.1f} s summed over {len(records)} script jobs "
          f"({100 * total_imp / total:.0f} %)")


def show_jobs(jobs, experiment: str | None = None) -> list[tuple[str, str]]:
    """Print the jobs; return those that belong to another experiment than ``experiment``."""
    foreign = []
    for rule, wild in jobs:
        mark = ""
        if experiment is not None:
            values = dict(kv.split("=", 1) for kv in wild.split(", ") if "=" in kv)
            other = values.get("experiment") not in (None, experiment)
            if other or (not values and rule not in GATHERING):
                foreign.append((rule, wild))
                mark = "   <- not the changed experiment"
        print(f"    {rule}{' [' + wild + ']' if wild else ''}{mark}")
    return foreign


def failure_tail(log: str, lines: int = 25) -> None:
    errs = [ln for ln in log.splitlines() if ln.strip()]
    print("  last lines of the log:")
    for ln in errs[-lines:]:
        print(f"    | {ln}")


def edit_epsilons(dest: Path, experiment: str) -> str:
    """Change the epsilon grid of ``experiment`` in the copy's config.yaml; describe the change."""
    config_path = dest / "config.yaml"
    config = yaml.safe_load(config_path.read_text())
    spec = config["multiuser"]["experiments"][experiment]
    before = spec["epsilons"]
    spec["epsilons"] = {"start": 0.05, "stop": 1.0, "step": 0.05}
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))
    return f"changed multiuser.experiments.{experiment}.epsilons: {before} -> {spec['epsilons']} (in the copy)"


def reset(dest: Path, config_text: str) -> None:
    """An empty results/ and .snakemake/, and the copy's original config.yaml: the state before a full run."""
    for name in ("results", ".snakemake"):
        shutil.rmtree(dest / name, ignore_errors=True)
    (dest / "config.yaml").write_text(config_text)


def make_baseline_copy(rev: str, dest: Path) -> str:
    """The tree of commit ``rev`` (git archive) in ``dest`` (recreated), with data/raw copied: returns the full hash."""
    full = subprocess.run(["git", "rev-parse", "--verify", rev + "^{commit}"], cwd=REPO, capture_output=True,
                          text=True)
    if full.returncode:
        sys.exit(f"error: --baseline {rev}: not a commit of this repository")
    if dest.exists():
        if not (dest / ".bench_repo").exists():
            sys.exit(f"{dest} exists and is not a copy made by this script: refusing to delete it")
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    (dest / ".bench_repo").write_text("scratch copy made by benchmarks/pipeline.py\n")
    archive = subprocess.run(["git", "archive", "--format=tar", full.stdout.strip()], cwd=REPO, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    if (REPO / "data" / "raw").is_dir():
        shutil.rmtree(dest / "data" / "raw", ignore_errors=True)
        shutil.copytree(REPO / "data" / "raw", dest / "data" / "raw", copy_function=shutil.copy2)
    return full.stdout.strip()


#: targets of issue 24 (ratios against the baseline commit, measured in the same run)
FULL_RATIO_TARGET, INCREMENTAL_RATIO_TARGET = 1.35, 1.25


def compare(args, dest: Path) -> int:
    """Full and incremental runs of this tree and of ``args.baseline``, alternated (ABBA), ``args.rounds`` each."""
    import statistics

    base = dest.with_name(dest.name + "_base")
    make_copy(dest)
    rev = make_baseline_copy(args.baseline, base)
    print(f"this tree -> {dest}; baseline {rev[:10]} -> {base}; data/raw copied into both")
    trees = {"this": dest, "baseline": base}
    configs = {name: (path / "config.yaml").read_text() for name, path in trees.items()}
    times: dict[tuple[str, str], list[float]] = {}
    for rnd in range(args.rounds):
        order = ["this", "baseline"] if rnd % 2 == 0 else ["baseline", "this"]
        for name in order:
            path = trees[name]
            reset(path, configs[name])
            rc, full, log = snakemake(path, "bench_full.log")
            if rc:
                failure_tail(log)
                sys.exit(f"error: the full run of {name} failed (exit {rc})")
            edit_epsilons(path, args.experiment)
            rc, inc, log = snakemake(path, "bench_incremental.log")
            if rc:
                failure_tail(log)
                sys.exit(f"error: the incremental run of {name} failed (exit {rc})")
            times.setdefault((name, "full"), []).append(full)
            times.setdefault((name, "incremental"), []).append(inc)
            print(f"round {rnd + 1} {name:>8}: full {full:6.1f} s, "
                  f"incremental {inc:5.1f} s")
    status = 0
    for kind, target in (("full", FULL_RATIO_TARGET), ("incremental", INCREMENTAL_RATIO_TARGET)):
        this, old = statistics.median(times[("this", kind)]), statistics.median(times[("baseline", kind)])
        ratio = this / old
        met = ratio <= target
        status |= not met
        print(f"{kind}: this tree median {this:.1f} s, baseline {rev[:10]} median {old:.1f} s, "
              f"ratio {ratio:.2f} (target <= {target}: {'met' if met else 'NOT met'})")
    return status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dest", type=Path, default=Path("/tmp/bench_repo"), help="scratch copy (recreated)")
    parser.add_argument("--experiment", default="fig6", help="experiment whose epsilon grid is changed")
    parser.add_argument("--baseline", metavar="REV",
                        help="also time commit REV (e.g. 1f2637e) in a second copy, alternated, and print ratios")
    parser.add_argument("--rounds", type=int, default=3, help="with --baseline: runs of each tree (default 3)")
    args = parser.parse_args()
    dest = args.dest.resolve()
    if dest == REPO or REPO in dest.parents:
        sys.exit("the scratch copy must be outside the repository")
    if args.baseline:
        return compare(args, dest)
    count = make_copy(dest)
    print(f"copy: {count} files of {REPO} -> {dest}; {prepare_data(dest)}")

    rc, full, log = snakemake(dest, "bench_full.log")
    jobs = jobs_ran(log)
    print(f"full run: snakemake --workflow-profile workflow/profiles/default --cores 2 from an empty results/: {full:.1f} s, exit code {rc}, {len(jobs)} jobs "
          f"(issue 15's absolute target on a quiet machine, <= {FULL_TARGET:.0f} s: "
          f"{'met' if rc == 0 and full <= FULL_TARGET else 'not met here'}; issue 24 judges by the ratio: --baseline)")
    show_jobs(jobs)
    show_slowest(log)
    show_imports(dest, "bench_full.log")
    if rc != 0:
        failure_tail(log)
        print("incremental run: not attempted (the full run failed)")
        print(f"full_seconds: {full:.1f}")
        return 1

    print(edit_epsilons(dest, args.experiment))

    rc, inc, log = snakemake(dest, "bench_incremental.log")
    jobs = jobs_ran(log)
    print(f"incremental run: {inc:.1f} s, exit code {rc}, {len(jobs)} jobs "
          f"(issue 15's absolute target, <= {INCREMENTAL_TARGET:.0f} s: "
          f"{'met' if rc == 0 and inc <= INCREMENTAL_TARGET else 'not met here'}; issue 24: --baseline)")
    foreign = show_jobs(jobs, args.experiment)
    show_slowest(log)
    show_imports(dest, "bench_incremental.log")
    if rc != 0:
        failure_tail(log)
    if foreign:
        print(f"  {len(foreign)} job(s) of other experiments reran: the change is not confined to {args.experiment}")
    else:
        print(f"  only {args.experiment}'s jobs (and the gathering reports) reran")
    print(f"full_seconds: {full:.1f}")
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

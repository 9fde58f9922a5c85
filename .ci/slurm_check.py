"""The workflow on a real Slurm through ``workflow/profiles/slurm`` (issue 26); run by ``.ci/slurm``.

Expects a running cluster (``SLURM_CONF``, the account and partition in
``PUFFERFISH_SLURM_ACCOUNT`` and ``PUFFERFISH_SLURM_PARTITION``, ``UCI_MIRROR`` or network for
the download) and a finished local run in ``--local``/results. Three parts, each read back from
the cluster's accounting (``sacct``), not from what Snakemake says:

1. the whole workflow from an empty ``results/`` (job status by ``sacct``, the plugin's default):
   every job but the localrules is submitted with ``sbatch`` with the profile's account,
   partition, time, memory and CPUs, stays within its memory, completes; every CSV is
   byte-identical to the local run's;
2. a job failing on its first attempt (a marker file, read by a ``sitecustomize`` on the job's
   ``PYTHONPATH``, makes the first attempt exit 17) is retried by the profile's ``retries: 1`` and
   the run finishes (job status by ``squeue``, the way for clusters without accounting);
3. a job cancelled with ``scancel`` while it computes (``--retries 0``: the profile would resubmit
   it) leaves none of its outputs, no other file and no lock behind, and a rerun completes it with
   the local run's bytes. With ``squeue`` status, Snakemake sees the job CANCELLED and stops with an
   error by itself. With ``sacct`` status it does not: sacct says "CANCELLED by <uid>", which the
   plugin (2.8.0) does not count as failed, so Snakemake waits on; the check then does what a user
   does, Ctrl-C (SIGINT), and Snakemake cancels, cleans up and stops. Both are printed, so a plugin
   that learns the state shows here.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import yaml

#: status checks every few seconds (the plugin's default waits 40 s, right for a busy queue)
FAST = ["--slurm-init-seconds-before-status-checks", "2", "--seconds-between-status-checks", "2"]
#: the job that fails once (part 2) and the one cancelled (part 3), with the outputs they write
RETRIED = ("multiuser_plan_experiment", ["results/theta/multiuser_fig1.csv"])
CANCELLED = ("sensitivity_attribute_privacy", ["results/theta/attribute_privacy.csv"])
SITECUSTOMIZE = '''\
import os, sys
marker = os.environ.get("PUFFERFISH_CI_FAIL_ONCE")
argv = " ".join(sys.argv)
if marker and os.environ.get("SLURM_JOB_ID") and "--target-jobs" in argv \\
        and os.environ["PUFFERFISH_CI_FAIL_RULE"] + ":" in argv and os.path.exists(marker):
    os.remove(marker)
    sys.stderr.write("fault injected by .ci/slurm_check.py: first attempt exits 17\\n")
    sys.stderr.flush()
    os._exit(17)
'''


#: the rules that run on the login node: the download (a localrule) and the target rule
LOCAL_RULES = {"download", "all"}
#: the Snakemake runs started: any still running at exit gets a Ctrl-C (it cancels its jobs)
RUNNING: list[subprocess.Popen] = []


class CheckFailed(Exception):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, text=True, capture_output=True, **kwargs)


def csv_digests(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / "results").rglob("*.csv"))}


def same_bytes(workdir: Path, local: Path, outputs: list[str]) -> bool:
    """Whether each of ``outputs`` exists in ``workdir`` with the bytes of the local run's file."""
    return all((workdir / o).is_file() and (workdir / o).read_bytes() == (local / o).read_bytes() for o in outputs)


def all_files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in (root / "results").rglob("*") if p.is_file()}


def last_job_id() -> int:
    out = run(["sacct", "-X", "-a", "-n", "-P", "--format=JobIDRaw", "--starttime", "now-1days"]).stdout.split()
    return max((int(j) for j in out if j.isdigit()), default=0)


def jobs_since(job_id: int) -> list[dict]:
    """The cluster's accounting record of every job after ``job_id``, with the MaxRSS of its batch step."""
    fields = ["JobIDRaw", "JobName", "State", "ExitCode", "Account", "Partition", "TimelimitRaw",
              "ReqMem", "ReqCPUS", "Comment", "WorkDir", "MaxRSS"]
    out = run(["sacct", "-a", "-n", "-P", "--units=M", "--starttime", "now-1days", f"--format={','.join(fields)}"],
              check=True).stdout
    jobs, rss = {}, {}
    for line in out.splitlines():
        row = dict(zip(fields, line.split("|")))
        base, _, step = row["JobIDRaw"].partition(".")
        if not base.isdigit() or int(base) <= job_id:
            continue
        if step:
            if row["MaxRSS"]:
                rss[base] = max(rss.get(base, 0.0), float(row["MaxRSS"].rstrip("M")))
        else:
            row["rule"] = row["Comment"].split("_wildcards_")[0].removeprefix("rule_")
            jobs[base] = row
    for base, row in jobs.items():
        row["max_rss_mb"] = rss.get(base)
    return [jobs[k] for k in sorted(jobs, key=int)]


def workflow_command(workdir: Path, local: Path, *args) -> list[str]:
    """Snakemake on the project's workflow and config, in ``workdir``."""
    return [str(local / ".venv" / "bin" / "snakemake"), "--snakefile", str(local / "Snakefile"),
            "--directory", str(workdir), "--configfile", str(local / "config.yaml"), *args]


def snakemake(workdir: Path, local: Path, *args, env: dict | None = None, wait: bool = True):
    cmd = workflow_command(workdir, local, "--workflow-profile", str(local / "workflow" / "profiles" / "slurm"),
                           *FAST, *args)
    logfile = workdir / f"snakemake-{time.monotonic_ns()}.log"
    with open(logfile, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
                                cwd=workdir)
    proc.logfile = logfile
    RUNNING.append(proc)
    if wait:
        proc.wait(timeout=3600)
    return proc


def tail(proc, lines: int = 40) -> str:
    """The end of a run's log, then the end of the Slurm log of its first failed job."""
    text = proc.logfile.read_text(errors="replace")
    out = text.splitlines()[-lines:]
    for line in text.splitlines():
        if "slurm_logs/" in line and line.strip().startswith("log:"):
            slurm_log = Path(line.split(",")[-1].split(" (check")[0].strip())
            if slurm_log.exists():
                out += [f"--- {slurm_log}", *slurm_log.read_text(errors="replace").splitlines()[-lines:]]
            break
    return "\n".join(out)


def planned_jobs(workdir: Path, local: Path) -> dict[str, int]:
    """Rule -> number of jobs of the whole workflow in ``workdir``, from Snakemake's dry run."""
    out = run(workflow_command(workdir, local, "--cores", "1", "--dry-run", "--quiet", "rules"), check=True).stdout
    counts = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[1].isdigit() and fields[0] != "total":
            counts[fields[0]] = int(fields[1])
    check(bool(counts), f"no job table in the dry run's output:\n{out}")
    return counts


def whole_workflow(local: Path, workdir: Path, profile: dict) -> None:
    planned = planned_jobs(workdir, local)
    start = last_job_id()
    t0 = time.monotonic()
    proc = snakemake(workdir, local)
    seconds = time.monotonic() - t0
    check(proc.returncode == 0, f"the workflow on Slurm failed (exit {proc.returncode}):\n{tail(proc)}")
    jobs = jobs_since(start)
    resources = profile["default-resources"]
    check(len(jobs) > 0, "no job went through sbatch")
    check(len({j["JobName"] for j in jobs}) == 1, "more than one run id among the jobs")
    for job in jobs:
        where = f"job {job['JobIDRaw']} ({job['rule']})"
        check(job["State"] == "COMPLETED" and job["ExitCode"] == "0:0", f"{where}: {job['State']} {job['ExitCode']}")
        check(job["Account"] == os.environ["PUFFERFISH_SLURM_ACCOUNT"], f"{where}: account {job['Account']}")
        check(job["Partition"] == os.environ["PUFFERFISH_SLURM_PARTITION"], f"{where}: partition {job['Partition']}")
        check(job["TimelimitRaw"] == str(resources["runtime"]), f"{where}: time limit {job['TimelimitRaw']} min")
        check(job["ReqMem"] == f"{resources['mem_mb']}M", f"{where}: memory {job['ReqMem']}")
        check(job["ReqCPUS"] == str(resources["cpus_per_task"]), f"{where}: CPUs {job['ReqCPUS']}")
        check(job["WorkDir"] == str(workdir), f"{where}: ran in {job['WorkDir']}")
        check(job["max_rss_mb"] is not None and job["max_rss_mb"] < resources["mem_mb"],
              f"{where}: MaxRSS {job['max_rss_mb']} MB against {resources['mem_mb']} MB asked")
    submitted = Counter(j["rule"] for j in jobs)
    expected = {rule: n for rule, n in planned.items() if rule not in LOCAL_RULES}
    check(submitted == expected, f"jobs through sbatch per rule {dict(submitted)}, the dry run plans {expected} "
          f"(and {LOCAL_RULES} on the login node)")
    ours, theirs = csv_digests(workdir), csv_digests(local)
    check(sorted(ours) == sorted(theirs),
          f"CSV files differ: only on Slurm {sorted(set(ours) - set(theirs))}, only local {sorted(set(theirs) - set(ours))}")
    differ = [name for name in ours if ours[name] != theirs[name]]
    check(not differ, f"CSV files with other bytes than the local run's: {differ}")
    largest = max(jobs, key=lambda j: j["max_rss_mb"])
    local_jobs = sum(n for rule, n in planned.items() if rule in LOCAL_RULES)
    print(f"whole workflow: {len(jobs)} jobs through sbatch ({len(submitted)} rules; every job of the dry run "
          f"but the {local_jobs} of {' and '.join(sorted(LOCAL_RULES))} on the login node), all COMPLETED, "
          f"status by sacct, in {seconds:.0f} s; account, partition, {resources['runtime']} min, "
          f"{resources['mem_mb']} MB and {resources['cpus_per_task']} CPU as the profile asks; "
          f"largest MaxRSS {largest['max_rss_mb']:.0f} MB ({largest['rule']})")
    print(f"outputs identical to the local run: {len(ours)} CSV files, byte for byte")


def retried_once(local: Path, workdir: Path) -> None:
    rule, outputs = RETRIED
    for out in outputs:
        (workdir / out).unlink()
    marker, shim = workdir / "fail-once.marker", workdir / "fault-injection"
    marker.touch()
    shim.mkdir(exist_ok=True)
    (shim / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(shim), os.environ.get("PYTHONPATH")])),
           "PUFFERFISH_CI_FAIL_ONCE": str(marker), "PUFFERFISH_CI_FAIL_RULE": rule}
    start = last_job_id()
    proc = snakemake(workdir, local, "--slurm-status-command", "squeue", *outputs, env=env)
    check(proc.returncode == 0, f"the run with a job failing once did not finish (exit {proc.returncode}):\n{tail(proc)}")
    check(not marker.exists(), "the fault was not injected: the marker file is still there")
    jobs = jobs_since(start)
    states = [(j["rule"], j["State"], j["ExitCode"]) for j in jobs]
    check(states == [(rule, "FAILED", "17:0"), (rule, "COMPLETED", "0:0")],
          f"expected a failed attempt (exit 17) then a completed one, got {states}")
    check(same_bytes(workdir, local, outputs), f"{outputs} differ from the local run after the retry")
    print(f"retry: job {jobs[0]['JobIDRaw']} ({rule}) FAILED with exit 17 on its first attempt, "
          f"resubmitted as job {jobs[1]['JobIDRaw']} by the profile's retries: 1, COMPLETED; "
          f"status by squeue (MinJobAge set); outputs identical to the local run")
    shutil.rmtree(shim)


def squeue_running(rule: str) -> str | None:
    out = run(["squeue", "-h", "-t", "RUNNING", "-o", "%i|%k"]).stdout
    for line in out.splitlines():
        job_id, _, comment = line.partition("|")
        if comment.startswith(f"rule_{rule}"):
            return job_id
    return None


def cancel_mid_run(local: Path, workdir: Path, status_command: str) -> tuple[str, str]:
    """Run the job of ``CANCELLED`` alone, ``scancel`` it while its rule computes and wait for
    Snakemake: by itself, or after a Ctrl-C (SIGINT) where it does not notice in 45 s.
    Returns the job id and what ended the run; checks that nothing of the job is left."""
    rule, outputs = CANCELLED
    before = all_files(workdir)
    start = last_job_id()
    proc = snakemake(workdir, local, "--retries", "0", "--slurm-status-command", status_command, *outputs,
                     wait=False)
    deadline = time.monotonic() + 300
    job_id = None
    while job_id is None:
        check(proc.poll() is None, f"the run ended before its job was seen running:\n{tail(proc)}")
        check(time.monotonic() < deadline, f"job {rule} not seen running in 300 s")
        job_id = squeue_running(rule)
        time.sleep(0.5)
    job_log = workdir / ".snakemake" / "slurm_logs" / f"rule_{rule}" / f"{job_id}.log"
    while not (job_log.exists() and "Execute 1 jobs" in job_log.read_text(errors="replace")):
        check(time.monotonic() < deadline, f"job {job_id} never started its rule")
        time.sleep(0.5)
    time.sleep(3)                                           # mid-run: the rule's Python computes
    run(["scancel", job_id], check=True)
    try:
        status, ended = proc.wait(timeout=45), "Snakemake noticed by itself"
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)                     # what a user does: Ctrl-C
        status, ended = proc.wait(timeout=180), "Snakemake did not notice in 45 s; Ctrl-C (SIGINT) stopped it"
    check(status != 0, f"the run with a cancelled job reported success ({status_command})")
    jobs = jobs_since(start)
    check([(j["JobIDRaw"], j["State"].split()[0]) for j in jobs] == [(job_id, "CANCELLED")],
          f"expected job {job_id} CANCELLED, got {[(j['JobIDRaw'], j['State']) for j in jobs]}")
    check(not any((workdir / o).exists() for o in outputs), f"the cancelled job left {outputs}")
    extra = all_files(workdir) - before
    check(not extra, f"the cancelled job left files behind: {sorted(extra)}")
    check(not any((workdir / ".snakemake" / "locks").glob("*")), "the stopped run left its lock")
    return job_id, f"{ended} (exit {status})"


def cancelled_then_rerun(local: Path, workdir: Path) -> None:
    rule, outputs = CANCELLED
    for out in outputs:
        (workdir / out).unlink()
    for status_command in ("sacct", "squeue"):
        job_id, ended = cancel_mid_run(local, workdir, status_command)
        print(f"scancel ({status_command} status): job {job_id} ({rule}) cancelled while computing; {ended}; "
              f"none of its outputs and no other file left, lock released")
    proc = snakemake(workdir, local, *outputs)
    check(proc.returncode == 0, f"the rerun after scancel failed (exit {proc.returncode}):\n{tail(proc)}")
    check(same_bytes(workdir, local, outputs), f"{outputs} differ from the local run after the rerun")
    print("scancel: the rerun completed the job; outputs identical to the local run")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--local", type=Path, required=True, help="the project with a finished local run")
    parser.add_argument("--workdir", type=Path, required=True, help="an empty directory for the cluster run")
    parser.add_argument("--parts", default="whole,retry,scancel",
                        help="which parts to run (default: all); without 'whole', --workdir holds a complete run")
    args = parser.parse_args(argv)
    local, workdir = args.local.resolve(), args.workdir.resolve()
    parts = args.parts.split(",")
    if unknown := set(parts) - {"whole", "retry", "scancel"}:
        parser.error(f"--parts: unknown {sorted(unknown)}")
    workdir.mkdir(parents=True, exist_ok=True)
    if "whole" in parts and (workdir / "results").exists():
        parser.error(f"{workdir}/results exists: the whole workflow must start from an empty results/")
    profile = yaml.safe_load((local / "workflow" / "profiles" / "slurm" / "config.yaml").read_text())
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    # started in the background by .ci/slurm, this process ignores SIGINT and so would the
    # Snakemake runs it starts: they get the default back (KeyboardInterrupt), as in a terminal
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        if "whole" in parts:
            whole_workflow(local, workdir, profile)
        if "retry" in parts:
            retried_once(local, workdir)
        if "scancel" in parts:
            cancelled_then_rerun(local, workdir)
    except CheckFailed as err:
        print(f"error: slurm check: {err}")
        return 1
    finally:
        for proc in RUNNING:                  # Ctrl-C: Snakemake cancels its jobs and stops
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(timeout=120)
                except subprocess.TimeoutExpired:
                    proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The workflow on a real Slurm through ``workflow/profiles/slurm`` (issues 26 and 32); run by ``.ci/slurm``.

Expects a running cluster (``SLURM_CONF``, the account and partition in
``PUFFERFISH_SLURM_ACCOUNT`` and ``PUFFERFISH_SLURM_PARTITION``, ``UCI_MIRROR`` or network for
the downloads). Four parts; what ran on the cluster is read back from its accounting (``sacct``:
each sbatch job's state, resources, memory used and submit line, which names the Snakemake jobs
it ran), not from what Snakemake says:

1. ``whole``: the whole workflow from an empty directory, first locally (the project's default
   profile, every core of this node) and then through the Slurm profile (job status by ``sacct``,
   the plugin's default), both timed here. The jobs go through sbatch in group jobs, exactly as
   Snakemake's dry run with the profile groups them; every job of the dry run but the localrules
   runs once; each group job asks for the account, the partition and the resources its jobs need
   (CPUs: as many jobs as can run side by side, at most the profile's ``cores``; memory: their
   ``mem_mb`` summed; time: the per-job ``runtime`` times the rounds the jobs take), runs each
   connected part of its jobs in one job step (one Snakemake), stays within its memory and
   completes; every CSV file is byte-identical to the local run's. Prints ``sbatch submissions: N``
   and ``cluster time / local time: R`` and holds N <= 8 and R <= 2.
2. ``retry``: a group job failing on its first attempt (a marker file, read by a ``sitecustomize``
   on the job's ``PYTHONPATH``, makes the first attempt exit 17) is resubmitted by the profile's
   ``retries: 1`` and the run finishes (job status by ``squeue``, the way without accounting).
3. ``scancel``: a group job cancelled with ``scancel`` while one of its jobs computes
   (``--retries 0``: the profile would resubmit it) leaves none of its outputs, no other file and
   no lock behind, and a rerun completes it with the local run's bytes. With ``squeue`` status,
   Snakemake sees the job CANCELLED and stops with an error by itself. With ``sacct`` status it
   does not: sacct says "CANCELLED by <uid>", which the plugin (2.8.0) does not count as failed, so
   Snakemake waits on; the check then does what a user does, Ctrl-C (SIGINT), and Snakemake
   cancels, cleans up and stops. Both are printed, so a plugin that learns the state shows here.
4. ``incremental``: one experiment edited (a second ``--configfile``): the cluster reruns exactly
   the jobs that a dry run plans, locally and with the profile alike (that experiment's job and the
   three that read every result), in one group job; the same edit run locally gives the same bytes.
"""
from __future__ import annotations

import argparse
import hashlib
import math
import os
import re
import shlex
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
#: the limits of issue 32 on a full run: sbatch jobs, and its wall time over the local run's
MAX_SUBMISSIONS, MAX_RATIO = 8, 2.0
#: part 2: the targets of a group job that fails once (two experiments: two unconnected parts of
#: one group job) and the rule whose job's command line the fault injector looks for
RETRIED = ["results/theta/multiuser_fig1.csv", "results/theta/multiuser_fig4.csv"]
RETRIED_RULE = "multiuser_plan_experiment"
#: part 3: the targets of the group job cancelled while one of its jobs computes
CANCELLED = ["results/theta/attribute_privacy.csv", "results/theta/diffusion.csv"]
#: part 4: the experiment edited, and the job of it that must rerun
EDITED = ("multiuser", "experiments", "fig4")
EDITED_JOB = ("multiuser_experiment", (("experiment", "fig4"),))
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
#: the rules that run on the login node: the download (a localrule) and the target rule (the dry
#: run prints both as "rule", so the check names them)
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


def same_csvs(cluster: Path, local: Path) -> int:
    """Checks that both runs wrote the same CSV files with the same bytes; returns how many."""
    ours, theirs = csv_digests(cluster), csv_digests(local)
    check(sorted(ours) == sorted(theirs),
          f"CSV files differ: only on Slurm {sorted(set(ours) - set(theirs))}, only local {sorted(set(theirs) - set(ours))}")
    differ = [name for name in ours if ours[name] != theirs[name]]
    check(not differ, f"CSV files with other bytes than the local run's: {differ}")
    return len(ours)


def same_bytes(workdir: Path, local: Path, outputs: list[str]) -> bool:
    """Whether each of ``outputs`` exists in ``workdir`` with the bytes of the local run's file."""
    return all((workdir / o).is_file() and (workdir / o).read_bytes() == (local / o).read_bytes() for o in outputs)


def all_files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in (root / "results").rglob("*") if p.is_file()}


# --- what Snakemake plans: its dry run --------------------------------------------------------

def job_key(rule: str, wildcards: str, sep: str) -> tuple:
    """A job as (rule, ((wildcard, value), ...)), from ``k=v<sep>k=v`` as the dry run and the
    ``--target-jobs`` arguments write them."""
    items = [w.strip().split("=", 1) for w in wildcards.split(sep) if w.strip()]
    return rule, tuple(sorted((k, v.strip('"')) for k, v in items))


def job_name(key: tuple) -> str:
    rule, wildcards = key
    return " ".join([rule, *(v for _, v in wildcards)])


class Plan:
    """Snakemake's dry run: its jobs (with inputs, outputs and resources), which run on this
    node (localrules), and the group jobs it would submit (their jobs)."""

    def __init__(self, text: str):
        self.jobs, self.local, self.groups = {}, set(), []
        job = group = None
        for line in [*text.splitlines(), "Job stats:"]:
            indent = len(line) - len(line.lstrip())
            group_header = re.search(r"Group job (\S+) \(jobs", line)
            job_header = re.fullmatch(r"\s*(local)?rule (\w+):", line)
            if (group_header or job_header or line.startswith("Job stats:")) and job is not None:
                self._add(job)
                job = None
            if group_header:
                group = (group_header.group(1), [])
                self.groups.append(group)
            elif job_header:
                job = {"rule": job_header.group(2), "wildcards": "", "input": [], "output": [], "resources": {},
                       "local": bool(job_header.group(1)), "group": group if indent > 0 else None}
            elif job is not None and (m := re.fullmatch(r"\s*(input|output|wildcards|resources): (.*)", line)):
                field, value = m.groups()
                if field in ("input", "output"):
                    job[field] = value.split(", ")
                elif field == "resources":
                    job[field] = dict(item.split("=", 1) for item in value.split(", ") if "=" in item)
                else:
                    job[field] = value
        check(bool(self.jobs), f"no job in the dry run's output:\n{text[-3000:]}")

    def _add(self, job: dict) -> None:
        key = job_key(job["rule"], job["wildcards"], ",")
        self.jobs[key] = job
        if job["local"] or job["rule"] in LOCAL_RULES:
            self.local.add(key)
        if job["group"] is not None:
            job["group"][1].append(key)

    def submissions(self) -> list:
        """The jobs of each sbatch job Snakemake would submit: its group jobs, and each job of no group."""
        grouped = {k for _, keys in self.groups for k in keys}
        return [sorted(keys) for _, keys in self.groups] + [[k] for k in sorted(self.submitted() - grouped)]

    def submitted(self) -> set:
        return set(self.jobs) - self.local

    def dependencies(self, keys) -> dict:
        """Each job of ``keys`` -> the jobs of ``keys`` whose outputs it reads."""
        made_by = {out: k for k in keys for out in self.jobs[k]["output"]}
        return {k: {made_by[i] for i in self.jobs[k]["input"] if i in made_by} - {k} for k in keys}


def planned(workdir: Path, project: Path, *args, profile: bool = True) -> Plan:
    """The dry run in ``workdir``, with the Slurm profile's grouping or as a local run plans it."""
    extra = ["--workflow-profile", str(project / "workflow" / "profiles" / "slurm")] if profile else ["--cores", "1"]
    out = run(workflow_command(workdir, project, *extra, "--dry-run", *args), cwd=workdir)
    check(out.returncode == 0, f"the dry run failed (exit {out.returncode}):\n{(out.stdout + out.stderr)[-3000:]}")
    return Plan(out.stdout + out.stderr)


def levels(deps: dict) -> list[int]:
    """The jobs in each level of a topological sort (a job's level: the longest chain of jobs
    before it), as Snakemake sorts a group's jobs before it sizes the group job."""
    depth = {}

    def level(k):
        if k not in depth:
            depth[k] = 1 + max((level(d) for d in deps[k]), default=-1)
        return depth[k]

    return [n for _, n in sorted(Counter(level(k) for k in deps).items())]


def parts(deps: dict) -> int:
    """How many connected parts the jobs form (edges: one reads the other's outputs)."""
    neighbours = {k: set(d) for k, d in deps.items()}
    for k, d in deps.items():
        for other in d:
            neighbours[other].add(k)
    seen, count = set(), 0
    for start in neighbours:
        if start in seen:
            continue
        count, stack = count + 1, [start]
        while stack:
            k = stack.pop()
            if k not in seen:
                seen.add(k)
                stack.extend(neighbours[k] - seen)
    return count


def expected_resources(plan: Plan, keys: list, cores: int) -> dict:
    """What Snakemake asks for a group job of ``keys`` whose jobs all ask the same resources:
    the jobs of each topological level in rounds of at most ``cores`` side by side; CPUs and
    memory of the widest round, the runtime of a job times the number of rounds."""
    resources = {tuple(sorted((r, plan.jobs[k]["resources"][r]) for r in ("cpus_per_task", "mem_mb", "runtime")))
                 for k in keys}
    check(len(resources) == 1, f"the check sizes group jobs whose jobs ask the same resources; these ask {resources}")
    per_job = {name: int(value) for name, value in resources.pop()}
    widths = levels(plan.dependencies(keys))
    side_by_side = min(max(widths), cores)
    return {"cpus": side_by_side * per_job["cpus_per_task"], "mem_mb": side_by_side * per_job["mem_mb"],
            "runtime": sum(math.ceil(w / cores) for w in widths) * per_job["runtime"],
            "rounds": sum(math.ceil(w / cores) for w in widths), "side_by_side": side_by_side,
            "parts": parts(plan.dependencies(keys))}


# --- what ran: the cluster's accounting --------------------------------------------------------

def last_job_id() -> int:
    out = run(["sacct", "-X", "-a", "-n", "-P", "--format=JobIDRaw", "--starttime", "now-1days"]).stdout.split()
    return max((int(j) for j in out if j.isdigit()), default=0)


def jobs_since(job_id: int) -> list[dict]:
    """The accounting record of every sbatch job after ``job_id``: its fields, the Snakemake jobs
    its submit line names (``--target-jobs``), its job steps and the largest MaxRSS among them."""
    fields = ["JobIDRaw", "JobName", "State", "ExitCode", "Account", "Partition", "TimelimitRaw", "ReqMem",
              "ReqCPUS", "Comment", "WorkDir", "MaxRSS", "ElapsedRaw", "SubmitLine"]
    out = run(["sacct", "-a", "-n", "-P", "--units=M", "--starttime", "now-1days", f"--format={','.join(fields)}"],
              check=True).stdout
    jobs, steps = {}, {}
    for line in out.splitlines():
        row = dict(zip(fields, line.split("|", len(fields) - 1)))
        base, _, step = row["JobIDRaw"].partition(".")
        if not base.isdigit() or int(base) <= job_id:
            continue
        if step:
            steps.setdefault(base, []).append(row)
        else:
            match = re.search(r"--target-jobs (.*?) --", row["SubmitLine"])
            check(match is not None, f"job {base}: no --target-jobs in its submit line {row['SubmitLine'][:300]}")
            row["targets"] = [job_key(*spec.split(":", 1), ",") for spec in shlex.split(match.group(1))]
            row["name"] = row["Comment"].removeprefix("rule_")
            jobs[base] = row
    for base, row in jobs.items():
        row["steps"] = [s for s in steps.get(base, []) if s["JobIDRaw"].split(".")[1].isdigit()]
        row["max_rss_mb"] = max((float(s["MaxRSS"].rstrip("M")) for s in steps.get(base, []) if s["MaxRSS"]),
                                default=None)
    return [jobs[k] for k in sorted(jobs, key=int)]


def check_group_jobs(jobs: list[dict], plan: Plan, profile: dict, workdir: Path, cores: int) -> list[str]:
    """Checks each group job against the dry run's group and the resources it needs; returns a
    line per group job."""
    resources = profile["default-resources"]
    planned_groups = sorted(plan.submissions())
    check(sorted(sorted(j["targets"]) for j in jobs) == planned_groups,
          f"the sbatch jobs ran {[[job_name(k) for k in j['targets']] for j in jobs]}, "
          f"the dry run groups {[[job_name(k) for k in keys] for keys in planned_groups]}")
    lines = []
    for job in jobs:
        where = f"sbatch job {job['JobIDRaw']} ({len(job['targets'])} jobs)"
        expected = expected_resources(plan, job["targets"], cores)
        check(job["State"] == "COMPLETED" and job["ExitCode"] == "0:0", f"{where}: {job['State']} {job['ExitCode']}")
        check(job["Account"] == os.environ["PUFFERFISH_SLURM_ACCOUNT"], f"{where}: account {job['Account']}")
        check(job["Partition"] == os.environ["PUFFERFISH_SLURM_PARTITION"], f"{where}: partition {job['Partition']}")
        check(job["WorkDir"] == str(workdir), f"{where}: ran in {job['WorkDir']}")
        asked = {"cpus": int(job["ReqCPUS"]), "mem_mb": int(job["ReqMem"].rstrip("M")),
                 "runtime": int(job["TimelimitRaw"])}
        check(asked == {k: expected[k] for k in asked},
              f"{where}: asked {asked}, its {expected['rounds']} rounds of at most {expected['side_by_side']} jobs "
              f"need {({k: expected[k] for k in asked})}")
        check(len(job["steps"]) == expected["parts"],
              f"{where}: {len(job['steps'])} job steps for {expected['parts']} connected parts of its jobs")
        check(job["max_rss_mb"] is not None and job["max_rss_mb"] < asked["mem_mb"],
              f"{where}: MaxRSS {job['max_rss_mb']} MB against {asked['mem_mb']} MB asked")
        check(int(job["ElapsedRaw"]) < 60 * asked["runtime"], f"{where}: {job['ElapsedRaw']} s against {asked['runtime']} min")
        lines.append(f"sbatch job {job['JobIDRaw']} ({job['name']}): {len(job['targets'])} jobs in "
                     f"{len(job['steps'])} job step(s), at most {expected['side_by_side']} side by side; asked "
                     f"{asked['cpus']} CPUs, {asked['mem_mb']} MB, {asked['runtime']} min ({expected['rounds']} rounds "
                     f"of {resources['runtime']} min); used {job['ElapsedRaw']} s, MaxRSS {job['max_rss_mb']:.0f} MB")
    return lines


# --- running Snakemake -------------------------------------------------------------------------

def workflow_command(workdir: Path, project: Path, *args) -> list[str]:
    """Snakemake on the project's workflow and config, in ``workdir``."""
    return [str(project / ".venv" / "bin" / "snakemake"), "--snakefile", str(project / "Snakefile"),
            "--directory", str(workdir), "--configfile", str(project / "config.yaml"), *args]


def start(cmd: list[str], workdir: Path, env: dict | None = None, wait: bool = True):
    logfile = workdir / f"snakemake-{time.monotonic_ns()}.log"
    with open(logfile, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
                                cwd=workdir)
    proc.logfile = logfile
    RUNNING.append(proc)
    if wait:
        proc.wait(timeout=3600)
    return proc


def snakemake(workdir: Path, project: Path, *args, env: dict | None = None, wait: bool = True):
    """Snakemake through the Slurm profile in ``workdir``."""
    cmd = workflow_command(workdir, project, "--workflow-profile", str(project / "workflow" / "profiles" / "slurm"),
                           *FAST, *args)
    return start(cmd, workdir, env, wait)


def local_snakemake(workdir: Path, project: Path, *args):
    """Snakemake as `make reproduce` runs it (the default profile, every core) in ``workdir``."""
    cmd = workflow_command(workdir, project, "--workflow-profile", str(project / "workflow" / "profiles" / "default"),
                           "--cores", "all", *args)
    return start(cmd, workdir)


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


# --- the four parts ----------------------------------------------------------------------------

def whole_workflow(project: Path, cluster: Path, local: Path, profile: dict, cores: int) -> None:
    t0 = time.monotonic()
    proc = local_snakemake(local, project)
    local_seconds = time.monotonic() - t0
    check(proc.returncode == 0, f"the local run failed (exit {proc.returncode}):\n{tail(proc)}")
    plan = planned(cluster, project)
    start_id = last_job_id()
    t0 = time.monotonic()
    proc = snakemake(cluster, project)
    seconds = time.monotonic() - t0
    check(proc.returncode == 0, f"the workflow on Slurm failed (exit {proc.returncode}):\n{tail(proc)}")
    jobs = jobs_since(start_id)
    ratio = seconds / local_seconds
    print(f"whole workflow: local run {local_seconds:.0f} s (all cores of this node); through Slurm {seconds:.0f} s "
          f"(status by sacct) in {len(jobs)} sbatch job(s)")
    print(f"sbatch submissions: {len(jobs)}")
    print(f"cluster time / local time: {ratio:.2f}")
    check(len(jobs) > 0, "no job went through sbatch")
    check(len({j["JobName"] for j in jobs}) == 1, "more than one run id among the jobs")
    ran = Counter(k for j in jobs for k in j["targets"])
    check(set(ran) == plan.submitted() and set(ran.values()) == {1},
          f"jobs run on the cluster other than the dry run's (once each): twice {[job_name(k) for k, n in ran.items() if n > 1]}, "
          f"missing {[job_name(k) for k in plan.submitted() - set(ran)]}, extra {[job_name(k) for k in set(ran) - plan.submitted()]}")
    lines = check_group_jobs(jobs, plan, profile, cluster, cores)
    n_csv = same_csvs(cluster, local)
    local_rules = Counter(k[0] for k in plan.local)
    print(f"  the {len(ran)} jobs of the dry run ran once each, grouped as the dry run groups them "
          f"({', '.join(f'{n} {r}' for r, n in sorted(local_rules.items()))} on the login node), all COMPLETED:")
    for line in lines:
        print(f"  {line}")
    print(f"outputs identical to the local run: {n_csv} CSV files, byte for byte")
    check(len(jobs) <= MAX_SUBMISSIONS, f"{len(jobs)} sbatch submissions for a full run, more than {MAX_SUBMISSIONS}")
    check(ratio <= MAX_RATIO, f"the cluster run took {ratio:.2f} times the local run, more than {MAX_RATIO}")


def retried_once(project: Path, cluster: Path, local: Path) -> None:
    for out in RETRIED:
        (cluster / out).unlink()
    marker, shim = cluster / "fail-once.marker", cluster / "fault-injection"
    marker.touch()
    shim.mkdir(exist_ok=True)
    (shim / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(shim), os.environ.get("PYTHONPATH")])),
           "PUFFERFISH_CI_FAIL_ONCE": str(marker), "PUFFERFISH_CI_FAIL_RULE": RETRIED_RULE}
    start_id = last_job_id()
    proc = snakemake(cluster, project, "--slurm-status-command", "squeue", *RETRIED, env=env)
    check(proc.returncode == 0, f"the run with a group job failing once did not finish (exit {proc.returncode}):\n{tail(proc)}")
    check(not marker.exists(), "the fault was not injected: the marker file is still there")
    jobs = jobs_since(start_id)
    states = [(j["State"], j["ExitCode"]) for j in jobs]
    check(states == [("FAILED", "17:0"), ("COMPLETED", "0:0")],
          f"expected a failed attempt (exit 17) then a completed one, got {states}")
    check(jobs[0]["targets"] == jobs[1]["targets"] and len(jobs[0]["targets"]) == len(RETRIED),
          f"the attempts ran {[[job_name(k) for k in j['targets']] for j in jobs]}")
    check(same_bytes(cluster, local, RETRIED), f"{RETRIED} differ from the local run after the retry")
    print(f"retry: group job {jobs[0]['JobIDRaw']} ({', '.join(job_name(k) for k in jobs[0]['targets'])}) FAILED "
          f"with exit 17 on its first attempt, resubmitted as job {jobs[1]['JobIDRaw']} by the profile's retries: 1, "
          f"COMPLETED; status by squeue (MinJobAge set); outputs identical to the local run")
    shutil.rmtree(shim)


def running_job() -> str | None:
    out = run(["squeue", "-h", "-t", "RUNNING", "-o", "%i"]).stdout.split()
    return out[0] if out else None


def cancel_mid_run(project: Path, cluster: Path, status_command: str) -> tuple[str, str]:
    """Run the group job of ``CANCELLED``, ``scancel`` it while its first job computes and wait
    for Snakemake: by itself, or after a Ctrl-C (SIGINT) where it does not notice in 45 s.
    Returns the job id and what ended the run; checks that nothing of the group job is left."""
    before = all_files(cluster)
    start_id = last_job_id()
    proc = snakemake(cluster, project, "--retries", "0", "--slurm-status-command", status_command, *CANCELLED,
                     wait=False)
    deadline = time.monotonic() + 300
    job_id = None
    while job_id is None:
        check(proc.poll() is None, f"the run ended before its job was seen running:\n{tail(proc)}")
        check(time.monotonic() < deadline, "the group job was not seen running in 300 s")
        job_id = running_job()
        time.sleep(0.5)
    logs = cluster / ".snakemake" / "slurm_logs"
    # the job step's Snakemake prints "localrule <rule>:" as it starts a job, then the job's script runs
    while not any("localrule " in log.read_text(errors="replace") for log in logs.rglob(f"{job_id}.log")):
        check(time.monotonic() < deadline, f"job {job_id} never started a job of its group")
        time.sleep(0.5)
    time.sleep(3)                                           # mid-run: the job's Python computes
    run(["scancel", job_id], check=True)
    try:
        status, ended = proc.wait(timeout=45), "Snakemake noticed by itself"
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)                     # what a user does: Ctrl-C
        status, ended = proc.wait(timeout=180), "Snakemake did not notice in 45 s; Ctrl-C (SIGINT) stopped it"
    check(status != 0, f"the run with a cancelled job reported success ({status_command})")
    jobs = jobs_since(start_id)
    check([(j["JobIDRaw"], j["State"].split()[0]) for j in jobs] == [(job_id, "CANCELLED")],
          f"expected job {job_id} CANCELLED, got {[(j['JobIDRaw'], j['State']) for j in jobs]}")
    check(len(jobs[0]["targets"]) == len(CANCELLED), f"the group job ran {jobs[0]['targets']}")
    check(not any((cluster / o).exists() for o in CANCELLED), f"the cancelled job left some of {CANCELLED}")
    extra = all_files(cluster) - before
    check(not extra, f"the cancelled job left files behind: {sorted(extra)}")
    check(not any((cluster / ".snakemake" / "locks").glob("*")), "the stopped run left its lock")
    return job_id, f"{ended} (exit {status})"


def cancelled_then_rerun(project: Path, cluster: Path, local: Path) -> None:
    for out in CANCELLED:
        (cluster / out).unlink()
    for status_command in ("sacct", "squeue"):
        job_id, ended = cancel_mid_run(project, cluster, status_command)
        print(f"scancel ({status_command} status): group job {job_id} ({len(CANCELLED)} jobs) cancelled while one "
              f"computed; {ended}; none of its outputs and no other file left, lock released")
    start_id = last_job_id()
    proc = snakemake(cluster, project, *CANCELLED)
    check(proc.returncode == 0, f"the rerun after scancel failed (exit {proc.returncode}):\n{tail(proc)}")
    check(same_bytes(cluster, local, CANCELLED), f"{CANCELLED} differ from the local run after the rerun")
    # printed, not held: a loaded node can take a first attempt past its time limit (then retried)
    attempts = ", ".join(f"{j['JobIDRaw']} {j['State']} {j['ElapsedRaw']} s of {j['TimelimitRaw']} min"
                         for j in jobs_since(start_id))
    print(f"scancel: the rerun completed the group job (sbatch jobs: {attempts}); outputs identical to the local run")


def edited_experiment(project: Path, cluster: Path, local: Path, profile: dict, cores: int) -> None:
    config = yaml.safe_load((project / "config.yaml").read_text())
    section = config
    for key in EDITED:
        section = section[key]
    section["title"] += " (edited by the Slurm check)"
    edited = cluster.parent / "edited-config.yaml"
    edited.write_text(yaml.safe_dump(config, sort_keys=False))
    extra = ["--configfile", str(edited)]
    plan = planned(cluster, project, *extra)
    local_plan = planned(local, project, *extra, profile=False)
    jobs_planned = plan.submitted()
    check(jobs_planned == local_plan.submitted(),
          f"the dry runs differ: with the profile {sorted(jobs_planned)}, local {sorted(local_plan.submitted())}")
    experiments = {k for k in jobs_planned if k[0] in ("multiuser_experiment", "multiuser_plan_experiment")}
    check(experiments == {EDITED_JOB}, f"editing {'.'.join(EDITED)} reruns the experiments {sorted(experiments)}")
    start_id = last_job_id()
    proc = snakemake(cluster, project, *extra)
    check(proc.returncode == 0, f"the run after the edit failed (exit {proc.returncode}):\n{tail(proc)}")
    jobs = jobs_since(start_id)
    ran = Counter(k for j in jobs for k in j["targets"])
    check(set(ran) == jobs_planned and set(ran.values()) == {1},
          f"after the edit the cluster ran {sorted(ran)}, the dry run plans {sorted(jobs_planned)}")
    lines = check_group_jobs(jobs, plan, profile, cluster, cores)
    proc = local_snakemake(local, project, *extra)
    check(proc.returncode == 0, f"the local run after the edit failed (exit {proc.returncode}):\n{tail(proc)}")
    n_csv = same_csvs(cluster, local)
    print(f"incremental: {'.'.join(EDITED)} edited; the cluster reran the {len(ran)} jobs the dry run plans, locally "
          f"and with the profile alike ({', '.join(sorted(job_name(k) for k in ran))}), in {len(jobs)} sbatch job(s); "
          f"the local run of the edit gives the same bytes ({n_csv} CSV files)")
    for line in lines:
        print(f"  {line}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, required=True, help="the project (its .venv, Snakefile, config, profiles)")
    parser.add_argument("--workdir", type=Path, required=True,
                        help="a directory for the runs: cluster/ and local/ are made in it")
    parser.add_argument("--parts", default="whole,retry,scancel,incremental",
                        help="which parts to run (default: all); without 'whole', --workdir holds complete runs")
    args = parser.parse_args(argv)
    project, workdir = args.project.resolve(), args.workdir.resolve()
    cluster, local = workdir / "cluster", workdir / "local"
    parts_ = args.parts.split(",")
    if unknown := set(parts_) - {"whole", "retry", "scancel", "incremental"}:
        parser.error(f"--parts: unknown {sorted(unknown)}")
    if "whole" in parts_ and (cluster.exists() or local.exists()):
        parser.error(f"{cluster} or {local} exists: the whole workflow must start from empty directories")
    for directory in (cluster, local):
        directory.mkdir(parents=True, exist_ok=True)
    profile = yaml.safe_load((project / "workflow" / "profiles" / "slurm" / "config.yaml").read_text())
    cores = int(profile["cores"])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    # started in the background by .ci/slurm, this process ignores SIGINT and so would the
    # Snakemake runs it starts: they get the default back (KeyboardInterrupt), as in a terminal
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        if "whole" in parts_:
            whole_workflow(project, cluster, local, profile, cores)
        if "retry" in parts_:
            retried_once(project, cluster, local)
        if "scancel" in parts_:
            cancelled_then_rerun(project, cluster, local)
        if "incremental" in parts_:
            edited_experiment(project, cluster, local, profile, cores)
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

"""Stand-ins for the SLURM commands that snakemake-executor-plugin-slurm calls, for tests on one machine.

``sbatch`` runs the submitted job here and now (in its ``-D`` directory, with the
submitting environment, ``--export=ALL``, and the ``SLURM_*`` variables a job sees),
writes its output to ``--output`` (``%j`` replaced) and records the job: id, name,
comment, account, partition, time limit, memory, CPUs, state (COMPLETED or FAILED, as
SLURM reports them), exit code and peak resident memory (``max_rss_mb``, the largest
process of the job). The job has finished when sbatch returns: a status
query never sees it PENDING or RUNNING, and the workflow's jobs run two at a time (the
plugin submits from two threads). ``sacct``, ``squeue`` report the recorded states in the
formats the plugin reads (``--parsable2``/``--format``, ``%i|%T``); ``scancel`` marks jobs
CANCELLED; ``sacctmgr`` lists the accounts of ``SLURM_STANDIN_ACCOUNTS``; ``sinfo`` and
``scontrol`` describe one partition (``SLURM_STANDIN_PARTITION``); ``srun`` (called inside
a job by the jobstep plugin) runs its command. State lives in ``$SLURM_STANDIN_STATE``
(a directory). ``SLURM_STANDIN_FAIL=<text>`` makes every job whose comment contains the
text fail (exit 1, state FAILED) without running, like a job killed on its node.
"""
from __future__ import annotations

import fcntl
import json
import resource
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

#: per command: options that take a value, and short aliases of long options
OPTIONS = {
    "sbatch": ({"--job-name", "--output", "--comment", "--account", "--partition", "--time", "--mem", "--mem-per-cpu",
                "--chdir", "--clusters", "--constraint", "--qos", "--nodes", "--ntasks", "--cpus-per-task", "--exclude",
                "--reservation", "--wrap", "--array", "--gres", "--gpus", "--ntasks-per-gpu", "--ntasks-per-node",
                "--cpus-per-gpu", "--mem-per-gpu"},
               {"-J": "--job-name", "-o": "--output", "-A": "--account", "-p": "--partition", "-t": "--time",
                "-D": "--chdir", "-M": "--clusters", "-C": "--constraint", "-N": "--nodes", "-n": "--ntasks",
                "-c": "--cpus-per-task"}),
    "sacct": ({"--format", "--name", "--starttime", "--endtime", "--clusters", "--user", "--jobs", "--state"},
              {"-o": "--format", "-S": "--starttime", "-E": "--endtime", "-M": "--clusters", "-u": "--user",
               "-j": "--jobs", "-s": "--state"}),
    "squeue": ({"--format", "--name", "--states", "--jobs", "--user", "--clusters"},
               {"-o": "--format", "-t": "--states", "-j": "--jobs", "-u": "--user", "-M": "--clusters"}),
    "srun": ({"--ntasks", "--cpus-per-task", "--nodes", "--jobid", "--job-name", "--gpus", "--mem"},
             {"-n": "--ntasks", "-c": "--cpus-per-task", "-N": "--nodes", "-J": "--job-name"}),
}


def state_dir() -> Path:
    path = os.environ.get("SLURM_STANDIN_STATE")
    if not path:
        sys.exit("slurm stand-in: SLURM_STANDIN_STATE (a directory for the job records) is not set")
    (Path(path) / "jobs").mkdir(parents=True, exist_ok=True)
    return Path(path)


def records() -> list[dict]:
    out = []
    for path in sorted((state_dir() / "jobs").glob("*.json"), key=lambda p: int(p.stem)):
        out.append(json.loads(path.read_text()))
    return out


def save(record: dict) -> None:
    path = state_dir() / "jobs" / f"{record['id']}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1))
    os.replace(tmp, path)


def new_id() -> int:
    with open(state_dir() / "lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        counter = state_dir() / "next_id"
        job_id = int(counter.read_text()) if counter.exists() else 1001
        counter.write_text(str(job_id + 1))
    return job_id


def parse_options(command: str, argv: list[str]) -> tuple[dict, list[str]]:
    """Options (long names) and the remaining arguments (a script or a command and its arguments).

    ``-nu USER`` (flags bundled with a valued short option) is read as -n and -u USER.
    """
    valued, aliases = OPTIONS[command]
    opts, k = {}, 0
    while k < len(argv):
        arg = argv[k]
        if not arg.startswith("-") or arg == "-":
            break
        if arg.startswith("--"):
            name, value = arg.split("=", 1) if "=" in arg else (arg, None)
            if value is None and name in valued:
                value, k = argv[k + 1], k + 1
            opts[name] = True if value is None else value
        else:
            letters = arg[1:]
            for j, letter in enumerate(letters):
                name = aliases.get("-" + letter, "-" + letter)
                if name in valued:
                    tail = letters[j + 1:]
                    if tail:
                        value = tail
                    else:
                        value, k = argv[k + 1], k + 1
                    opts[name] = value
                    break
                opts[name] = True
        k += 1
    return opts, argv[k:]


def sbatch(argv: list[str]) -> int:
    opts, rest = parse_options("sbatch", argv)
    if "--wrap" in opts:
        script = "#!/bin/sh\n" + opts["--wrap"] + "\n"
    elif rest:
        script = sys.stdin.read() if rest[0] in ("-", "/dev/stdin") else Path(rest[0]).read_text()
    else:
        sys.stderr.write("sbatch: error: no script and no --wrap\n")
        return 1
    job_id = new_id()
    workdir = Path(opts.get("--chdir", os.getcwd()))
    output = opts.get("--output", "slurm-%j.out").replace("%j", str(job_id))
    record = {"id": job_id, "name": opts.get("--job-name", "sbatch"), "comment": opts.get("--comment", ""),
              "account": opts.get("--account"), "partition": opts.get("--partition"), "time": opts.get("--time"),
              "mem": opts.get("--mem"), "cpus_per_task": opts.get("--cpus-per-task"), "ntasks": opts.get("--ntasks"),
              "workdir": str(workdir), "output": str(workdir / output), "argv": argv, "state": "RUNNING",
              "exit_code": None, "submitted": time.time()}
    save(record)
    fail = os.environ.get("SLURM_STANDIN_FAIL")
    if fail and fail in record["comment"]:
        Path(record["output"]).parent.mkdir(parents=True, exist_ok=True)
        Path(record["output"]).write_text(f"slurm stand-in: job {job_id} failed on purpose (SLURM_STANDIN_FAIL)\n")
        record.update(state="FAILED", exit_code=1, finished=time.time())
        save(record)
    else:
        env = dict(os.environ, SLURM_JOB_ID=str(job_id), SLURM_JOBID=str(job_id), SLURM_JOB_NAME=record["name"],
                   SLURM_SUBMIT_DIR=os.getcwd(), SLURM_CPUS_PER_TASK=str(record["cpus_per_task"] or 1),
                   SLURM_NTASKS=str(record["ntasks"] or 1), SLURM_JOB_ACCOUNT=str(record["account"] or ""),
                   SLURM_JOB_PARTITION=str(record["partition"] or ""), SLURM_CLUSTER_NAME="standin")
        Path(record["output"]).parent.mkdir(parents=True, exist_ok=True)
        with open(record["output"], "w") as out:
            proc = subprocess.run(["/bin/sh", "-c", script], cwd=workdir, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        record.update(state="COMPLETED" if proc.returncode == 0 else "FAILED", exit_code=proc.returncode,
                      finished=time.time(),
                      max_rss_mb=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0)
        save(record)
    print(job_id if "--parsable" in opts else f"Submitted batch job {job_id}")
    return 0


def _select(opts: dict) -> list[dict]:
    jobs = records()
    if opts.get("--name"):
        jobs = [r for r in jobs if r["name"] in str(opts["--name"]).split(",")]
    if opts.get("--jobs"):
        jobs = [r for r in jobs if str(r["id"]) in str(opts["--jobs"]).split(",")]
    return jobs


FIELDS = {"jobidraw": "id", "jobid": "id", "state": "state", "account": "account", "partition": "partition",
          "jobname": "name", "comment": "comment", "exitcode": "exit_code"}


def sacct(argv: list[str]) -> int:
    opts, _ = parse_options("sacct", argv)
    fields = [f.split("%")[0].lower() for f in str(opts.get("--format", "JobID,JobName,State,ExitCode")).split(",")]
    if "--user" in opts and fields == ["account"]:      # the plugin's account guess: sacct -nu USER -o Account%256
        print(os.environ.get("SLURM_STANDIN_ACCOUNTS", "").split(",")[0])
        return 0
    sep = "|" if ("--parsable2" in opts or "-P" in opts) else " "
    for r in _select(opts):
        values = []
        for f in fields:
            v = r.get(FIELDS.get(f, f))
            values.append("" if v is None else f"{v}:0" if f == "exitcode" else str(v))
        print(sep.join(values))
    return 0


def squeue(argv: list[str]) -> int:
    opts, _ = parse_options("squeue", argv)
    for r in _select(opts):
        line = str(opts.get("--format", "%i %j %T"))
        for code, key in (("%i", "id"), ("%T", "state"), ("%j", "name"), ("%P", "partition"), ("%a", "account")):
            line = line.replace(code, str(r.get(key, "")))
        print(line)
    return 0


def scancel(argv: list[str]) -> int:
    ids = {a for a in argv if a.isdigit()}
    for r in records():
        if str(r["id"]) in ids and r["state"] in ("PENDING", "RUNNING"):
            r.update(state="CANCELLED", exit_code=0)
            save(r)
    return 0


def sacctmgr(argv: list[str]) -> int:
    for account in os.environ.get("SLURM_STANDIN_ACCOUNTS", "").split(","):
        if account:
            print(f"  {account}")
    return 0


def sinfo(argv: list[str]) -> int:
    if "-h" not in argv and "--noheader" not in argv:
        print("PARTITION")
    print(os.environ.get("SLURM_STANDIN_PARTITION", "standin") + "*")
    return 0


def scontrol(argv: list[str]) -> int:
    if argv[:2] == ["show", "config"]:
        print("MinJobAge               = 300 sec\nMaxArraySize            = 1001")
        return 0
    if argv[:2] == ["show", "partition"]:
        print(f"PartitionName={os.environ.get('SLURM_STANDIN_PARTITION', 'standin')}\n   Default=YES MaxTime=UNLIMITED "
              "MaxNodes=1 MaxCPUsPerNode=2")
        return 0
    sys.stderr.write(f"scontrol stand-in: unsupported {shlex.join(argv)}\n")
    return 1


def srun(argv: list[str]) -> int:
    _, command = parse_options("srun", argv)
    if not command:
        sys.stderr.write("srun: error: no command\n")
        return 1
    os.execvp(command[0], command)


def main(name: str) -> None:
    if name != "srun":                  # srun runs inside a job, where the state directory is the same
        with open(state_dir() / "calls.log", "a") as log:
            log.write(f"{time.time():.3f} {name} {shlex.join(sys.argv[1:])}\n")
    sys.exit(globals()[name](sys.argv[1:]))

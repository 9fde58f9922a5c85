"""The slurm profile end to end: the tiny workflow through stand-ins for the SLURM commands.

``tests/integration/slurm/`` holds small scripts named sbatch, sacct, squeue, scancel,
srun, sinfo, scontrol and sacctmgr (standin.py): on PATH, they let the official executor
plugin submit every job of ``workflow/profiles/slurm`` and read back its state, running
each job here, in the project directory, as a compute node on a shared file system would.
What is checked: the jobs that must run on a compute node are submitted (the download is a
localrule: the login node writes the data cache, the jobs read it), each with the
profile's account, partition, time, memory and CPUs and within its memory, the results
equal a local run byte for byte, and a failed job fails the run after the profile's retry.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests import helpers

pytestmark = pytest.mark.integration

REPO = helpers.REPO
STANDIN = Path(__file__).resolve().parent / "slurm"
PROFILE = REPO / "workflow" / "profiles" / "slurm"
ACCOUNT, PARTITION = "pufferfish_test", "standin"
#: a data user (download on the login node, then a job), the lattice users (one job), an experiment
TARGETS = ["results/priors/student_romantic_higher_yes.csv", "results/priors/D1.csv",
           "results/theta/multiuser_fig1.csv"]
#: status checks every second instead of every 40 (the plugin's default for a real queue)
FAST = ["--slurm-init-seconds-before-status-checks", "1", "--seconds-between-status-checks", "1", "--latency-wait", "5"]


def run(workdir: Path, mirror: Path, *args, state: Path | None = None, extra_env: dict | None = None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM", "SBATCH", "SNAKEMAKE_PROFILE"))}
    env.update(UCI_MIRROR=str(mirror), MPLBACKEND="Agg",
               PATH=os.pathsep.join([str(STANDIN), str(Path(sys.executable).parent), env.get("PATH", "")]))
    if state is not None:
        env.update(SLURM_STANDIN_STATE=str(state), SLURM_STANDIN_ACCOUNTS=f"{ACCOUNT},other",
                   SLURM_STANDIN_PARTITION=PARTITION, PUFFERFISH_SLURM_ACCOUNT=ACCOUNT,
                   PUFFERFISH_SLURM_PARTITION=PARTITION)
    env.update(extra_env or {})
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--configfile", str(workdir / "tiny.yaml"), *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)


def submitted(state: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((state / "jobs").glob("*.json"), key=lambda p: int(p.stem))]


def digests(workdir: Path) -> dict[str, str]:
    return {str(p.relative_to(workdir)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((workdir / "results").rglob("*")) if p.is_file() and p.suffix in {".csv", ".json"}}


def test_profile_submits_each_job_with_its_resources_and_gives_the_local_results(tmp_path):
    workdir, mirror = helpers.build_tiny_project(tmp_path / "cluster")
    state = tmp_path / "slurm_state"
    proc = run(workdir, mirror, "--workflow-profile", str(PROFILE), *FAST, *TARGETS, state=state)
    assert proc.returncode == 0, proc.stderr[-5000:]
    profile = yaml.safe_load((PROFILE / "config.yaml").read_text())
    resources = profile["default-resources"]
    jobs = submitted(state)
    rules = sorted(job["comment"].split("_wildcards_")[0] for job in jobs)
    assert rules == ["rule_multiuser_config_users", "rule_multiuser_data_user", "rule_multiuser_experiment"]
    assert len({job["name"] for job in jobs}) == 1                  # one run id: the plugin's --name filter
    for job in jobs:
        assert (job["account"], job["partition"]) == (ACCOUNT, PARTITION)
        assert job["time"] == str(resources["runtime"]) and job["mem"] == str(resources["mem_mb"])
        assert job["cpus_per_task"] == str(resources["cpus_per_task"]) and job["state"] == "COMPLETED"
        assert job["max_rss_mb"] < resources["mem_mb"], job               # the memory asked for is enough
        assert job["workdir"] == str(workdir)                           # jobs run in the shared project directory
    # the download is a localrule: the login node fetched the data, the job read it from the shared directory
    assert not any("download" in job["comment"] for job in jobs)
    assert (workdir / "data" / "raw" / "student_performance.csv").stat().st_size > 0
    # the same bytes as a run on one machine
    local, local_mirror = helpers.build_tiny_project(tmp_path / "local")
    proc = run(local, local_mirror, "--cores", "2", *TARGETS)
    assert proc.returncode == 0, proc.stderr[-5000:]
    assert digests(workdir) == digests(local) and len(digests(local)) >= 3


def test_a_failed_job_is_retried_once_then_fails_the_run(tmp_path):
    workdir, mirror = helpers.build_tiny_project(tmp_path)
    state = tmp_path / "slurm_state"
    proc = run(workdir, mirror, "--workflow-profile", str(PROFILE), *FAST, "results/priors/D1.csv", state=state,
               extra_env={"SLURM_STANDIN_FAIL": "rule_multiuser_config_users"})
    assert proc.returncode != 0
    jobs = submitted(state)
    assert [job["state"] for job in jobs] == ["FAILED", "FAILED"]       # retries: 1 in the profile
    assert "FAILED" in proc.stderr and "multiuser_config_users" in proc.stderr
    assert not (workdir / "results" / "priors" / "D1.csv").exists()

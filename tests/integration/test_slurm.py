"""The slurm profile end to end: the tiny workflow through stand-ins for the SLURM commands.

``tests/integration/slurm/`` holds small scripts named sbatch, sacct, squeue, scancel,
srun, sinfo, scontrol and sacctmgr (standin.py): on PATH, they let the official executor
plugin submit every job of ``workflow/profiles/slurm`` and read back its state, running
each job here, in the project directory, as a compute node on a shared file system would.
What is checked: the jobs that must run on a compute node are submitted (the download is a
localrule: the login node writes the data cache, the jobs read it), each with the
profile's account, partition, time, memory and CPUs and within its memory, the results
equal those of a local run of the same project byte for byte, and a failed job fails the run
after the profile's retry.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests import helpers

pytestmark = [pytest.mark.integration, pytest.mark.slow]

REPO = helpers.REPO
STANDIN = Path(__file__).resolve().parent / "slurm"
PROFILE = REPO / "workflow" / "profiles" / "slurm"
ACCOUNT, PARTITION = "pufferfish_test", "standin"
#: a data user (download on the login node, then a job), the lattice users (one job), an experiment
TARGETS = ["results/priors/student_romantic_higher_yes.csv", "results/priors/D1.csv",
           "results/theta/multiuser_fig1.csv"]
#: status checks every second instead of every 40 (the plugin's default for a real queue)
FAST = ["--slurm-init-seconds-before-status-checks", "1", "--seconds-between-status-checks", "1", "--latency-wait", "1"]


def _command(workdir: Path, *args) -> list[str]:
    return [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
            "--configfile", str(workdir / "tiny.yaml"), *args]


def _env(mirror: Path, state: Path | None = None, extra_env: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM", "SBATCH", "SNAKEMAKE_PROFILE"))}
    env.update(UCI_MIRROR=str(mirror), MPLBACKEND="Agg",
               PATH=os.pathsep.join([str(STANDIN), str(Path(sys.executable).parent), env.get("PATH", "")]))
    if state is not None:
        env.update(SLURM_STANDIN_STATE=str(state), SLURM_STANDIN_ACCOUNTS=f"{ACCOUNT},other",
                   SLURM_STANDIN_PARTITION=PARTITION, PUFFERFISH_SLURM_ACCOUNT=ACCOUNT,
                   PUFFERFISH_SLURM_PARTITION=PARTITION)
    env.update(extra_env or {})
    return env


@dataclass
class Run:
    """One Snakemake run of a fresh tiny project, started in the background (``root`` holds it)."""

    workdir: Path
    mirror: Path
    state: Path
    log: Path
    proc: subprocess.Popen

    @classmethod
    def start(cls, root: Path, *args, extra_env: dict | None = None) -> "Run":
        workdir, mirror = helpers.build_tiny_project(root)
        state, log = root / "slurm_state", root / "snakemake.log"
        with open(log, "w", encoding="utf-8") as out:
            proc = subprocess.Popen(_command(workdir, *args), env=_env(mirror, state, extra_env),
                                    stdout=subprocess.DEVNULL, stderr=out, start_new_session=True)
        return cls(workdir, mirror, state, log, proc)

    def wait(self) -> tuple[int, str]:
        """The run's exit status and its stderr, once it has finished (at most 15 minutes)."""
        status = self.proc.wait(timeout=900)
        return status, self.log.read_text(encoding="utf-8", errors="replace")


def start_runs(root: Path) -> dict[str, Run]:
    """The two runs the tests read, started at once: they mostly wait on the plugin's status
    checks, so they overlap the rest of the suite (tests/integration/conftest.py starts them
    when the tests are collected). The local run they are compared with is the shared complete
    run of the same tiny project (fixture ``tiny``: the same config and fake data)."""
    return {
        "cluster": Run.start(root / "cluster", "--workflow-profile", str(PROFILE), *FAST, *TARGETS),
        "failing": Run.start(root / "failing", "--workflow-profile", str(PROFILE), *FAST, "results/priors/D1.csv",
                             extra_env={"SLURM_STANDIN_FAIL": "rule_multiuser_config_users"}),
    }


def submitted(state: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((state / "jobs").glob("*.json"), key=lambda p: int(p.stem))]


def digests(workdir: Path) -> dict[str, str]:
    return {str(p.relative_to(workdir)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((workdir / "results").rglob("*")) if p.is_file() and p.suffix in {".csv", ".json"}}


def test_profile_submits_each_job_with_its_resources_and_gives_the_local_results(slurm_runs, tiny):
    cluster = slurm_runs["cluster"]
    status, stderr = cluster.wait()
    assert status == 0, stderr[-5000:]
    workdir = cluster.workdir
    profile = yaml.safe_load((PROFILE / "config.yaml").read_text())
    resources = profile["default-resources"]
    jobs = submitted(cluster.state)
    rules = sorted(job["comment"].split("_wildcards_")[0] for job in jobs)
    # fig1 is a `kind: plan` experiment: the plan variant of rule multiuser_experiment
    assert rules == ["rule_multiuser_config_users", "rule_multiuser_data_user", "rule_multiuser_plan_experiment"]
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
    # the same bytes as the run of the same project on one machine (the shared tiny run made every
    # output; the cluster run made those of its targets)
    cluster_files = digests(workdir)
    local_files = digests(tiny[0])
    assert len(cluster_files) >= 3
    assert cluster_files == {name: local_files.get(name) for name in cluster_files}


def test_a_failed_job_is_retried_once_then_fails_the_run(slurm_runs):
    failing = slurm_runs["failing"]
    status, stderr = failing.wait()
    assert status != 0
    jobs = submitted(failing.state)
    assert [job["state"] for job in jobs] == ["FAILED", "FAILED"]       # retries: 1 in the profile
    assert "FAILED" in stderr and "multiuser_config_users" in stderr
    assert not (failing.workdir / "results" / "priors" / "D1.csv").exists()

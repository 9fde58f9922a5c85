"""Snakemake end to end on a tiny self-made project: outputs, determinism, resuming, errors."""
from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import tiny_project

pytestmark = pytest.mark.integration

REPO = tiny_project.REPO
SNAKEMAKE = [sys.executable, "-m", "snakemake"]


def snakemake(workdir: Path, mirror: Path | None, *args, check=True, **kwargs):
    env = {k: v for k, v in os.environ.items() if k != "UCI_MIRROR"}
    if mirror is not None:
        env["UCI_MIRROR"] = str(mirror)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    cmd = [*SNAKEMAKE, "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--configfile", str(workdir / "tiny.yaml"), *args]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, **kwargs)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}")
    return proc


def digests(workdir: Path) -> dict[str, str]:
    """sha256 of every result file (CSV, JSON, PDF, PNG), logs excluded."""
    out = {}
    for path in sorted((workdir / "results").rglob("*")):
        if path.is_file() and "logs" not in path.parts and path.suffix in {".csv", ".json", ".pdf", ".png"}:
            out[str(path.relative_to(workdir))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """One complete run of the tiny project (shared by the tests that only read it)."""
    workdir, mirror = tiny_project.build(tmp_path_factory.mktemp("tiny"))
    snakemake(workdir, mirror, "--cores", "2")
    return workdir, mirror


def test_every_output_is_there(tiny):
    workdir, _ = tiny
    results = workdir / "results"
    for name in ("fig1", "fig3", "fig5", "fig7", "fig8", "fig9", "tableA", "noise_families"):
        for kind in ("theta", "audit", "priors"):
            assert (results / kind / f"multiuser_{name}.csv").stat().st_size > 0
        for ext in ("png", "pdf", "csv"):
            assert (results / "figures" / "multiuser" / f"{name}.{ext}").stat().st_size > 0
    for name in ("fig1", "fig2", "fig3", "fig6", "fig7", "tableA"):
        plan = pd.read_csv(results / "plans" / f"multiuser_{name}.csv")
        assert list(plan.columns) == ["x", "x_prime", "mass"] and abs(plan.mass.sum() - 1) < 1e-12
    theta = pd.read_csv(results / "theta" / "multiuser_fig9.csv", keep_default_na=False)
    assert list(theta.columns) == ["panel", "method", "epsilon", "theta", "epsilon_achieved", "theta_min", "noise",
                                   "delta", "alpha", "std", "delta_achieved", "renyi_achieved"]
    assert set(theta.method) == {"lemma5", "lemma6", "tight"}
    assert set(theta.panel) == {"adult", "student_performance", "bank_marketing"}
    for path in ("audit/summary.csv", "reproduction.csv", "provenance.json"):
        assert (results / path).stat().st_size > 0
    for ext in ("png", "pdf", "csv"):
        for n in range(1, 6):
            assert (results / "figures" / "gaussian" / f"fig{n}.{ext}").stat().st_size > 0
    # a GMM experiment that only config.yaml declares: its fit, b table, audit and both figures
    assert (results / "gmm" / "gaussian_added_gmm.json").stat().st_size > 0
    added = pd.read_csv(results / "theta" / "gaussian_added_gmm.csv")
    assert set(added.method) == {"theorem2", "tight"} and set(added.delta) == {0.2}
    for name in ("added_gmm", "added_gmm_theta"):
        for ext in ("png", "pdf", "csv"):
            assert (results / "figures" / "gaussian" / f"{name}.{ext}").stat().st_size > 0
    summary = pd.read_csv(results / "audit" / "summary.csv")
    assert "gaussian_added_gmm" in set(summary.experiment)
    # the data layer cached the fake datasets with provenance
    for dataset in ("adult", "bank_marketing", "student_performance", "hungarian_heart"):
        assert (workdir / "data" / "raw" / f"{dataset}.json").exists()
    # paper 002's Table 1 by config only: a nested, unpinned member recorded at its first download
    assert (workdir / "data" / "raw" / "student_mat.sha256.json").exists()
    table1 = pd.read_csv(results / "theta" / "pierquin_table1.csv", keep_default_na=False)
    assert list(table1.columns) == ["setting", "secret_i", "secret_j", "rows_i", "rows_j", "range", "w_inf", "w_2"]
    assert [len(table1[table1.setting == s]) for s in ("student", "heart", "adult")] == [2, 11, 4]  # C(n, 2) + max
    for setting in ("student", "heart", "adult"):
        for ext in ("png", "pdf", "csv"):
            assert (results / "figures" / "pierquin" / f"{setting}.{ext}").stat().st_size > 0


def test_second_run_has_nothing_to_do(tiny):
    workdir, mirror = tiny
    proc = snakemake(workdir, mirror, "--cores", "1", "--dry-run")
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_two_runs_are_byte_identical(tiny, tmp_path):
    workdir, mirror = tiny
    again, mirror2 = tiny_project.build(tmp_path)
    snakemake(again, mirror2, "--cores", "2")
    first, second = digests(workdir), digests(again)
    assert first.keys() == second.keys()
    different = [k for k in first if first[k] != second[k]]
    assert not different, different


def _running_job_pids(workdir: Path) -> list[int]:
    """Python processes running a Snakemake script of this working directory (read from /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(workdir) in args and ".snakemake/scripts/" in args:
            pids.append(int(entry.name))
    return pids


def _start(workdir: Path, mirror: Path, cores: int, **kwargs) -> subprocess.Popen:
    """Snakemake on the tiny project in the background (output discarded)."""
    env = {**os.environ, "UCI_MIRROR": str(mirror)}
    cmd = [*SNAKEMAKE, "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--configfile", str(workdir / "tiny.yaml"), "--cores", str(cores)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)


def test_killed_job_then_rerun_gives_the_same_outputs(tiny, tmp_path):
    reference = digests(tiny[0])
    workdir, mirror = tiny_project.build(tmp_path)
    proc = _start(workdir, mirror, 1)
    killed = False
    deadline = time.time() + 120
    while proc.poll() is None and time.time() < deadline and not killed:
        if (workdir / "results" / "priors").exists():  # past the downloads: kill the next job
            for pid in _running_job_pids(workdir):
                os.kill(pid, signal.SIGKILL)
                killed = True
        time.sleep(0.05)
    proc.wait(timeout=300)
    assert killed, "no job was running to be killed"
    assert proc.returncode != 0
    snakemake(workdir, mirror, "--cores", "2", "--rerun-incomplete")
    assert digests(workdir) == reference


def test_killed_snakemake_then_rerun_gives_the_same_outputs(tiny, tmp_path):
    reference = digests(tiny[0])
    workdir, mirror = tiny_project.build(tmp_path)
    proc = _start(workdir, mirror, 2, start_new_session=True)
    deadline = time.time() + 120
    while proc.poll() is None and time.time() < deadline:
        if len(list((workdir / "results").rglob("*.csv"))) >= 6:
            os.killpg(proc.pid, signal.SIGKILL)  # Snakemake and its jobs, mid-way
            break
        time.sleep(0.05)
    proc.wait(timeout=60)
    assert proc.returncode != 0
    # the README's recovery after a hard kill: release the stale lock, rerun the incomplete jobs
    snakemake(workdir, mirror, "--unlock")
    snakemake(workdir, mirror, "--cores", "2", "--rerun-incomplete")
    assert digests(workdir) == reference


def test_bad_config_stops_before_any_job_with_one_line(tmp_path):
    workdir, mirror = tiny_project.build(tmp_path)
    text = (workdir / "tiny.yaml").read_text().replace("start: 0.1\n", "start: -0.1\n", 1)
    (workdir / "tiny.yaml").write_text(text)
    proc = snakemake(workdir, mirror, "--cores", "1", check=False)
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("config: multiuser.experiments.") and "must be > 0" in lines[0]
    assert not (workdir / "results").exists() and not (workdir / "data").exists()


def test_no_mirror_no_network_is_one_line_and_no_file(tmp_path, monkeypatch):
    workdir, _ = tiny_project.build(tmp_path)
    # an unroutable proxy makes every request fail fast, network or not
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    proc = snakemake(workdir, None, "--cores", "1", "data/raw/adult.csv", check=False)
    assert proc.returncode != 0
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "dataset adult" in errors[0] and "UCI_MIRROR" in errors[0]
    assert "https://archive.ics.uci.edu/" in errors[0]
    assert not (workdir / "data" / "raw" / "adult.csv").exists()


def test_absent_conditioning_value_is_one_line(tmp_path):
    workdir, mirror = tiny_project.build(tmp_path)
    text = (workdir / "tiny.yaml").read_text().replace("race: Asian-Pac-Islander", "race: Martian", 1)
    (workdir / "tiny.yaml").write_text(text)
    proc = snakemake(workdir, mirror, "--cores", "1", "results/theta/multiuser_fig9.csv", check=False)
    assert proc.returncode != 0
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "race = 'Martian'" in errors[0] and "White" in errors[0]
    assert "Traceback" not in proc.stderr
    assert not (workdir / "results" / "priors" / "adult_married_asian_pac_islander.csv").exists()

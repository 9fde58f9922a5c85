"""Snakemake end to end on the tiny project (``tests/helpers.py``): outputs, determinism, resuming, errors.

The tiny project is run once per session (fixture ``tiny``, ``tests/integration/conftest.py``)
and shared: the tests that only read it use it in place; the others work on a copy of it: the
killed-run tests delete the outputs of a chain of two jobs and kill and resume those, and
compare every output with the shared run. The one other complete run is the determinism
test's (fixture ``tiny_again``).
"""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.helpers import build_tiny_project, copy_project, digests, running_job_pids, snakemake, start_snakemake

pytestmark = pytest.mark.integration


def test_every_output_is_there(tiny):
    workdir, _ = tiny
    results = workdir / "results"
    for name in ("fig1", "fig3", "fig5", "fig7", "fig8", "fig9", "tableA", "noise_families"):
        for kind in ("theta", "audit", "priors"):
            assert (results / kind / f"multiuser_{name}.csv").stat().st_size > 0
        for ext in ("png", "pdf", "csv"):
            assert (results / "figures" / "multiuser" / f"{name}.{ext}").stat().st_size > 0
    for name in ("fig1", "fig2", "fig3", "fig7", "tableA"):
        plan = pd.read_csv(results / "plans" / f"multiuser_{name}.csv")
        assert list(plan.columns) == ["x", "x_prime", "mass"] and abs(plan.mass.sum() - 1) < 1e-12
    theta = pd.read_csv(results / "theta" / "multiuser_fig9.csv", keep_default_na=False)
    assert list(theta.columns) == ["panel", "method", "epsilon", "theta", "epsilon_achieved", "theta_min", "noise",
                                   "delta", "alpha", "std", "delta_achieved", "renyi_achieved"]
    assert set(theta.method) == {"lemma5", "lemma6", "lemma6_best_grouping", "tight"}
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
    table1 = pd.read_csv(results / "theta" / "wasserstein_table1.csv", keep_default_na=False)
    assert list(table1.columns) == ["setting", "secret_i", "secret_j", "rows_i", "rows_j", "range", "w_inf", "w_2"]
    assert [len(table1[table1.setting == s]) for s in ("student", "heart", "adult")] == [2, 11, 4]  # C(n, 2) + max
    for setting in ("student", "heart", "adult"):
        for ext in ("png", "pdf", "csv"):
            assert (results / "figures" / "wasserstein" / f"{setting}.{ext}").stat().st_size > 0
    # amplification by iteration (config iteration): Fig. 6 and the bank series, audited
    fig6 = pd.read_csv(results / "theta" / "iteration_fig6.csv")
    assert len(fig6) == 3 * 3 and fig6.steps.tolist()[:3] == [1, 10, 100]
    bank = pd.read_csv(results / "theta" / "iteration_bank_sigma.csv")
    assert set(bank.secret_index) == {1, 40, 80} and set(bank.epsilon) == {0.5, 1.0}
    for name in ("iteration_fig6", "iteration_bank"):
        audit = pd.read_csv(results / "audit" / f"{name}.csv")
        assert (audit.claimed == (audit.method != "dp_assumption")).all()
        assert not audit[audit.claimed].violation.any() and name in set(summary.experiment)
    for name in ("fig6", "bank", "bank_sigma"):
        for ext in ("png", "pdf", "csv"):
            assert (results / "figures" / "iteration" / f"{name}.{ext}").stat().st_size > 0


def test_second_run_has_nothing_to_do(tiny):
    workdir, mirror = tiny
    proc = snakemake(workdir, mirror, "--cores", "1", "--dry-run")
    assert "Nothing to be done" in proc.stdout + proc.stderr


@pytest.mark.slow
def test_two_runs_are_byte_identical(tiny, tiny_again):
    first, second = digests(tiny[0]), digests(tiny_again[0])
    assert first.keys() == second.keys()
    different = [k for k in first if first[k] != second[k]]
    assert not different, different


def _copy_without(tiny, dest: Path, files) -> Path:
    """A copy of the shared run with ``files`` deleted: the jobs that make them, and the jobs
    after those, have to run again for a target among ``files``."""
    copy = copy_project(tiny[0], dest)
    for name in files:
        (copy / name).unlink()
    return copy


def _wait_for_job(workdir: Path, proc, rule: str, timeout: float = 120) -> list[int]:
    """The pids of the job script of ``rule`` once it runs in ``workdir`` ([] if Snakemake ended first)."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        pids = [pid for pid in running_job_pids(workdir) if _is_rule(pid, rule)]
        if pids:
            return pids
        time.sleep(0.05)
    return []


def _is_rule(pid: int, rule: str) -> bool:
    """Whether process ``pid`` runs the job script of ``rule`` (``.snakemake/scripts/tmpXXXX.<script>.py``)."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False
    return f".{rule}.py" in args


#: two chains of paper 000's jobs: a data user (rule multiuser_data_user), then an experiment
#: that reads it (rule multiuser_experiment); the experiment's table is the target
FIG5 = ["results/priors/adult_education_white.json", "results/priors/adult_education_white.csv",
        "results/theta/multiuser_fig5.csv"]
FIG9 = ["results/priors/student_romantic_freetime_5.json", "results/priors/student_romantic_freetime_5.csv",
        "results/theta/multiuser_fig9.csv"]


@pytest.mark.slow
def test_killed_job_then_rerun_gives_the_same_outputs(tiny, tmp_path):
    """README "Interrupted runs": a killed job leaves nothing that counts as done; the same command
    again redoes it and only it, and every output is the uninterrupted run's."""
    workdir = _copy_without(tiny, tmp_path / "work", FIG5)
    proc = start_snakemake(workdir, tiny[1], "--cores", "1", FIG5[-1])
    pids = _wait_for_job(workdir, proc, "multiuser_experiment")  # the data user is done
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=120)
    assert pids, "no job was running to be killed"
    assert proc.returncode != 0
    assert not (workdir / "results" / "audit" / "multiuser_fig5.csv").exists()  # an output of the killed job
    rerun = snakemake(workdir, tiny[1], "--cores", "2", FIG5[-1])
    log = rerun.stdout + rerun.stderr
    assert "rule multiuser_experiment:" in log and "rule multiuser_data_user:" not in log  # resumed, not restarted
    assert digests(workdir) == digests(tiny[0])


@pytest.mark.slow
def test_killed_snakemake_then_rerun_gives_the_same_outputs(tiny, tmp_path):
    """README "Interrupted runs": Snakemake and its job killed mid-way; --unlock, then --rerun-incomplete."""
    workdir = _copy_without(tiny, tmp_path / "work", FIG9)
    proc = start_snakemake(workdir, tiny[1], "--cores", "2", FIG9[-1])
    running = _wait_for_job(workdir, proc, "multiuser_experiment")  # the data user is done
    if running:
        os.killpg(proc.pid, signal.SIGKILL)  # Snakemake and its jobs, mid-way
    proc.wait(timeout=60)
    assert running, "Snakemake ended before the experiment job ran"
    assert proc.returncode != 0
    snakemake(workdir, tiny[1], "--unlock")
    snakemake(workdir, tiny[1], "--cores", "2", "--rerun-incomplete", FIG9[-1])
    assert digests(workdir) == digests(tiny[0])


def test_bad_config_stops_before_any_job_with_one_line(tmp_path):
    workdir, mirror = build_tiny_project(tmp_path)
    text = (workdir / "tiny.yaml").read_text().replace("start: 0.1\n", "start: -0.1\n", 1)
    (workdir / "tiny.yaml").write_text(text)
    proc = snakemake(workdir, mirror, "--cores", "1", check=False)
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("config: multiuser.experiments.") and "must be > 0" in lines[0]
    assert not (workdir / "results").exists() and not (workdir / "data").exists()


def test_no_mirror_no_network_is_one_line_and_no_file(tmp_path, monkeypatch):
    workdir, _ = build_tiny_project(tmp_path)
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
    workdir, mirror = build_tiny_project(tmp_path)
    text = (workdir / "tiny.yaml").read_text().replace("race: Asian-Pac-Islander", "race: Martian", 1)
    (workdir / "tiny.yaml").write_text(text)
    proc = snakemake(workdir, mirror, "--cores", "1", "results/theta/multiuser_fig9.csv", check=False)
    assert proc.returncode != 0
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "race = 'Martian'" in errors[0] and "White" in errors[0]
    assert "Traceback" not in proc.stderr
    assert not (workdir / "results" / "priors" / "adult_married_asian_pac_islander.csv").exists()

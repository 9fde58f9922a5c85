"""A paper from outside the repository: the toy paper (tests/toy_paper/, a distribution of its own
with one entry point in group ``pufferfish.papers``), installed into a scratch environment, runs
with the unchanged workflow.

The scratch environment has no pip and installs no dependency (as test_install.py): the toy is
built with this interpreter's pip and setuptools (``--no-deps --no-build-isolation``, no
network) into the new environment's site-packages, and a ``.pth`` line names this
interpreter's site-packages (Snakemake, pandas, the ``pufferfish`` distribution's metadata) and
the checkout's ``src``. Then, from a configuration of only ``seed``, ``datasets`` and the toy's
section: its rules run, its audit rows reach ``results/audit/summary.csv``, its figure reaches
the report, a mistake in its section ends in one line naming its key, and ``pufferfish --help``
lists its command. The toy's numbers are checked against the closed form of randomized response.
"""
from __future__ import annotations

import io
import math
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.helpers import PACKAGE_ROOT, REPO, build_mirror, tiny_config

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TOY = {"dataset": "student_performance", "attribute": "romantic", "positive": "yes", "protected": "sex",
       "pair": ["F", "M"], "epsilons": [0.25, 0.5, 1.0, 2.0]}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """``(python, workdir, mirror)``: the scratch environment with the toy installed, and a project
    whose configuration holds only the shared keys and the toy's section."""
    root = tmp_path_factory.mktemp("toy")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    build = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                            "--no-index", "--target", str(site), str(REPO / "tests" / "toy_paper")],
                           capture_output=True, text=True, cwd=root)
    assert build.returncode == 0, build.stderr[-3000:]
    (site / "project.pth").write_text(f"{PACKAGE_ROOT}\n{sysconfig.get_paths()['purelib']}\n")
    mirror, info = build_mirror(root / "mirror")
    workdir = root / "work"
    workdir.mkdir()
    config = {"seed": 1, "datasets": {"student_performance": tiny_config(info)["datasets"]["student_performance"]},
              "toy": TOY}
    (workdir / "toy.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return python, workdir, mirror


def _run(scratch, *args, configfile="toy.yaml"):
    python, workdir, mirror = scratch
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "UCI_MIRROR")}
    env.update(UCI_MIRROR=str(mirror), MPLBACKEND="Agg", PATH=f"{python.parent}{os.pathsep}{env.get('PATH', '')}")
    command = [str(python), "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
               "--configfile", str(workdir / configfile), *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)


def test_pufferfish_help_lists_the_toys_command(scratch):
    python = scratch[0]
    proc = subprocess.run([str(python), "-m", "pufferfish", "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "    toy       randomized response on a bit, audited exactly (a toy paper)" in proc.stdout
    proc = subprocess.run([str(python), "-m", "pufferfish", "toy", "--priors", "0.2", "0.7", "--epsilon", "1",
                           "--format", "csv"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    row = pd.read_csv(io.StringIO(proc.stdout)).iloc[0]
    assert row.achieved == pytest.approx(_rr_loss(0.2, 0.7, 1.0), rel=1e-12)


def _rr_loss(p: float, q: float, epsilon: float) -> float:
    """The exact loss of RR(epsilon) on a bit between Bernoulli(p) and Bernoulli(q), by hand:
    Pr(Y = 1) = (1 - k) + (2k - 1) x with k = e^eps / (1 + e^eps), the larger log ratio of the
    two outputs' probabilities."""
    k = math.exp(epsilon) / (1 + math.exp(epsilon))
    one = [(1 - k) + (2 * k - 1) * x for x in (p, q)]
    return max(abs(math.log(one[0] / one[1])), abs(math.log((1 - one[0]) / (1 - one[1]))))


def test_the_unchanged_workflow_runs_the_toy_paper_alone(scratch):
    python, workdir, mirror = scratch
    proc = _run(scratch, "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-4000:]
    # its rules ran, and only the shared jobs beside them
    jobs = {line.split("Rule: ")[1].rstrip(")") for line in proc.stderr.splitlines() if "(Rule: " in line}
    assert jobs == {"download", "toy_rr", "audit_summary", "reproduction", "claims", "provenance", "all"}
    # its audit rows reach the summary, and its numbers are the closed form's
    summary = pd.read_csv(workdir / "results" / "audit" / "summary.csv")
    assert summary.experiment.tolist() == ["toy_rr"] and summary.rows.tolist() == [4]
    assert summary.violations.tolist() == [0]
    data = pd.read_csv(workdir / "data" / "raw" / "student_performance.csv")
    p, q = ((data[data.sex == s].romantic == "yes").mean() for s in ("F", "M"))
    audit = pd.read_csv(workdir / "results" / "audit" / "toy_rr.csv")
    assert audit.epsilon.tolist() == TOY["epsilons"]
    for row in audit.itertuples():
        assert row.epsilon_achieved == pytest.approx(_rr_loss(p, q, row.epsilon), rel=1e-12)
        assert row.epsilon_achieved <= row.epsilon and not row.violation
    assert pd.read_csv(workdir / "results" / "reproduction.csv").empty  # the toy prints no number
    # its figure reaches the report
    proc = _run(scratch, "--cores", "1", "--report", "results/report.html")
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = (workdir / "results" / "report.html").read_text(encoding="utf-8", errors="replace")
    assert "rr.png" in report and "Toy paper: randomized response on a bit" in report


@pytest.mark.parametrize("edit, message", [
    ({"epsilons": [-1]}, "config: toy.epsilons[0] = -1: must be > 0"),
    ({"dataset": "nope"}, "config: toy.dataset = 'nope': not a key of datasets (have: student_performance)"),
    ({"pair": ["F", "X"]}, "config: toy.pair: no record with sex = 'X'"),
    ({"extra": 1}, "config: toy.extra: unknown key"),
])
def test_a_mistake_in_the_toys_section_is_one_line_naming_its_key(scratch, edit, message):
    python, workdir, mirror = scratch
    config = yaml.safe_load((workdir / "toy.yaml").read_text(encoding="utf-8"))
    config["toy"].update(edit)
    (workdir / "bad.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    if "pair" in edit:  # what the data can tell is checked on the cached table
        assert _run(scratch, "--cores", "1", "data/raw/student_performance.csv").returncode == 0
    proc = _run(scratch, "--cores", "1", "--dry-run", configfile="bad.yaml")
    errors = [line for line in proc.stderr.splitlines() if line.startswith(("config", "error"))]
    assert proc.returncode == 1 and errors == [message] and "Traceback" not in proc.stderr, proc.stderr

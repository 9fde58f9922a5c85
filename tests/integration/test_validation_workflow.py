"""Issue 13 end to end, by dry runs of the tiny project: mistakes stop the workflow before any job.

Each case is one line on stderr, exit status 1, and no job (``snakemake -n`` would list them).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import helpers

pytestmark = pytest.mark.integration

REPO = helpers.REPO


def snakemake(workdir: Path, mirror: Path, *args):
    env = {**os.environ, "UCI_MIRROR": str(mirror)}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--configfile", str(workdir / "tiny.yaml"), "--cores", "1", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True)


def one_error_line(proc) -> str:
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines()
             if line.strip() and not line.startswith("Config file ")]  # Snakemake's note on --configfile
    assert len(lines) == 1, proc.stderr[-3000:]
    return lines[0]


@pytest.fixture(scope="module")
def cached(tmp_path_factory):
    """The tiny project with the heart data downloaded (from the fake mirror) and nothing else run."""
    workdir, mirror = helpers.build_tiny_project(tmp_path_factory.mktemp("cached"))
    proc = snakemake(workdir, mirror, "data/raw/hungarian_heart.csv")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return workdir, mirror


def _edit(workdir: Path, old: str, new: str) -> str:
    path = workdir / "tiny.yaml"
    original = path.read_text(encoding="utf-8")
    assert old in original
    path.write_text(original.replace(old, new, 1), encoding="utf-8")
    return original


def test_wrong_column_on_cached_data_stops_before_any_job(cached):
    """Issue cases 3-4: gaussian.fig4.attribute: cholesterol ran jobs (and provenance) before failing."""
    workdir, mirror = cached
    original = _edit(workdir, "attribute: chol", "attribute: cholesterol")
    try:
        line = one_error_line(snakemake(workdir, mirror, "-n"))
    finally:
        (workdir / "tiny.yaml").write_text(original, encoding="utf-8")
    assert line.startswith("config: gaussian.fig4.attribute: no column 'cholesterol' in dataset hungarian_heart")
    assert not (workdir / "results" / "provenance.json").exists()


def test_duplicate_key_stops_before_any_job(cached):
    """Issue case 2: a second key silently won and `snakemake -n` planned the reruns."""
    workdir, mirror = cached
    original = _edit(workdir, "\n  fig4:\n", "\n  fig4:\n    attribute: chol\n")  # gaussian.fig4
    try:
        line = one_error_line(snakemake(workdir, mirror, "-n"))
    finally:
        (workdir / "tiny.yaml").write_text(original, encoding="utf-8")
    assert line.startswith("config: gaussian.fig4.attribute: key 'attribute' appears twice in tiny.yaml (lines ")


def test_the_old_key_of_paper_002_stops_before_any_job(cached):
    """Issue 30: paper 002's section is `wasserstein`; a config still using `pierquin` is told so."""
    workdir, mirror = cached
    path = workdir / "tiny.yaml"
    original = path.read_text(encoding="utf-8")
    path.write_text(original.rstrip("\n") + "\npierquin:\n  settings: {}\n", encoding="utf-8")
    try:
        line = one_error_line(snakemake(workdir, mirror, "-n"))
    finally:
        path.write_text(original, encoding="utf-8")
    assert line == "config: pierquin: renamed to wasserstein"


def test_an_output_directory_that_is_a_file_is_named_before_any_job(cached):
    """Issue case 5: results/plans as a file ended in a traceback."""
    workdir, mirror = cached
    (workdir / "results").mkdir(exist_ok=True)
    (workdir / "results" / "plans").write_text("a file")
    try:
        line = one_error_line(snakemake(workdir, mirror, "-n"))
    finally:
        (workdir / "results" / "plans").unlink()
    assert line == ("error: cannot write results/plans/multiuser_{experiment}.csv: results/plans is a file, "
                    "not a directory (move or remove it)")

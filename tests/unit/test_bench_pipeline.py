"""benchmarks/pipeline.py writes only in its scratch copy, never in the repository (issue 34, point 6)."""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "pipeline.py"


def _tracked_state() -> str:
    """``git status`` of the tracked files (empty when none is modified), or "" outside git."""
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO, capture_output=True,
                         text=True)
    return out.stdout if out.returncode == 0 else ""


def test_a_scratch_copy_inside_the_repository_is_refused(tmp_path):
    before = _tracked_state()
    for dest in (REPO, REPO / "benchmarks", REPO / "results" / "bench_copy"):
        run = subprocess.run([sys.executable, str(SCRIPT), "--dest", str(dest)], cwd=tmp_path, capture_output=True,
                             text=True, timeout=120)
        assert run.returncode == 1 and run.stderr.strip() == "the scratch copy must be outside the repository"
    assert not (REPO / "results" / "bench_copy").exists()
    assert _tracked_state() == before


def test_a_directory_it_did_not_make_is_not_deleted(tmp_path):
    keep = tmp_path / "mine"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine\n")
    run = subprocess.run([sys.executable, str(SCRIPT), "--dest", str(keep)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 1
    assert run.stderr.strip() == f"{keep} exists and is not a copy made by this script: refusing to delete it"
    assert (keep / "notes.txt").read_text() == "mine\n"

"""Helpers shared by the tests (in the manner of dp_accounting's ``test_util.py``).

* Paper 000's users (Tables 2-3) and seeded random lattice priors.
* :func:`binomial_pmf`, an 80-bit closed form of the binomial law (the oracle of the sums at scale).
* :func:`delta_star_reference`, the definition-level Delta* that the linear-time
  :func:`pufferfish.lattice.transport.delta_star` is tested against (reference code used
  only by the tests lives here, not in the package).
* The tiny project that the end-to-end tests run: a fake UCI mirror (synthetic, seeded data
  shaped like the four UCI tables the pipeline reads) and the shipped config.yaml shrunk so
  that every rule runs in seconds; and the Snakemake runner, digests and process helpers.

The fixtures built on these are in ``tests/conftest.py`` and ``tests/integration/conftest.py``.
"""
from __future__ import annotations

import bisect
import copy
import hashlib
import io
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

import pufferfish
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.transport import (FLOAT_TIE_TOL, _exact_cdf, _exact_masses, _first_at_most, _float_order,
                                          _hull, _tails)

REPO = Path(__file__).resolve().parents[1]
#: the directory holding the ``pufferfish`` package these tests import (``src`` of a checkout)
PACKAGE_ROOT = str(Path(pufferfish.__file__).resolve().parents[1])

# ------------------------------------------------------------------------------ paper 000's users
#: users 1-3 of paper 000, Table 2, on the alphabet 1..5
TABLE2 = {
    "D1": [0.01, 0.04, 0.1, 0.2, 0.65],
    "D2": [0.7, 0.2, 0.05, 0.04, 0.01],
    "D3": [0.2, 0.2, 0.2, 0.2, 0.2],
}
#: P4 and Q4 of paper 000, Table 3, on the alphabet 1..5
TABLE3 = {"P4": [0.4, 0.1, 0.0, 0.1, 0.4], "Q4": [0.0, 0.05, 0.9, 0.05, 0.0]}


def random_pmf(rng, *, size=None, lo=None, zero_prob=0.2) -> LatticePMF:
    """A random float-only lattice pmf (no exact fractions), seeded by ``rng``."""
    size = int(rng.integers(1, 8)) if size is None else size
    lo = int(rng.integers(-4, 5)) if lo is None else lo
    w = rng.random(size) * (rng.random(size) > zero_prob)
    if w.sum() == 0:
        w[0] = 1.0
    return LatticePMF(lo, w / w.sum())


# ------------------------------------------------------------------------------ reference Delta*
def delta_star_reference(p: LatticePMF, q: LatticePMF, *, tol: float = FLOAT_TIE_TOL) -> tuple[np.ndarray, np.ndarray]:
    """Delta* of Lemma 7 (paper 000, eq. 25) by one binary search per lattice point.

    For each x between the extreme atoms: where F_i(x) > F_j(x), the first x' with
    F_j(x') >= F_i(x), minus x; where F_i(x) < F_j(x), x minus the last x' with
    F_j(x') <= F_i(x); 0 on a tie. ``bisect`` on exact fractions when both pmfs carry them;
    on floats, ``numpy.searchsorted`` on the CDF below 1/2 and on the survival function
    above it, with the package's tie rule (``FLOAT_TIE_TOL``). O(n log n): the oracle of the
    linear-time merge in :func:`pufferfish.lattice.transport.delta_star`.
    """
    lo, hi = _hull(p, q)
    xs = np.arange(lo, hi + 1)
    exact = _exact_masses(p, q)
    if exact is not None:
        fi, fj = _exact_cdf(p, lo, hi), _exact_cdf(q, lo, hi)
        delta = np.zeros(xs.size, dtype=np.int64)
        for k, (a, b) in enumerate(zip(fi, fj)):
            if a > b:   # first x' with F_j(x') >= F_i(x)
                delta[k] = bisect.bisect_left(fj, a) - k
            elif a < b:  # last x' with F_j(x') <= F_i(x); F_j = 0 below the hull
                delta[k] = k - (bisect.bisect_right(fj, a) - 1)
        return xs, delta
    fi, si = _tails(p.pmf_on(lo, hi))
    fj, sj = _tails(q.pmf_on(lo, hi))
    up, down = _float_order(fi, si, fj, sj, tol)
    delta = np.zeros(xs.size, dtype=np.int64)
    for k in np.flatnonzero(up):
        if fi[k] <= 0.5:
            delta[k] = np.searchsorted(fj, fi[k] * (1 - tol), side="left") - k
        else:
            delta[k] = _first_at_most(sj, np.array([si[k] * (1 + tol)]))[0] - k
    for k in np.flatnonzero(down):
        if fi[k] <= 0.5:
            delta[k] = k - (np.searchsorted(fj, fi[k] * (1 + tol), side="right") - 1)
        else:
            delta[k] = k - (np.searchsorted(-sj, -si[k] * (1 - tol), side="right") - 1)
    return xs, delta


# ------------------------------------------------------------------------------ the tiny project
def _adult(rng, n=120):
    races = rng.choice(["White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo"], n, p=[0.4, 0.25, 0.2, 0.15])
    return pd.DataFrame({
        "age": rng.integers(18, 80, n),
        "education": rng.choice(["Bachelors", "HS-grad", "Masters"], n),
        "education-num": rng.integers(1, 17, n),
        "marital-status": rng.choice(["Never-married", "Married-civ-spouse"], n),
        "relationship": rng.choice(["Husband", "Wife", "Own-child", "Not-in-family"], n),
        "race": races,
        "sex": rng.choice(["Male", "Female"], n),
    })


def _bank(rng, n=80):
    job = rng.choice(["blue-collar", "management", "technician"], n).astype(object)
    job[:3] = np.nan  # missing values are dropped and counted
    return pd.DataFrame({"age": rng.integers(20, 70, n), "job": job,
                         "marital": rng.choice(["divorced", "married", "single"], n),
                         "education": rng.choice(["primary", "secondary"], n), "loan": rng.choice(["yes", "no"], n)})


def _student(rng, n=60):
    return pd.DataFrame({"sex": rng.choice(["F", "M"], n), "age": rng.integers(15, 22, n),
                         "higher": rng.choice(["yes", "no"], n, p=[0.8, 0.2]),
                         "romantic": rng.choice(["yes", "no"], n), "freetime": rng.integers(1, 6, n)})


def _heart(rng, n=70):
    chol = rng.normal(250, 50, n).round().astype(int).astype(object)
    chol[:4] = 0       # "not measured"
    chol[4:6] = "?"    # missing
    rows = []
    for k in range(n):
        rows.append([int(rng.integers(30, 70)), int(k % 2), 2, 130, chol[k], 0, 0, 150, 0, 0, "?", "?", "?", 0])
    return "\n".join(",".join(map(str, r)) for r in rows) + "\n"


def _cleveland(rng, n=60):
    """processed.cleveland.data-like: 14 fields, diagnosis num 0-4 (every value present)."""
    rows = [[int(rng.integers(30, 71)), int(k % 2), 1 + k % 4, 130, 240, 0, 0, 150, 0, 0, 1, "?", 3, k % 5]
            for k in range(n)]
    return "\n".join(",".join(map(str, r)) for r in rows) + "\n"


def _student_mat(rng, n=50):
    """student-mat.csv-like: `;` separated, paid yes/no, final grade G3 in 0..20, studytime 1-4,
    failures 0-3 and first-period grade G1 (deterministic in the row: the random stream is the same)."""
    lines = ["school;paid;G3;studytime;failures;G1"] + [
        f"GP;{rng.choice(['yes', 'no'])};{int(rng.integers(0, 21))};{1 + k % 4};{k % 3};{5 + (7 * k) % 11}"
        for k in range(n)]
    return "\n".join(lines) + "\n"


def _adult_data(rng, n=90):
    """adult.data-like: no header, `, ` separated, 15 fields, ends with an empty line."""
    races = ["White", "Black", "Asian-Pac-Islander"]
    rows = [f"{int(rng.integers(18, 80))}, Private, 1000, HS-grad, {9 + k % 4}, Never-married, Sales, Own-child, "
            f"{races[k % 3]}, Male, 0, 0, {30 + (7 * k) % 21}, United-States, {rng.choice(['<=50K', '>50K'])}"
            for k in range(n)]
    return "\n".join(rows) + "\n\n"


def _zip_bytes(members: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def build_mirror(root: Path, seed: int = 7) -> tuple[Path, dict]:
    """Write the fake mirror under ``root``; return its path and the frames' row counts and sha256."""
    rng = np.random.default_rng(seed)
    info = {}
    for uci_id, key, frame in ((2, "adult", _adult(rng)), (222, "bank_marketing", _bank(rng)),
                               (320, "student_performance", _student(rng))):
        path = root / "static" / "public" / str(uci_id) / "data.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        frame.to_csv(path, index=False)
        info[key] = {"rows": len(frame), "columns": list(frame.columns),
                     "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    member = _heart(rng).encode()
    zpath = root / "static" / "public" / "45" / "heart+disease.zip"
    zpath.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("processed.hungarian.data", member)
    zpath.write_bytes(buffer.getvalue())
    info["hungarian_heart"] = {"rows": member.count(b"\n"), "sha256": hashlib.sha256(member).hexdigest()}
    # the original files of paper 002's Table 1: a second heart member, a zip inside a zip, adult.zip
    cleveland, student, adult = _cleveland(rng).encode(), _student_mat(rng).encode(), _adult_data(rng).encode()
    zpath.write_bytes(_zip_bytes({"processed.hungarian.data": member, "processed.cleveland.data": cleveland}))
    spath = root / "static" / "public" / "320" / "student+performance.zip"
    spath.write_bytes(_zip_bytes({"student.zip": _zip_bytes({"student-mat.csv": student})}))
    (root / "static" / "public" / "2" / "adult.zip").write_bytes(_zip_bytes({"adult.data": adult}))
    for key, data, rows in (("heart_cleveland", cleveland, cleveland.count(b"\n")),
                            ("student_mat", student, student.count(b"\n") - 1),
                            ("adult_train", adult, adult.count(b"\n") - 1)):
        info[key] = {"rows": rows, "sha256": hashlib.sha256(data).hexdigest()}
    return root, info


def tiny_config(info: dict) -> dict:
    """The shipped config.yaml shrunk: same structure, small grids, the fake datasets."""
    with open(REPO / "config.yaml", encoding="utf-8") as handle:
        cfg = yaml.safe_load(handle)
    cfg = copy.deepcopy(cfg)
    for key, spec in cfg["datasets"].items():
        spec["rows"] = info[key]["rows"]
    cfg["datasets"]["hungarian_heart"]["sha256"] = info["hungarian_heart"]["sha256"]
    for key in ("heart_cleveland", "adult_train", "adult", "bank_marketing", "student_performance"):
        cfg["datasets"][key]["sha256"] = info[key]["sha256"]
    del cfg["datasets"]["student_mat"]["sha256"]  # unpinned: recorded at the first download
    grid = {"start": 0.25, "stop": 1.0, "step": 0.25}
    # the noise comparison on two pairs (a paper-000 panel and a Table 1 setting), three epsilons
    cfg["comparison"]["pairs"] = ["fig9/adult", "table1/heart"]
    cfg["comparison"]["epsilons"] = {"start": 0.2, "stop": 1.0, "step": 0.4}
    # fig4 and fig6 repeat methods that fig5 (theorem3_*) and fig7 (kantorovich, theorem4) run here
    for name in ("fig4", "fig6"):
        del cfg["multiuser"]["experiments"][name]
    for name, spec in cfg["multiuser"]["experiments"].items():
        spec["epsilons"] = {"start": 0.001, "stop": 0.003, "step": 0.001} if name == "fig8" else \
            {"start": 0.1, "stop": 1.0, "step": 0.3}
    gauss = cfg["gaussian"]
    gauss["fig2"]["K"] = {"start": 1, "stop": 4}
    gauss["fig2"]["sigma2"] = [1, 9]
    gauss["fig5"]["deltas"] = {"start": 0.1, "stop": 0.9, "step": 0.2}
    for fig in ("fig3", "fig4"):
        gauss[fig]["epsilons"] = grid
    gauss["gmm"] = {"components": 2, "n_init": 2, "max_iter": 200}
    # a GMM experiment added by config only (README: "Paper 004's GMM figures")
    gauss["added_gmm"] = {**copy.deepcopy(gauss["fig4"]), "unit": "mg/dl", "note": "added in config",
                          "privacy": [{"epsilon": 0.5, "delta": 0.2}]}
    # amplification by iteration: Fig. 6 on three T and three priors, the bank series (80 fake
    # records: secrets 1, 40, 80) on one eta and two epsilons
    it = cfg["iteration"]
    it["fig6"].update(steps=[1, 10, 100], equal=[0, 0.5], decaying=[0.9])
    it["series"]["bank"].update(etas=[0.05], secret_every=40, epsilons=[0.5, 1.0])
    # closed-form sensitivities: one triple per file, one epsilon; the diffusion on a short grid
    sens = cfg["sensitivity"]
    sens["attribute_privacy"].update(
        triples=[{"dataset": "student_mat", "released": "G3", "protected": "studytime"},
                 {"dataset": "heart_cleveland", "released": "age", "protected": "cp"},
                 {"dataset": "adult_train", "released": "hours-per-week", "protected": "education-num"}],
        epsilons=[1.0])
    sens["diffusion"].update(lambdas=[1.0], times=[0.5, 1.0, 2.0], paths=50, epsilons=[1.0])
    return cfg


def build_tiny_project(tmp_path: Path) -> tuple[Path, Path]:
    """A working directory with ``tiny.yaml`` and a mirror under ``tmp_path``; returns (workdir, mirror)."""
    mirror, info = build_mirror(tmp_path / "mirror")
    workdir = tmp_path / "work"
    workdir.mkdir()
    with open(workdir / "tiny.yaml", "w", encoding="utf-8") as handle:
        yaml.safe_dump(tiny_config(info), handle, sort_keys=False)
    return workdir, mirror


def copy_project(workdir: Path, dest: Path) -> Path:
    """A copy of a run's working directory (outputs, cached data, Snakemake's metadata) at ``dest``.

    Modification times are kept, so Snakemake sees the copy as up to date.
    """
    shutil.copytree(workdir, dest, symlinks=True)
    return dest


# ------------------------------------------------------------------------------ running Snakemake
def _snakemake_command(workdir: Path, *args) -> list[str]:
    return [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
            "--configfile", str(workdir / "tiny.yaml"), *map(str, args)]


def _environment(mirror: Path | None) -> dict:
    """This environment with ``UCI_MIRROR`` set to ``mirror`` (or removed), this Python first on PATH
    and the ``pufferfish`` the tests import first on PYTHONPATH (jobs run in the project's directory,
    where a relative PYTHONPATH would not find it)."""
    env = {k: v for k, v in os.environ.items() if k != "UCI_MIRROR"}
    if mirror is not None:
        env["UCI_MIRROR"] = str(mirror)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.pathsep.join([PACKAGE_ROOT, *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))])
    env.setdefault("MPLBACKEND", "Agg")
    return env


def snakemake(workdir: Path, mirror: Path | None, *args, check: bool = True) -> subprocess.CompletedProcess:
    """Run Snakemake on the project in ``workdir``; with ``check``, fail the test (with its output) if it fails."""
    proc = subprocess.run(_snakemake_command(workdir, *args), env=_environment(mirror), capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}")
    return proc


def start_snakemake(workdir: Path, mirror: Path, *args, log: Path | None = None, nice: int = 0) -> subprocess.Popen:
    """Snakemake on the project in ``workdir`` in the background, in its own session (so that
    ``os.killpg`` reaches its jobs), its output written to ``log`` (discarded if None), at
    scheduling priority ``nice`` (jobs inherit it)."""
    out = subprocess.DEVNULL if log is None else open(log, "w", encoding="utf-8")  # noqa: SIM115 - the child owns it
    try:
        return subprocess.Popen(_snakemake_command(workdir, *args), env=_environment(mirror), stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=(lambda: os.nice(nice)) if nice else None)
    finally:
        if log is not None:
            out.close()


@dataclass
class BackgroundRun:
    """A complete run of a fresh tiny project under ``root``, started in the background."""

    workdir: Path
    mirror: Path
    log: Path
    proc: subprocess.Popen

    @classmethod
    def start(cls, root: Path, *, nice: int = 0) -> BackgroundRun:
        workdir, mirror = build_tiny_project(root)
        log = root / "snakemake.log"
        return cls(workdir, mirror, log, start_snakemake(workdir, mirror, "--cores", "2", log=log, nice=nice))

    def wait(self) -> tuple[Path, Path]:
        """``(workdir, mirror)`` once the run has finished; fails with the end of its log if it failed."""
        if self.proc.wait() != 0:
            tail = self.log.read_text(encoding="utf-8", errors="replace")[-6000:]
            raise AssertionError(f"snakemake failed ({self.proc.returncode}), log {self.log}:\n{tail}")
        return self.workdir, self.mirror

    def stop(self) -> None:
        """Kill the run (Snakemake and its jobs) if it is still going."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def running_job_pids(workdir: Path) -> list[int]:
    """Python processes running a Snakemake job script of ``workdir`` (read from /proc)."""
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


def digests(workdir: Path) -> dict[str, str]:
    """sha256 of every result file (CSV, JSON, PDF, PNG) under ``workdir/results``, logs excluded;
    of ``provenance.json`` without where and when each dataset was read (``RUN_SPECIFIC``: two runs
    from their own mirrors read the same bytes from other paths at other times)."""
    from pufferfish.pipeline.run_record import RUN_SPECIFIC
    out = {}
    for path in sorted((workdir / "results").rglob("*")):
        if path.is_file() and "logs" not in path.parts and path.suffix in {".csv", ".json", ".pdf", ".png"}:
            data = path.read_bytes()
            if path.name == "provenance.json":
                record = json.loads(data)
                for dataset in record.get("datasets", {}).values():
                    for key in RUN_SPECIFIC:
                        dataset.pop(key, None)
                data = json.dumps(record, sort_keys=True).encode()
            out[str(path.relative_to(workdir))] = hashlib.sha256(data).hexdigest()
    return out


def binomial_pmf(n, p):
    """Binomial(n, p) on its resolved window, independently of the engine: the ratio
    P(k+1)/P(k) = (n - k) p / ((k + 1)(1 - p)) in 80-bit long double, cumulated outwards from
    the mode (rounding ~1e-19 per step) and normalized. Returns (lo, probs as float64)."""
    ld = np.longdouble
    p, mode, floor = ld(p), int((n + 1) * p), math.log(1e-320) - 40

    def side(direction):
        acc, start, out = ld(0), mode, []
        while (start < n if direction > 0 else start > 0) and acc > floor:
            ks = np.arange(start, min(n, start + 20000)) if direction > 0 else np.arange(start - 1, max(-1, start - 20001), -1)
            ratio = np.log((ld(n) - ks.astype(ld)) / (ks.astype(ld) + 1)) + np.log(p / (1 - p))
            steps = np.cumsum(np.concatenate(([acc], ratio if direction > 0 else -ratio)))[1:]
            out.append(steps)
            acc, start = steps[-1], int(ks[-1]) + 1 if direction > 0 else int(ks[-1])
        return np.concatenate(out) if out else np.zeros(0, dtype=ld)

    up, down = side(1), side(-1)
    logs = np.concatenate((down[::-1], [ld(0)], up))
    w = np.exp(logs)
    return mode - down.size, (w / w.sum()).astype(float)


class certified:
    """``got == certified(truth)``: ``got`` is a certified upper end of ``truth`` (issue 39): at least it and at most
    ``truth (1 + 1e-9)`` (plus ``abs``, and the smallest subnormal above a true 0). A truth given as a float
    rounded to nearest may sit one ulp above the real one: the lower end allows 4 ulps."""

    def __init__(self, truth, *, abs: float = 0.0):
        self.truth, self.abs = float(truth), abs

    def __eq__(self, got) -> bool:
        got, t = float(got), self.truth
        if math.isinf(t) or math.isinf(got):
            return got == t
        return t * (1.0 - 2.0 ** -50) - self.abs <= got <= t * (1.0 + 1e-9) + self.abs + 5e-324

    def __repr__(self) -> str:
        return f"certified({self.truth!r})"


def assert_rounded_up(got, numerator: float, denominators) -> None:
    """Each ``got[k]`` is the smallest float at or above the exact quotient ``numerator / denominators[k]``
    (checked in exact rationals: at least the quotient, and the float below it is below the quotient)."""
    from fractions import Fraction

    got = np.atleast_1d(np.asarray(got, dtype=float))
    for k, (g, d) in enumerate(zip(got, np.atleast_1d(np.asarray(denominators, dtype=float)))):
        exact = Fraction(numerator) / Fraction(float(d))
        assert Fraction(float(g)) >= exact > Fraction(math.nextafter(float(g), -math.inf)), (k, g, numerator, d)

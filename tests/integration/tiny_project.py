"""A tiny, self-made project for end-to-end runs: a fake UCI mirror and a small config.

The datasets are synthetic (seeded), shaped like the four UCI tables the pipeline reads,
so that every rule runs in seconds; nothing from the real data is used.
"""
from __future__ import annotations

import copy
import hashlib
import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[2]


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
    rows = [[int(rng.integers(30, 71)), int(k % 2), 2, 130, 240, 0, 0, 150, 0, 0, 1, "?", 3, k % 5] for k in range(n)]
    return "\n".join(",".join(map(str, r)) for r in rows) + "\n"


def _student_mat(rng, n=50):
    """student-mat.csv-like: `;` separated, paid yes/no, final grade G3 in 0..20."""
    lines = ["school;paid;G3"] + [f"GP;{rng.choice(['yes', 'no'])};{int(rng.integers(0, 21))}" for _ in range(n)]
    return "\n".join(lines) + "\n"


def _adult_data(rng, n=90):
    """adult.data-like: no header, `, ` separated, 15 fields, ends with an empty line."""
    races = ["White", "Black", "Asian-Pac-Islander"]
    rows = [f"{int(rng.integers(18, 80))}, Private, 1000, HS-grad, 9, Never-married, Sales, Own-child, "
            f"{races[k % 3]}, Male, 0, 0, 40, United-States, {rng.choice(['<=50K', '>50K'])}" for k in range(n)]
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
        info[key] = {"rows": len(frame), "columns": list(frame.columns)}
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
    for key in ("heart_cleveland", "adult_train"):
        cfg["datasets"][key]["sha256"] = info[key]["sha256"]
    del cfg["datasets"]["student_mat"]["sha256"]  # unpinned: recorded at the first download
    grid = {"start": 0.25, "stop": 1.0, "step": 0.25}
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
    return cfg


def build(tmp_path: Path) -> tuple[Path, Path]:
    """A working directory with ``tiny.yaml`` and a mirror; returns (workdir, mirror)."""
    mirror, info = build_mirror(tmp_path / "mirror")
    workdir = tmp_path / "work"
    workdir.mkdir()
    with open(workdir / "tiny.yaml", "w", encoding="utf-8") as handle:
        yaml.safe_dump(tiny_config(info), handle, sort_keys=False)
    return workdir, mirror

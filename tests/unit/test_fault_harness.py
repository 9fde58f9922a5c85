"""The fault harness's recording merge (tests/faults/run.py): the per-worker files of a pytest-xdist recording."""
from __future__ import annotations

import json

from tests.faults.run import merge


def test_merge_joins_the_workers_recordings(tmp_path):
    path = tmp_path / "record.json"
    (tmp_path / "record.json.gw0").write_text(json.dumps(
        {"exitstatus": 0, "reached": {"a@x": ["t1"], "a@y": []}, "durations": {"t1": 0.5}}))
    (tmp_path / "record.json.gw1").write_text(json.dumps(
        {"exitstatus": 1, "reached": {"a@x": ["t0"], "a@y": ["t2"]}, "durations": {"t0": 0.1, "t2": 2.0}}))
    assert merge(path) == {"exitstatus": 1, "reached": {"a@x": ["t0", "t1"], "a@y": ["t2"]},
                           "durations": {"t1": 0.5, "t0": 0.1, "t2": 2.0}}


def test_merge_reads_a_single_recording(tmp_path):
    path = tmp_path / "record.json"
    one = {"exitstatus": 0, "reached": {"a@x": ["t1"]}, "durations": {"t1": 0.5}}
    path.write_text(json.dumps(one))
    assert merge(path) == one

"""Config section `sensitivity` (paper 002, Props. 6.2-6.3): typed settings, one-line errors
naming the key, and the triples' columns checked on the data before any job."""
import copy
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from pufferfish.errors import ConfigError
from pufferfish.pipeline.config import Settings, load_settings, validate_config
from pufferfish.pipeline.data_checks import check_data
from pufferfish.sensitivity.settings import AttributeTriple

ROOT = Path(__file__).resolve().parents[2]
ATTR = ["sensitivity", "attribute_privacy"]
DIFF = ["sensitivity", "diffusion"]


@pytest.fixture(scope="module")
def shipped():
    with open(ROOT / "config.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def test_shipped_section_is_typed(shipped):
    settings = load_settings(copy.deepcopy(shipped))
    sens = settings.sensitivity
    # the triples: student_mat G3 | studytime, failures, G1; heart_cleveland age | num, cp;
    # adult_train hours-per-week | education-num
    assert sens.attribute_privacy.triples == (
        AttributeTriple("student_mat", "G3", "studytime", domain=(0, 20)),
        AttributeTriple("student_mat", "G3", "failures", domain=(0, 20)),
        AttributeTriple("student_mat", "G3", "G1", domain=(0, 20)),
        AttributeTriple("heart_cleveland", "age", "num", domain=(0, 100)),
        AttributeTriple("heart_cleveland", "age", "cp", domain=(0, 100)),
        AttributeTriple("adult_train", "hours-per-week", "education-num"))
    # every column of a triple is declared in its dataset's `columns` (the download checks them)
    for t in sens.attribute_privacy.triples:
        assert {t.released, t.protected} <= set(shipped["datasets"][t.dataset]["columns"])
    diff = sens.diffusion
    assert set(diff.potentials) == {"quadratic", "logcosh"} and len(diff.lambdas) >= 2 and len(diff.times) >= 2
    assert diff.seed == shipped["seed"]


def test_a_config_without_the_section_has_none(shipped):
    cfg = copy.deepcopy(shipped)
    del cfg["sensitivity"]
    assert Settings.load(cfg).sensitivity is None
    cfg["sensitivity"] = {"diffusion": copy.deepcopy(shipped["sensitivity"]["diffusion"])}
    sens = Settings.load(cfg).sensitivity
    assert sens.attribute_privacy is None and sens.diffusion is not None


def _set(cfg, path, value):
    node = cfg
    for key in path[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value


_DELETE = object()

CASES = [
    (ATTR + ["triples", 0, "dataset"], "student_maths",
     "config: sensitivity.attribute_privacy.triples[0].dataset = 'student_maths': not a key of datasets"),
    (ATTR + ["triples", 0, "protected"], "G3",
     "config: sensitivity.attribute_privacy.triples[0]: released and protected are both 'G3'"),
    (ATTR + ["triples", 0, "protect"], "G1", "config: sensitivity.attribute_privacy.triples[0].protect: unknown key"),
    (ATTR + ["triples", 1], {"dataset": "student_mat", "released": "G3", "protected": "studytime"},
     "config: sensitivity.attribute_privacy.triples: a triple is repeated"),
    (ATTR + ["triples"], [], "config: sensitivity.attribute_privacy.triples = []: must have at least 1 item(s)"),
    (ATTR + ["epsilons"], [0.5, -1.0], "config: sensitivity.attribute_privacy.epsilons[1] = -1.0: must be > 0"),
    (ATTR + ["delta"], 1.0, "config: sensitivity.attribute_privacy.delta = 1.0: must be < 1"),
    (ATTR + ["delta"], _DELETE, "config: sensitivity.attribute_privacy.delta: missing required key"),
    (ATTR + ["alpha"], 3, "config: sensitivity.attribute_privacy.alpha = 3: the DAGWM Cauchy scale is stated for "
                          "alpha = 2"),
    (DIFF + ["potentials"], ["quadratic", "quartic"],
     "config: sensitivity.diffusion.potentials[1] = 'quartic': must be one of quadratic, logcosh"),
    (DIFF + ["lambdas"], [0.5, 0], "config: sensitivity.diffusion.lambdas[1] = 0: must be > 0"),
    (DIFF + ["lambdas"], [0.5, 0.5], "config: sensitivity.diffusion.lambdas = [0.5, 0.5]: a value is repeated"),
    (DIFF + ["times"], [-0.5], "config: sensitivity.diffusion.times[0] = -0.5: must be >= 0"),
    (DIFF + ["times"], {"start": 0.0, "stop": 1.0, "step": 0}, "config: sensitivity.diffusion.times.step = 0: must be > 0"),
    (DIFF + ["diameter"], 0, "config: sensitivity.diffusion.diameter = 0: must be > 0"),
    (DIFF + ["paths"], 0, "config: sensitivity.diffusion.paths = 0: must be >= 1"),
    (DIFF + ["paths"], 1.5, "config: sensitivity.diffusion.paths = 1.5: must be an integer"),
    (DIFF + ["max_step"], float("inf"), "config: sensitivity.diffusion.max_step = inf: must be finite"),
    (DIFF + ["seed"], 3, "config: sensitivity.diffusion.seed: unknown key"),
    (["sensitivity"], {}, "config: sensitivity = {}: must have at least 1 key(s)"),
    (["sensitivity", "weak_dependence"], {}, "config: sensitivity.weak_dependence: unknown key"),
]


@pytest.mark.parametrize("path, value, message", CASES, ids=[".".join(map(str, c[0])) for c in CASES])
def test_bad_values_give_one_line_naming_the_key(shipped, path, value, message):
    cfg = copy.deepcopy(shipped)
    _set(cfg, path, value)
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    text = str(info.value)
    assert text.startswith(message), text
    assert "\n" not in text


# ------------------------------------------------------------------------------ the data, before any job
STUDENT = {"source": "archive", "url": "https://archive.ics.uci.edu/static/public/320/student+performance.zip",
           "member": ["student.zip", "student-mat.csv"], "sha256": "cd" * 32, "rows": 6,
           "columns": ["G3", "studytime"], "read_csv": {"sep": ","}}
HEART = {"source": "archive", "url": "https://archive.ics.uci.edu/static/public/45/heart+disease.zip",
         "member": "processed.cleveland.data", "sha256": "ab" * 32, "rows": 6, "columns": ["age", "num"],
         "read_csv": {"header": None, "names": ["age", "cp", "num"], "na_values": ["?"]}}


def _data_config(tmp_path, shipped, cache=True):
    """The shipped config with two small datasets and one triple on each (cached under tmp_path)."""
    cfg = copy.deepcopy(shipped)
    for section in ("wasserstein", "comparison", "iteration", "distp"):  # their datasets are not in this small config
        cfg.pop(section, None)
    cfg["multiuser"]["data_users"] = {}
    cfg["multiuser"]["experiments"] = {"fig4": cfg["multiuser"]["experiments"]["fig4"]}
    for fig in ("fig3", "fig4"):
        del cfg["gaussian"][fig]
    cfg["datasets"] = {"student_mat": copy.deepcopy(STUDENT), "heart_cleveland": copy.deepcopy(HEART)}
    cfg["sensitivity"]["attribute_privacy"]["triples"] = [
        {"dataset": "student_mat", "released": "G3", "protected": "studytime"},
        {"dataset": "heart_cleveland", "released": "age", "protected": "num"}]
    validate_config(cfg)
    raw = tmp_path / "data" / "raw"
    raw.mkdir(parents=True)
    if cache:
        tables = {"student_mat": pd.DataFrame({"G3": [10, 12, 0, 15, 18, 11], "studytime": [1, 2, 2, 3, 4, 1]}),
                  "heart_cleveland": pd.DataFrame({"age": [40, 50, 60, 45, 55, 65], "cp": [1, 2, 3, 4, 1, 2],
                                                   "num": [0, 0, 1, 2, 1, 0]})}
        for name, frame in tables.items():
            spec = cfg["datasets"][name]
            frame.to_csv(raw / f"{name}.csv", index=False)
            record = {"dataset": name, "source": spec["source"], "url": spec["url"], "member": spec["member"],
                      "read_csv": spec["read_csv"], "rows": 6, "sha256_expected": spec["sha256"],
                      "columns": list(frame.columns)}
            (raw / f"{name}.json").write_text(json.dumps(record), encoding="utf-8")
    return cfg


def test_the_triples_pass_on_good_data(tmp_path, shipped):
    check_data(_data_config(tmp_path, shipped), tmp_path / "data" / "raw")


@pytest.mark.parametrize("index, key, value, message", [
    # an unknown column of a triple: named with the dataset's columns (from the cached table)
    (0, "protected", "studytimes",
     "config: sensitivity.attribute_privacy.triples[0].protected: no column 'studytimes' in dataset student_mat "
     "(columns: G3, studytime)"),
    (1, "released", "ages",
     "config: sensitivity.attribute_privacy.triples[1].released: no column 'ages' in dataset heart_cleveland "
     "(columns: age, cp, num)"),
    # on the cached rows, as the job reads them: a released column of one value
    (1, "released", "cp", None),
])
def test_triple_mistakes_are_named_before_any_job(tmp_path, shipped, index, key, value, message):
    cfg = _data_config(tmp_path, shipped)
    cfg["sensitivity"]["attribute_privacy"]["triples"][index][key] = value
    if message is None:  # cp is a fine released column: the check passes
        check_data(cfg, tmp_path / "data" / "raw")
        return
    with pytest.raises(ConfigError) as info:
        check_data(cfg, tmp_path / "data" / "raw")
    assert str(info.value) == message


def test_released_values_the_job_cannot_use_are_named_before_any_job(tmp_path, shipped):
    cfg = _data_config(tmp_path, shipped)
    raw = tmp_path / "data" / "raw"
    pd.DataFrame({"G3": [10.5, 12, 0, 15, 18, 11], "studytime": [1, 2, 2, 3, 4, 1]}).to_csv(raw / "student_mat.csv",
                                                                                            index=False)
    with pytest.raises(ConfigError) as info:
        check_data(cfg, raw)
    text = str(info.value)
    assert text.startswith("config: sensitivity.attribute_privacy.triples[0]: ") and "integer" in text, text
    assert "\n" not in text and "[student_mat" not in text
    pd.DataFrame({"G3": [10] * 6, "studytime": [1, 2, 2, 3, 4, 1]}).to_csv(raw / "student_mat.csv", index=False)
    with pytest.raises(ConfigError, match=r"^config: sensitivity.attribute_privacy.triples\[0\]: G3 takes a single "
                                          r"value; nothing to protect$"):
        check_data(cfg, raw)


def test_without_a_cache_the_named_columns_are_still_checked(tmp_path, shipped):
    """heart_cleveland names its columns in read_csv.names: an unknown column is refused without the data."""
    cfg = _data_config(tmp_path, shipped, cache=False)
    raw = tmp_path / "data" / "raw"
    check_data(cfg, raw)
    cfg["sensitivity"]["attribute_privacy"]["triples"][1]["protected"] = "chest_pain"
    with pytest.raises(ConfigError, match=r"^config: sensitivity.attribute_privacy.triples\[1\].protected: no column "
                                          r"'chest_pain' in dataset heart_cleveland \(columns: age, cp, num\)$"):
        check_data(cfg, raw)

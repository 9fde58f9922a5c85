"""Paper 002's Table 1: W_inf and W_2 of conditional priors, the table's rows, the config section.

Expected numbers are worked out by hand (the monotone coupling of two small pmfs, written
out in the comments), or by independent oracles: POT's LP (``ot.emd2``) for W_2, a
feasibility LP (``scipy.optimize.linprog``) for W_inf, and the quantile functions of the
raw samples for the real data.
"""
from __future__ import annotations

import copy
import itertools
import json
import math
import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import ot
import pandas as pd
import pytest
import yaml
from scipy import optimize

from pufferfish.errors import ConfigError, DataError
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.wasserstein.conditionals import (conditional_priors, declared_range, read_conditional_priors,
                                              write_conditional_priors, write_conditionals_figure, write_table1)
from pufferfish.pipeline.config import validate_config
from pufferfish.wasserstein.table1 import (TABLE1_COLUMNS, SecretConditional, binding_pair, pair_sensitivity,
                                           setting_sensitivities, table1_frame)
from tests.helpers import random_pmf

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------ a hand-computed setting
# a: P = 1/2 at 0, 1/2 at 2            (2 records: values 0, 2)
# b: Q = 1/4 at 1, 3/4 at 5            (4 records: 1, 5, 5, 5)
# c: R = 1 at 0                        (7 records, all 0)
# Monotone coupling of (P, Q) on the quantile axis u:
#   u in (0, 1/4]:   0 -> 1  (gap 1)      u in (1/4, 1/2]: 0 -> 5 (gap 5)     u in (1/2, 1]: 2 -> 5 (gap 3)
#   W_inf = 5;  W_2^2 = 1/4 * 1 + 1/4 * 25 + 1/2 * 9 = 11
# (P, R): 0 -> 0 (1/2), 2 -> 0 (1/2):   W_inf = 2, W_2^2 = 1/2 * 4 = 2
# (Q, R): 1 -> 0 (1/4), 5 -> 0 (3/4):   W_inf = 5, W_2^2 = 1/4 + 3/4 * 25 = 19
def hand_setting():
    return [SecretConditional("a", LatticePMF.from_counts([0, 2], [1, 1]), 2),
            SecretConditional("b", LatticePMF.from_counts([1, 5], [1, 3]), 4),
            SecretConditional("c", LatticePMF.from_counts([0], [7]), 7)]


def test_pair_by_hand():
    a, b, _ = hand_setting()
    row = pair_sensitivity(a, b, setting="toy", attribute_range=5)
    assert (row.secret_i, row.secret_j, row.rows_i, row.rows_j) == ("a", "b", 2, 4)
    assert row.w_inf == 5 and row.range == 5.0
    assert row.w_2 == pytest.approx(math.sqrt(11), rel=1e-15)
    # the same pair the other way round: distances are symmetric
    back = pair_sensitivity(b, a, setting="toy", attribute_range=5)
    assert (back.w_inf, back.w_2) == (row.w_inf, row.w_2)


def test_setting_rows_and_maxima_by_hand():
    rows = setting_sensitivities("toy", hand_setting(), attribute_range=6)
    got = [(r.secret_i, r.secret_j, r.rows_i, r.rows_j, r.w_inf) for r in rows]
    assert got == [("a", "b", 2, 4, 5), ("a", "c", 2, 7, 2), ("b", "c", 4, 7, 5), ("max", "max", None, None, 5)]
    assert [r.w_2 for r in rows] == pytest.approx([math.sqrt(11), math.sqrt(2), math.sqrt(19), math.sqrt(19)],
                                                  rel=1e-15)
    assert all(r.range == 6.0 and r.setting == "toy" for r in rows)
    # the binding pair: W_inf ties at 5 between (a, b) and (b, c); W_2 breaks it: sqrt(19) > sqrt(11)
    bind = binding_pair(rows)
    assert (bind.secret_i, bind.secret_j) == ("b", "c")


def test_table1_frame_columns_and_types():
    frame = table1_frame(setting_sensitivities("toy", hand_setting(), attribute_range=6))
    assert list(frame.columns) == TABLE1_COLUMNS
    text = frame.to_csv(index=False, lineterminator="\n").splitlines()
    assert text[0] == "setting,secret_i,secret_j,rows_i,rows_j,range,w_inf,w_2"
    assert text[1].startswith("toy,a,b,2,4,6,5,3.3166247903554")  # sqrt(11) = 3.31662479035540
    assert text[4].startswith("toy,max,max,,,6,5,4.358898943540")  # sqrt(19) = 4.35889894354067


@pytest.mark.parametrize("seed", range(8))
def test_distances_against_lp_oracles(seed):
    """W_2 from POT's exact LP with cost |x - x'|^2; W_inf as the smallest d for which a coupling
    using only |x - x'| <= d exists (a feasibility LP per candidate d)."""
    rng = np.random.default_rng(seed)
    p = random_pmf(rng, size=6, lo=0)
    q = random_pmf(rng, size=7)
    row = pair_sensitivity(SecretConditional("p", p, 1), SecretConditional("q", q, 1), setting="rand",
                           attribute_range=20)
    xs, ys = p.values, q.values
    cost = (xs[:, None] - ys[None, :]).astype(float)
    w2 = math.sqrt(ot.emd2(p.probs, q.probs, cost ** 2))
    assert row.w_2 == pytest.approx(w2, rel=1e-9)
    assert row.w_inf == _w_inf_by_lp(p.probs, q.probs, np.abs(cost))


def _w_inf_by_lp(a, b, gaps):
    n, m = gaps.shape
    a_eq = np.zeros((n + m, n * m))
    for i in range(n):
        a_eq[i, i * m:(i + 1) * m] = 1
    for j in range(m):
        a_eq[n + j, j::m] = 1
    for d in sorted(set(gaps.ravel().tolist())):
        bounds = [(0, None) if g <= d else (0, 0) for g in gaps.ravel()]
        res = optimize.linprog(np.zeros(n * m), A_eq=a_eq, b_eq=np.concatenate([a, b]), bounds=bounds,
                               method="highs")
        if res.status == 0:
            return int(d)
    raise AssertionError("no coupling at all")


# ------------------------------------------------------------------------------ refusals
@pytest.mark.parametrize("attribute_range, error, message", [
    (4, ValueError, "attribute_range = 4: smaller than the span 5 of the values observed (0..5)"),
    (0, ValueError, "attribute_range = 0: must be finite and > 0"),
    (float("nan"), ValueError, "attribute_range = nan: must be finite and > 0"),
    (float("inf"), ValueError, "attribute_range = inf: must be finite and > 0"),
    (True, TypeError, "attribute_range = True: must be a number"),
    ("20", TypeError, "attribute_range = '20': must be a number"),
])
def test_bad_range_refused(attribute_range, error, message):
    with pytest.raises(error) as info:
        setting_sensitivities("toy", hand_setting(), attribute_range=attribute_range)
    assert str(info.value).startswith(message), str(info.value)


def test_bad_conditionals_refused():
    a, b, c = hand_setting()
    with pytest.raises(ValueError, match=r"^conditionals of setting toy: 1 secret value\(s\); a secret pair needs"):
        setting_sensitivities("toy", [a], attribute_range=6)
    twin = SecretConditional("a", c.pmf, 7)
    with pytest.raises(ValueError, match=r"^conditionals of setting toy: secret value\(s\) a given twice$"):
        setting_sensitivities("toy", [a, b, twin], attribute_range=6)
    with pytest.raises(TypeError, match=r"^conditionals\[1\] = 3: must be a SecretConditional$"):
        setting_sensitivities("toy", [a, 3], attribute_range=6)
    with pytest.raises(ValueError, match="^secret = 'max': reserved for the row of maxima"):
        SecretConditional("max", c.pmf, 7)
    with pytest.raises(ValueError, match=r"^rows = 0: must be an integer >= 1$"):
        SecretConditional("z", c.pmf, 0)
    with pytest.raises(TypeError, match=r"^pmf = \[1\]: must be a LatticePMF$"):
        SecretConditional("z", [1], 1)
    with pytest.raises(ValueError, match=r"^rows: no secret pair"):
        binding_pair([])


# ------------------------------------------------------------------------------ conditionals off a table
def student_like() -> pd.DataFrame:
    # paid = no:  grades 0, 10, 10, 12  (and one NaN grade, dropped)
    # paid = yes: grades 8, 10          (and one NaN secret, dropped)
    return pd.DataFrame({"G3": [0, 10, 10, 12, np.nan, 8, 10, 15],
                         "paid": ["no", "no", "no", "no", "no", "yes", "yes", None]})


STUDENT_SPEC = {"dataset": "tiny_student", "attribute": "G3", "encoding": "numeric", "domain": [0, 20],
                "column": "paid"}


def test_conditional_priors_counts_and_drops():
    priors = conditional_priors(student_like(), STUDENT_SPEC, setting="student")
    no, yes = priors.conditionals
    assert (no.secret, no.rows, yes.secret, yes.rows) == ("no", 4, "yes", 2)
    assert list(no.pmf.exact_on(0, 12)) == [Fraction(1, 4)] + [0] * 9 + [Fraction(1, 2), 0, Fraction(1, 4)]
    assert list(yes.pmf.exact_on(8, 10)) == [Fraction(1, 2), 0, Fraction(1, 2)]
    assert priors.attribute_range == 20.0 and priors.range_source == "config `domain: [0, 20]`"
    record = priors.record
    assert (record["rows_in_dataset"], record["rows_dropped_missing"], record["rows_used"],
            record["rows_other_secret_values"]) == (8, 2, 6, 0)
    assert record["secrets"] == [{"secret": "no", "rows": 4, "values": [0, 10, 12], "counts": [1, 2, 1]},
                                 {"secret": "yes", "rows": 2, "values": [8, 10], "counts": [1, 1]}]
    # by hand: no = {0: 1/4, 10: 1/2, 12: 1/4}, yes = {8: 1/2, 10: 1/2}; coupling
    # u <= 1/4: 0 -> 8 (8); 1/4 < u <= 1/2: 10 -> 8 (2); 1/2 < u <= 3/4: 10 -> 10 (0); u > 3/4: 12 -> 10 (2)
    rows = setting_sensitivities("student", priors.conditionals, attribute_range=priors.attribute_range)
    assert rows[0].w_inf == 8 and rows[0].w_2 == pytest.approx(math.sqrt(64 / 4 + 4 / 4 + 4 / 4), rel=1e-15)


def test_declared_values_numeric_secret_and_indicator_range():
    frame = pd.DataFrame({"income": [">50K", "<=50K", "<=50K", ">50K", "<=50K", "<=50K"],
                          "num": [0.0, 0.0, 1.0, 2.0, 2.0, np.nan]})  # NaN makes num a float column
    spec = {"dataset": "t", "attribute": "income", "encoding": {"indicator": [">50K"]}, "column": "num",
            "values": [2, 0]}
    priors = conditional_priors(frame, spec, setting="s")
    assert [c.secret for c in priors.conditionals] == ["2", "0"]  # the order declared, "2" not "2.0"
    assert priors.attribute_range == 1.0 and priors.range_source == "the indicator encoding (values 0 and 1)"
    assert priors.record["rows_other_secret_values"] == 1 and priors.record["rows_dropped_missing"] == 1
    # default values: every value present, sorted numerically
    default = conditional_priors(frame, {k: v for k, v in spec.items() if k != "values"}, setting="s")
    assert [c.secret for c in default.conditionals] == ["0", "1", "2"]


@pytest.mark.parametrize("changes, error, message", [
    ({"domain": [0, 10]}, DataError, "wasserstein.settings.student: G3 = 12 (given paid = no) is outside domain [0, 10]"),
    ({"values": ["no", "maybe"]}, DataError, "wasserstein.settings.student.values: dataset tiny_student: no row has paid = 'maybe' "
                                         "(values present: no, yes)"),
    ({"column": "fees"}, DataError, "wasserstein.settings.student: dataset tiny_student has no column 'fees'"),
    ({"values": ["no"]}, DataError, "wasserstein.settings.student: column paid has 1 value(s) (no); a secret pair needs two"),
    ({"domain": None}, ConfigError,
     "config: wasserstein.settings.student: a numeric attribute needs `domain: [lo, hi]` or `range`"),
])
def test_conditional_priors_refusals(changes, error, message):
    spec = {k: v for k, v in {**STUDENT_SPEC, **changes}.items() if v is not None}
    with pytest.raises(error) as info:
        conditional_priors(student_like(), spec, setting="student")
    assert str(info.value).startswith(message), str(info.value)
    assert "\n" not in str(info.value)


def test_declared_range_forms():
    assert declared_range({"encoding": "numeric", "range": 7}, setting="s") == (7.0, "config `range: 7`")
    assert declared_range({"encoding": {"codes": ["a", "b", "c"]}}, setting="s") == (2.0, "the codes encoding (values 1 to 3)")
    with pytest.raises(ConfigError, match=r"^config: wasserstein.settings.s.domain = \[3, 3\]: must be increasing$"):
        declared_range({"encoding": "numeric", "domain": [3, 3]}, setting="s")


def test_files_round_trip_and_table(tmp_path):
    data_csv, data_json = tmp_path / "tiny.csv", tmp_path / "tiny.json"
    student_like().to_csv(data_csv, index=False)
    data_json.write_text(json.dumps({"sha256": "ab" * 32, "member": ["s.zip", "s.csv"], "url": "u"}))
    out_csv, out_json = tmp_path / "wasserstein_student.csv", tmp_path / "wasserstein_student.json"
    write_conditional_priors(setting="student", spec=STUDENT_SPEC, data_csv=data_csv, data_json=data_json,
                             out_csv=out_csv, out_json=out_json)
    priors_csv = pd.read_csv(out_csv)
    assert priors_csv.to_dict("list") == {"secret": ["no", "no", "no", "yes", "yes"], "value": [0, 10, 12, 8, 10],
                                          "probability": [0.25, 0.5, 0.25, 0.5, 0.5]}
    back = read_conditional_priors(out_json)
    assert back.record["dataset_sha256"] == "ab" * 32 and back.record["dataset_member"] == ["s.zip", "s.csv"]
    assert list(back.conditionals[0].pmf.exact) == [Fraction(1, 4)] + [0] * 9 + [Fraction(1, 2), 0, Fraction(1, 4)]
    table = write_table1([out_json], tmp_path / "wasserstein_table1.csv")
    lines = (tmp_path / "wasserstein_table1.csv").read_text().splitlines()
    assert lines[0] == ",".join(TABLE1_COLUMNS)
    # W_2 = sqrt(64/4 + 4/4 + 4/4) = sqrt(18) = 4.242640687119285
    assert [line.rsplit(",", 1)[0] for line in lines[1:]] == ["student,no,yes,4,2,20,8", "student,max,max,,,20,8"]
    assert table["w_2"].tolist() == pytest.approx([math.sqrt(18)] * 2, rel=1e-15)
    # the figure: its CSV holds each conditional on the hull 0..12 and its CDF
    bind = write_conditionals_figure(priors_json=out_json, spec={"title": "Tiny"}, png=tmp_path / "s.png",
                                     pdf=tmp_path / "s.pdf", csv=tmp_path / "s.csv")
    assert (bind.secret_i, bind.secret_j, bind.w_inf) == ("no", "yes", 8)
    fig = pd.read_csv(tmp_path / "s.csv")
    yes = fig[fig.secret == "yes"]
    assert yes.value.tolist() == list(range(13))
    assert yes.probability.tolist() == [0] * 8 + [0.5, 0, 0.5, 0, 0]
    assert yes.cdf.tolist() == [0] * 8 + [0.5, 0.5, 1, 1, 1]
    assert (tmp_path / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "s.pdf").read_bytes()[:5] == b"%PDF-"


def test_range_below_the_data_span_is_a_data_error(tmp_path):
    data_csv, data_json = tmp_path / "tiny.csv", tmp_path / "tiny.json"
    student_like().to_csv(data_csv, index=False)
    data_json.write_text("{}")
    spec = {**{k: v for k, v in STUDENT_SPEC.items() if k != "domain"}, "range": 10}
    write_conditional_priors(setting="student", spec=spec, data_csv=data_csv, data_json=data_json,
                             out_csv=tmp_path / "p.csv", out_json=tmp_path / "p.json")
    with pytest.raises(DataError, match=r"^wasserstein.settings.student: attribute_range = 10: smaller than the span 12"):
        write_table1([tmp_path / "p.json"], tmp_path / "t.csv")


# ------------------------------------------------------------------------------ config section
@pytest.fixture(scope="module")
def shipped():
    with open(ROOT / "config.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def test_shipped_settings_valid(shipped):
    cfg = validate_config(copy.deepcopy(shipped))
    settings = cfg["wasserstein"]["settings"]
    assert list(settings) == ["student", "heart", "adult"]
    assert [declared_range(s, setting=k)[0] for k, s in settings.items()] == [20.0, 100.0, 1.0]  # Table 1's DP


SETTING = ["wasserstein", "settings"]


@pytest.mark.parametrize("path, value, message", [
    (SETTING + ["heart", "dataset"], "cleveland", "config: wasserstein.settings.heart.dataset = 'cleveland': not a key of datasets"),
    (SETTING + ["heart", "domain"], None, "config: wasserstein.settings.heart: a numeric attribute needs `domain: [lo, hi]`"),
    (SETTING + ["heart", "domain"], [100, 0], "config: wasserstein.settings.heart.domain = [100, 0]: must be increasing"),
    (SETTING + ["heart", "range"], 100, "config: wasserstein.settings.heart = "),  # domain and range: one of them
    (SETTING + ["heart", "range"], -1, "config: wasserstein.settings.heart.range = -1: must be > 0"),
    (SETTING + ["heart", "column"], "age", "config: wasserstein.settings.heart: attribute and column are both 'age'"),
    (SETTING + ["heart", "values"], [0], "config: wasserstein.settings.heart.values = [0]: must have at least 2 item(s)"),
    (SETTING + ["heart", "colum"], "num", "config: wasserstein.settings.heart.colum: unknown key"),
    (SETTING + ["heart", "encoding"], "integer", "config: wasserstein.settings.heart.encoding = 'integer': is not a valid form"),
])
def test_bad_setting_gives_one_line(shipped, path, value, message):
    cfg = copy.deepcopy(shipped)
    node = cfg
    for key in path[:-1]:
        node = node[key]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    if path[-1] == "range" and value == -1:
        del node["domain"]
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    assert str(info.value).startswith(message), str(info.value)
    assert "\n" not in str(info.value)


def test_setting_whose_priors_clash_with_a_user(shipped):
    cfg = copy.deepcopy(shipped)
    cfg["multiuser"]["users"]["wasserstein_heart"] = {"values": [0, 1], "probabilities": [0.5, 0.5]}
    with pytest.raises(ConfigError, match=r"^config: wasserstein.settings.heart: results/priors/wasserstein_heart.csv "
                                          r"would also be the prior of the user wasserstein_heart"):
        validate_config(cfg)


def test_config_without_the_section_is_valid(shipped):
    cfg = copy.deepcopy(shipped)
    del cfg["wasserstein"]
    del cfg["comparison"]  # its table1/<setting> pairs name the settings
    validate_config(cfg)


# ------------------------------------------------------------------------------ the real data (UCI_MIRROR)
def _quantile_distances(x, y):
    """W_inf and W_2 of two samples from their quantile functions, exactly (an independent oracle).

    F^-1 of n sorted samples is x[k] on ((k)/n, (k+1)/n]; on each piece of the merged grid
    {k/n} and {l/m} both are constant.
    """
    x, y = np.sort(np.asarray(x, dtype=np.int64)), np.sort(np.asarray(y, dtype=np.int64))
    n, m = len(x), len(y)
    cuts = sorted({Fraction(k, n) for k in range(n + 1)} | {Fraction(k, m) for k in range(m + 1)})
    w_inf, w2sq = 0, Fraction(0)
    for lo, hi in itertools.pairwise(cuts):
        mid = (lo + hi) / 2
        gap = abs(int(x[int(mid * n)]) - int(y[int(mid * m)]))
        w_inf = max(w_inf, gap)
        w2sq += (hi - lo) * gap * gap
    return w_inf, math.sqrt(w2sq)


@pytest.mark.skipif(not os.environ.get("UCI_MIRROR"), reason="UCI_MIRROR is not set")
def test_table1_on_the_mirror_files(shipped):
    """The three settings read from the mirror's original files by pandas alone, against the
    quantile-function oracle; the printed numbers that agree (Table 1) are checked too."""
    mirror = Path(os.environ["UCI_MIRROR"])
    student = pd.read_csv(mirror / "student-performance/student-mat.csv", sep=";")
    names = shipped["datasets"]["heart_cleveland"]["read_csv"]["names"]
    heart = pd.read_csv(mirror / "heart-disease/processed.cleveland.data", header=None, names=names, na_values=["?"])
    adult = pd.read_csv(mirror / "adult/adult.data", header=None, skipinitialspace=True,
                        names=shipped["datasets"]["adult_train"]["read_csv"]["names"])
    adult["salary"] = (adult["income"] == ">50K").astype(int)
    frames = {"student": (student, "G3", "paid"), "heart": (heart, "age", "num"), "adult": (adult, "salary", "race")}
    settings = validate_config(copy.deepcopy(shipped))["wasserstein"]["settings"]
    found = {}
    for name, (frame, attribute, column) in frames.items():
        spec = settings[name]
        source = frame if name != "adult" else frame.drop(columns="salary")
        priors = conditional_priors(source, spec, setting=name)
        rows = setting_sensitivities(name, priors.conditionals, attribute_range=priors.attribute_range)
        for row in rows[:-1]:
            x = frame.loc[frame[column].astype(str) == row.secret_i, attribute]
            y = frame.loc[frame[column].astype(str) == row.secret_j, attribute]
            assert (row.rows_i, row.rows_j) == (len(x), len(y))
            w_inf, w_2 = _quantile_distances(x, y)
            assert row.w_inf == w_inf and row.w_2 == pytest.approx(w_2, rel=1e-12)
        found[name] = rows[-1]
    assert [found[s].range for s in ("student", "heart", "adult")] == [20, 100, 1]  # printed: 20, 100, 1
    assert [found[s].w_inf for s in ("student", "heart", "adult")] == [8, 13, 1]    # printed: 8, 8, 1
    assert round(found["heart"].w_2, 2) == 7.80 and round(found["adult"].w_2, 2) == 0.42  # as printed
    assert round(found["student"].w_2, 3) == 2.276                                      # printed: 2.76

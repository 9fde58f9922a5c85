"""``pufferfish distp`` on a tiny CSV whose numbers are worked out by hand.

s = a: x = 0, 0, 0, 1 (lambda0 = (3/4, 1/4)); s = b: x = 0, 1 (lambda1 = (1/2, 1/2)).
RR with eps_A = ln 3 on 2 values keeps x with 3/4: mu0 = (10/16, 6/16), mu1 = (1/2, 1/2);
pure eps = ln(4/3); delta(0.1) = max(5/8 - e^0.1/2, 1/2 - e^0.1 3/8) = 1/2 - 3 e^0.1 / 8;
the service loss under the marginal law is P(flip) = 1/4 (|x - y| = 1 on a flip).
"""
import io
import json
import math

import pandas as pd
import pytest

from pufferfish.cli import main


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "d.csv"
    pd.DataFrame({"x": [0, 0, 0, 1, 0, 1], "s": ["a", "a", "a", "a", "b", "b"]}).to_csv(path, index=False)
    return str(path)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_rr_by_hand(capsys, data):
    code, out, err = run(capsys, "distp", data, "--released", "x", "--secret", "s", "--pair", "a", "b",
                         "--mechanism", "rr", "--base-epsilon", repr(math.log(3)), "--epsilon", "0.1",
                         "--format", "csv")
    assert code == 0 and err == ""
    row = pd.read_csv(io.StringIO(out)).iloc[0]
    assert row.delta == pytest.approx(0.5 - 3 * math.exp(0.1) / 8, rel=1e-12)
    assert row.delta_upper == row.delta
    assert row.pure_epsilon == pytest.approx(math.log(4 / 3), rel=1e-12)
    assert row.bound_epsilon == pytest.approx(math.log(3), rel=1e-15)
    assert row.service_loss == pytest.approx(0.25, rel=1e-12)


def test_tupling_k0_is_rr_and_calibration_confirmed(capsys, data):
    code, out, _ = run(capsys, "distp", data, "--released", "x", "--secret", "s", "--pair", "a", "b",
                       "--mechanism", "tupling_rr", "--base-epsilon", repr(math.log(3)), "--dummies", "0",
                       "--epsilon", "0.1", "--format", "json")
    assert code == 0
    assert json.loads(out)[0]["delta"] == pytest.approx(0.5 - 3 * math.exp(0.1) / 8, rel=1e-12)
    # RR on two values: delta(eps) = 1/2 - e^eps / 2 * P(keep)... the largest eps_A meeting delta at eps = 0.1
    code, out, _ = run(capsys, "distp", data, "--released", "x", "--secret", "s", "--pair", "a", "b",
                       "--mechanism", "rr", "--epsilon", "0.1", "--delta", "0.01")
    assert code == 0 and "the exact audit confirms every parameter" in out and " yes" in out


@pytest.mark.parametrize("argv, code, message", [
    (["--mechanism", "rr", "--epsilon", "1"], 2, "--base-epsilon: needed"),
    (["--mechanism", "rr", "--base-epsilon", "0", "--epsilon", "1"], 2, "--base-epsilon '0': must be in (0, 700]"),
    (["--mechanism", "rr", "--base-epsilon", "1", "--epsilon", "1", "--dummies", "2"], 2, "--dummies: only for"),
    (["--mechanism", "tupling_rr", "--base-epsilon", "1", "--epsilon", "1"], 2, "--dummies: needed"),
    (["--mechanism", "geometric", "--kind", "categorical", "--base-epsilon", "1", "--epsilon", "1"], 2,
     "a categorical column takes rr or tupling_rr"),
    (["--mechanism", "rr", "--base-epsilon", "1", "--epsilon", "1", "--delta", "1"], 2, "--delta '1': must be in"),
    (["--mechanism", "rr", "--base-epsilon", "1", "--epsilon", "nan"], 2, "--epsilon 'nan'"),
])
def test_usage_errors_one_line(capsys, data, argv, code, message):
    got, out, err = run(capsys, "distp", data, "--released", "x", "--secret", "s", "--pair", "a", "b", *argv)
    assert got == code and out == "" and message in err and err.count("\n") == 1


@pytest.mark.parametrize("options, message", [
    (["--released", "y", "--secret", "s", "--pair", "a", "b"], "--released 'y': no such column"),
    (["--released", "x", "--secret", "s", "--pair", "a", "z"], "--pair: no record with s = 'z'"),
    (["--released", "x", "--secret", "x", "--pair", "a", "b"], "--released and --secret are both 'x'"),
    (["--released", "s", "--secret", "x", "--pair", "0", "1"], "--kind ordinal (the default) needs integer values"),
])
def test_data_errors_one_line(capsys, data, options, message):
    got, out, err = run(capsys, "distp", data, *options, "--mechanism", "rr", "--base-epsilon", "1", "--epsilon", "1")
    assert got == 1 and out == "" and message in err and err.count("\n") == 1


@pytest.mark.parametrize("pair, shown", [(["1", "9"], "s = 9 "), (["1", "9.50"], "s = 9.50 "), (["1", "1e1"], "s = 1e1 ")])
def test_a_numeric_pair_value_is_named_as_given(capsys, tmp_path, pair, shown):
    path = tmp_path / "n.csv"
    pd.DataFrame({"x": [0, 1, 0, 1], "s": [1, 1, 7, 7]}).to_csv(path, index=False)
    got, out, err = run(capsys, "distp", str(path), "--released", "x", "--secret", "s", "--pair", *pair,
                        "--mechanism", "rr", "--base-epsilon", "1", "--epsilon", "1")
    assert got == 1 and out == "" and err.count("\n") == 1
    assert f"--pair: no record with {shown}" in err


def test_a_target_no_parameter_meets_exits_1_after_the_table(capsys, data):
    # tupling with k = 0 dummies is RR with eps_A = 8 on x: P(x = 0) = 3/4 given a, 1/2 given b; its
    # outputs keep x with probability e^8 / (e^8 + 1), so delta(0.01) is about (3/4 - 1/2) (1 - 2e^-8), far above 1e-12
    got, out, err = run(capsys, "distp", data, "--released", "x", "--secret", "s", "--pair", "a", "b",
                        "--mechanism", "tupling_rr", "--base-epsilon", "8", "--dummies", "0", "--epsilon", "0.01",
                        "--delta", "1e-12")
    assert got == 1
    assert "NOT every parameter is confirmed" in out and " NO " in out
    assert err.count("\n") == 1 and err.startswith("error: --mechanism tupling_rr: no parameter meets (epsilon, 1e-12)")
    assert "epsilon = 0.01" in err

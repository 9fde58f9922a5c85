"""Paper 003's experiments: the laws of a case, its table, calibration and audit rows, its settings.

Every number is worked out by hand (small frames) or by an explicit sum independent of the code.
"""
import math

import numpy as np
import pandas as pd
import pytest

from pufferfish.audit.verdict import AUDIT_COLUMNS
from pufferfish.distp.experiments import CALIBRATION_COLUMNS, TABLE_COLUMNS, calibration_table, case_laws, case_table
from pufferfish.distp.settings import DistpCase, DistpGrid, check_references, data_requests
from pufferfish.errors import ConfigError, DataError

SPEC = {"dataset": "d", "released": "x", "protected": "s", "values": ["a", "b"], "kind": "ordinal"}
GRID = {"base_epsilons": [1.0, 4.0], "dummies": [0, 2], "dummy_distributions": ["uniform", "marginal"],
        "epsilons": [0.1, 0.5], "tupling_epsilons": [0.5], "targets": [0.5], "delta": 1e-5, "rtol": 1e-6,
        "figure_base_epsilon": 1.0, "figure_epsilon": 0.5}


def frame():
    # s = a: x = 1, 1, 2, 3 ; s = b: x = 2, 3, 3 ; s = c: x = 3 ; one record without x
    return pd.DataFrame({"x": [1, 1, 2, 3, 2, 3, 3, 3, None], "s": ["a", "a", "a", "a", "b", "b", "b", "c", "a"]})


def test_case_laws_by_hand():
    laws = case_laws(frame(), SPEC, name="t")
    assert laws.domain == (1, 2, 3)
    np.testing.assert_allclose(laws.lambda0, [0.5, 0.25, 0.25], rtol=0, atol=1e-15)
    np.testing.assert_allclose(laws.lambda1, [0.0, 1 / 3, 2 / 3], rtol=0, atol=1e-15)
    np.testing.assert_allclose(laws.marginal, [2 / 8, 2 / 8, 4 / 8], rtol=0, atol=1e-15)
    assert laws.counts == (4, 3)


@pytest.mark.parametrize("spec, message", [
    ({**SPEC, "released": "nope"}, "no column 'nope'"),
    ({**SPEC, "values": ["a", "z"]}, "no record with s = 'z'"),
])
def test_case_laws_refuses(spec, message):
    with pytest.raises(DataError, match=message):
        case_laws(frame(), spec, name="t")


@pytest.mark.parametrize("x", [[1.5, 1, 2, 3, 2, 3, 3, 3, None], ["u", "v", "u", "u", "v", "v", "u", "v", None]])
def test_case_laws_ordinal_needs_integers(x):
    with pytest.raises(DataError, match="integer values"):
        case_laws(frame().assign(x=x), SPEC, name="t")


def rr_delta(l0, l1, eps_a, eps):
    """DistP delta of k-ary RR by an explicit sum over outputs (both directions)."""
    m = len(l0)
    keep, other = math.exp(eps_a) / (math.exp(eps_a) + m - 1), 1 / (math.exp(eps_a) + m - 1)
    mu = [[sum(l[x] * (keep if x == y else other) for x in range(m)) for y in range(m)] for l in (l0, l1)]
    return max(sum(max(p - math.exp(eps) * q, 0.0) for p, q in zip(mu[i], mu[1 - i])) for i in (0, 1))


def test_case_table_rows_against_explicit_sums():
    laws = case_laws(frame(), SPEC, name="t")
    case, grid = DistpCase.from_config("t", SPEC), DistpGrid.from_config(GRID)
    rows = case_table(laws, case, grid)
    assert all(set(row) == set(TABLE_COLUMNS) for row in rows)
    table = pd.DataFrame(rows, columns=TABLE_COLUMNS)
    rr = table[(table.mechanism == "rr") & (table.base_epsilon == 1.0) & (table.epsilon == 0.1)].iloc[0]
    assert rr.delta == pytest.approx(rr_delta(laws.lambda0, laws.lambda1, 1.0, 0.1), rel=1e-12)
    assert rr.bound_epsilon == 1.0 and rr.w_inf == 2.0          # W_inf: the mass at 1 must travel to 3
    # tupling with k = 0 is the base mechanism itself
    t0 = table[(table.mechanism == "tupling_rr") & (table.base_epsilon == 1.0) & (table.dummies == 0)]
    assert t0.delta.iloc[0] == pytest.approx(rr_delta(laws.lambda0, laws.lambda1, 1.0, 0.5), rel=1e-12)
    # Laplace noise of scale 1: its service loss is E|N| = 1; its pure eps is within eps_A W_inf
    lap = table[(table.mechanism == "laplace") & (table.base_epsilon == 1.0)].iloc[0]
    assert lap.service_loss == 1.0 and lap.pure_epsilon <= lap.bound_epsilon
    # delta does not increase with k
    for (_, _), rows in table[table.mechanism.str.startswith("tupling")].groupby(["mechanism", "dummy_distribution"]):
        for _, line in rows.groupby("base_epsilon"):
            assert line.sort_values("dummies").delta_upper.is_monotonic_decreasing


def test_calibration_every_claim_meets_its_audit():
    laws = case_laws(frame(), SPEC, name="t")
    case, grid = DistpCase.from_config("t", SPEC), DistpGrid.from_config(GRID)
    rows, audits = calibration_table(laws, case, grid, rtol=1e-9)
    assert all(set(row) == set(CALIBRATION_COLUMNS) for row in rows)
    assert all(list(row) == AUDIT_COLUMNS for row in audits)
    table, audit = pd.DataFrame(rows), pd.DataFrame(audits)
    assert not audit.violation.any() and (audit.delta_achieved <= 1e-5 * (1 + 1e-9)).all()
    rr = table[table.mechanism == "rr"].iloc[0]
    assert rr_delta(laws.lambda0, laws.lambda1, rr.parameter, 0.5) <= 1e-5 * (1 + 1e-9)
    # the largest: a little more eps_A exceeds the target
    assert rr_delta(laws.lambda0, laws.lambda1, rr.parameter * (1 + 1e-6), 0.5) > 1e-5


def config(**distp):
    base = {"datasets": {"d": {}}, "distp": {"grid": dict(GRID), "cases": {"t": dict(SPEC)}}}
    base["distp"].update(distp)
    return base


@pytest.mark.parametrize("change, message", [
    (lambda c: c["distp"]["cases"]["t"].update(dataset="e"), "distp.cases.t.dataset = 'e': not a key of datasets"),
    (lambda c: c["distp"]["cases"]["t"].update(protected="x"), "released and protected are both 'x'"),
    (lambda c: c["distp"]["grid"].update(figure_base_epsilon=3.0), "figure_base_epsilon = 3.0: not one of"),
    (lambda c: c["distp"]["grid"].update(figure_epsilon=0.25), "figure_epsilon = 0.25: not one of"),
])
def test_check_references_one_line(change, message):
    c = config()
    change(c)
    with pytest.raises(ConfigError, match=message):
        check_references(c)


def test_check_references_accepts_and_requests():
    check_references(config())
    from pufferfish.distp.paper import PAPER, read_rows

    (request,) = PAPER.data_requests(config())
    assert request.where == "distp.cases.t" and request.dataset == "d"
    assert dict(request.columns) == {"distp.cases.t.released": "x", "distp.cases.t.protected": "s"}
    assert request.reader is read_rows and data_requests(config(), reader=len)[0].reader is len


def test_write_case_writes_every_output(tmp_path):
    from pufferfish.distp.experiments import write_case
    from pufferfish.distp.plots import FIGURES

    data = tmp_path / "d.csv"
    frame().to_csv(data, index=False)
    figures = {f: tuple(tmp_path / f"{f}.{e}" for e in ("png", "pdf", "csv")) for f in FIGURES}
    out = {k: tmp_path / f"{k}.csv" for k in ("table", "calibration", "audit")}
    write_case(name="t", spec=SPEC, grid_spec=GRID, audit_rtol=1e-9, data_csv=data, table_csv=out["table"],
               calibration_csv=out["calibration"], audit_csv=out["audit"], figures=figures)
    table = pd.read_csv(out["table"])
    assert list(table.columns) == TABLE_COLUMNS
    assert list(pd.read_csv(out["calibration"]).columns) == CALIBRATION_COLUMNS
    assert list(pd.read_csv(out["audit"]).columns) == AUDIT_COLUMNS
    assert all(p.stat().st_size > 0 for triple in figures.values() for p in triple)
    # the bound figure's CSV holds one (mechanism, eps_A) row each, with the table's numbers
    bound = pd.read_csv(figures["bound"][2])
    assert len(bound) == 3 * len(GRID["base_epsilons"])
    geo = bound[(bound.mechanism == "geometric") & (bound.base_epsilon == 4.0)].iloc[0]
    assert geo.bound_epsilon == 4.0 * 2.0                   # eps_A W_inf, W_inf = 2 (by hand, above)
    # the dummies figure's CSV: every tupling row at figure_epsilon
    dummies = pd.read_csv(figures["dummies"][2])
    assert len(dummies) == 2 * len(GRID["base_epsilons"]) * len(GRID["dummies"]) * len(GRID["dummy_distributions"])
    assert (dummies.epsilon == GRID["figure_epsilon"]).all()

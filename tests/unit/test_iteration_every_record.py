"""Every record as the secret (issue 33): the series experiment's exposure outputs, ``pufferfish iteration
--all-secrets``, and the sizes this machine can honour (pufferfish.iteration.limits).

Oracles: the per-secret exact audit (exact_audit, exact_sigma) for the exposure table; for the command,
the dense model of test_cli (numpy's direct autocorrelation, scipy's Toeplitz matrix, Gaussian
conditioning by hand, the hockey stick by scipy.stats.norm), independent of pufferfish.iteration;
the bounds by the arithmetic of the stated memory model.
"""
import io
import math

import numpy as np
import pandas as pd
import pytest

from pufferfish.iteration import command as iteration_command
from pufferfish.errors import ConfigError, DataError
from pufferfish.iteration import limits
from tests.unit.test_cli import dense_model, hockey_stick, run, series_csv

SERIES = {"dataset": "toy", "column": "x", "order": "file", "etas": [0.05, 0.3], "sigma": 1.0, "alpha": 2,
          "secret_every": 20, "epsilons": [0.5, 1.0], "delta": 1e-5}
FIG6 = {"eta": 0.1, "sigma": 1.0, "diameter": 1.0, "alpha": 2, "secret_index": 1, "steps": [1, 10, 100],
        "equal": [0, 0.5], "decaying": [0.5]}


# ------------------------------------------------------------------------------ the series experiment
def test_exposure_outputs_against_the_per_secret_audit(tmp_path):
    from pufferfish.iteration import exact_audit, exact_sigma
    from pufferfish.iteration.captions import exposure_summary
    from pufferfish.iteration.experiments import series_prior, series_table
    from pufferfish.files import write_csv
    from pufferfish.iteration.exposure import (CURVE_COLUMNS, EXPOSURE_COLUMNS, exposure_curve, exposure_table,
                                               series_audits)
    from pufferfish.iteration.settings import SeriesSettings

    _, values = series_csv(tmp_path / "toy.csv", size=61, smooth=True)
    settings = SeriesSettings.from_config("toy", SERIES)
    cov, diameter = series_prior(values)
    bounds = series_table(values, settings)
    audits = series_audits(cov, diameter, settings)     # run_exposure writes these (and the figure: the tiny pipeline)
    table, curve = exposure_table(audits, settings, records=61), exposure_curve(audits, bounds, settings)
    write_csv(table, tmp_path / "e.csv")
    assert list(table.columns) == EXPOSURE_COLUMNS and list(curve.columns) == CURVE_COLUMNS
    assert len(curve) == 2 * 61 and len(table) == 2
    for row in table.itertuples():
        per = [exact_audit(cov, secret_index=k, eta=row.eta, sigma=1.0, diameter=diameter) for k in range(1, 62)]
        exact = np.array([a.renyi(alpha=2.0) for a in per])
        sub = curve[curve.eta == row.eta]
        np.testing.assert_allclose(sub.exact, exact, rtol=1e-9, atol=1e-15)
        assert row.most_exposed == int(np.argmax(exact)) + 1 and row.exact == pytest.approx(exact.max(), rel=1e-9)
        assert row.least_exposed == int(np.argmin(exact)) + 1 and row.exact_median == pytest.approx(np.median(exact))
        listed = [1, 20, 40, 60, 61]
        assert row.listed_worst == listed[int(np.argmax(exact[np.array(listed) - 1]))]
        worst = int(np.argmax([exact_sigma(a, epsilon=1.0, delta=1e-5) if a.mean_gap else 0.0 for a in per]))
        assert row.sigma_every_record == pytest.approx(exact_sigma(per[worst], epsilon=1.0, delta=1e-5), rel=1e-9)
        assert row.sigma_listed == pytest.approx(max(exact_sigma(per[k - 1], epsilon=1.0, delta=1e-5) for k in listed),
                                                 rel=1e-9)
        assert row.sigma_listed <= row.sigma_every_record
        # the accountants' bounds sit on the listed rows only, as in the bounds table
        marked = sub.dropna(subset=["paper_bound"])
        assert marked.secret_index.tolist() == listed
        np.testing.assert_array_equal(marked.composition, bounds[bounds.eta == row.eta].composition)
    text = exposure_summary(tmp_path / "e.csv")
    assert text.count("the most exposed record is") == 2 and f"{int(table.most_exposed[0]):,}" in text


def test_run_series_writes_the_exposure_outputs_when_asked(tmp_path, monkeypatch):
    """run_series hands the series' prior, D and bounds table to run_exposure (the pipeline's job)."""
    from pufferfish.iteration import exposure, experiments
    from pufferfish.iteration.settings import SeriesSettings

    data, values = series_csv(tmp_path / "toy.csv", size=40)
    seen = {}
    monkeypatch.setattr(exposure, "run_exposure", lambda cov, d, bounds, settings, **paths: seen.update(
        size=cov.size, diameter=d, rows=len(bounds), paths=paths))
    monkeypatch.setattr("pufferfish.iteration.plots.plot_series", lambda *a: None)
    monkeypatch.setattr("pufferfish.iteration.plots.plot_sigma", lambda *a: None)
    settings = SeriesSettings.from_config("toy", SERIES)
    names = ("theta_csv", "sigma_csv", "audit_csv", "figure_png", "figure_pdf", "figure_csv", "sigma_png", "sigma_pdf",
             "sigma_figure_csv")
    experiments.run_series(settings, data_csv=data, **{k: tmp_path / k for k in names},
                           exposure_csv=tmp_path / "e.csv", exposure_png=tmp_path / "e.png",
                           exposure_pdf=tmp_path / "e.pdf", exposure_figure_csv=tmp_path / "ef.csv")
    assert seen["size"] == 40 and seen["diameter"] == values.max() - values.min() and seen["rows"] == 2 * 3
    assert seen["paths"] == {"table_csv": tmp_path / "e.csv", "figure_png": tmp_path / "e.png",
                             "figure_pdf": tmp_path / "e.pdf", "figure_csv": tmp_path / "ef.csv"}


def test_a_series_longer_than_the_machine_holds_is_refused_before_computing(tmp_path, monkeypatch):
    from pufferfish.iteration.experiments import run_series
    from pufferfish.iteration.settings import SeriesSettings

    data, _ = series_csv(tmp_path / "toy.csv", size=50)
    settings = SeriesSettings.from_config("toy", SERIES)
    monkeypatch.setattr(limits, "memory_budget", lambda: 49 * (limits.RECORD_BYTES + 2 * limits.EXPOSURE_BYTES))
    with pytest.raises(DataError, match=r"toy\.x: the records .* = 50: at most 49 records") as info:
        run_series(settings, data_csv=data, **{k: tmp_path / f"{k}.out" for k in (
            "theta_csv", "sigma_csv", "audit_csv", "figure_png", "figure_pdf", "figure_csv", "sigma_png", "sigma_pdf",
            "sigma_figure_csv")})
    assert "\n" not in str(info.value) and not list(tmp_path.glob("*.out"))


# ------------------------------------------------------------------------------ pufferfish iteration --all-secrets
@pytest.mark.parametrize("smooth", [False, True])
def test_all_secrets_against_the_dense_model(tmp_path, capsys, smooth):
    data, values = series_csv(tmp_path / "series.csv", size=40, smooth=smooth)
    code, out, err = run(["iteration", data, "--column", "x", "--eta", 0.02, 0.3, "--epsilon", 0.5, 2.0, "--delta",
                          1e-5, "--all-secrets", "--sigma", 0.5, "--format", "csv"], capsys)
    assert code == 0, err
    rows = pd.read_csv(io.StringIO(out), float_precision="round_trip")
    assert list(rows.columns) == iteration_command.ALL_SECRETS_COLUMNS and rows.columns[:1].tolist() == ["secret_index"]
    assert len(rows) == 40 * 2 * 2 and rows.groupby(["eta", "epsilon"]).secret_index.apply(list).map(
        lambda k: k == list(range(1, 41))).all()
    for row in rows.itertuples():
        gap, data_var, gain, _, _ = dense_model(values, row.secret_index, row.eta)
        std = math.sqrt(0.25 * gain + data_var)
        assert row.exact == pytest.approx(2.0 * gap ** 2 / (2 * std ** 2), rel=1e-9, abs=1e-30)
        oracle = max(0.0, hockey_stick(gap, std, row.epsilon))
        assert row.exact_delta == pytest.approx(oracle, rel=1e-7, abs=1e-15)
        if abs(oracle - 1e-5) > 1e-6 * 1e-5:
            assert row.meets_target == (oracle <= 1e-5)
        if row.exact_sigma > 0:     # on the target, and a hair less noise fails it
            at = math.sqrt(row.exact_sigma ** 2 * gain + data_var)
            assert hockey_stick(gap, at, row.epsilon) == pytest.approx(1e-5, rel=1e-6)
            below = math.sqrt((row.exact_sigma * (1 - 1e-6)) ** 2 * gain + data_var)
            assert hockey_stick(gap, below, row.epsilon) > 1e-5
        else:
            assert max(0.0, hockey_stick(gap, math.sqrt(data_var), row.epsilon)) <= 1e-5 * (1 + 1e-9) or gap == 0
    # the table's header names the most exposed record: the dense model's largest D_2 at sigma = 1
    code, table, _ = run(["iteration", data, "--column", "x", "--eta", 0.3, "--epsilon", 1, "--delta", 1e-5,
                          "--all-secrets"], capsys)
    models = [dense_model(values, k, 0.3) for k in range(1, 41)]
    exact_at_1 = [gap ** 2 / (gain + data_var) for gap, data_var, gain, _, _ in models]
    assert code == 0 and f"most exposed: eta = 0.3: record {int(np.argmax(exact_at_1)) + 1} " in table.splitlines()[0]


def test_all_secrets_renyi_target_in_closed_form(tmp_path, capsys):
    data, values = series_csv(tmp_path / "series.csv", size=30)
    code, out, err = run(["iteration", data, "--column", "x", "--eta", 0.2, "--epsilon", 0.01, "--alpha", 3,
                          "--all-secrets", "--format", "json"], capsys)
    assert code == 0, err
    import json

    rows = pd.DataFrame(json.loads(out))
    assert list(rows.columns) == iteration_command.ALL_SECRETS_RENYI_COLUMNS and len(rows) == 30
    for row in rows.itertuples():
        gap, data_var, gain, _, _ = dense_model(values, row.secret_index, 0.2)
        assert row.exact == pytest.approx(3.0 * gap ** 2 / (2 * (gain + data_var)), rel=1e-9)   # sigma = 1
        needed = 3.0 * gap ** 2 / (2 * 0.01)            # D_3 = 0.01 exactly at the smallest sigma
        assert row.exact_sigma == pytest.approx(math.sqrt(max(needed - data_var, 0.0) / gain), rel=1e-9, abs=1e-12)
        assert row.meets_target == (row.exact <= 0.01 * (1 + 1e-9))


@pytest.mark.parametrize("args, status, names", [
    (["--all-secrets", "--secret-index", "3"], 2, "--secret-index and --all-secrets"),
    (["--sigma", "2"], 2, "--sigma: only with --all-secrets"),
    (["--all-secrets", "--sigma", "0"], 2, "--sigma = 0"),
    (["--all-secrets", "--sigma", "nan"], 2, "--sigma"),
    (["--secret-index", str(10 ** 15)], 2, f"--secret-index = {10 ** 15}: at most"),
])
def test_all_secrets_bad_input_is_one_line(tmp_path, capsys, args, status, names):
    data, _ = series_csv(tmp_path / "series.csv", size=10)
    code, out, err = run(["iteration", data, "--column", "x", "--eta", 0.1, "--epsilon", 1, "--delta", 1e-5, *args],
                         capsys)
    assert code == status and out == "" and err.count("\n") == 1 and names in err, err


def test_the_command_refuses_sizes_beyond_the_machine(tmp_path, capsys, monkeypatch):
    data, _ = series_csv(tmp_path / "series.csv", size=50)
    per_record = limits.RECORD_BYTES + limits.EXPOSURE_BYTES
    monkeypatch.setattr(limits, "memory_budget", lambda: 49 * per_record)
    code, out, err = run(["iteration", data, "--column", "x", "--eta", 0.1, "--epsilon", 1, "--delta", 1e-5], capsys)
    assert code == 1 and out == "" and "= 50: at most 49 records with 1 eta(s) on this machine" in err
    # 50 records fit, but not 50 x 2 epsilons rows of --all-secrets (room for 99 rows)
    monkeypatch.setattr(limits, "memory_budget", lambda: 50 * per_record + 99 * limits.ROW_BYTES)
    code, out, err = run(["iteration", data, "--column", "x", "--eta", 0.1, "--epsilon", 1, 2, "--delta", 1e-5,
                          "--all-secrets"], capsys)
    assert code == 2 and out == "" and "records x etas x epsilons = 100: at most 99 output rows" in err
    code, out, err = run(["iteration", data, "--column", "x", "--eta", 0.1, "--epsilon", 1, "--delta", 1e-5,
                          "--all-secrets"], capsys)
    assert code == 0 and len(out.splitlines()) == 3 + 50


# ------------------------------------------------------------------------------ the config's sizes
def test_fig6_steps_beyond_the_machine_is_one_line_naming_key_value_and_bound():
    from pufferfish.iteration.settings import Fig6Settings

    with pytest.raises(ConfigError) as info:
        Fig6Settings.from_config({**FIG6, "steps": [10, 10 ** 12]})
    text = str(info.value)
    bound = limits.memory_budget() // limits.STEP_BYTES
    assert text.startswith(f"config: iteration.fig6.steps[1] = {10 ** 12}: at most {bound:,} steps on this machine")
    assert "\n" not in text
    with pytest.raises(ConfigError, match=r"iteration\.fig6\.secret_index = 10000000000000: at most"):
        Fig6Settings.from_config({**FIG6, "secret_index": 10 ** 13, "steps": [10 ** 13]})


def test_config_bounds_at_their_edge(monkeypatch):
    from pufferfish.iteration.settings import Fig6Settings, SeriesSettings, check_limits

    monkeypatch.setattr(limits, "memory_budget", lambda: 1000 * limits.STEP_BYTES + limits.STEP_BYTES - 1)
    assert Fig6Settings.from_config({**FIG6, "steps": [1000]}).steps == (1000,)
    with pytest.raises(ConfigError, match=r"steps\[0\] = 1001: at most 1,000 steps"):
        Fig6Settings.from_config({**FIG6, "steps": [1001]})
    per = limits.RECORD_BYTES + 2 * limits.EXPOSURE_BYTES          # two etas
    monkeypatch.setattr(limits, "memory_budget", lambda: 500 * per)
    assert SeriesSettings.from_config("toy", {**SERIES, "secret_every": 500}).secret_every == 500
    with pytest.raises(ConfigError, match=r"iteration\.series\.toy\.secret_every = 501: at most 500 records"):
        SeriesSettings.from_config("toy", {**SERIES, "secret_every": 501})
    config = {"datasets": {"toy": {"rows": 500}}, "iteration": {"series": {"s": SERIES}}}
    check_limits(config)
    config["datasets"]["toy"]["rows"] = 501
    with pytest.raises(ConfigError, match=r"datasets\.toy\.rows = 501: at most 500 records .*iteration\.series\.s"):
        check_limits(config)
    with pytest.raises(ConfigError, match="_exposure"):
        SeriesSettings.from_config("toy_exposure", SERIES)


def test_the_memory_budget_is_the_smallest_limit(monkeypatch):
    import os
    import resource

    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert 0 < limits.memory_budget() <= limits.MEMORY_FRACTION * physical
    monkeypatch.setattr(limits, "_cgroup_limit", lambda: 2 ** 30)
    assert limits.memory_budget() == int(limits.MEMORY_FRACTION * min(2 ** 30, physical))
    monkeypatch.setattr(resource, "getrlimit", lambda which: (2 ** 29, resource.RLIM_INFINITY))
    assert limits.memory_budget() == int(limits.MEMORY_FRACTION * 2 ** 29)
    assert limits.max_steps(8 * limits.STEP_BYTES) == 8 and limits.max_records(3, 10 ** 6) == 10 ** 6 // 850

"""Paper 003's figures on tables with nothing to show on a log axis (a small dataset whose laws
coincide: every delta 0): the files are written, the CSV holds the table's rows, no crash."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from pufferfish.distp import plots  # noqa: E402


def _table(delta: float) -> pd.DataFrame:
    rows = [{"mechanism": m, "base_epsilon": 1.0, "dummy_distribution": "uniform", "dummies": k, "epsilon": 0.5,
             "delta": delta, "delta_upper": delta} for m in ("tupling_rr",) for k in (0, 1, 5)]
    return pd.DataFrame(rows)


def test_dummies_figure_with_every_delta_zero(tmp_path):
    paths = {"png": tmp_path / "d.png", "pdf": tmp_path / "d.pdf", "csv": tmp_path / "d.csv"}
    plots.plot_dummies(_table(0.0), epsilon=0.5, **paths)
    assert paths["png"].stat().st_size > 0 and paths["pdf"].read_bytes().startswith(b"%PDF")
    written = pd.read_csv(paths["csv"])
    assert list(written["dummies"]) == [0, 1, 5] and (written["delta_upper"] == 0).all()


def test_dummies_figure_with_positive_deltas_is_log_log(tmp_path):
    import matplotlib.pyplot as plt

    seen = {}
    real_save = plots._save

    def spy(fig, data, png, pdf, csv):
        seen["scales"] = (fig.axes[0].get_xscale(), fig.axes[0].get_yscale())
        real_save(fig, data, png, pdf, csv)

    plots._save = spy
    try:
        plots.plot_dummies(_table(1e-3), epsilon=0.5, png=tmp_path / "d.png", pdf=tmp_path / "d.pdf",
                           csv=tmp_path / "d.csv")
    finally:
        plots._save = real_save
        plt.close("all")
    assert seen["scales"] == ("log", "log")


def test_loss_figure_draws_the_targets_met_without_noise(tmp_path):
    """A target met at eps_A = inf (the data sent as they are, loss 0) is drawn (the strip under the
    panel) and in the CSV, not dropped as a parameter that is not finite."""
    import math

    rows = [{"mechanism": m, "dummy_distribution": "", "target_epsilon": t, "target_delta": 1e-5,
             "base_epsilon": e, "dummies": math.nan, "service_loss": loss, "meets": True, "parameter": e}
            for m, t, e, loss in (("rr", 0.5, 2.0, 0.3), ("rr", 1.0, math.inf, 0.0))]
    paths = {"png": tmp_path / "l.png", "pdf": tmp_path / "l.pdf", "csv": tmp_path / "l.csv"}
    seen = {}
    real_save = plots._save

    def spy(fig, data, png, pdf, csv):
        seen["strip"] = [tuple(line.get_xdata()) for ax in fig.axes[1:] for line in ax.get_lines()]
        real_save(fig, data, png, pdf, csv)

    plots._save = spy
    try:
        plots.plot_loss(pd.DataFrame(rows), **paths)
    finally:
        plots._save = real_save
    assert seen["strip"] == [(1.0,)]
    written = pd.read_csv(paths["csv"])
    assert list(written["target_epsilon"]) == [0.5, 1.0] and written["service_loss"].iloc[1] == 0.0

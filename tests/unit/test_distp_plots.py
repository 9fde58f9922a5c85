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


def _spy_axes(draw):
    """Call ``draw`` with plots._save replaced by a spy; returns the figure's axes as saved."""
    import matplotlib.pyplot as plt

    seen, real_save = {}, plots._save

    def spy(fig, data, png, pdf, csv):
        seen["axes"] = list(fig.axes)
        seen["ticks"] = [[t.get_text() for t in ax.get_yticklabels()] for ax in fig.axes]
        seen["sides"] = [ax.yaxis.get_ticks_position() for ax in fig.axes]
        real_save(fig, data, png, pdf, csv)

    plots._save = spy
    try:
        draw()
    finally:
        plots._save = real_save
        plt.close("all")
    return seen


def test_delta_figure_has_no_empty_tupling_panel(tmp_path):
    """Every tupling delta 0 at the largest k: no panel (b), its series are named rows of (a)'s strip,
    left of it; the CSV still holds the tupling rows."""
    plain = [{"mechanism": "rr", "base_epsilon": 2.0, "dummy_distribution": "", "dummies": 0, "epsilon": e,
              "delta": d, "delta_upper": d, "service_loss": 0.3} for e, d in ((0.1, 0.05), (0.5, 0.0))]
    tupled = [{"mechanism": "tupling_rr", "base_epsilon": 2.0, "dummy_distribution": nu, "dummies": 5,
               "epsilon": 0.5, "delta": 0.0, "delta_upper": 0.0, "service_loss": 0.3} for nu in ("uniform", "marginal")]
    paths = {"png": tmp_path / "d.png", "pdf": tmp_path / "d.pdf", "csv": tmp_path / "d.csv"}
    seen = _spy_axes(lambda: plots.plot_delta(pd.DataFrame(plain + tupled), base_epsilon=2.0, **paths))
    assert len(seen["axes"]) == 2      # panel (a) and its strip
    assert seen["ticks"][1] == ["randomized response", "tupling over RR, ν uniform (k = 5)",
                                "tupling over RR, ν marginal (k = 5)"]
    assert seen["sides"][1] == "left"
    assert list(pd.read_csv(paths["csv"])["mechanism"]) == ["rr", "rr", "tupling_rr", "tupling_rr"]


def test_dummies_curves_merge_only_within_a_pixel_or_a_relative_1e3():
    """Hand-worked: over 80 decades 1 % is 0.8 decades; a factor 27 (log10 27 = 1.431 decades) is drawn
    apart, a factor 3 over 90 decades (0.477 < 0.9) and a relative 5e-4 (under 1e-3) are one curve."""
    k = [1, 2, 3]
    same = plots._one_curve({1: (k, [1.0, 1e-40, 1e-80]), 2: (k, [1.0, 1e-40, 27e-80])})
    assert same == {}
    same = plots._one_curve({1: (k, [1.0, 1e-40, 1e-90]), 2: (k, [1.0, 1e-40, 3e-90])})
    assert list(same) == [2] and same[2][0] == 1 and abs(same[2][1] - 3.0) < 1e-12
    same = plots._one_curve({1: (k, [0.2, 0.1, 0.05]), 2: (k, [0.2, 0.1, 0.05 * (1 + 5e-4)])})
    assert list(same) == [2] and abs(same[2][1] - (1 + 5e-4)) < 1e-12
    # over log10(0.2 / 0.05) = 0.602 decades, 1 % is 0.00602 decades (a factor 1.0140): a factor 1.002
    # (0.00087 decades) is under a pixel, a factor 1.03 (0.0128 decades) is not
    same = plots._one_curve({1: (k, [0.2, 0.1, 0.05]), 2: (k, [0.2, 0.1, 0.05 * 1.002])})
    assert list(same) == [2] and abs(same[2][1] - 1.002) < 1e-12
    same = plots._one_curve({1: (k, [0.2, 0.1, 0.05]), 2: (k, [0.2, 0.1, 0.05 * 1.03])})
    assert same == {}
    # flat curves (a panel of almost no decades): the relative 1e-3 alone decides
    same = plots._one_curve({1: (k, [0.1, 0.1, 0.1]), 2: (k, [0.1, 0.1, 0.1 * (1 + 5e-4)])})
    assert list(same) == [2]
    assert plots._one_curve({1: (k, [0.1, 0.1, 0.1]), 2: (k, [0.1, 0.1, 0.101])}) == {}

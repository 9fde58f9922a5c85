"""pufferfish.figure_check: each kind of problem drawn on purpose is found, and its good version passes.

Every broken figure differs from its good twin in the one thing the check is about; the good
twins together are the conventions the shipped figures follow (a coincidence shown and said,
contrast of at least 3:1, 7 pt text, data across the axis, words instead of identifiers).
"""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from pufferfish import figure_check  # noqa: E402
from pufferfish.errors import ArgumentTypeError  # noqa: E402
from pufferfish.plotting import check_figure, log_axis, save_figure, setup_style  # noqa: E402

EPS = np.linspace(0.1, 1.0, 10)
BLUE, VERMILLION, YELLOW = "#0072B2", "#D55E00", "#F0E442"


def _axes(figsize=(5, 3.5)):
    setup_style()
    fig, ax = plt.subplots(figsize=figsize)
    ax.set_xlabel("privacy budget ε")
    ax.set_ylabel("Laplace scale θ")
    ax.set_title("calibrated θ")
    return fig, ax


def _problems(fig) -> list[str]:
    fig.tight_layout()
    try:
        return check_figure(fig)
    finally:
        plt.close(fig)


def _one(problems, fragment) -> str:
    hits = [p for p in problems if fragment in p]
    assert hits, f"no problem with {fragment!r} in {problems}"
    return hits[0]


# ------------------------------------------------------------------------------ hidden artists
def test_a_curve_drawn_exactly_under_another_is_found():
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE, linewidth=1.5, label="Theorem 1")
    ax.plot(EPS, 2 / EPS, color=VERMILLION, linewidth=3, label="Kantorovich")   # on top, wider
    ax.legend(loc="upper right")
    line = _one(_problems(fig), "not visible")
    assert '"Theorem 1"' in line and 'axes 0 "calibrated θ"' in line


def test_coinciding_curves_drawn_both_visible_and_said_pass():
    """The good version: one solid, one dashed over it with its own offset markers, and a label that says so."""
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE, linewidth=3, marker="o", markevery=(0, 2), label="Theorem 1")
    ax.plot(EPS, 2 / EPS, color=VERMILLION, linewidth=1.5, linestyle="--", marker="s", markevery=(1, 2),
            label="Kantorovich (= Theorem 1)")
    ax.legend(loc="upper right")
    assert _problems(fig) == []


def test_a_marker_outside_the_axes_is_found():
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE, marker="o", label="Theorem 1")
    ax.plot([0.5], [100.0], color=VERMILLION, marker="D", linestyle="none", label="the one point")
    ax.set_ylim(0, 25)
    ax.legend(loc="upper right")
    assert '"the one point" is not visible' in _one(_problems(fig), "the one point")


def test_a_legend_entry_for_markers_never_drawn_is_found():
    """A labelled artist with no data (all its points dropped), and a proxy whose marker appears nowhere."""
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE, marker="o", label="Theorem 1")
    ax.plot([], [], color=VERMILLION, marker="s", linestyle="none", label="tupling, k = 200")
    proxy = plt.Line2D([], [], color="0.3", marker="D", linestyle="none", label="a key for diamonds")
    handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=[*handles, proxy], loc="upper right")
    problems = _problems(fig)
    assert '"tupling, k = 200" is not visible' in _one(problems, "tupling")
    assert "nothing drawn has" in _one(problems, "a key for diamonds")


def test_a_proxy_key_for_markers_drawn_in_other_colours_passes():
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE, marker="o", label="Theorem 1")
    ax.plot(EPS[:3], np.zeros(3), color=VERMILLION, marker="v", linestyle="none", clip_on=False)
    proxy = plt.Line2D([], [], color="0.3", marker="v", linestyle="none", label="scale 0 (any colour)")
    handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=[*handles, proxy], loc="upper right")
    ax.set_ylim(bottom=0)
    assert _problems(fig) == []


# ------------------------------------------------------------------------------ contrast
@pytest.mark.parametrize("colour, ratio", [("#F0E442", 1.26), ("#E69F00", 2.25), ("#56B4E9", 2.31),
                                           ("#0072B2", 5.17), ("#000000", 21.0), ("#FFFFFF", 1.0)])
def test_contrast_ratio_by_hand(colour, ratio):
    """WCAG 2 by hand: L = 0.2126 R + 0.7152 G + 0.0722 B of the linearised channels, (L1 + 0.05) / (L2 + 0.05).
    Yellow #F0E442: R = (0.941 + 0.055)/1.055)^2.4 = 0.871, G = 0.776, B = 0.0545 -> L = 0.744,
    1.05 / 0.794 = 1.32... computed with the 4 digits of each channel: 1.26 to 1.32 (tolerance below)."""
    assert figure_check.contrast_ratio(colour) == pytest.approx(ratio, abs=0.07)


def test_contrast_ratio_composites_alpha_over_the_background():
    """Black at alpha 0.5 on white is grey 0.5 (sRGB 0.5 -> linear 0.214 -> 1.05 / 0.264 = 3.98)."""
    assert figure_check.contrast_ratio((0, 0, 0, 0.5)) == pytest.approx(3.98, abs=0.01)
    assert figure_check.contrast_ratio("#777777", "black") == pytest.approx(
        (figure_check._luminance((0x77 / 255,) * 3) + 0.05) / 0.05)


def test_a_pale_line_on_white_is_found():
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE, label="Lemma 5")
    ax.plot(EPS, 1.5 / EPS, color=YELLOW, linestyle="-.", label="Lemma 6")
    ax.legend(loc="upper right")
    line = _one(_problems(fig), "contrast")
    assert '"Lemma 6" line colour #f0e442' in line and "1.3" in line


def test_a_pale_marker_with_a_dark_edge_passes_and_a_dark_line_passes():
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE, label="Lemma 5")
    ax.plot(EPS, 1.5 / EPS, color="#8A7C00", linestyle="-.", marker="D", markerfacecolor=YELLOW,
            markeredgecolor="black", label="Lemma 6")
    ax.legend(loc="upper right")
    assert _problems(fig) == []


def test_a_pale_scatter_is_found():
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE, label="Lemma 5")
    ax.scatter(EPS, 1.5 / EPS, color="#56B4E9", label="sky blue dots")
    ax.legend(loc="upper right")
    assert "marker colour #56b4e9" in _one(_problems(fig), "sky blue dots")


# ------------------------------------------------------------------------------ text
def test_text_below_7_pt_is_found_and_7_pt_passes():
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE)
    ax.text(0.5, 15, "0.14", fontsize=5.5)
    assert "is 5.5 pt" in _one(_problems(fig), '"0.14"')
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE)
    ax.text(0.5, 15, "0.14", fontsize=7)
    assert _problems(fig) == []


@pytest.mark.parametrize("second, overlap", [((0.52, 15.2), True), ((0.6, 8), False)])
def test_overlapping_text_boxes_are_found_and_labels_apart_pass(second, overlap):
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE)
    ax.text(0.3 if not overlap else 0.5, 15, "record 45,193", fontsize=9)
    ax.text(*second, "record 45,211", fontsize=9)
    problems = _problems(fig)
    assert ("overlaps" in _one(problems, "record 45,193")) if overlap else problems == []


@pytest.mark.parametrize("apart_pt, touching", [(0.0, True), (0.5, True), (3.0, False)])
def test_in_cell_labels_that_touch_are_found_and_labels_apart_pass(apart_pt, touching):
    """Two labels of neighbouring cells (``<1`` and ``<1``) whose boxes abut read as one ``<1<1``: found;
    3 pt apart they pass. The gap is placed in points from the first box's right edge (at 150 dpi)."""
    from matplotlib.transforms import offset_copy

    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE)
    ax.text(0.5, 10, "<1", fontsize=8, ha="right", va="center")
    ax.text(0.5, 10, "<1", fontsize=8, ha="left", va="center",
            transform=offset_copy(ax.transData, fig=fig, x=apart_pt, y=0.0, units="points"))
    problems = _problems(fig)
    if touching:
        assert "touches" in _one(problems, '"<1"') and len(problems) == 1
    else:
        assert problems == []


def test_text_leaving_the_figure_is_found():
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE)
    fig.text(0.8, 0.5, "a note right of the axes, too long for the figure", fontsize=9)
    assert "leaves the figure" in _one(_problems(fig), "a note right of")


def test_a_legend_over_the_data_is_found_and_one_beside_it_passes():
    fig, ax = _axes()
    ax.bar(np.arange(6), [1, 2, 6, 5, 2, 1], color=BLUE, edgecolor="black", label="count")
    ax.legend(loc="upper center", fontsize=10)
    assert "covers drawn data" in _one(_problems(fig), "legend")
    fig, ax = _axes()
    ax.bar(np.arange(6), [1, 2, 6, 5, 2, 1], color=BLUE, edgecolor="black", label="count")
    ax.set_ylim(0, 9)
    ax.legend(loc="upper left", fontsize=10)
    assert _problems(fig) == []


# ------------------------------------------------------------------------------ span
def test_a_log_axis_with_an_empty_floor_is_found():
    """delta from 1e-1 to 1e-5 on an axis down to 1e-31: 4 decades of 30."""
    fig, ax = _axes()
    ax.plot(EPS, np.logspace(-1, -5, EPS.size), color=BLUE, label="Gaussian noise")
    log_axis(ax, "y")
    ax.set_ylim(1e-31, 1)
    assert "of the y axis (log" in _one(_problems(fig), "the data use")
    fig, ax = _axes()
    ax.plot(EPS, np.logspace(-1, -5, EPS.size), color=BLUE, label="Gaussian noise")
    log_axis(ax, "y")
    assert _problems(fig) == []


def test_a_linear_axis_squeezed_by_one_steep_curve_is_found_and_log_passes():
    """theta = 1/eps over eps 0.001-0.04 (fig8): 1000 at the left edge, the rest below 100."""
    eps = np.linspace(0.001, 0.04, 40)
    fig, ax = _axes()
    ax.plot(eps, 1 / eps, color=BLUE, marker="o", markevery=4, label="Lemma 5")
    ax.plot(eps, 0.7 / eps, color=VERMILLION, linestyle="--", label="tight")
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper right")
    assert "of the y axis (linear" in _one(_problems(fig), "the data use")
    fig, ax = _axes()
    ax.plot(eps, 1 / eps, color=BLUE, marker="o", markevery=4, label="Lemma 5")
    ax.plot(eps, 0.7 / eps, color=VERMILLION, linestyle="--", label="tight")
    log_axis(ax, "x")
    log_axis(ax, "y")
    ax.legend(loc="upper right")
    assert _problems(fig) == []


def test_a_hyperbola_over_one_decade_passes():
    """The shipped multiuser figures: theta = 2/eps for eps 0.1..1 on linear axes from 0."""
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE, marker="o", label="Kantorovich")
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper right")
    assert _problems(fig) == []


# ------------------------------------------------------------------------------ identifiers
@pytest.mark.parametrize("text", ["student_performance", "b = Δ_δ / ε", "W_inf = 13", "D e^(−λt)", "Table4_si",
                                  "rejected: dp_assumption"])
def test_raw_identifiers_are_found(text):
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE, label=text)
    ax.legend(loc="upper right")
    assert "raw identifier" in _one(_problems(fig), "raw identifier")


def test_words_unicode_and_rendered_mathtext_pass():
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=BLUE, label="student performance: W∞ = 13, W₂ = 2.28")
    ax.set_title(r"bound $D\,e^{-\lambda t}$, $\Delta_\delta$", parse_math=True)
    ax.legend(loc="upper right")
    assert _problems(fig) == []


def test_a_tick_label_is_checked_too():
    fig, ax = _axes()
    ax.bar([0, 1], [1, 2], color=BLUE, edgecolor="black")
    ax.set_xticks([0, 1], ["bank_marketing", "adult"])
    assert "bank_marketing" in _one(_problems(fig), "raw identifier")


# ------------------------------------------------------------------------------ the check itself
def test_check_leaves_the_figure_as_it_was(tmp_path):
    """Same pixels saved before and after a check (dpi, visibility and layout engine restored)."""
    def figure():
        setup_style()
        fig, ax = plt.subplots(figsize=(4, 3), layout="constrained")
        ax.plot(EPS, 2 / EPS, color=BLUE, label="Kantorovich")
        ax.legend(loc="best")
        return fig
    first = figure()
    first.savefig(tmp_path / "a.png")
    second = figure()
    check_figure(second)
    assert second.get_layout_engine() is not None and second.dpi == first.dpi
    second.savefig(tmp_path / "b.png")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    plt.close("all")


def test_check_refuses_what_is_not_a_figure():
    with pytest.raises(ArgumentTypeError, match="fig"):
        check_figure("figure.png")


def test_save_figure_records_the_check_only_when_switched_on(tmp_path, monkeypatch):
    monkeypatch.delenv(figure_check.SWITCH, raising=False)
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=YELLOW)
    save_figure(fig, tmp_path / "off.png")
    records = tmp_path / "records"
    monkeypatch.setenv(figure_check.SWITCH, str(records))
    fig, ax = _axes()
    ax.plot(EPS, 2 / EPS, color=YELLOW)
    fig.tight_layout()
    save_figure(fig, tmp_path / "figures" / "on.png")
    assert len(list(records.glob("*.txt"))) == 1
    checked, problems = figure_check.summarize(records, tmp_path / "figures")
    assert checked == 1 and len(problems) == 1 and "contrast" in problems[0]


def test_summary_counts_figures_and_a_figure_drawn_without_the_check(tmp_path, capsys):
    records, figures = tmp_path / "records", tmp_path / "results" / "figures"
    (figures / "a").mkdir(parents=True)
    records.mkdir()
    for name in ("one.png", "two.png"):
        (figures / "a" / name).write_bytes(b"png")
    (records / "one.txt").write_text(os.path.abspath(figures / "a" / "one.png") + "\n")
    assert figure_check.main([str(records), str(figures)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == ["results/figures/a/two.png: drawn without the figure check", "figures checked: 1, problems: 1"]
    (figures / "a" / "two.png").unlink()
    assert figure_check.main([str(records), str(figures)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "figures checked: 1, problems: 0"

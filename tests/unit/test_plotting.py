"""pufferfish.plotting: one layout pass for the PNG and the PDF gives matplotlib's own tight crop."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from pufferfish.plotting import log_axis, save_figure, setup_style, tight_bbox  # noqa: E402


def _figure(variant: int):
    """Figures whose tight box is set by different artists: a key below the panels, a suptitle,
    long tick labels on a log axis, a title wider than its panel."""
    setup_style()
    fig, axes = plt.subplots(1, 2, figsize=(7, 3), squeeze=False)
    x = np.linspace(0.1, 1.0, 10)
    for k, ax in enumerate(axes[0]):
        ax.plot(x, np.exp(-x * (k + 1) * 12), marker="o", label=f"series {k}")
        log_axis(ax, "y")
        ax.set_xlabel("target ε")
        ax.set_ylabel("noise σ")
        ax.set_title("a title much wider than its panel, to move the right edge" if variant == 1 else f"η = {k}")
    if variant == 0:
        fig.legend(*axes[0][0].get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2)
    fig.suptitle("suptitle\nsecond line")
    return fig


@pytest.mark.parametrize("variant", [0, 1])
def test_save_figure_crops_the_png_exactly_as_savefig_tight(tmp_path, variant):
    """The shared box is the one savefig(bbox_inches="tight") measures itself: same size, same pixels."""
    fig = _figure(variant)
    fig.savefig(tmp_path / "tight.png", format="png", metadata={"Software": None}, bbox_inches="tight")
    save_figure(fig, tmp_path / "shared.png", tmp_path / "shared.pdf")
    tight, shared = mpimg.imread(tmp_path / "tight.png"), mpimg.imread(tmp_path / "shared.png")
    assert tight.shape == shared.shape
    assert np.array_equal(tight, shared)
    assert (tmp_path / "shared.pdf").read_bytes().startswith(b"%PDF")


def test_tight_bbox_leaves_the_figure_dpi_and_pads_by_the_rcparam():
    fig = _figure(0)
    fig.set_dpi(80)
    box = tight_bbox(fig)
    assert fig.dpi == 80
    unpadded = box.padded(-plt.rcParams["savefig.pad_inches"])
    # the key hangs below the figure and the suptitle sits inside it: the box reaches below 0
    assert unpadded.y0 < 0 < unpadded.y1 <= fig.get_figheight() + 1e-9
    plt.close(fig)


def test_save_figure_under_matplotlibs_default_savefig_dpi(tmp_path):
    """savefig.dpi = "figure" (matplotlib's default, when the project's style is not set) used to
    crash tight_bbox (set_dpi("figure")); the box is now measured at the figure's dpi: the PNG has
    the tight one's size to the pixel the box's rounding may move (matplotlib measures its own box
    with the renderer of that save)."""
    fig = _figure(1)             # (sets the project's style)
    with plt.rc_context({"savefig.dpi": "figure"}):
        fig.savefig(tmp_path / "tight.png", format="png", metadata={"Software": None}, bbox_inches="tight")
        save_figure(fig, tmp_path / "shared.png", tmp_path / "shared.pdf")
    tight, shared = mpimg.imread(tmp_path / "tight.png"), mpimg.imread(tmp_path / "shared.png")
    assert np.all(np.abs(np.subtract(tight.shape[:2], shared.shape[:2])) <= 1)
    assert (tmp_path / "shared.pdf").read_bytes().startswith(b"%PDF")


def test_coinciding_names_curves_within_a_relative_1e3_or_a_few_pixels_of_the_log_axis():
    """Hand-worked: y2 = 1.0005 y1 (under NEAR = 1e-3) is ≈ on any axis, largest distance 5e-4;
    y3 = 1.003 y1 is not ≈ on a linear axis (3e-3 > 1e-3), but is on a log axis of 2 decades
    (log10 1.003 = 0.0013 decades <= 1 % of 2 = 0.02); y4 = 1.05 y1 (0.0212 decades) is not (and is
    not compared with y3, 0.0199 decades from it: a distance is always to the first curve of a group);
    y5 = y1 is = ."""
    from pufferfish.plotting import coinciding, within

    x = [0.1, 0.5, 1.0]
    y1 = np.array([100.0, 20.0, 10.0])
    curves = {"a": (x, y1), "b": (x, 1.0005 * y1), "c": (x, 1.003 * y1), "d": (x, 1.05 * y1), "e": (x, y1.copy())}
    linear = coinciding(curves)
    assert set(linear) == {"b", "e"} and linear["e"][:2] == ("a", "=")
    assert linear["b"][:2] == ("a", "≈") and abs(linear["b"][2] - 5e-4) < 1e-12
    logged = coinciding(curves, decades=2.0)
    assert set(logged) == {"b", "c", "e"} and logged["c"][:2] == ("a", "≈") and abs(logged["c"][2] - 3e-3) < 1e-12
    assert within(logged["c"][2]) == "within 0.3 %" and within(0.0032) == "within 0.32 %"

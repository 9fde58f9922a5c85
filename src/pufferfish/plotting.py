"""Figure conventions shared by every plot of the pipeline.

* Okabe-Ito colours (distinguishable with every common colour-vision deficiency), and a
  distinct marker / line style per series so that figures also read in grey scale. Lines and
  markers take :data:`LINE_COLOURS`: the same hues with orange, sky blue and yellow darkened to a
  contrast of at least 3:1 on white (WCAG 2; :mod:`pufferfish.figure_check` checks every figure).
* ``tight`` (the exact smallest scale) is always dashed black.
* :func:`save_figure` writes PNG and PDF with pinned metadata, so that two runs give
  byte-identical files, and the numbers plotted go to a CSV beside them.
* Symbols are Unicode text (ε, θ, σ, W∞, W₂, bₘᵢₙ, √, x′; log-axis ticks 10⁻¹), not TeX mathtext:
  DejaVu Sans has every glyph, and parsing mathtext (for the PNG and again for the PDF) was
  a third of the time of drawing a figure. ``text.parse_math`` is off, so a ``$`` in a
  title taken from the config is printed as it is; the few symbols Unicode has no subscript
  for (ε with A, Δ with δ, D with α, e to the −λt) are mathtext in the texts that show them
  (:func:`math_texts`). :func:`words` turns an identifier (``student_performance``) into words.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import LogFormatterSciNotation  # noqa: E402

from pufferfish.figure_check import check_figure, record_check  # noqa: E402
from pufferfish.files import atomic_path  # noqa: E402

__all__ = ["OKABE_ITO", "LINE_COLOURS", "series_style", "setup_style", "save_figure", "tight_bbox", "TIGHT_STYLE",
           "log_axis", "superscript", "check_figure", "words", "math_texts", "legend_below", "readable_log_ticks",
           "log_tick_text", "figure_key", "coinciding", "NEAR", "NEAR_SPAN", "within"]

#: Okabe & Ito (2008) colour-blind-safe palette (black first): fills with a black edge (bars, histograms)
OKABE_ITO = ["#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"]
#: the same hues for lines and markers on white, in the same order: orange (#E69F00, 2.2:1 on white), sky
#: blue (#56B4E9, 2.3:1) and yellow (#F0E442, 1.3:1) darkened (HLS lightness lowered, hue and saturation
#: kept) to 3.2:1; the others already have at least 3:1
LINE_COLOURS = ["#000000", "#BD8300", "#1D96DB", "#009E73", "#9C920C", "#0072B2", "#D55E00", "#CC79A7"]
#: the series colours: :data:`LINE_COLOURS` without black (``tight``) and the darkened yellow (too close to the
#: darkened orange for some colour-vision deficiencies)
_SERIES = [c for k, c in enumerate(LINE_COLOURS) if k not in (0, 4)]
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
#: the style of the exact smallest scale (theta_min / b_min)
TIGHT_STYLE = dict(color="#000000", linestyle="--", linewidth=1.6, marker=None, zorder=10, label="tight (exact audit)")


def series_style(k: int) -> dict:
    """Colour, marker, dash and width of the k-th plotted series (black is kept for ``tight``).

    Widths decrease and markers alternate filled/hollow, so series that coincide (e.g. two
    theorems giving the same theta) stay visible on top of each other.
    """
    colours = _SERIES
    dashes = ["-", (0, (5, 2)), ":", "-."]
    return dict(color=colours[k % len(colours)], marker=_MARKERS[k % len(_MARKERS)], markersize=7 - 1.2 * (k % 3),
                markerfacecolor=colours[k % len(colours)] if k % 2 == 0 else "white",
                linestyle=dashes[k % len(dashes)], linewidth=max(1.0, 3.0 - 0.8 * k), zorder=2 + k)


def setup_style() -> None:
    """rcParams for readable, deterministic figures."""
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1704067200")  # fixed PDF font timestamps
    plt.rcParams.update({
        "figure.dpi": 100,
        "savefig.dpi": 150,
        "font.size": 10,
        "axes.titlesize": 10,
        "axes.labelsize": 10,
        "legend.fontsize": 8,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "pdf.fonttype": 42,
        "svg.hashsalt": "pufferfish",
        "path.simplify": False,
        "text.parse_math": False,   # Unicode symbols only (module docstring)
    })


_SUPERSCRIPT = str.maketrans("0123456789-+.", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺·")
#: identifiers of the results written as words or symbols in a figure (others: underscores become spaces)
_WORDS = {"W_inf": "W∞", "W_2": "W₂", "W_1": "W₁", "b_min": "bₘᵢₙ", "theta_min": "θₘᵢₙ", "s_i": "sᵢ", "s_j": "sⱼ",
          "adult_train": "adult training data", "dp_assumption": "DP assumption", "student_mat": "student maths grades",
          "heart_cleveland": "Cleveland heart", "hungarian_heart": "Hungarian heart",
          "Table4_si": "Table 4's prior of sᵢ", "Table4_sj": "Table 4's prior of sⱼ",
          # no Unicode subscript: mathtext (math_texts renders it in the texts that show it)
          "Δ_δ": r"$\Delta_\delta$", "D_α": r"$D_\alpha$", "ε_A": r"$\varepsilon_A$"}


def words(text: str) -> str:
    """An identifier of the results in words: ``W_inf`` -> ``W∞``, ``b_min`` -> ``bₘᵢₙ``, ``adult_train``
    -> ``adult training data``, any other ``snake_case`` name with spaces (``bank_marketing`` ->
    ``bank marketing``); the rest of ``text`` is left as it is.

    Parameters
    ----------
    text : str
        A title, label or legend entry.

    Returns
    -------
    str
    """
    text = str(text)
    for name, shown in _WORDS.items():
        text = re.sub(rf"(?<![\w.]){re.escape(name)}(?!\w)", lambda _: shown, text)
    # other snake_case names with spaces, outside mathtext
    parts = re.split(r"(\$[^$]*\$)", text)
    return "".join(p if p.startswith("$") else re.sub(r"(?<=[^\W_])_(?=[^\W_])", " ", p) for p in parts)


def legend_below(ax, handles=None, **options):
    """The legend of ``ax`` under its x axis (tick labels and axis label clear of it), where it covers
    no data; part of the axes' layout, so ``tight_layout`` makes room for it. Returns the legend.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes.
    handles : sequence of matplotlib.artist.Artist, optional
        The entries (default: the axes' labelled artists).
    **options
        Passed on to :meth:`matplotlib.axes.Axes.legend` (``ncol``, ``fontsize``, ...).

    Returns
    -------
    matplotlib.legend.Legend
    """
    from matplotlib.font_manager import FontProperties

    size = FontProperties(size=options.get("fontsize", plt.rcParams["legend.fontsize"])).get_size_in_points()
    below = 2 * FontProperties(size=plt.rcParams["axes.labelsize"]).get_size_in_points() + 14   # ticks, label, pads
    options = {"loc": "upper center", "bbox_to_anchor": (0.5, 0.0), "frameon": False, "borderaxespad": below / size,
               **options}
    legend = ax.legend(handles=handles, **options) if handles is not None else ax.legend(**options)
    math_texts(legend)
    return legend


def figure_key(fig, handles, *, ncol: int, rect_top: float = 1.0, **options):
    """One legend for every panel, at the bottom of the figure and inside it: the panels are laid
    out (``tight_layout``) above it. Returns the legend.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure, its panels drawn.
    handles : sequence of matplotlib.artist.Artist
        The entries.
    ncol : int
        Columns of the key.
    rect_top : float
        The top of the panels' area (below a two-line suptitle, say), in figure fractions.
    **options
        Passed on to :meth:`matplotlib.figure.Figure.legend`.

    Returns
    -------
    matplotlib.legend.Legend
    """
    options = {"loc": "lower center", "bbox_to_anchor": (0.5, 0.0), "frameon": False,
               "fontsize": plt.rcParams["legend.fontsize"], **options}
    legend = fig.legend(handles=handles, ncol=ncol, **options)
    math_texts(legend)
    fig.draw_without_rendering()
    height = legend.get_window_extent().height / fig.bbox.height
    fig.tight_layout(rect=(0.0, height + 0.01, 1.0, rect_top))
    return legend


#: curves within this relative distance at every point are one curve seen twice (≈; equal: =)
NEAR = 1e-3
#: on a log axis, curves whose log10 values lie within this fraction of the axis's decades at every point
#: are also one curve (about 3 pixels of a panel some 300 pixels high: no eye separates them there)
NEAR_SPAN = 0.01


def coinciding(curves, *, decades: float | None = None) -> dict:
    """Which curves lie on an earlier one: name -> (the first curve of its group, ``"="`` if equal at
    every x to a relative 1e-9, ``"≈"`` if within :data:`NEAR`, or on a log axis of ``decades``
    within :data:`NEAR_SPAN` of them; the largest relative distance). Curves drawn on top of each
    other hide each other: a figure draws such a group once, or staggers its markers, and says so
    (:func:`within`).

    Parameters
    ----------
    curves : Mapping[str, tuple of array_like]
        Name -> (x, y), in drawing order; only curves with the same x are compared.
    decades : float, optional
        The span of the log axis the curves are drawn on (none: a linear axis, :data:`NEAR` alone).

    Returns
    -------
    dict of str to tuple of (str, str, float)
    """
    same, seen = {}, []
    for name, (x, y) in curves.items():
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        for head in seen:       # the first curve of each group: a distance is always to the curve named
            ox, oy = (np.asarray(v, dtype=float) for v in curves[head])
            if x.shape != ox.shape or not np.array_equal(x, ox):
                continue
            nonzero = oy != 0
            gap = float(np.max(np.abs(y[nonzero] / oy[nonzero] - 1.0), initial=0.0)) if np.all(y[~nonzero] == 0) \
                else math.inf
            if np.allclose(y, oy, rtol=1e-9, atol=0.0):
                same[name] = (head, "=", gap)
                break
            pixel = (decades is not None and np.all(y > 0) and np.all(oy > 0)
                     and float(np.max(np.abs(np.log10(y / oy)), initial=0.0)) <= NEAR_SPAN * decades)
            if np.allclose(y, oy, rtol=NEAR, atol=0.0) or pixel:
                same[name] = (head, "≈", gap)
                break
        else:
            seen.append(name)
    return same


def within(gap: float) -> str:
    """``within 0.27 %``: the largest relative distance of two curves :func:`coinciding` named ≈."""
    return f"within {100.0 * gap:.2g} %"


def math_texts(*artists) -> None:
    """Render the mathtext (``$...$``) of our own texts: a title, an axis label, every entry of a
    legend (``text.parse_math`` is off for the rest, module docstring).

    Parameters
    ----------
    *artists : matplotlib.text.Text or matplotlib.legend.Legend
        The texts, or legends whose texts, are to be parsed.

    Returns
    -------
    None
    """
    from matplotlib.legend import Legend

    for artist in artists:
        texts = artist.get_texts() if isinstance(artist, Legend) else [artist]
        for text in texts:
            text.set_parse_math("$" in text.get_text())


def superscript(text: str) -> str:
    """``"-12"`` -> ``"⁻¹²"``: digits and signs as Unicode superscripts."""
    return str(text).translate(_SUPERSCRIPT)


def _unicode_tick(label: str) -> str:
    """A tick label of matplotlib's log formatter without TeX: ``$\\mathdefault{2\\times10^{-1}}$``
    -> ``2×10⁻¹``."""
    text = label.strip("$")
    text = re.sub(r"\\mathdefault\{(.*)\}", r"\1", text)
    text = re.sub(r"\^\{([^}]*)\}", lambda m: superscript(m.group(1)), text)
    return text.replace("\\times", "×").replace("-", "−")


class UnicodeLogFormatter(LogFormatterSciNotation):
    """matplotlib's log-axis labels (which ticks, which decades) as Unicode text: ``10⁻¹``."""

    def __call__(self, x, pos=None):
        return _unicode_tick(super().__call__(x, pos))


def log_axis(ax, which: str = "y") -> None:
    """Put ``ax``'s ``which`` axis ("x" or "y") on a log scale whose tick labels are Unicode
    (``10⁻¹``, ``2×10⁻¹``): matplotlib's own choice of ticks and labels, without mathtext."""
    getattr(ax, f"set_{which}scale")("log")
    axis = ax.yaxis if which == "y" else ax.xaxis
    axis.set_major_formatter(UnicodeLogFormatter(10))
    axis.set_minor_formatter(UnicodeLogFormatter(10, labelOnlyBase=False))


def log_tick_text(value: float, _pos=None) -> str:
    """A log-axis tick as plain text (``20``, ``0.5``), or ``2×10⁻⁴`` outside [1e-3, 1e5)."""
    if value <= 0 or not math.isfinite(value):
        return ""
    if 1e-3 <= value < 1e5:
        return f"{value:g}"
    exponent = math.floor(math.log10(value) + 1e-9)
    mantissa = value / 10 ** exponent
    head = "" if abs(mantissa - 1) < 1e-9 else f"{mantissa:g}×"
    return f"{head}10{superscript(str(exponent))}"


#: the multiples of each power of ten tried, in turn, as labelled ticks of a log axis
_SUBS = ((1.0,), (1.0, 2.0, 5.0), (1.0, 2.0, 3.0, 5.0, 7.0), (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0))


def readable_log_ticks(ax, which: str = "y") -> None:
    """Give a log axis (``which``: "x" or "y") at least three labelled ticks, as plain numbers
    (:func:`log_tick_text`): the powers of ten if it spans enough of them (every 2nd, 5th, 10th...
    power, at multiples of it, past 8 decades), else 1, 2 and 5 times them, else finer multiples
    (matplotlib's own would label one or two). Call it once the axis's limits are final.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes.
    which : str
        The axis, ``"x"`` or ``"y"``.

    Returns
    -------
    None
    """
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    lo, hi = ax.get_ylim() if which == "y" else ax.get_xlim()
    decades = range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
    stride = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200) if len(decades) / s <= 8)
    for subs in _SUBS:
        ticks = [s * 10.0 ** e for e in decades for s in subs if lo <= s * 10.0 ** e <= hi and e % stride == 0]
        if len(ticks) >= 3 or stride > 1:
            break
    axis = ax.yaxis if which == "y" else ax.xaxis
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(log_tick_text))
    axis.set_minor_formatter(NullFormatter())
    (ax.set_ylim if which == "y" else ax.set_xlim)(lo, hi)


def tight_bbox(fig):
    """The bounding box (inches) that ``savefig(bbox_inches="tight")`` crops a PNG to: every artist of
    ``fig`` laid out at ``savefig.dpi``, padded by ``savefig.pad_inches``.

    :func:`save_figure` computes it once for both files: with ``bbox_inches="tight"`` each
    ``savefig`` lays the whole figure out a second time only to measure it (ticks, tick labels,
    title positions: most of the time a figure takes to draw). The PNG is pixel for pixel the
    one ``"tight"`` gives; the PDF's page is the same box, where a PDF-measured box would
    differ by a point or two of margin (text extents of the PDF backend).
    """
    dpi = fig.dpi
    save_dpi = plt.rcParams["savefig.dpi"]
    fig.set_dpi(dpi if save_dpi == "figure" else save_dpi)   # "figure" (matplotlib's default): the figure's own
    try:
        fig.draw_without_rendering()
        return fig.get_tightbbox().padded(plt.rcParams["savefig.pad_inches"])
    finally:
        fig.set_dpi(dpi)


def save_figure(fig, png_path: str | os.PathLike, pdf_path: str | os.PathLike | None = None) -> None:
    """Save ``fig`` as PNG (and PDF) atomically with fixed metadata, cropped to
    :func:`tight_bbox` (one layout pass for both files), then close it.

    A file that cannot be written (full disk, a directory that is a file) raises
    :class:`~pufferfish.errors.OutputError` naming it (from :func:`atomic_path`); the figure
    is closed either way. With the figure check switched on (the environment variable
    :data:`pufferfish.figure_check.SWITCH` names a directory), :func:`check_figure` runs first
    and its problems go to a record in that directory (:func:`pufferfish.figure_check.record_check`).
    """
    png_path = Path(png_path)
    pdf_path = Path(pdf_path) if pdf_path is not None else png_path.with_suffix(".pdf")
    try:
        record_check(fig, png_path)
        bbox = tight_bbox(fig)
        with atomic_path(png_path) as tmp:
            fig.savefig(tmp, format="png", metadata={"Software": None}, bbox_inches=bbox)
        with atomic_path(pdf_path) as tmp:
            fig.savefig(tmp, format="pdf", metadata={"CreationDate": None, "ModDate": None, "Producer": None,
                                                      "Creator": None}, bbox_inches=bbox)
    finally:
        plt.close(fig)

"""Figure conventions shared by every plot of the pipeline.

* Okabe-Ito colours (distinguishable with every common colour-vision deficiency), and a
  distinct marker / line style per series so that figures also read in grey scale.
* ``tight`` (the exact smallest scale) is always dashed black.
* :func:`save_figure` writes PNG and PDF with pinned metadata, so that two runs give
  byte-identical files, and the numbers plotted go to a CSV beside them.
* Symbols are Unicode text (ε, θ, σ, W∞, W₂, √, x′; log-axis ticks 10⁻¹), not TeX mathtext:
  DejaVu Sans has every glyph, and parsing mathtext (for the PNG and again for the PDF) was
  a third of the time of drawing a figure. ``text.parse_math`` is off, so a ``$`` in a
  title taken from the config is printed as it is.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import LogFormatterSciNotation  # noqa: E402

from pufferfish.files import atomic_path  # noqa: E402

__all__ = ["OKABE_ITO", "series_style", "setup_style", "save_figure", "tight_bbox", "TIGHT_STYLE", "log_axis",
           "superscript"]

#: Okabe & Ito (2008) colour-blind-safe palette (black first)
OKABE_ITO = ["#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"]
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
#: the style of the exact smallest scale (theta_min / b_min)
TIGHT_STYLE = dict(color="#000000", linestyle="--", linewidth=1.6, marker=None, zorder=10, label="tight (exact audit)")


def series_style(k: int) -> dict:
    """Colour, marker, dash and width of the k-th plotted series (black is kept for ``tight``).

    Widths decrease and markers alternate filled/hollow, so series that coincide (e.g. two
    theorems giving the same theta) stay visible on top of each other.
    """
    colours = OKABE_ITO[1:]
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
    is closed either way.
    """
    png_path = Path(png_path)
    pdf_path = Path(pdf_path) if pdf_path is not None else png_path.with_suffix(".pdf")
    try:
        bbox = tight_bbox(fig)
        with atomic_path(png_path) as tmp:
            fig.savefig(tmp, format="png", metadata={"Software": None}, bbox_inches=bbox)
        with atomic_path(pdf_path) as tmp:
            fig.savefig(tmp, format="pdf", metadata={"CreationDate": None, "ModDate": None, "Producer": None,
                                                      "Creator": None}, bbox_inches=bbox)
    finally:
        plt.close(fig)

"""The figure check (issue 40): what a reviewer would send back, found in a matplotlib figure.

:func:`check_figure` renders a figure at the saved resolution and returns one problem a line,
naming the axes (its title, else its index) and the artist (its label or text):

* a **labelled artist that is not visible**: hiding it changes fewer than :data:`HANDFUL` pixels
  of the rendered figure, or less than 5 % of what it draws alone (hidden under other
  curves, outside the axes, no data), or a legend entry whose marker or line style nothing
  drawn has;
* a **line or marker colour** whose contrast with the axes' background is below
  :data:`MIN_CONTRAST` (WCAG 2: ``(L1 + 0.05) / (L2 + 0.05)`` of the relative luminances);
* **text** smaller than :data:`MIN_FONT_PT` at the saved size, text boxes nearer each other than
  :data:`MIN_TEXT_GAP` (overlapping, touching) or leaving the figure, a **legend over drawn data**;
* **data that uses less than** :data:`MIN_SPAN` of an axis's span: from the lowest 5th to the
  highest 95th percentile of the data artists' points (a curve sampled evenly along its x
  extent, bars by their corners), in display space, so linear or log;
* a **raw identifier** in a title, label, legend or tick: a ``_`` or ``^`` that mathtext did not
  render (a snake_case name, ``W_inf``, ``e^(-t)``).

:func:`pufferfish.plotting.save_figure` runs it when the environment variable
:data:`SWITCH` names a directory: each figure's problems go to a file there, and ``python -m
pufferfish.figure_check DIR FIGURES`` (``make test-figures``) prints them and the line
``figures checked: N, problems: M``. A normal run pays nothing.
"""

from __future__ import annotations

import os
import re
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np

__all__ = ["check_figure", "record_check", "summarize", "SWITCH", "HANDFUL", "MIN_CONTRAST", "MIN_FONT_PT",
           "MIN_TEXT_GAP", "MIN_SPAN", "contrast_ratio"]

#: the environment variable that switches the check on: the directory of the per-figure records
SWITCH = "PUFFERFISH_CHECK_FIGURES"
#: hiding an artist that changes fewer pixels than this (at the saved resolution) leaves the figure unchanged
HANDFUL = 20
#: a pixel counts as changed when one of its channels moves by at least this (of 255)
_PIXEL_STEP = 64
#: an artist of which less than this fraction shows (the rest under other artists) is not visible
_SEEN = 0.05
#: the smallest contrast of a line or marker with the axes' background (WCAG 2, non-text graphics)
MIN_CONTRAST = 3.0
#: the smallest font size, in points at the saved size
MIN_FONT_PT = 7.0
MIN_TEXT_GAP = 1.0      #: text boxes nearer than this (pt at the saved size) touch: ``<1<1`` reads as one
#: the smallest fraction of an axis's span that the middle 90 % of the data must use
MIN_SPAN = 0.40
_SAMPLES = 200          # points per curve, evenly along its x extent, for the span
_NO_LINE = {"None", "none", " ", ""}


# ------------------------------------------------------------------------------ colour
def _luminance(rgb) -> float:
    """WCAG 2 relative luminance of an sRGB colour (channels in [0, 1])."""
    c = np.asarray(rgb, dtype=float)[:3]
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])


def contrast_ratio(colour, background="white") -> float:
    """WCAG 2 contrast ratio of ``colour`` (its alpha composited over ``background``) with ``background``.

    Parameters
    ----------
    colour, background : str or tuple of float
        Any colour matplotlib accepts (``"#F0E442"``, ``(r, g, b, a)``, ``"0.4"``).

    Returns
    -------
    float
        From 1 (the same luminance) to 21 (black on white): Okabe-Ito yellow on white is 1.26.

    Raises
    ------
    ValueError
        A value matplotlib does not read as a colour.
    """
    from matplotlib.colors import to_rgba

    bg = np.array(to_rgba(background))
    bg = bg[:3] * bg[3] + (1 - bg[3])                      # over a white page
    fg = np.array(to_rgba(colour))
    fg = fg[:3] * fg[3] + bg * (1 - fg[3])
    a, b = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


# ------------------------------------------------------------------------------ naming
def _axes_name(fig, ax) -> str:
    if ax is None:
        return "figure"
    title = next((t for t in (ax.get_title(loc) for loc in ("center", "left", "right")) if t), "")
    index = fig.axes.index(ax) if ax in fig.axes else "?"
    return f'axes {index} "{_short(title)}"' if title else f"axes {index}"


def _owner(fig, text):
    """The axes a text belongs to (its tick labels and axis labels included), or None (the figure's)."""
    if text.axes is not None:
        return text.axes
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if text is axis.label or any(text is t for t in axis.get_ticklabels(which="both")):
                return ax
    return None


def _short(text: str, width: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width - 1] + "…"


def _checked_axes(fig) -> list:
    """The figure's axes but colorbars and axes switched off."""
    return [ax for ax in fig.axes if ax.axison and ax.get_visible() and not hasattr(ax, "_colorbar")]


# ------------------------------------------------------------------------------ rendering
class _Render:
    """The figure drawn at the saved dpi on an Agg canvas, with the layout engine held still."""

    def __init__(self, fig):
        import matplotlib.pyplot as plt
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.fig = fig
        if not isinstance(fig.canvas, FigureCanvasAgg):
            FigureCanvasAgg(fig)
        save_dpi = plt.rcParams["savefig.dpi"]
        self.dpi = fig.dpi
        fig.set_dpi(self.dpi if save_dpi == "figure" else save_dpi)
        self.texts = self._draw_recording()
        self.engine = fig.get_layout_engine()
        if self.engine is not None:
            fig.set_layout_engine("none")     # hiding an artist must not move the others

    def _draw_recording(self) -> list:
        """Draw once, returning every Text artist that was drawn (tick labels not drawn are not; a
        multi-line text reaches the renderer without its artist, so Text.draw itself is watched)."""
        from matplotlib.text import Text

        drawn, original = {}, Text.draw

        def draw(text, renderer):
            if text.get_visible() and str(text.get_text()).strip():
                drawn.setdefault(id(text), text)
            return original(text, renderer)

        Text.draw = draw
        try:
            self.fig.canvas.draw()
        finally:
            Text.draw = original
        return list(drawn.values())

    def pixels(self) -> np.ndarray:
        self.fig.canvas.draw()
        return np.asarray(self.fig.canvas.buffer_rgba())[..., :3].astype(np.int16)

    def close(self) -> None:
        if self.engine is not None:
            self.fig.set_layout_engine(self.engine)
        self.fig.set_dpi(self.dpi)


@contextmanager
def _hidden(artists):
    """Hide ``artists`` (the visible ones) for the block."""
    shown = [a for a in artists if a.get_visible()]
    for a in shown:
        a.set_visible(False)
    try:
        yield
    finally:
        for a in shown:
            a.set_visible(True)


def _changed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.any(np.abs(a - b) >= _PIXEL_STEP, axis=-1)     # a channel moved by a step or more


def _furniture(fig) -> list:
    """What is not data and takes most of a draw: the axes' ticks and labels, every text."""
    from matplotlib.text import Text

    return [a for ax in fig.axes for a in (ax.xaxis, ax.yaxis)] + list(fig.findobj(Text))


def _legends(fig) -> list:
    return [leg for leg in [ax.get_legend() for ax in fig.axes] + list(fig.legends) if leg and leg.get_visible()]


def _data_artists(ax) -> list:
    return [*ax.lines, *ax.collections, *ax.patches, *ax.images]


def _children(handle, ax) -> list:
    """The artists of a legend handle: a container's parts, the bars of the histogram or bar chart
    whose first bar carries the label, or the artist itself."""
    from matplotlib.container import Container

    if isinstance(handle, Container):
        return [a for a in handle.get_children() if a is not None]
    for container in ax.containers:
        if any(part is handle for part in container.get_children()):
            return [a for a in container.get_children() if a is not None]
    return [handle]


# ------------------------------------------------------------------------------ the checks
def _text_problems(fig, texts, renderer) -> list[str]:
    """Font size, raw identifiers, overlaps and text outside the figure."""
    from matplotlib import cbook

    problems, boxes = [], []
    for text in texts:
        where, string = _axes_name(fig, _owner(fig, text)), text.get_text()
        if text.get_fontsize() < MIN_FONT_PT - 1e-9:
            problems.append(f'{where}: text "{_short(string)}" is {text.get_fontsize():.3g} pt '
                            f"(at least {MIN_FONT_PT:g} pt)")
        plain = string
        if text.get_parse_math() and cbook.is_math_text(string):
            plain = re.sub(r"(?<!\\)\$.*?(?<!\\)\$", "", string)
        raw = re.findall(r"\w*[_^]\S*", plain)
        if raw:
            problems.append(f'{where}: text "{_short(string)}" shows a raw identifier or unrendered '
                            f'sub/superscript: {", ".join(sorted(set(raw)))}')
        boxes.append((text, text.get_window_extent(renderer)))
    frame, gap = fig.bbox, MIN_TEXT_GAP * fig.dpi / 72.0
    for text, box in boxes:
        if box.x0 < frame.x0 - 1 or box.y0 < frame.y0 - 1 or box.x1 > frame.x1 + 1 or box.y1 > frame.y1 + 1:
            problems.append(f'{_axes_name(fig, _owner(fig, text))}: text "{_short(text.get_text())}" leaves the figure')
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            w = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            h = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if w > -gap and h > -gap:    # within the gap both ways: overlapping, or nearer than MIN_TEXT_GAP
                problems.append(f'{_axes_name(fig, _owner(fig, a))}: text "{_short(a.get_text(), 40)}" '
                                f'{"overlaps" if w > 1 and h > 1 else "touches"} text "{_short(b.get_text(), 40)}" '
                                f"({_axes_name(fig, _owner(fig, b))}; at least {MIN_TEXT_GAP:g} pt apart)")
    return problems


def _background(ax):
    from matplotlib.colors import to_rgba

    face, page = np.array(to_rgba(ax.patch.get_facecolor())), np.array(to_rgba(ax.figure.get_facecolor()))
    page = page[:3] * page[3] + (1 - page[3])
    return tuple(face[:3] * face[3] + page * (1 - face[3]))


def _line_colours(line) -> list[tuple[str, list]]:
    """(part, colours) of a Line2D: its line, and its markers (the best of face and edge counts)."""
    parts = []
    alpha = line.get_alpha()
    if line.get_linestyle() not in _NO_LINE and line.get_linewidth() > 0:
        parts.append(("line", [(line.get_color(), alpha)]))
    if str(line.get_marker()) not in _NO_LINE:
        marks = []
        if str(line.get_markerfacecolor()).lower() != "none":
            marks.append((line.get_markerfacecolor(), alpha))
        if line.get_markeredgewidth() > 0 and str(line.get_markeredgecolor()).lower() != "none":
            marks.append((line.get_markeredgecolor(), alpha))
        parts.append(("marker", marks))
    return parts


def _collection_colours(collection) -> list[tuple[str, list]]:
    from matplotlib.collections import LineCollection, PathCollection

    edges = [(tuple(c), None) for c in collection.get_edgecolors()] if np.any(collection.get_linewidths()) else []
    if isinstance(collection, LineCollection):
        return [("line", edges)] if edges else []
    if isinstance(collection, PathCollection):
        faces = [(tuple(c), None) for c in collection.get_facecolors()]
        return [("marker", faces + edges)] if faces or edges else []
    return []


def _contrast_problems(fig) -> list[str]:
    from matplotlib.colors import to_hex, to_rgba

    problems = []
    for ax in fig.axes:
        background = _background(ax)
        artists = [(a, _line_colours(a)) for a in ax.lines]
        artists += [(c, _collection_colours(c)) for c in ax.collections]
        artists += [(p, [("outline", [(p.get_edgecolor(), None)])]) for p in ax.patches
                    if not p.get_fill() and p.get_linewidth() > 0]
        for artist, parts in artists:
            if not artist.get_visible():
                continue
            for part, colours in parts:
                if not colours:
                    continue
                ratios = [contrast_ratio(to_rgba(c, a), background) for c, a in colours]
                if max(ratios) < MIN_CONTRAST:
                    worst = colours[int(np.argmax(ratios))][0]
                    problems.append(f'{_axes_name(fig, ax)}: "{_label(artist)}" {part} colour {to_hex(worst)} has '
                                    f"contrast {max(ratios):.2f}:1 with the background (at least {MIN_CONTRAST:g}:1)")
    return problems


def _label(artist) -> str:
    label = str(artist.get_label() or "")
    return _short(label) if label and not label.startswith("_") else f"unlabelled {type(artist).__name__}"


def _data_dims(transform, ax) -> tuple[bool, bool]:
    """Whether an artist's data transform maps x and y as the axes' data (axvline, axis-edge marks:
    one of them is in axes coordinates)."""
    pts = ax.transLimits.inverted().transform(np.array([[0.2, 0.3], [0.7, 0.9]]))
    own, data = transform.transform(pts), ax.transData.transform(pts)
    return bool(np.allclose(own[:, 0], data[:, 0])), bool(np.allclose(own[:, 1], data[:, 1]))


def _sample_points(artist, ax) -> tuple[np.ndarray, tuple[bool, bool]]:
    """Display coordinates that stand for an artist's data: a curve sampled evenly along its x
    extent, markers and bar corners as they are."""
    from matplotlib.collections import PathCollection, PolyCollection
    from matplotlib.image import AxesImage
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if isinstance(artist, Line2D):
        xy = artist.get_transform().transform(np.column_stack([np.asarray(artist.get_xdata(), float),
                                                               np.asarray(artist.get_ydata(), float)]))
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if artist.get_linestyle() not in _NO_LINE and len(xy) > 1 and np.ptp(xy[:, 0]) > 1:
            order = np.argsort(xy[:, 0], kind="stable")
            xs = np.linspace(xy[:, 0].min(), xy[:, 0].max(), _SAMPLES)
            xy = np.column_stack([xs, np.interp(xs, xy[order, 0], xy[order, 1])])
        return xy, _data_dims(artist.get_transform(), ax)
    if isinstance(artist, PathCollection):
        offsets = artist.get_offset_transform()
        return offsets.transform(np.ma.filled(np.ma.asarray(artist.get_offsets(), float), np.nan)), \
            _data_dims(offsets, ax)
    if isinstance(artist, PolyCollection):
        parts = [artist.get_transform().transform(p.vertices) for p in artist.get_paths()]
        return (np.concatenate(parts) if parts else np.empty((0, 2))), _data_dims(artist.get_transform(), ax)
    if isinstance(artist, Patch):
        return artist.get_transform().transform(artist.get_path().vertices), _data_dims(artist.get_data_transform(), ax)
    if isinstance(artist, AxesImage):
        x0, x1, y0, y1 = artist.get_extent()
        return ax.transData.transform([[x0, y0], [x1, y1]]), (True, True)
    return np.empty((0, 2)), (False, False)


def _intervals(ax) -> dict:
    """Per dimension (0: x, 1: y), the middle-90 % interval of each data artist of ``ax``, in axes fractions."""
    intervals = {0: [], 1: []}
    to_axes = ax.transAxes.inverted()
    for artist in _data_artists(ax):
        if not artist.get_visible():
            continue
        xy, dims = _sample_points(artist, ax)
        frac = to_axes.transform(xy) if len(xy) else np.empty((0, 2))
        frac = frac[np.all(np.isfinite(frac), axis=1)]
        frac = frac[np.all((frac > -0.02) & (frac < 1.02), axis=1)]
        for d in (0, 1):
            if dims[d] and len(frac):
                intervals[d].append(tuple(np.quantile(frac[:, d], [0.05, 0.95])))
    return intervals


def _span_problems(fig) -> list[str]:
    """Per axis: from the lowest 5th to the highest 95th percentile of the data artists' points (an
    axis shared between panels pools theirs; an axis of named categories, or data at one position
    only, has no span to use)."""
    from matplotlib.ticker import FixedFormatter

    problems = []
    checked = _checked_axes(fig)
    found = {id(ax): _intervals(ax) for ax in checked}
    for ax in checked:
        for d, name in ((0, "x"), (1, "y")):
            axis = ax.xaxis if d == 0 else ax.yaxis
            if isinstance(axis.get_major_formatter(), FixedFormatter):
                continue
            shared = (ax.get_shared_x_axes() if d == 0 else ax.get_shared_y_axes()).get_siblings(ax)
            spans = [iv for other in shared if id(other) in found for iv in found[id(other)][d]]
            if not spans:
                continue
            lo, hi = min(a for a, _ in spans), max(b for _, b in spans)
            length = (ax.bbox.width if d == 0 else ax.bbox.height) * (hi - lo)
            if hi - lo < MIN_SPAN and not (length < 2 and all(b - a < 1e-9 for a, b in spans)):
                scale = ax.get_xscale() if d == 0 else ax.get_yscale()
                problems.append(f"{_axes_name(fig, ax)}: the data use {100 * (hi - lo):.0f} % of the {name} axis "
                                f"({scale}; at least {100 * MIN_SPAN:.0f} %)")
    return problems


def _legend_problems(fig, render) -> list[str]:
    """Legends over drawn data, and labelled artists that hiding leaves the figure unchanged."""
    problems = []
    legends = _legends(fig)
    boxes = [(leg, leg.get_window_extent()) for leg in legends]
    with _hidden(legends + _furniture(fig)):
        base = render.pixels()
        with _hidden([a for ax in fig.axes for a in _data_artists(ax)]):
            empty = render.pixels()
        data = _changed(base, empty)
        height = data.shape[0]
        for leg, box in boxes:
            x0, x1 = max(int(box.x0), 0), int(np.ceil(box.x1))
            y0, y1 = max(height - int(np.ceil(box.y1)), 0), height - int(box.y0)
            covered = int(data[y0:y1, x0:x1].sum())
            if covered >= HANDFUL:
                problems.append(f"{_axes_name(fig, leg.axes) if leg.axes is not None else 'figure'}: the legend "
                                f"covers drawn data ({covered} pixels)")
        every = [a for ax in fig.axes for a in _data_artists(ax)]
        for ax in fig.axes:
            handles, labels = ax.get_legend_handles_labels()
            for handle, label in zip(handles, labels):
                parts = _children(handle, ax)
                with _hidden(parts):
                    moved = int(_changed(render.pixels(), base).sum())
                with _hidden([a for a in every if all(a is not p for p in parts)]):
                    alone = int(_changed(render.pixels(), empty).sum())
                if moved < HANDFUL or moved < _SEEN * alone:
                    problems.append(f'{_axes_name(fig, ax)}: "{_short(label)}" is not visible (hiding it changes '
                                    f"{moved} pixels of the {alone} it draws)")
    return problems + _proxy_problems(fig, legends)


def _marker_key(line) -> tuple:
    from matplotlib.markers import MarkerStyle

    style = MarkerStyle(line.get_marker())
    path = style.get_path().transformed(style.get_transform())
    return tuple(np.round(path.vertices, 3).ravel())


def _proxy_problems(fig, legends) -> list[str]:
    """Legend entries not made from a drawn artist: their marker (or line style) must be drawn somewhere."""
    from matplotlib.collections import PathCollection
    from matplotlib.lines import Line2D

    labelled = {label for ax in fig.axes for label in ax.get_legend_handles_labels()[1]}
    markers, styles = set(), set()
    for ax in fig.axes:
        for line in ax.lines:
            if line.get_visible() and len(line.get_xdata()):
                if str(line.get_marker()) not in _NO_LINE:
                    markers.add(_marker_key(line))
                if line.get_linestyle() not in _NO_LINE:
                    styles.add(line.get_linestyle())
        for coll in ax.collections:
            if isinstance(coll, PathCollection) and coll.get_visible() and len(coll.get_offsets()):
                markers.update(tuple(np.round(p.vertices, 3).ravel()) for p in coll.get_paths())
    problems = []
    for leg in legends:
        for handle, text in zip(leg.legend_handles, leg.get_texts()):
            if text.get_text() in labelled or not isinstance(handle, Line2D):
                continue
            has_marker = str(handle.get_marker()) not in _NO_LINE
            has_line = handle.get_linestyle() not in _NO_LINE
            if (has_marker and _marker_key(handle) not in markers) or (has_line and not has_marker
                                                                       and handle.get_linestyle() not in styles):
                where = _axes_name(fig, leg.axes) if leg.axes is not None else "figure"
                problems.append(f'{where}: legend entry "{_short(text.get_text())}" shows a marker or line '
                                "style that nothing drawn has")
    return problems


def check_figure(fig) -> list[str]:
    """The problems of a figure a reviewer would send back, one a line (module docstring).

    The figure is drawn at ``savefig.dpi`` (several times: once per labelled artist) and left as
    it was; its layout engine is held still while artists are hidden.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A laid-out figure, as it is about to be saved.

    Returns
    -------
    list of str
        One line per problem, naming the axes (``axes 2 "(c) calibrated θ"``) and the artist
        (its label or text); empty when there is none.

    Raises
    ------
    ArgumentTypeError
        ``fig`` is not a matplotlib figure.
    """
    from matplotlib.figure import Figure

    from pufferfish.checks import instance

    instance(fig, Figure, name="fig")
    render = _Render(fig)
    try:
        renderer = fig.canvas.get_renderer()
        problems = _text_problems(fig, render.texts, renderer)
        problems += _contrast_problems(fig)
        problems += _span_problems(fig)
        problems += _legend_problems(fig, render)
    finally:
        render.close()
    return list(dict.fromkeys(problems))


# ------------------------------------------------------------------------------ the records of a run
def _record_name(png_path) -> str:
    return os.path.abspath(png_path).strip(os.sep).replace(os.sep, "__") + ".txt"


def record_check(fig, png_path) -> list[str]:
    """When :data:`SWITCH` names a directory: check ``fig`` and write its problems there, first the
    figure's path, then one problem a line. Returns the problems (none when the check is off).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure about to be saved.
    png_path : str or os.PathLike
        Where its PNG goes (names the record).

    Returns
    -------
    list of str

    Raises
    ------
    OutputError
        The record cannot be written.
    """
    from pufferfish.files import atomic_path

    directory = os.environ.get(SWITCH, "")
    if not directory or directory == "0":
        return []
    problems = check_figure(fig)
    target = Path(directory) / _record_name(png_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(target) as tmp:
        Path(tmp).write_text("\n".join([os.path.abspath(png_path), *problems]) + "\n", encoding="utf-8")
    return problems


def summarize(records, figures=None) -> tuple[int, list[str]]:
    """Read the records of a run: (figures checked, problems); a PNG under ``figures`` without a
    record is a problem (drawn without the check).

    Parameters
    ----------
    records : str or os.PathLike
        The directory :data:`SWITCH` named.
    figures : str or os.PathLike, optional
        The run's figure directory (every ``*.png`` under it must have a record).

    Returns
    -------
    tuple of (int, list of str)

    Raises
    ------
    OSError
        A directory that cannot be read.
    """
    base = Path(figures).resolve().parent.parent if figures is not None else None

    def shown(path: Path) -> str:     # results/figures/... when the run's directory is known
        return path.relative_to(base).as_posix() if base is not None and path.is_relative_to(base) else str(path)

    checked, problems, seen = 0, [], set()
    for record in sorted(Path(records).glob("*.txt")):
        png, *found = record.read_text(encoding="utf-8").splitlines() or [""]
        checked, png = checked + 1, Path(png).resolve()
        seen.add(png)
        problems += [f"{shown(png)}: {line}" for line in found if line.strip()]
    if figures is not None:
        problems += [f"{shown(png)}: drawn without the figure check"
                     for png in sorted(Path(figures).resolve().rglob("*.png")) if png not in seen]
    return checked, problems


def main(argv=None) -> int:
    """``python -m pufferfish.figure_check RECORDS [FIGURES]``: print every problem, then
    ``figures checked: N, problems: M``; exit 1 unless M = 0 and N > 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not 1 <= len(args) <= 2:
        print("error: usage: python -m pufferfish.figure_check RECORDS [FIGURES]", file=sys.stderr)
        return 2
    checked, problems = summarize(args[0], args[1] if len(args) == 2 else None)
    print("\n".join([*problems, f"figures checked: {checked}, problems: {len(problems)}"]))
    return 0 if checked and not problems else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""The report's front page: the shared frame, with the section of each paper the run runs.

Snakemake's ``report:`` directive takes the path of one reStructuredText file, a Jinja
template it renders with the run's ``snakemake.config``. The frame
(``workflow/report/workflow.rst``) holds what every run shows, and three markers, Jinja
comments (so the frame renders on its own), that :func:`front_page` replaces:

* ``{# papers: titles #}``: one bullet per paper, its ``title``;
* ``{# papers: sections #}``: each paper's section (its declaration's ``report`` file: the
  ``#.`` items of "How the results are made" for its rules);
* ``{# papers: categories #}``: one bullet naming the papers' categories of figures.

The workflow writes the page when it loads (:func:`write_front_page`), under the working
directory's ``.snakemake/``, and points ``report:`` at it: a run of some papers shows only theirs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = ["MARKERS", "front_page", "write_front_page"]

#: the frame's markers, replaced by the papers' titles, sections and categories
MARKERS = ("{# papers: titles #}", "{# papers: sections #}", "{# papers: categories #}")


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def front_page(frame: str, papers: Sequence[tuple[str, str]]) -> str:
    """The front page of a run of ``papers``: ``frame`` with each marker of :data:`MARKERS` replaced.

    Parameters
    ----------
    frame : str
        The shared frame (reStructuredText and Jinja), holding each marker once on a line of its own.
    papers : sequence of (str, str)
        Per paper, in the papers' order: its title and its section's text.

    Returns
    -------
    str
        The page; with no paper, the markers' lines are left out.

    Raises
    ------
    ValueError
        A marker is not on a line of its own in ``frame`` (the frame's mistake).
    """
    titles = [title for title, _ in papers]
    parts = ("\n".join(f"* {title}" for title in titles),
             "\n".join(section.rstrip("\n") for _, section in papers),
             f"* {_and([f'**{t}**' for t in titles])}: the figures, each with a caption that states what is "
             "drawn, from which configuration and data, and what the exact audit found." if titles else "")
    lines = frame.splitlines()
    for marker, text in zip(MARKERS, parts):
        if lines.count(marker) != 1:
            raise ValueError(f"the report's frame needs the line {marker!r} once")
        k = lines.index(marker)
        lines[k:k + 1] = text.splitlines()
    return "\n".join(lines) + "\n"


def write_front_page(frame: str | Path, sections: Sequence[tuple[str, str | Path]], out: str | Path) -> Path:
    """Write the :func:`front_page` of the frame file ``frame`` and the papers' ``(title, section
    file)`` to ``out`` (only when its text changes) and return ``out``'s absolute path.

    Raises
    ------
    OSError
        A file cannot be read; :class:`~pufferfish.errors.OutputError` when ``out`` cannot be
        written (naming it).
    """
    from pufferfish.files import atomic_path

    text = front_page(Path(frame).read_text(encoding="utf-8"),
                      [(title, Path(path).read_text(encoding="utf-8")) for title, path in sections])
    out = Path(out).absolute()
    if not out.is_file() or out.read_text(encoding="utf-8") != text:
        with atomic_path(out) as tmp:
            tmp.write_text(text, encoding="utf-8")
    return out

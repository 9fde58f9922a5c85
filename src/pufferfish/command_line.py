"""What the subcommands of ``pufferfish`` share: argument types, progress lines and the output formats.

Each paper adds its own subcommands (:class:`pufferfish.papers.Command`, in the paper's
package); :mod:`pufferfish.cli` is the command's skeleton that adds them. A subcommand reads
its numbers with the argument types here (a bad value ends in one line naming the option),
reports progress on long work with :class:`Progress`, and prints its rows with
:func:`render` (an aligned table under a header, CSV or JSON).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence

__all__ = ["FORMATS", "DEFAULT_DELTA", "DEFAULT_ALPHA", "PROGRESS_AFTER", "number", "epsilon", "delta", "alpha",
           "Progress", "render"]

#: ``--format`` values
FORMATS = ("table", "csv", "json")
#: defaults of delta and alpha (those of the secret pairs config.yaml compares)
DEFAULT_DELTA = 1e-5
DEFAULT_ALPHA = 2.0
#: progress lines start when the work has taken this long (seconds), or at once on a terminal
PROGRESS_AFTER = 1.0
#: the columns :func:`render` aligns to the right as numbers
NUMBERS = ("epsilon", "delta", "alpha", "scale", "achieved", "eta", "secret_index", "sigma", "exact_delta",
           "exact_renyi", "exact", "exact_sigma")


def number(text: str, *, name: str, **bounds) -> float:
    """``text`` as a finite number within ``bounds`` (those of :func:`pufferfish.checks.real`), for
    an argparse ``type``; otherwise an ``argparse.ArgumentTypeError`` naming the option ``name``."""
    from pufferfish.checks import real

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name} = {text!r}: not a number") from None
    try:
        return real(value, name=name, **bounds)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def epsilon(text: str) -> float:
    """``--epsilon``: a number > 0."""
    return number(text, name="--epsilon", lo=0.0, lo_open=True)


def delta(text: str) -> float:
    """``--delta``: a number in (0, 1)."""
    return number(text, name="--delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)


def alpha(text: str) -> float:
    """``--alpha``: a Renyi order > 1."""
    return number(text, name="--alpha", lo=1.0, lo_open=True)


class Progress:
    """``<what> k/n: ...`` lines on stderr (``pair 3/45: a vs b``), at once on a terminal, else
    once the work has taken :data:`PROGRESS_AFTER` seconds (a single step prints nothing)."""

    def __init__(self, total: int, stream=None, *, what: str = "pair"):
        self.total, self.stream, self.start, self.what = total, stream or sys.stderr, time.monotonic(), what
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def step(self, k: int, text: str) -> None:
        if self.total > 1 and (self.tty or time.monotonic() - self.start > PROGRESS_AFTER):
            print(f"{self.what} {k}/{self.total}: {text}", file=self.stream, flush=True)


def render(frame, header: str, fmt: str, columns: Sequence[str]) -> str:
    """``frame`` as CSV or a JSON list of records (exactly ``columns``), or as an aligned table
    under ``header`` (text left, numbers right; a ``note`` such as which paper-000 method is the
    best one follows the method's name)."""
    columns = list(columns)
    if fmt == "csv":
        return frame[columns].to_csv(index=False, lineterminator="\n")
    if fmt == "json":
        records = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
                   for r in frame[columns].astype(object).to_dict("records")]
        return json.dumps(records, indent=1, default=_plain) + "\n"
    cells = []
    for row in frame.to_dict("records"):
        # a note "= <method>" (which paper-000 method is the best) goes beside the method
        parts = [n for n in str(row.get("note") or "").split("; ") if n]
        notes = [next((n for n in parts if n.startswith("= ")), "")] + [n for n in parts if not n.startswith("= ")]
        line = []
        for column in columns:
            value = row[column]
            if column in NUMBERS:
                line.append("" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.6g}")
            elif column == "meets_target":
                line.append("" if value is None else ("yes" if value else "NO"))
            elif column == "method" and notes[0]:
                line.append(f"{value} ({notes[0]})")
            else:
                line.append(str(value))
        cells.append(line + ["; ".join(notes[1:])])
    names = columns + (["note"] if any(line[-1] for line in cells) else [])
    widths = [max(len(c), *(len(line[k]) for line in cells)) for k, c in enumerate(names)]

    def text(line):
        return "  ".join(v.rjust(w) if names[k] in NUMBERS else v.ljust(w)
                         for k, (v, w) in enumerate(zip(line, widths))).rstrip()

    return "\n".join([header, "", text(names), *map(text, cells)]) + "\n"


def _plain(value):
    """numpy scalars as Python numbers for json."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{value!r} is not JSON serializable")

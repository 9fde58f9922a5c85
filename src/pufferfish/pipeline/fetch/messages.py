"""The words of the download errors: one line whatever the cause, long lists shortened."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["one_line", "abbreviate", "byte_size"]


def one_line(value) -> str:
    """``str(value)`` with every run of white space (line breaks too) made one space.

    Parameters
    ----------
    value : object
        An error, a reason, a message.

    Returns
    -------
    str
        One line.
    """
    return " ".join(str(value).split())


def abbreviate(items: Iterable, limit: int = 40) -> str:
    """``[a, b, ...]``: the first ``limit`` items, then ``...`` if there are more.

    Parameters
    ----------
    items : iterable
        The items (shown with ``str``).
    limit : int
        How many are shown.

    Returns
    -------
    str
        The bracketed list.
    """
    items = [str(item) for item in items]
    shown = ", ".join(items[:limit])
    return f"[{shown}{', ...' if len(items) > limit else ''}]"


def byte_size(count: int) -> str:
    """``count`` bytes in words: ``1073741824 bytes (1 GiB)``; the unit only when it is exact.

    Parameters
    ----------
    count : int
        A number of bytes.

    Returns
    -------
    str
        The count, with its KiB, MiB or GiB when it is a whole number of them.
    """
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count} bytes ({count >> shift} {unit})"
    return f"{count} bytes"

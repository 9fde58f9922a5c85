"""The table of a download: the bytes parsed with ``pandas.read_csv``, checked against the spec
(exactly ``rows`` rows, every name of ``columns``; nothing cleaned or dropped), and the CSV
written of it checked to read back the same."""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from pufferfish.errors import ConfigError, DataError
from pufferfish.pipeline.fetch.messages import abbreviate, one_line

__all__ = ["parse_csv", "check_table", "check_round_trip"]


def parse_csv(data: bytes | str | os.PathLike, *, read_csv: Mapping | None = None, dataset: str = "?",
              where: str = "data") -> pd.DataFrame:
    """Parse ``data`` with ``pandas.read_csv(**read_csv)`` (no options: as ucimlrepo does).

    Parameters
    ----------
    data : bytes or str or os.PathLike
        The CSV bytes, or the file holding them (read as an open binary file, exactly as
        the same bytes in memory would be: no compression is guessed from its name).
    read_csv : collections.abc.Mapping, optional
        Options of :func:`pandas.read_csv` (none: pandas' defaults).
    dataset : str
        The dataset's key (in messages).
    where : str
        What the bytes are (in messages).

    Returns
    -------
    pandas.DataFrame
        The parsed table.

    Raises
    ------
    ConfigError
        An option :func:`pandas.read_csv` does not take.
    DataError
        The bytes do not parse.
    OSError
        The file cannot be read.
    """
    options = dict(read_csv or {})
    try:
        if isinstance(data, (bytes, bytearray)):
            return pd.read_csv(io.BytesIO(data), **options)
        with open(data, "rb") as handle:
            return pd.read_csv(handle, **options)
    except TypeError as err:
        raise ConfigError(f"dataset {dataset}: datasets.{dataset}.read_csv: {one_line(err)}") from err
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as err:
        raise DataError(f"dataset {dataset}: cannot parse {where} as CSV ({one_line(err)})") from err


def check_table(dataset: str, frame: pd.DataFrame, *, rows: int, columns: Sequence[str]) -> None:
    """Refuse (``DataError``) a table without exactly ``rows`` rows or lacking one of ``columns``.

    Parameters
    ----------
    dataset : str
        The dataset's key (in messages).
    frame : pandas.DataFrame
        The parsed table.
    rows : int
        The number of rows expected.
    columns : sequence of str
        Columns that must be present.

    Returns
    -------
    None
        The table passed.

    Raises
    ------
    DataError
        Other than ``rows`` rows, or a column of ``columns`` missing.
    """
    found = [str(c) for c in frame.columns]
    missing = [c for c in columns if c not in found]
    if missing:
        raise DataError(f"dataset {dataset}: columns {abbreviate(missing)} not found "
                        f"(expected {abbreviate(columns)}; found {abbreviate(found)})")
    if len(frame) != rows:
        raise DataError(f"dataset {dataset}: expected {rows} rows, found {len(frame)}")


def check_round_trip(dataset: str, frame: pd.DataFrame, path: str | os.PathLike) -> None:
    """Refuse (``DataError``) the CSV ``path`` if ``pd.read_csv`` would not read it back as ``frame``.

    Parameters
    ----------
    dataset : str
        The dataset's key (in messages).
    frame : pandas.DataFrame
        The table parsed.
    path : str or os.PathLike
        The CSV written of it (``to_csv(index=False)``).

    Returns
    -------
    None
        It reads back as ``frame``, value for value.

    Raises
    ------
    DataError
        It does not (e.g. text ``"NaN"`` kept by ``keep_default_na: false`` reads back as missing).
    """
    try:
        pd.testing.assert_frame_equal(pd.read_csv(Path(path)), frame, check_exact=True)
    except AssertionError as err:
        raise DataError(f"dataset {dataset}: the CSV written would not read back as the table parsed "
                        f"({one_line(err)}); check datasets.{dataset}.read_csv") from err

"""Reader of the data users' provenance records, for the experiments' figure titles (paper 000).

The workflow calls it when it builds its DAG, so it imports nothing but the standard library
(not the lattice engine, which :mod:`pufferfish.multiuser.experiments` loads).
"""

from __future__ import annotations

import json

__all__ = ["read_user_records"]


def read_user_records(paths) -> list[dict]:
    """The provenance JSONs of data-derived users, in the order given.

    Parameters
    ----------
    paths : iterable of path-like
        The JSON files.

    Returns
    -------
    list of dict

    Raises
    ------
    OSError, ValueError
        A file that cannot be read or is not JSON.
    """
    records = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            records.append(json.load(handle))
    return records

"""The ``ucimlrepo`` source: UCI's standardized ``data.csv`` of a dataset id, the file
``ucimlrepo.fetch_ucirepo`` reads, its URL resolved through UCI's API as ``fetch_ucirepo`` does.

``fetch_ucirepo`` itself is not called: it hands the URL straight to ``pandas.read_csv``, so
the bytes could not be hashed, pinned, capped or written atomically, a stalled connection
would hang (no timeout), its errors name neither dataset nor URL, and it cannot read a
mirror. The same two requests are made here by :mod:`.network`, under its timeouts.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping

from ucimlrepo.fetch import API_BASE_URL, DATASET_FILE_BASE_URL

from pufferfish.errors import DownloadError
from pufferfish.pipeline.fetch.messages import one_line
from pufferfish.pipeline.fetch.network import Timeouts, read_url

__all__ = ["API_MAX_BYTES", "ucimlrepo_data_url", "mirrored_data_url"]

log = logging.getLogger(__name__)

#: the most bytes of UCI's API answer read (it is a few kilobytes of JSON)
API_MAX_BYTES = 1 << 22


def mirrored_data_url(uci_id: int) -> str:
    """The URL a mirror holds the ``data.csv`` of ``uci_id`` under (``static/public/<id>/data.csv``).

    Parameters
    ----------
    uci_id : int
        The UCI dataset id.

    Returns
    -------
    str
        The URL, under UCI's site.
    """
    return f"{DATASET_FILE_BASE_URL}/{int(uci_id)}/data.csv"


def ucimlrepo_data_url(uci_id: int, *, dataset: str, timeouts: Timeouts | None = None) -> str:
    """Ask UCI's API for the ``data.csv`` URL of dataset ``uci_id``, as ``fetch_ucirepo`` does.

    Parameters
    ----------
    uci_id : int
        The UCI dataset id.
    dataset : str
        The dataset's key (in messages).
    timeouts : Timeouts, optional
        The limits of the request (``None``: :meth:`Timeouts.from_env`).

    Returns
    -------
    str
        The URL of the dataset's ``data.csv``.

    Raises
    ------
    DownloadError
        UCI cannot be reached in time, does not answer with JSON, answers with more than
        :data:`API_MAX_BYTES`, or has no such dataset or file.
    """
    api_url = f"{API_BASE_URL}?id={int(uci_id)}"
    answer = read_url(api_url, dataset=dataset, max_bytes=API_MAX_BYTES, timeouts=timeouts)
    try:
        reply = json.loads(answer)
        status, metadata = reply.get("status"), reply.get("data")
    except (ValueError, AttributeError) as err:
        raise DownloadError(f"dataset {dataset}: {api_url} did not answer with JSON ({one_line(err)})") from err
    if status != 200 or not isinstance(metadata, Mapping):
        message = reply.get("message") or "dataset not found in repository"
        raise DownloadError(f"dataset {dataset}: UCI has no dataset with id {uci_id} ({one_line(message)}; {api_url})")
    data_url = metadata.get("data_url")
    if not data_url or not isinstance(data_url, str):
        raise DownloadError(f"dataset {dataset}: UCI dataset id {uci_id} has no data.csv to import ({api_url})")
    log.info("dataset %s: UCI id %s resolves to %s", dataset, uci_id, data_url)
    return data_url

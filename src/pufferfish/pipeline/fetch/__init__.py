"""Obtain the UCI datasets of ``config.yaml``: download or offline mirror, in bounded memory,
capped, verified, recorded.

A dataset spec (a value of ``config["datasets"]``) names where the bytes come from:
``source: ucimlrepo`` (UCI's standardized ``data.csv`` of ``uci_id``, the file
``ucimlrepo.fetch_ucirepo`` reads, its URL resolved through UCI's API as ``fetch_ucirepo``
does, parsed with ``pandas.read_csv``: :mod:`.ucimlrepo_api`) or ``source: archive`` (the
``member`` of the zip at ``url``, or a list of names for a member of a zip inside the zip,
parsed with ``pandas.read_csv(**spec["read_csv"])``: :mod:`.archive`). The table is then
checked against the spec: exactly ``rows`` rows and every name of ``columns``; nothing is
cleaned or dropped here (:mod:`.table`).

Bounded memory: every body, mirror file and archive member is streamed in chunks to a
scratch directory beside the cache, hashed and counted on the way (:mod:`.stream`); none
may hold more than the dataset's ``max_bytes`` (default 1 GiB), counted on the bytes
received; a member whose archive declares more, or a compression ratio above 100, is
refused before a byte of it is extracted (the zip-bomb check). The network has a connect
timeout, a read timeout and a total deadline (:mod:`.network`).

Checksums (:mod:`.record`): a ``sha256`` in the spec pins the bytes parsed; without one an
archive member's hash is recorded at its first download in ``data/raw/<dataset>.sha256.json``
and every later download must match it. If ``UCI_MIRROR`` names a directory laid out like
the UCI site, ``https://archive.ics.uci.edu/<path>`` is read from ``$UCI_MIRROR/<path>``
and the network is never touched (:mod:`.mirror`). The user's guide:
docs/for-researchers.md, "Archive members", and docs/getting-started.md, "Offline use" and
"Download limits".

Every file is written atomically (:mod:`pufferfish.files`) and only after every check has
passed (:mod:`.dataset`). The errors a user can fix are
:class:`~pufferfish.errors.DownloadError`, :class:`~pufferfish.errors.DataError` and
:class:`~pufferfish.errors.ConfigError`, each one line starting with ``dataset <name>:``.
Names are imported on first use.
"""

from pufferfish._lazy import attach

_EXPORTS = {
    **dict.fromkeys(["download", "fetch_dataset"], "pufferfish.pipeline.fetch.dataset"),
    **dict.fromkeys(["Provenance", "record_path_for", "read_recorded_sha256"], "pufferfish.pipeline.fetch.record"),
    **dict.fromkeys(["member_path", "describe_member", "MAX_RATIO"], "pufferfish.pipeline.fetch.archive"),
    **dict.fromkeys(["DEFAULT_MAX_BYTES", "SizeCap", "sha256_hex"], "pufferfish.pipeline.fetch.stream"),
    **dict.fromkeys(["MIRROR_ENV", "UCI_SITE", "mirror_from_env", "mirror_path"], "pufferfish.pipeline.fetch.mirror"),
    **dict.fromkeys(["NETWORK", "TIMEOUTS_ENV", "Timeouts"], "pufferfish.pipeline.fetch.network"),
    **dict.fromkeys(["ucimlrepo_data_url"], "pufferfish.pipeline.fetch.ucimlrepo_api"),
    **dict.fromkeys(["parse_csv", "check_table"], "pufferfish.pipeline.fetch.table"),
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("archive", "dataset", "messages", "mirror", "network", "record",
                                                   "stream", "table", "ucimlrepo_api"))

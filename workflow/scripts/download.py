"""Snakemake script of rule ``download``: one dataset into data/raw/ (see :mod:`pufferfish.pipeline.fetch`).

Reads ``$UCI_MIRROR`` if set (no network then), else downloads from archive.ics.uci.edu under
the timeouts of ``$PUFFERFISH_DOWNLOAD_TIMEOUTS`` (or the defaults); the spec's ``max_bytes`` caps it.
"""

from pufferfish.pipeline.jobs import run
from pufferfish.pipeline.fetch import download


def main(smk):
    download(smk.wildcards.dataset, smk.params.spec, csv_path=smk.output.csv, json_path=smk.output.json)


run(main, snakemake)  # noqa: F821 - injected by Snakemake

# rules: download. data/raw/{dataset}.csv (the table as read) and data/raw/{dataset}.json
# (its provenance) for every key of config["datasets"]; the work is pufferfish.pipeline.fetch,
# in bounded memory: the bytes stream through a scratch directory in data/raw/, capped by the
# dataset's max_bytes (docs/getting-started.md, "Download limits").
# Offline: UCI_MIRROR=/path/to/mirror (README). It is not a param, nor is
# PUFFERFISH_DOWNLOAD_TIMEOUTS, so switching between the mirror and the network, or changing
# the timeouts, does not re-run the job; a change of the dataset's spec does.


# on a cluster, download on the submit host (compute nodes often have no internet)
localrules:
    download,


rule download:
    output:
        csv="data/raw/{dataset}.csv",
        json="data/raw/{dataset}.json",
    log:
        "results/logs/download/{dataset}.log",
    wildcard_constraints:
        dataset="|".join(sorted(config["datasets"])),
    params:
        code=FETCH_CODE,
        spec=lambda w: config["datasets"][w.dataset],
    script:
        "../scripts/download.py"


TARGETS.extend(
    expand(
        "data/raw/{dataset}.{ext}",
        dataset=sorted(config["datasets"]),
        ext=["csv", "json"],
    )
)

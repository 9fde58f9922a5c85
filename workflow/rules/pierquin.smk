# Renyi pufferfish privacy (paper 002, Pierquin et al., ICML 2024): Table 1 from config
# `pierquin.settings`. Per setting, the conditional priors of the released attribute given
# each secret value (results/priors/pierquin_<setting>.*) and their figure; over all
# settings, the sensitivities of every secret pair (results/theta/pierquin_table1.csv).
# The work is in pufferfish.pipeline.conditionals and pufferfish.wasserstein.table1.
from pufferfish.pipeline.conditionals import read_priors_record, read_table1_rows

PIERQUIN = (config.get("pierquin") or {}).get("settings", {})
PIERQUIN_CATEGORY = "Renyi pufferfish privacy (paper 002)"


rule pierquin_conditionals:
    input:
        csv=lambda w: raw_csv(PIERQUIN[w.setting]["dataset"]),
        json=lambda w: raw_json(PIERQUIN[w.setting]["dataset"]),
    output:
        csv="results/priors/pierquin_{setting}.csv",
        json="results/priors/pierquin_{setting}.json",
    params:
        code=CODE,
        spec=lambda w: PIERQUIN[w.setting],
    log:
        "results/logs/pierquin_conditionals/{setting}.log",
    wildcard_constraints:
        setting=alternatives(PIERQUIN),
    script:
        "../scripts/pierquin_conditionals.py"


rule pierquin_table1:
    input:
        priors=[f"results/priors/pierquin_{s}.json" for s in PIERQUIN],  # in config order
    output:
        report(
            "results/theta/pierquin_table1.csv",
            caption="../report/pierquin_table1.rst",
            category=PIERQUIN_CATEGORY,
            labels={"table": "pierquin_table1"},
        ),
    params:
        code=CODE,
        settings=PIERQUIN,
    log:
        "results/logs/pierquin_table1/pierquin_table1.log",
    script:
        "../scripts/pierquin_table1.py"


rule pierquin_figure:
    input:
        priors="results/priors/pierquin_{setting}.json",
        table="results/theta/pierquin_table1.csv",
    output:
        png=report(
            "results/figures/pierquin/{setting}.png",
            caption="../report/pierquin_figure.rst",
            category=PIERQUIN_CATEGORY,
            labels={"figure": "{setting}"},
        ),
        pdf="results/figures/pierquin/{setting}.pdf",
        csv="results/figures/pierquin/{setting}.csv",
    params:
        code=CODE,
        spec=lambda w: PIERQUIN[w.setting],
        # read when the job runs (the caption lists the rows and the sensitivities)
        record=lambda w, input: read_priors_record(input.priors),
        rows=lambda w, input: read_table1_rows(input.table, w.setting),
    log:
        "results/logs/pierquin_figure/{setting}.log",
    wildcard_constraints:
        setting=alternatives(PIERQUIN),
    script:
        "../scripts/pierquin_figure.py"


if PIERQUIN:
    TARGETS.append("results/theta/pierquin_table1.csv")
    TARGETS.extend(expand("results/priors/pierquin_{setting}.{ext}", setting=list(PIERQUIN), ext=["csv", "json"]))
    TARGETS.extend(expand("results/figures/pierquin/{setting}.{ext}", setting=list(PIERQUIN), ext=["png", "pdf", "csv"]))

# Renyi pufferfish privacy (paper 002, Pierquin et al., ICML 2024): Table 1 from config
# `pierquin.settings`. Per setting, the conditional priors of the released attribute given
# each secret value (results/priors/pierquin_<setting>.*) and their figure (one job); over all
# settings, the sensitivities of every secret pair (results/theta/pierquin_table1.csv).
# The work is in pufferfish.wasserstein.conditionals and pufferfish.wasserstein.table1.
from pufferfish.wasserstein.conditionals import read_priors_record, setting_table1_rows

PIERQUIN = (config.get("pierquin") or {}).get("settings", {})
PIERQUIN_CATEGORY = "Renyi pufferfish privacy (paper 002)"


# One job per setting: the conditional priors and their figure (paper 002, Appendix F, Figs. 2-4).
rule pierquin_conditionals:
    input:
        csv=lambda w: raw_csv(PIERQUIN[w.setting]["dataset"]),
        json=lambda w: raw_json(PIERQUIN[w.setting]["dataset"]),
    output:
        csv="results/priors/pierquin_{setting}.csv",
        json="results/priors/pierquin_{setting}.json",
        png=report(
            "results/figures/pierquin/{setting}.png",
            caption="../report/pierquin_figure.rst",
            category=PIERQUIN_CATEGORY,
            labels={"figure": "{setting}"},
        ),
        pdf="results/figures/pierquin/{setting}.pdf",
        fig_csv="results/figures/pierquin/{setting}.csv",
    params:
        code=CODE,
        spec=lambda w: PIERQUIN[w.setting],
        # for the caption, from this job's own record once it exists (a param derived from an
        # output never triggers a rerun): the rows and the setting's rows of Table 1
        record=lambda w, output: once_written(output.json, read_priors_record, {}),
        rows=lambda w, output: once_written(output.json, setting_table1_rows, []),
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


if PIERQUIN:
    TARGETS.append("results/theta/pierquin_table1.csv")
    TARGETS.extend(expand("results/priors/pierquin_{setting}.{ext}", setting=list(PIERQUIN), ext=["csv", "json"]))
    TARGETS.extend(expand("results/figures/pierquin/{setting}.{ext}", setting=list(PIERQUIN), ext=["png", "pdf", "csv"]))

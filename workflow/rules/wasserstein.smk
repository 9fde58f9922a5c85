# Renyi pufferfish privacy (paper 002, Pierquin et al., ICML 2024): Table 1 from config
# `wasserstein.settings`. Per setting, the conditional priors of the released attribute given
# each secret value (results/priors/wasserstein_<setting>.*) and their figure (one job); over all
# settings, the sensitivities of every secret pair (results/theta/wasserstein_table1.csv).
# The work is in pufferfish.wasserstein.conditionals and pufferfish.wasserstein.table1.
from pufferfish.wasserstein.conditionals import read_priors_record, setting_table1_rows
from pufferfish.wasserstein.captions import table1_printed

WASSERSTEIN = config["wasserstein"].get("settings", {})
WASSERSTEIN_CATEGORY = "Renyi pufferfish privacy (paper 002)"


# One job per setting: the conditional priors and their figure (paper 002, Appendix F, Figs. 2-4).
rule wasserstein_conditionals:
    input:
        csv=lambda w: raw_csv(WASSERSTEIN[w.setting]["dataset"]),
        json=lambda w: raw_json(WASSERSTEIN[w.setting]["dataset"]),
    output:
        csv="results/priors/wasserstein_{setting}.csv",
        json="results/priors/wasserstein_{setting}.json",
        png=report(
            "results/figures/wasserstein/{setting}.png",
            caption="../report/wasserstein_figure.rst",
            category=WASSERSTEIN_CATEGORY,
            labels={"figure": "{setting}"},
        ),
        pdf="results/figures/wasserstein/{setting}.pdf",
        fig_csv="results/figures/wasserstein/{setting}.csv",
    log:
        "results/logs/wasserstein_conditionals/{setting}.log",
    wildcard_constraints:
        setting=alternatives(WASSERSTEIN),
    group:
        "pufferfish"
    params:
        code=CODE,
        spec=lambda w: WASSERSTEIN[w.setting],
        # for the caption, from this job's own record once it exists (a param derived from an
        # output never triggers a rerun): the rows and the setting's rows of Table 1
        record=lambda w, output: once_written(output.json, read_priors_record, {}),
        rows=lambda w, output: once_written(output.json, setting_table1_rows, []),
        # the values the paper's Table 1 prints for the setting (workflow/report/paper_values/wasserstein.yaml)
        printed=lambda w: table1_printed(f"{workflow.basedir}/workflow/report/paper_values/wasserstein.yaml", w.setting),
    script:
        "../scripts/wasserstein_conditionals.py"


rule wasserstein_table1:
    input:
        priors=[f"results/priors/wasserstein_{s}.json" for s in WASSERSTEIN],  # in config order
    output:
        report(
            "results/theta/wasserstein_table1.csv",
            caption="../report/wasserstein_table1.rst",
            category=WASSERSTEIN_CATEGORY,
            labels={"table": "wasserstein_table1"},
        ),
    log:
        "results/logs/wasserstein_table1/wasserstein_table1.log",
    group:
        "pufferfish"
    params:
        code=CODE,
        settings=WASSERSTEIN,
    script:
        "../scripts/wasserstein_table1.py"


if WASSERSTEIN:
    TARGETS.append("results/theta/wasserstein_table1.csv")
    TARGETS.extend(expand("results/priors/wasserstein_{setting}.{ext}", setting=list(WASSERSTEIN), ext=["csv", "json"]))
    TARGETS.extend(
        expand("results/figures/wasserstein/{setting}.{ext}", setting=list(WASSERSTEIN), ext=["png", "pdf", "csv"])
    )

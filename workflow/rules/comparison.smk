# Which noise for my secret pair? Every registered mechanism (papers 000 and 002, the tight
# scales of every noise family) on each pair of config `comparison.pairs`, every scale audited
# exactly; one job per pair (its rows, its audit table, its figure), then the table. The work
# is in pufferfish.comparison.
from pufferfish.comparison.experiments import pair_caption, pair_config, pair_inputs, slug

COMPARISON = config["comparison"]  # the validated mapping
COMPARISON_PAIRS = {slug(p): p for p in COMPARISON["pairs"]}
# the per-pair result tables (the figure's data) are not in the audit schema: the pairs' audit
# rows, in the shared schema, are results/audit/comparison_<pair>.csv
NOT_IN_AUDIT_SCHEMA.append("results/audit/noise_comparison/")


rule comparison_pair:
    input:
        # the priors the pair reads: its experiment's data users, or its Table 1 setting's conditionals
        unpack(lambda w: pair_inputs(COMPARISON_PAIRS[w.pair], config, SETTINGS.multiuser)),
    output:
        rows="results/audit/noise_comparison/{pair}.csv",
        audit="results/audit/comparison_{pair}.csv",
        png=report(
            "results/figures/comparison/{pair}.png",
            caption="../report/comparison_pair.rst",
            category="Which noise for my secret pair?",
            labels={"pair": "{pair}"},
        ),
        pdf="results/figures/comparison/{pair}.pdf",
        csv="results/figures/comparison/{pair}.csv",
    log:
        "results/logs/comparison_pair/{pair}.log",
    wildcard_constraints:
        pair=alternatives(COMPARISON_PAIRS),
    group:
        "pufferfish"
    params:
        code=CODE,
        pair=lambda w: COMPARISON_PAIRS[w.pair],
        # only what the pair reads: editing another experiment does not rerun it
        config=lambda w: pair_config(COMPARISON_PAIRS[w.pair], config),
        delta=COMPARISON.get("delta"),
        alpha=COMPARISON.get("alpha"),
        # for the caption: the least noise per epsilon and the audit's verdict, read from this
        # job's own rows once they exist (a param derived from an output never triggers a rerun)
        caption=lambda w, output: once_written(output.rows, pair_caption, ""),
    script:
        "../scripts/comparison_pair.py"


rule comparison_table:
    input:
        [f"results/audit/noise_comparison/{s}.csv" for s in COMPARISON_PAIRS],  # in config order
    output:
        report(
            "results/theta/noise_comparison.csv",
            caption="../report/theta_table.rst",
            category="Tables: theta and b",
            labels={"table": "noise_comparison"},
        ),
    log:
        "results/logs/comparison_table/noise_comparison.log",
    group:
        "pufferfish"
    params:
        code=CODE,
    script:
        "../scripts/comparison_table.py"


AUDIT_TABLES.extend(f"results/audit/comparison_{pair}.csv" for pair in COMPARISON_PAIRS)
if COMPARISON_PAIRS:
    TARGETS.append("results/theta/noise_comparison.csv")
    TARGETS.extend(expand("results/audit/noise_comparison/{pair}.csv", pair=list(COMPARISON_PAIRS)))
    TARGETS.extend(
        expand("results/figures/comparison/{pair}.{ext}", pair=list(COMPARISON_PAIRS), ext=["png", "pdf", "csv"])
    )

# Amplification by iteration (paper 002, Section 5, Section 6.4, Appendix F.5): noisy gradient
# descent on correlated records, every accountant beside the exact Renyi divergence of the
# linear-Gaussian model. The work is in pufferfish.iteration.experiments; the scripts only
# unpack snakemake. One job per experiment:
#   iteration_fig6     the Fig. 6 analogue: bounds table, audit table, figure
#   iteration_series   one entry of config iteration.series (wildcard `series`): bounds table,
#                      calibration table, audit table, the bounds figure and the sigma figure,
#                      and every record's exact audit (the exposure table and figure)
from pufferfish.iteration.captions import exposure_summary, rejection_summary  # captions (standard library only)

ITERATION = config["iteration"]  # the validated mapping: params (a change reruns the job)
ITERATION_SERIES = sorted(ITERATION["series"])
ITERATION_CATEGORY = "Amplification by iteration (paper 002)"


rule iteration_fig6:
    output:
        theta=report(
            "results/theta/iteration_fig6.csv",
            caption="../report/iteration_table.rst",
            category="Tables: theta and b",
            labels={"table": "iteration_fig6"},
        ),
        audit="results/audit/iteration_fig6.csv",
        png=report(
            "results/figures/iteration/fig6.png",
            caption="../report/iteration_fig6.rst",
            category=ITERATION_CATEGORY,
            labels={"figure": "fig6"},
        ),
        pdf="results/figures/iteration/fig6.pdf",
        csv="results/figures/iteration/fig6.csv",
    log:
        "results/logs/iteration_fig6/fig6.log",
    group:
        "pufferfish"
    params:
        code=CODE,
        # only its own section: editing a series or another section does not rerun it
        spec=ITERATION["fig6"],
        audit=config["audit"],
    script:
        "../scripts/iteration_fig6.py"


rule iteration_series:
    input:
        csv=lambda w: raw_csv(ITERATION["series"][w.series]["dataset"]),
    output:
        theta=report(
            "results/theta/iteration_{series}.csv",
            caption="../report/iteration_table.rst",
            category="Tables: theta and b",
            labels={"table": "iteration_{series}"},
        ),
        sigma=report(
            "results/theta/iteration_{series}_sigma.csv",
            caption="../report/iteration_table.rst",
            category="Tables: theta and b",
            labels={"table": "iteration_{series}_sigma"},
        ),
        audit="results/audit/iteration_{series}.csv",
        png=report(
            "results/figures/iteration/{series}.png",
            caption="../report/iteration_series.rst",
            category=ITERATION_CATEGORY,
            labels={"figure": "{series}"},
        ),
        pdf="results/figures/iteration/{series}.pdf",
        csv="results/figures/iteration/{series}.csv",
        sigma_png=report(
            "results/figures/iteration/{series}_sigma.png",
            caption="../report/iteration_sigma.rst",
            category=ITERATION_CATEGORY,
            labels={"figure": "{series}_sigma"},
        ),
        sigma_pdf="results/figures/iteration/{series}_sigma.pdf",
        sigma_csv="results/figures/iteration/{series}_sigma.csv",
        exposure=report(
            "results/theta/iteration_{series}_exposure.csv",
            caption="../report/iteration_table.rst",
            category="Tables: theta and b",
            labels={"table": "iteration_{series}_exposure"},
        ),
        exposure_png=report(
            "results/figures/iteration/{series}_exposure.png",
            caption="../report/iteration_exposure.rst",
            category=ITERATION_CATEGORY,
            labels={"figure": "{series}_exposure"},
        ),
        exposure_pdf="results/figures/iteration/{series}_exposure.pdf",
        exposure_csv="results/figures/iteration/{series}_exposure.csv",
    log:
        "results/logs/iteration_series/{series}.log",
    wildcard_constraints:
        series=alternatives(ITERATION_SERIES),
    group:
        "pufferfish"
    params:
        code=CODE,
        spec=lambda w: ITERATION["series"][w.series],
        audit=config["audit"],
        # for the caption: the exact audit's verdicts, read from this job's own table once it
        # exists (a param derived from an output never triggers a rerun)
        rejections=lambda w, output: once_written(output.sigma, rejection_summary, ""),
        exposure=lambda w, output: once_written(output.exposure, exposure_summary, ""),
    script:
        "../scripts/iteration_series.py"


TARGETS.extend(["results/theta/iteration_fig6.csv", "results/audit/iteration_fig6.csv"])
TARGETS.extend(expand("results/figures/iteration/fig6.{ext}", ext=["png", "pdf", "csv"]))
TARGETS.extend(
    f"results/theta/iteration_{s}{suffix}.csv" for s in ITERATION_SERIES for suffix in ("", "_sigma", "_exposure")
)
TARGETS.extend(f"results/audit/iteration_{s}.csv" for s in ITERATION_SERIES)
TARGETS.extend(
    expand(
        "results/figures/iteration/{series}{suffix}.{ext}",
        series=ITERATION_SERIES,
        suffix=["", "_sigma", "_exposure"],
        ext=["png", "pdf", "csv"],
    )
)
AUDIT_TABLES.append("results/audit/iteration_fig6.csv")
AUDIT_TABLES.extend(f"results/audit/iteration_{s}.csv" for s in ITERATION_SERIES)

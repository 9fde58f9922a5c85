# Pufferfish noise calibration: every figure of the four papers, audited.
# Run: snakemake --cores all        (README: quick start, offline use, layout)
from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


# the report's front page (snakemake --report results/report.html --report-stylesheet
# workflow/report/report.css: the stylesheet lets the start page scroll from its first line)
report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/multiuser.smk"
include: "workflow/rules/gaussian.smk"
include: "workflow/rules/wasserstein.smk"
include: "workflow/rules/comparison.smk"
include: "workflow/rules/iteration.smk"
include: "workflow/rules/sensitivity.smk"
include: "workflow/rules/distp.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        TARGETS,

# Pufferfish noise calibration: every figure of the four papers, audited.
# Run: snakemake --cores all        (README: quick start, offline use, layout)
from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


# shared rules first: the config checked and typed, the papers this run runs chosen (PAPERS:
# config `papers`, else every installed paper with a section), the downloads
include: "workflow/rules/common.smk"
include: "workflow/rules/download.smk"


# each paper's rules file, as its declaration names it (pufferfish.papers), in the papers' order
for _paper in PAPERS:

    include: _paper.path("rules", workflow.basedir)


# last: the audit summary, the reproduction table, provenance and the report's front page
include: "workflow/rules/report.smk"


# the report's front page, made of each paper's section (snakemake --report results/report.html
# --report-stylesheet workflow/report/report.css: the stylesheet lets the start page scroll
# from its first line)
report: FRONT_PAGE


rule all:
    default_target: True
    input:
        TARGETS,

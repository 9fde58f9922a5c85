"""Rule audit_summary: one row per (experiment, panel, method) of every audit table."""
from pufferfish.pipeline.jobs import run
from pufferfish.pipeline.report import write_audit_summary


def main(smk):
    write_audit_summary(list(smk.input), smk.output[0])


run(main, snakemake)  # noqa: F821

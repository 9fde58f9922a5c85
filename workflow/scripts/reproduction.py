"""Rule reproduction: every number the papers state next to ours (results/reproduction.csv)."""
from pufferfish.pipeline.jobs import run
from pufferfish.pipeline.report import write_reproduction


def main(smk):
    write_reproduction(smk.input.values, smk.output[0], produced=list(smk.input.outputs))


run(main, snakemake)  # noqa: F821

"""Rule comparison_table: the per-pair rows of the noise comparison as one table."""
from pufferfish.comparison.experiments import write_table
from pufferfish.pipeline.jobs import run


def main(smk):
    write_table(list(smk.input), smk.output[0])


run(main, snakemake)  # noqa: F821

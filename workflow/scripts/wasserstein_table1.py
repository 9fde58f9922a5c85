"""Rule wasserstein_table1: range, W_inf and W_2 of every secret pair, and each setting's maxima (paper 002, Table 1)."""
from pufferfish.pipeline.jobs import run
from pufferfish.wasserstein.conditionals import write_table1


def main(smk):
    write_table1(list(smk.input.priors), smk.output[0])


run(main, snakemake)  # noqa: F821

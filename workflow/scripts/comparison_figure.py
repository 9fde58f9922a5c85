"""Rule comparison_figure: the figure of one pair of the noise comparison."""
from pufferfish.comparison.experiment import write_figure
from pufferfish.pipeline.cli import run


def main(smk):
    write_figure(rows_csv=smk.input.rows, png=smk.output.png, pdf=smk.output.pdf, csv=smk.output.csv)


run(main, snakemake)  # noqa: F821

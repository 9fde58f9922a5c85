"""Rule gaussian_fig5: Fig. 5 of paper 004 (tau*(delta) and its Lambert-W bound)."""
from pufferfish.pipeline.cli import run
from pufferfish.gaussian.experiments import run_fig5


def main(smk):
    run_fig5(smk.params.spec, theta_csv=smk.output.theta, png=smk.output.png, pdf=smk.output.pdf, csv=smk.output.csv)


run(main, snakemake)  # noqa: F821

"""Rule gaussian_fig1: Fig. 1 of paper 004 (Laplace vs Gaussian noise on two Gaussian priors)."""
from pufferfish.pipeline.cli import run
from pufferfish.gaussian.experiments import run_fig1


def main(smk):
    run_fig1(smk.params.spec, theta_csv=smk.output.theta, png=smk.output.png, pdf=smk.output.pdf, csv=smk.output.csv)


run(main, snakemake)  # noqa: F821

"""Rule gaussian_fig2: Fig. 2 of paper 004 (eq. 11 against K), audited, with b_min."""
from pufferfish.pipeline.cli import run
from pufferfish.gaussian.experiments import run_fig2


def main(smk):
    run_fig2(smk.params.spec, audit=smk.params.audit, theta_csv=smk.output.theta, audit_csv=smk.output.audit,
             png=smk.output.png, pdf=smk.output.pdf, csv=smk.output.csv)


run(main, snakemake)  # noqa: F821

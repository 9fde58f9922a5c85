"""Rule toy_rr: the toy paper's audit table, table and figure."""
from pufferfish.pipeline.jobs import run
from toy_paper.experiments import run_toy
from toy_paper.settings import ToySettings


def main(smk):
    run_toy(smk.input.csv, ToySettings.from_config(smk.params.spec), rtol=smk.params.rtol, audit_csv=smk.output.audit,
            theta_csv=smk.output.theta, png=smk.output.png, pdf=smk.output.pdf, figure_csv=smk.output.csv)


run(main, snakemake)  # noqa: F821

"""Rule multiuser_figure: PNG, PDF and the CSV of the numbers plotted."""
from pufferfish.pipeline.cli import run
from pufferfish.multiuser.experiments import write_figure


def main(smk):
    write_figure(name=smk.wildcards.experiment, spec=smk.params.spec, theta_csv=smk.input.theta,
                 priors_csv=smk.input.priors, plan_csv=smk.input.plan[0] if smk.input.plan else None, user_records=list(smk.input.users),
                 png=smk.output.png, pdf=smk.output.pdf, csv=smk.output.csv)


run(main, snakemake)  # noqa: F821

"""Rule gaussian_gmm_figure: Theorem 2 on the fitted GMMs of one experiment, exact audit, b_min, figures."""
from pufferfish.gaussian.experiments import run_gmm_experiment
from pufferfish.pipeline.jobs import run
from pufferfish.gaussian.settings import GMMExperimentSettings
from pufferfish.settings import AuditSettings


def main(smk):
    out = smk.output
    run_gmm_experiment(GMMExperimentSettings.from_config(smk.wildcards.fig, smk.params.spec),
                       audit=AuditSettings.from_config(smk.params.audit), seed=smk.params.seed,
                       gmm_json=smk.input.gmm, data_csv=smk.input.csv, theta_csv=out.theta, audit_csv=out.audit,
                       png=out.png, pdf=out.pdf, csv=out.csv, theta_png=out.theta_png, theta_pdf=out.theta_pdf,
                       theta_fig_csv=out.theta_csv)


run(main, snakemake)  # noqa: F821

"""Rules gaussian_figure and gaussian_figure_audited: Fig. 1, 2 or 5 of paper 004 (wildcard ``fig``).

Fig. 2 is the audited one: its rule adds the audit table and the ``audit`` settings.
"""
from pufferfish.gaussian.experiments import run_figure
from pufferfish.pipeline.jobs import run
from pufferfish.gaussian.settings import GaussianSettings
from pufferfish.settings import AuditSettings


def main(smk):
    out = smk.output
    audited = "audit" in out.keys()
    run_figure(GaussianSettings.figure_from_config(smk.wildcards.fig, smk.params.spec),
               audit=AuditSettings.from_config(smk.params.audit) if audited else None,
               audit_csv=out.audit if audited else None,
               theta_csv=out.theta, png=out.png, pdf=out.pdf, csv=out.csv)


run(main, snakemake)  # noqa: F821

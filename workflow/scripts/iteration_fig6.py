"""Rule iteration_fig6: the Fig. 6 analogue of paper 002 (amplification by iteration), its audit table and figure."""
from pufferfish.iteration.experiments import run_fig6
from pufferfish.iteration.settings import Fig6Settings
from pufferfish.pipeline.jobs import run
from pufferfish.settings import AuditSettings


def main(smk):
    out = smk.output
    run_fig6(Fig6Settings.from_config(smk.params.spec), theta_csv=out.theta, audit_csv=out.audit,
             figure_png=out.png, figure_pdf=out.pdf, figure_csv=out.csv,
             rtol=AuditSettings.from_config(smk.params.audit).rtol)


run(main, snakemake)  # noqa: F821

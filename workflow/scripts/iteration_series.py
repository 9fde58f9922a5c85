"""Rule iteration_series: one series of config iteration.series (wildcard ``series``): the bounds per
secret, the calibrated sigmas audited exactly, the audit table and the two figures, and every record's exact
audit (the exposure table and figure)."""
from pufferfish.iteration.experiments import run_series
from pufferfish.iteration.settings import SeriesSettings
from pufferfish.pipeline.jobs import run
from pufferfish.settings import AuditSettings


def main(smk):
    out = smk.output
    run_series(SeriesSettings.from_config(smk.wildcards.series, smk.params.spec), data_csv=smk.input.csv,
               theta_csv=out.theta, sigma_csv=out.sigma, audit_csv=out.audit, figure_png=out.png,
               figure_pdf=out.pdf, figure_csv=out.csv, sigma_png=out.sigma_png, sigma_pdf=out.sigma_pdf,
               sigma_figure_csv=out.sigma_csv, exposure_csv=out.exposure, exposure_png=out.exposure_png,
               exposure_pdf=out.exposure_pdf, exposure_figure_csv=out.exposure_csv,
               rtol=AuditSettings.from_config(smk.params.audit).rtol)


run(main, snakemake)  # noqa: F821

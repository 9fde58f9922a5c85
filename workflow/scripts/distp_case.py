"""Rule distp_case: one case of paper 003 (its table, calibration, audit table and figures)."""
from pufferfish.distp.experiments import write_case
from pufferfish.distp.plots import FIGURES
from pufferfish.pipeline.jobs import run


def main(smk):
    figures = {f: (smk.output[f"{f}_png"], smk.output[f"{f}_pdf"], smk.output[f"{f}_csv"]) for f in FIGURES}
    write_case(name=smk.wildcards.case, spec=smk.params.spec, grid_spec=smk.params.grid,
               audit_rtol=smk.params.audit["rtol"], data_csv=smk.input.csv, table_csv=smk.output.table,
               calibration_csv=smk.output.calibration, audit_csv=smk.output.audit, figures=figures)


run(main, snakemake)  # noqa: F821

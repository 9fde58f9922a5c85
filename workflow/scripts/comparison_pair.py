"""Rule comparison_pair: every mechanism on one secret pair, each scale audited exactly, and its figure."""
from pathlib import Path

from pufferfish.comparison.experiments import write_pair
from pufferfish.pipeline.jobs import run


def main(smk):
    users = {Path(p).stem: p for p in smk.input.get("users", [])}
    out = smk.output
    write_pair(pair=smk.params.pair, config=smk.params.config, data_users=users,
               table1_priors=smk.input.get("table1"), out_csv=out.rows, out_audit=out.audit, png=out.png, pdf=out.pdf, csv=out.csv)


run(main, snakemake)  # noqa: F821

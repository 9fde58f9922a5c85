"""Rule comparison_pair: every mechanism on one secret pair, each scale audited exactly."""
from pathlib import Path

from pufferfish.comparison.experiment import write_pair
from pufferfish.pipeline.cli import run


def main(smk):
    users = {Path(p).stem: p for p in smk.input.get("users", [])}
    write_pair(pair=smk.params.pair, config=smk.params.config, data_users=users,
               table1_priors=smk.input.get("table1"), out_csv=smk.output[0])


run(main, snakemake)  # noqa: F821

"""Rule multiuser_plan: the monotone Kantorovich plan pi* and the Delta* table."""
from pathlib import Path

from pufferfish.pipeline.cli import run
from pufferfish.multiuser.experiments import write_plan


def main(smk):
    data_users = {Path(p).stem: p for p in smk.input.users}
    write_plan(name=smk.wildcards.experiment, spec=smk.params.spec, multiuser=smk.params.multiuser,
               data_users=data_users, out_plan=smk.output.plan, out_cdf=smk.output.cdf)


run(main, snakemake)  # noqa: F821

"""Rule multiuser_experiment: calibrate every method, audit every theta, add `tight`."""
from pathlib import Path

from pufferfish.pipeline.cli import run
from pufferfish.multiuser.experiments import write_experiment


def main(smk):
    data_users = {Path(p).stem: p for p in smk.input.users}
    write_experiment(name=smk.wildcards.experiment, spec=smk.params.spec, multiuser=smk.params.multiuser,
                     audit=smk.params.audit, data_users=data_users, out_theta=smk.output.theta,
                     out_audit=smk.output.audit, out_priors=smk.output.priors)


run(main, snakemake)  # noqa: F821

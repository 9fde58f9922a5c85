"""Rule multiuser_config_users: the lattice users given in config.yaml, written as prior tables (one job)."""
from pufferfish.pipeline.jobs import run
from pufferfish.multiuser.user_priors import write_config_user


def main(smk):
    for name, csv, json in zip(sorted(smk.params.users), smk.output.csv, smk.output.json, strict=True):
        write_config_user(name=name, spec=smk.params.users[name], out_csv=csv, out_json=json)


run(main, snakemake)  # noqa: F821

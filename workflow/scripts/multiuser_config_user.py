"""Rule multiuser_config_user: a lattice user given in config.yaml, written as a prior table."""
from pufferfish.cli import run
from pufferfish.multiuser_experiments import write_config_user


def main(smk):
    write_config_user(name=smk.wildcards.user, spec=smk.params.spec, out_csv=smk.output.csv, out_json=smk.output.json)


run(main, snakemake)  # noqa: F821

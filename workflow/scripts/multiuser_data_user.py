"""Rule multiuser_data_user: Pr(attribute | given) of one dataset, as a lattice prior."""
from pufferfish.pipeline.jobs import run
from pufferfish.multiuser.user_priors import write_data_user


def main(smk):
    write_data_user(name=smk.wildcards.user, spec=smk.params.spec, data_csv=smk.input.csv, data_json=smk.input.json,
                    out_csv=smk.output.csv, out_json=smk.output.json)


run(main, snakemake)  # noqa: F821

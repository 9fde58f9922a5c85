"""Rule pierquin_conditionals: Pr(attribute | column = s) for every secret value s of one setting."""
from pufferfish.pipeline.cli import run
from pufferfish.pipeline.conditionals import write_conditional_priors


def main(smk):
    write_conditional_priors(setting=smk.wildcards.setting, spec=smk.params.spec, data_csv=smk.input.csv,
                             data_json=smk.input.json, out_csv=smk.output.csv, out_json=smk.output.json)


run(main, snakemake)  # noqa: F821

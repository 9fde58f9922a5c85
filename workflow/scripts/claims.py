"""Rule claims: every sentence of the docs about the results, checked against them (results/claims.csv)."""
from pufferfish.pipeline.claims import write_claims
from pufferfish.pipeline.jobs import run


def main(smk):
    write_claims(smk.input.claims, smk.output[0], sections=list(smk.params.sections),
                 produced=list(smk.input.tables))


run(main, snakemake)  # noqa: F821

"""Rule provenance: versions, git commit, config hash, dataset checksums, outputs' sha256 (results/provenance.json)."""
from pufferfish.pipeline.jobs import run
from pufferfish.pipeline.report import write_provenance


def main(smk):
    write_provenance(config=smk.config, dataset_records=list(smk.input.datasets), repo=smk.params.repo,
                     out=smk.output[0], outputs=list(smk.input.outputs))


run(main, snakemake)  # noqa: F821

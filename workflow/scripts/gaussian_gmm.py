"""Rule gaussian_gmm: fit the GMM prior of each secret of a GMM experiment (Figs. 3, 4 of paper 004, or added)."""
from pufferfish.gaussian.gmm_fits import fit_experiment_gmms
from pufferfish.pipeline.jobs import run
from pufferfish.gaussian.settings import GMMExperimentSettings, GMMSettings


def main(smk):
    fit_experiment_gmms(GMMExperimentSettings.from_config(smk.wildcards.fig, smk.params.spec),
                        gmm=GMMSettings.from_config(smk.params.gmm), seed=smk.params.seed,
                        data_csv=smk.input.csv, data_json=smk.input.json, out_json=smk.output.json)


run(main, snakemake)  # noqa: F821

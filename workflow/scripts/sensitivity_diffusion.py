"""Rule sensitivity_diffusion: Prop. 6.3's bound against the exact OU W_inf and coupled Euler-Maruyama paths."""
from pufferfish.pipeline.jobs import run
from pufferfish.sensitivity.experiments import run_diffusion
from pufferfish.sensitivity.settings import DiffusionSettings


def main(smk):
    out = smk.output
    run_diffusion(DiffusionSettings.from_config(smk.params.section, seed=smk.params.seed), rtol=smk.params.rtol,
                  out_csv=out.theta, check_csv=out.check, audit_csv=out.audit, png=out.png, pdf=out.pdf,
                  figure_csv=out.csv)


run(main, snakemake)  # noqa: F821

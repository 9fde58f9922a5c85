"""Rule wasserstein_conditionals: Pr(attribute | column = s) for every secret value s of one
setting, and their figure (paper 002, Appendix F, Figs. 2-4): PNG, PDF, CSV."""
from pufferfish.pipeline.jobs import run
from pufferfish.wasserstein.conditionals import write_conditional_priors


def main(smk):
    out = smk.output
    write_conditional_priors(setting=smk.wildcards.setting, spec=smk.params.spec, data_csv=smk.input.csv,
                             data_json=smk.input.json, out_csv=out.csv, out_json=out.json, png=out.png, pdf=out.pdf,
                             csv=out.fig_csv)


run(main, snakemake)  # noqa: F821

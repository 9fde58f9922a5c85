"""Rule pierquin_figure: the conditionals of one setting (paper 002, Appendix F, Figs. 2-4); PNG, PDF, CSV."""
from pufferfish.pipeline.cli import run
from pufferfish.pipeline.conditionals import write_conditionals_figure


def main(smk):
    write_conditionals_figure(priors_json=smk.input.priors, spec=smk.params.spec, png=smk.output.png,
                              pdf=smk.output.pdf, csv=smk.output.csv)


run(main, snakemake)  # noqa: F821

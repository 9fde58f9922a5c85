"""Rule sensitivity_attribute_privacy: the closed-form attribute sensitivities (paper 002, Prop. 6.2) on UCI data, audited."""
from pathlib import Path

from pufferfish.pipeline.jobs import run
from pufferfish.sensitivity.experiments import run_attribute_privacy
from pufferfish.sensitivity.settings import AttributePrivacySettings


def main(smk):
    out = smk.output
    run_attribute_privacy(AttributePrivacySettings.from_config(smk.params.section),
                          data={Path(p).stem: p for p in smk.input.data}, out_csv=out.theta,
                          audit_csv=out.audit, png=out.png, pdf=out.pdf, figure_csv=out.csv)


run(main, snakemake)  # noqa: F821

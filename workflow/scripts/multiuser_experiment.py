"""Rule multiuser_experiment (and its plan variant): calibrate every method, audit every
scale, add `tight`, write pi* and Delta* for a plan experiment, and draw the figure."""
from pathlib import Path

from pufferfish.pipeline.jobs import run
from pufferfish.multiuser.experiments import write_experiment


def main(smk):
    out = smk.output
    data_users = {Path(p).stem: p for p in smk.input.users}
    write_experiment(name=smk.wildcards.experiment, spec=smk.params.spec, multiuser=smk.params.multiuser,
                     audit=smk.params.audit, data_users=data_users, out_theta=out.theta, out_audit=out.audit,
                     out_priors=out.priors, out_png=out.png, out_pdf=out.pdf, out_csv=out.csv,
                     out_plan=out.get("plan"), out_cdf=out.get("cdf"))


run(main, snakemake)  # noqa: F821

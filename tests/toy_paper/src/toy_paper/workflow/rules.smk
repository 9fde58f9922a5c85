# The toy paper (a distribution of its own): randomized response on one binary attribute of
# config `toy`, each eps audited exactly; the work is in toy_paper.experiments.
from pathlib import Path

import toy_paper
from pufferfish.pipeline.sources import source_digest

TOY = config["toy"]  # the validated mapping: a param (a change reruns the job)
TOY_CATEGORY = "Toy paper: randomized response on a bit"
# the digest of this package's own code, beside pufferfish's (a param: editing either reruns the job)
TOY_CODE = source_digest(root=Path(toy_paper.__file__).parent)


rule toy_rr:
    input:
        csv=raw_csv(TOY["dataset"]),
    output:
        audit="results/audit/toy_rr.csv",
        theta="results/theta/toy_rr.csv",
        png=report(
            "results/figures/toy/rr.png",
            caption="report/toy_rr.rst",
            category=TOY_CATEGORY,
            labels={"figure": "rr"},
        ),
        pdf="results/figures/toy/rr.pdf",
        csv="results/figures/toy/rr.csv",
    log:
        "results/logs/toy_rr/rr.log",
    params:
        code=[CODE, TOY_CODE],
        spec=TOY,
        rtol=config["audit"]["rtol"],
        violations=lambda w, output: once_written(output.audit, audit_violations, []),
    script:
        "scripts/toy_rr.py"


TARGETS.extend(["results/audit/toy_rr.csv", "results/theta/toy_rr.csv"])
TARGETS.extend(expand("results/figures/toy/rr.{ext}", ext=["png", "pdf", "csv"]))
AUDIT_TABLES.append("results/audit/toy_rr.csv")

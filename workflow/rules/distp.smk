# Distribution privacy (paper 003, Kawamoto and Murakami): config `distp`. One job per case:
# the released column's laws among two protected values, every mechanism's delta(eps), pure eps,
# bound and service loss (results/theta/distp_<case>.csv), each family's calibrated parameter
# (results/theta/distp_<case>_calibration.csv) audited exactly (results/audit/distp_<case>.csv),
# and four figures. The work is in pufferfish.distp.experiments; the script only unpacks snakemake.
from pufferfish.distp.captions import missing_released  # captions (standard library only)

DISTP = config["distp"]  # the validated mapping: params (a change reruns the job)
DISTP_CASES = sorted(DISTP["cases"])
DISTP_FIGURES = ["delta", "loss", "dummies", "bound"]  # pufferfish.distp.plots.FIGURES
DISTP_CATEGORY = "Distribution privacy (paper 003)"


rule distp_case:
    input:
        csv=lambda w: raw_csv(DISTP["cases"][w.case]["dataset"]),
    output:
        **{
            f"{f}_png": report(
                f"results/figures/distp/{{case}}_{f}.png",
                caption=f"../report/distp_{f}.rst",
                category=DISTP_CATEGORY,
                labels={"figure": f"{{case}}_{f}"},
            )
            for f in DISTP_FIGURES
        },
        **{f"{f}_{ext}": f"results/figures/distp/{{case}}_{f}.{ext}" for f in DISTP_FIGURES for ext in ("pdf", "csv")},
        table=report(
            "results/theta/distp_{case}.csv",
            caption="../report/distp_table.rst",
            category="Tables: theta and b",
            labels={"table": "distp_{case}"},
        ),
        calibration="results/theta/distp_{case}_calibration.csv",
        audit="results/audit/distp_{case}.csv",
    log:
        "results/logs/distp_case/{case}.log",
    wildcard_constraints:
        case=alternatives(DISTP_CASES),
    group:
        "pufferfish"
    params:
        code=CODE,
        spec=lambda w: DISTP["cases"][w.case],
        grid=DISTP["grid"],
        audit=config["audit"],
        # for the captions, once the job has run: the records without a released value
        missing=lambda w, input, output: once_written(
            output.table, lambda _: missing_released(input.csv, DISTP["cases"][w.case]), None
        ),
    script:
        "../scripts/distp_case.py"


TARGETS.extend(f"results/theta/distp_{c}{s}.csv" for c in DISTP_CASES for s in ("", "_calibration"))
TARGETS.extend(
    expand(
        "results/figures/distp/{case}_{fig}.{ext}",
        case=DISTP_CASES,
        fig=DISTP_FIGURES,
        ext=["png", "pdf", "csv"],
    )
)
AUDIT_TABLES.extend(f"results/audit/distp_{c}.csv" for c in DISTP_CASES)

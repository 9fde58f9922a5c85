# Closed-form sensitivities (paper 002, Pierquin et al., ICML 2024, Sections 6.2-6.3,
# Appendices F.3-F.4), from config `sensitivity`. One job per experiment:
#   sensitivity_attribute_privacy  every (dataset, released, protected) triple: DP range,
#                                  Prop. 6.2's Gaussian closed form, the exact W_inf / W_2 of
#                                  the data's conditionals, and every scale audited exactly
#   sensitivity_diffusion          Prop. 6.3's bound against the exact OU W_inf and seeded,
#                                  synchronously coupled Euler-Maruyama paths; the OU scales audited
# The work is in pufferfish.sensitivity.experiments; the scripts only unpack snakemake.
# the readers of the jobs' own tables, for captions and the end-of-run warnings
from pufferfish.sensitivity.captions import attribute_caption, diffusion_caption, read_coupling_violations

SENSITIVITY = config["sensitivity"]  # the validated mappings: params
SENS = SETTINGS.sensitivity  # the same, typed (each experiment None when the section leaves it out)
SENS_CATEGORY = "Closed-form sensitivities (paper 002, Sections 6.2-6.3)"
ATTRIBUTE_PRIVACY = SENS.attribute_privacy
DIFFUSION = SENS.diffusion


if ATTRIBUTE_PRIVACY is not None:

    rule sensitivity_attribute_privacy:
        input:
            # every dataset of a triple, in config order (the script maps data/raw/<key>.csv to <key>)
            data=[raw_csv(d) for d in dict.fromkeys(t.dataset for t in ATTRIBUTE_PRIVACY.triples)],
        output:
            theta=report(
                "results/theta/attribute_privacy.csv",
                caption="../report/sensitivity_tables.rst",
                category="Tables: theta and b",
                labels={"table": "attribute_privacy"},
            ),
            audit="results/audit/sensitivity_attribute_privacy.csv",
            png=report(
                "results/figures/sensitivity/attribute_privacy.png",
                caption="../report/sensitivity_attribute_privacy.rst",
                category=SENS_CATEGORY,
                labels={"figure": "attribute_privacy"},
            ),
            pdf="results/figures/sensitivity/attribute_privacy.pdf",
            csv="results/figures/sensitivity/attribute_privacy.csv",
        log:
            "results/logs/sensitivity_attribute_privacy/attribute_privacy.log",
        group:
            "pufferfish"
        params:
            code=CODE,
            # only its own section: editing another section does not rerun it
            section=SENSITIVITY.get("attribute_privacy"),
            # for the caption, from this job's own figure CSV once it exists (never triggers a rerun)
            caption=lambda w, output: once_written(output.csv, attribute_caption, []),
        script:
            "../scripts/sensitivity_attribute_privacy.py"

    TARGETS.extend(["results/theta/attribute_privacy.csv", "results/audit/sensitivity_attribute_privacy.csv"])
    AUDIT_TABLES.append("results/audit/sensitivity_attribute_privacy.csv")
    TARGETS.extend(expand("results/figures/sensitivity/attribute_privacy.{ext}", ext=["png", "pdf", "csv"]))


if DIFFUSION is not None:

    rule sensitivity_diffusion:
        output:
            theta=report(
                "results/theta/diffusion.csv",
                caption="../report/sensitivity_tables.rst",
                category="Tables: theta and b",
                labels={"table": "diffusion"},
            ),
            check="results/theta/diffusion_check.csv",
            audit="results/audit/sensitivity_diffusion.csv",
            png=report(
                "results/figures/sensitivity/diffusion.png",
                caption="../report/sensitivity_diffusion.rst",
                category=SENS_CATEGORY,
                labels={"figure": "diffusion"},
            ),
            pdf="results/figures/sensitivity/diffusion.pdf",
            csv="results/figures/sensitivity/diffusion.csv",
        log:
            "results/logs/sensitivity_diffusion/diffusion.log",
        group:
            "pufferfish"
        params:
            code=CODE,
            section=SENSITIVITY.get("diffusion"),
            seed=config["seed"],
            rtol=config["audit"]["rtol"],
            # the verdict of the diffusion check, read from this job's own table once it exists
            caption=lambda w, output: once_written(output.check, diffusion_caption, ""),
        script:
            "../scripts/sensitivity_diffusion.py"

    TARGETS.extend(
        [
            "results/theta/diffusion.csv",
            "results/theta/diffusion_check.csv",
            "results/audit/sensitivity_diffusion.csv",
        ]
    )
    AUDIT_TABLES.append("results/audit/sensitivity_diffusion.csv")
    TARGETS.extend(expand("results/figures/sensitivity/diffusion.{ext}", ext=["png", "pdf", "csv"]))
    # the diffusion check's rows above the bound (Prop. 6.3), as WARNING lines at the end of the run
    END_OF_RUN_WARNINGS.append(lambda: read_coupling_violations("results/theta/diffusion_check.csv"))

# Multi-user pufferfish privacy (paper 000): data-derived users, calibration + audit of
# every experiment in config `multiuser.experiments`, transport plans, figures.
from pufferfish.multiuser.captions import read_user_records  # the data users' records, for captions

MU = config["multiuser"]  # the validated mappings: params (Snakemake reruns a job when they change)
MULTIUSER = SETTINGS.multiuser  # the same, typed: names, kinds, the users each experiment needs
DATA_USERS = MU["data_users"]
EXPERIMENTS = MU["experiments"]
PLAN_EXPERIMENTS = MULTIUSER.plan_experiments()

# the outputs of an experiment: its theta, audit and query-prior tables, the figure (PNG, PDF,
# plotted numbers); a `kind: plan` experiment adds pi* and Delta* (rule multiuser_plan_experiment)
EXPERIMENT_OUTPUT = {
    "theta": report(
        "results/theta/multiuser_{experiment}.csv",
        caption="../report/theta_table.rst",
        category="Tables: theta and b",
        labels={"table": "multiuser_{experiment}"},
    ),
    "audit": "results/audit/multiuser_{experiment}.csv",
    "priors": "results/priors/multiuser_{experiment}.csv",
    "png": report(
        "results/figures/multiuser/{experiment}.png",
        caption="../report/multiuser_figure.rst",
        category="Multi-user pufferfish privacy (paper 000)",
        labels={"figure": "{experiment}"},
    ),
    "pdf": "results/figures/multiuser/{experiment}.pdf",
    "csv": "results/figures/multiuser/{experiment}.csv",
}
PLAN_OUTPUT = {
    **EXPERIMENT_OUTPUT,
    "plan": "results/plans/multiuser_{experiment}.csv",
    "cdf": "results/plans/multiuser_{experiment}_cdf.csv",
}


rule multiuser_config_users:
    output:
        csv=expand("results/priors/{user}.csv", user=sorted(MU["users"])),
        json=expand("results/priors/{user}.json", user=sorted(MU["users"])),
    log:
        "results/logs/multiuser_config_users.log",
    group:
        "pufferfish"
    params:
        code=CODE,
        users=MU["users"],
    script:
        "../scripts/multiuser_config_users.py"


rule multiuser_data_user:
    input:
        csv=lambda w: raw_csv(MULTIUSER.data_users[w.user].dataset),
        json=lambda w: raw_json(MULTIUSER.data_users[w.user].dataset),
    output:
        csv="results/priors/{user}.csv",
        json="results/priors/{user}.json",
    log:
        "results/logs/multiuser_data_user/{user}.log",
    wildcard_constraints:
        user=alternatives(DATA_USERS),
    group:
        "pufferfish"
    params:
        code=CODE,
        spec=lambda w: DATA_USERS[w.user],
    script:
        "../scripts/multiuser_data_user.py"


# One job per experiment: calibrate every method, audit every scale, add `tight`, and draw
# the figure (for a `kind: plan` experiment also pi* and Delta*, in the variant below).
rule multiuser_experiment:
    input:
        # the provenance records of the data users the experiment needs (rule multiuser_data_user)
        users=lambda w: [f"results/priors/{u}.json" for u in MULTIUSER.data_users_of(w.experiment)],
    output:
        **EXPERIMENT_OUTPUT,
    log:
        "results/logs/multiuser_experiment/{experiment}.log",
    wildcard_constraints:
        experiment=alternatives(set(EXPERIMENTS) - set(PLAN_EXPERIMENTS)),
    group:
        "pufferfish"
    params:
        code=CODE,
        spec=lambda w: EXPERIMENTS[w.experiment],
        multiuser={"users": MU["users"], "data_users": DATA_USERS},  # not the experiments: editing one reruns only its jobs
        audit=config["audit"],
        # for the caption: dataset, condition and row counts of the data users, and the audit's
        # verdict, read from this job's own audit table once it exists (a param derived from an
        # output never triggers a rerun)
        users=lambda w, input: read_user_records(input.users),
        violations=lambda w, output: once_written(output.audit, audit_violations, []),
    script:
        "../scripts/multiuser_experiment.py"


# Snakemake outputs cannot depend on a wildcard: the plan experiments' extra tables (the
# monotone Kantorovich plan pi* and the CDF/Delta* table) make them this variant.
use rule multiuser_experiment as multiuser_plan_experiment with:
    output:
        **PLAN_OUTPUT,
    wildcard_constraints:
        experiment=alternatives(PLAN_EXPERIMENTS),


AUDIT_TABLES.extend(f"results/audit/multiuser_{e}.csv" for e in sorted(EXPERIMENTS))
TARGETS.extend(
    expand(
        "results/{kind}/multiuser_{experiment}.csv",
        kind=["theta", "audit", "priors"],
        experiment=sorted(EXPERIMENTS),
    )
)
TARGETS.extend(
    expand("results/priors/{user}.{ext}", user=sorted(MU["users"]) + sorted(DATA_USERS), ext=["csv", "json"])
)
TARGETS.extend(expand("results/plans/multiuser_{experiment}.csv", experiment=PLAN_EXPERIMENTS))
TARGETS.extend(
    expand(
        "results/figures/multiuser/{experiment}.{ext}",
        experiment=sorted(EXPERIMENTS),
        ext=["png", "pdf", "csv"],
    )
)

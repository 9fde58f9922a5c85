# Multi-user pufferfish privacy (paper 000): data-derived users, calibration + audit of
# every experiment in config `multiuser.experiments`, transport plans, figures.
MU = config["multiuser"]  # the validated mappings: params (Snakemake reruns a job when they change)
MULTIUSER = SETTINGS.multiuser  # the same, typed: names, kinds, the users each experiment needs
DATA_USERS = MU["data_users"]
EXPERIMENTS = MU["experiments"]
PLAN_EXPERIMENTS = MULTIUSER.plan_experiments()


rule multiuser_config_users:
    output:
        csv=expand("results/priors/{user}.csv", user=sorted(MU["users"])),
        json=expand("results/priors/{user}.json", user=sorted(MU["users"])),
    params:
        code=CODE,
        users=MU["users"],
    log:
        "results/logs/multiuser_config_users.log",
    script:
        "../scripts/multiuser_config_users.py"


rule multiuser_data_user:
    input:
        csv=lambda w: raw_csv(MULTIUSER.data_users[w.user].dataset),
        json=lambda w: raw_json(MULTIUSER.data_users[w.user].dataset),
    output:
        csv="results/priors/{user}.csv",
        json="results/priors/{user}.json",
    params:
        code=CODE,
        spec=lambda w: DATA_USERS[w.user],
    log:
        "results/logs/multiuser_data_user/{user}.log",
    wildcard_constraints:
        user=alternatives(DATA_USERS),
    script:
        "../scripts/multiuser_data_user.py"


rule multiuser_experiment:
    input:
        users=data_user_priors,
    output:
        theta=report(
            "results/theta/multiuser_{experiment}.csv",
            caption="../report/theta_table.rst",
            category="Tables: theta and b",
            labels={"table": "multiuser_{experiment}"},
        ),
        audit="results/audit/multiuser_{experiment}.csv",
        priors="results/priors/multiuser_{experiment}.csv",
    params:
        code=CODE,
        spec=lambda w: EXPERIMENTS[w.experiment],
        multiuser={"users": MU["users"], "data_users": DATA_USERS},  # not the experiments: editing one reruns only its jobs
        audit=config["audit"],
    log:
        "results/logs/multiuser_experiment/{experiment}.log",
    wildcard_constraints:
        experiment=alternatives(EXPERIMENTS),
    script:
        "../scripts/multiuser_experiment.py"


rule multiuser_plan:
    input:
        users=data_user_priors,
    output:
        plan="results/plans/multiuser_{experiment}.csv",
        cdf="results/plans/multiuser_{experiment}_cdf.csv",
    params:
        code=CODE,
        spec=lambda w: EXPERIMENTS[w.experiment],
        multiuser={"users": MU["users"], "data_users": DATA_USERS},  # not the experiments: editing one reruns only its jobs
    log:
        "results/logs/multiuser_plan/{experiment}.log",
    wildcard_constraints:
        experiment=alternatives(PLAN_EXPERIMENTS),
    script:
        "../scripts/multiuser_plan.py"


rule multiuser_figure:
    input:
        theta="results/theta/multiuser_{experiment}.csv",
        audit="results/audit/multiuser_{experiment}.csv",
        priors="results/priors/multiuser_{experiment}.csv",
        plan=lambda w: (
            [f"results/plans/multiuser_{w.experiment}.csv"]
            if MULTIUSER.experiments[w.experiment].kind == "plan"
            else []
        ),
        users=data_user_priors,
    output:
        png=report(
            "results/figures/multiuser/{experiment}.png",
            caption="../report/multiuser_figure.rst",
            category="Multi-user pufferfish privacy (paper 000)",
            labels={"figure": "{experiment}"},
        ),
        pdf="results/figures/multiuser/{experiment}.pdf",
        csv="results/figures/multiuser/{experiment}.csv",
    params:
        code=CODE,
        spec=lambda w: EXPERIMENTS[w.experiment],
        # read when the job runs (the caption lists dataset, condition and row counts)
        users=lambda w, input: read_user_records(input.users),
        violations=lambda w, input: audit_violations(input.audit),
    log:
        "results/logs/multiuser_figure/{experiment}.log",
    wildcard_constraints:
        experiment=alternatives(EXPERIMENTS),
    script:
        "../scripts/multiuser_figure.py"


TARGETS.extend(
    expand(
        "results/{kind}/multiuser_{experiment}.csv",
        kind=["theta", "audit", "priors"],
        experiment=sorted(EXPERIMENTS),
    )
)
TARGETS.extend(expand("results/priors/{user}.{ext}", user=sorted(MU["users"]) + sorted(DATA_USERS), ext=["csv", "json"]))
TARGETS.extend(expand("results/plans/multiuser_{experiment}.csv", experiment=PLAN_EXPERIMENTS))
TARGETS.extend(
    expand(
        "results/figures/multiuser/{experiment}.{ext}",
        experiment=sorted(EXPERIMENTS),
        ext=["png", "pdf", "csv"],
    )
)

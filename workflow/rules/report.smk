# Reviewers' view: audit summary, paper-versus-reproduction table, provenance.
# (`snakemake --report results/report.html` renders every figure, table and caption.)
PAPER_VALUES = str(Path(workflow.basedir) / "workflow" / "report" / "paper_values.yaml")


rule audit_summary:
    input:
        audit_tables(),
    output:
        report(
            "results/audit/summary.csv",
            caption="../report/audit_summary.rst",
            category="Audit",
        ),
    params:
        code=CODE,
    log:
        "results/logs/audit_summary/summary.log",
    script:
        "../scripts/audit_summary.py"


rule reproduction:
    input:
        values=PAPER_VALUES,
        outputs=paper_value_files(PAPER_VALUES),
    output:
        report(
            "results/reproduction.csv",
            caption="../report/reproduction.rst",
            category="Paper versus reproduction",
        ),
    params:
        code=CODE,
    log:
        "results/logs/reproduction/reproduction.log",
    script:
        "../scripts/reproduction.py"


rule provenance:
    input:
        datasets=expand("data/raw/{dataset}.json", dataset=sorted(config["datasets"])),
    output:
        report(
            "results/provenance.json",
            caption="../report/provenance.rst",
            category="Provenance",
        ),
    params:
        code=CODE,
        config=config,
        repo=workflow.basedir,
        git=git_state(workflow.basedir),  # a new commit re-runs this job
    log:
        "results/logs/provenance/provenance.log",
    script:
        "../scripts/provenance.py"


TARGETS.extend(["results/audit/summary.csv", "results/reproduction.csv", "results/provenance.json"])


onsuccess:
    print_violations("results/audit/summary.csv")

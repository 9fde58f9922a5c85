# Reviewers' view: audit summary, paper-versus-reproduction table, provenance.
# (`snakemake --report results/report.html` renders every figure, table and caption.)
# Loaded last: every other rule exists, so the outputs can be checked (and listed) here, and
# every rules file has appended its audit tables to AUDIT_TABLES (the summary's inputs).
from pufferfish.errors import OutputError
from pufferfish.files import check_output_paths
from pufferfish.pipeline.report import producible

PAPER_VALUES = str(Path(workflow.basedir) / "workflow" / "report" / "paper_values.yaml")

# the files paper_values.yaml reads that this config makes (an experiment taken out of
# config.yaml leaves its items "not computed" instead of a missing input)
REPRODUCTION_FILES = producible(paper_value_files(PAPER_VALUES), workflow.rules)


rule audit_summary:
    input:
        AUDIT_TABLES,
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
    group:
        "pufferfish"
    script:
        "../scripts/audit_summary.py"


rule reproduction:
    input:
        values=PAPER_VALUES,
        outputs=REPRODUCTION_FILES,
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
    group:
        "pufferfish"
    script:
        "../scripts/reproduction.py"


TARGETS.extend(["results/audit/summary.csv", "results/reproduction.csv"])


# provenance.json describes a run that made every output it lists: it needs all of them
# (so it is written last, atomically, and a run that fails earlier leaves the previous one).
# It lists the sha256 of every file under results/; the data are in its `datasets` (the
# records in data/raw/*.json name the mirror path read, which is not the same on every machine).
rule provenance:
    input:
        datasets=expand("data/raw/{dataset}.json", dataset=sorted(config["datasets"])),
        data=sorted({t for t in TARGETS if not t.startswith("results/")}),
        outputs=sorted({t for t in TARGETS if t.startswith("results/")}),
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
    group:
        "pufferfish"
    script:
        "../scripts/provenance.py"


TARGETS.append("results/provenance.json")

# an output whose directory is a file (results/plans as a file), that is a directory, or
# that cannot be written: named now, before any job
try:
    check_output_paths(
        [str(f) for rule in workflow.rules for f in list(rule.output) + list(rule.log)]
    )
except OutputError as err:
    sys.stderr.write(f"error: {err}\n")
    sys.exit(1)


onsuccess:
    print_violations("results/audit/summary.csv")

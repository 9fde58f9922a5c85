# Reviewers' view: audit summary, paper-versus-reproduction table, provenance.
# (`snakemake --report results/report.html` renders every figure, table and caption.)
# Loaded last: every other rule exists, so the outputs can be checked (and listed) here, and
# every rules file has appended its audit tables to AUDIT_TABLES (the summary's inputs).
from pufferfish.errors import OutputError
from pufferfish.files import check_output_paths
from pufferfish.pipeline.front_page import write_front_page
from pufferfish.pipeline.claims import claim_files, claim_warnings, load_claims
from pufferfish.pipeline.params import readable_param
from pufferfish.pipeline.report import config_hash, git_state_key, producible, provenance_summary
from pufferfish.pipeline.run_record import job_outputs

# the numbers the papers of this run print (each paper's paper_values file, in the papers' order)
PAPER_VALUES = [str(p.path("paper_values", workflow.basedir)) for p in PAPERS if p.paper_values is not None]

# the files those items read that this config makes (an experiment taken out of config.yaml
# leaves its items "not computed" instead of a missing input)
try:
    REPRODUCTION_FILES = producible(paper_value_files(PAPER_VALUES), workflow.rules)
except ConfigError as err:  # an item of a paper_values file without its strength, file...: one line
    sys.stderr.write(f"{err}\n")
    sys.exit(1)

# the report's front page: the shared frame with the section of each paper this run runs
# (pufferfish.pipeline.front_page), written under .snakemake/; the Snakefile's `report:` reads it
try:
    FRONT_PAGE = write_front_page(
        Path(workflow.basedir) / "workflow" / "report" / "workflow.rst",
        [(p.title, p.path("report", workflow.basedir)) for p in PAPERS],
        Path(".snakemake") / "pufferfish" / "workflow.rst",
    )
except OSError as err:
    sys.stderr.write(f"error: {err}\n")
    sys.exit(1)

# every audit table the run makes is one the summary reads: a rules file that writes an audit
# table without appending it to AUDIT_TABLES stops the workflow here, naming the table (but the
# files under results/audit/ a rules file declares in NOT_IN_AUDIT_SCHEMA).
_unsummarised = sorted(
    {
        t
        for t in TARGETS
        if t.startswith("results/audit/") and t not in AUDIT_TABLES and not t.startswith(tuple(NOT_IN_AUDIT_SCHEMA))
    }
)
if _unsummarised:
    sys.stderr.write(
        f"error: audit table(s) {', '.join(_unsummarised)} are not in AUDIT_TABLES: the audit summary "
        "would leave them out (append them in their rules file)\n"
    )
    sys.exit(1)


rule audit_summary:
    input:
        AUDIT_TABLES,
    output:
        report(
            "results/audit/summary.csv",
            caption="../report/audit_summary.rst",
            category="Audit",
        ),
    log:
        "results/logs/audit_summary/summary.log",
    group:
        "pufferfish"
    params:
        code=CODE,
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
    log:
        "results/logs/reproduction/reproduction.log",
    group:
        "pufferfish"
    params:
        code=CODE,
    script:
        "../scripts/reproduction.py"


TARGETS.extend(["results/audit/summary.csv", "results/reproduction.csv"])


# the ledger of claims: every sentence of the docs about the results, checked against this run's
# tables (pufferfish.pipeline.claims); a claim of a section this config leaves out is skipped
CLAIMS = str(Path(workflow.basedir) / "workflow" / "report" / "claims.yaml")
try:
    CLAIM_FILES = producible(claim_files(load_claims(CLAIMS), [p.key for p in PAPERS]), workflow.rules)
except ConfigError as err:  # a malformed claim: one line
    sys.stderr.write(f"{err}\n")
    sys.exit(1)


rule claims:
    input:
        claims=CLAIMS,
        tables=CLAIM_FILES,
    output:
        report(
            "results/claims.csv",
            caption="../report/claims.rst",
            category="Paper versus reproduction",
        ),
    log:
        "results/logs/claims/claims.log",
    group:
        "pufferfish"
    params:
        code=CODE,
        sections=[p.key for p in PAPERS],
    script:
        "../scripts/claims.py"


TARGETS.append("results/claims.csv")
END_OF_RUN_WARNINGS.append(lambda: claim_warnings("results/claims.csv"))


# provenance.json describes a run that made every output it lists: it needs all of them
# (so it is written last, atomically, and a run that fails earlier leaves the previous one).
# It lists the sha256 of every file the jobs write under results/: each final target and every
# other output of the job that makes it (run_record.job_outputs); the data are in its `datasets`,
# with where (`read_from` of data/raw/*.json: the URL or the mirror's path) and when they were read.
rule provenance:
    input:
        datasets=expand("data/raw/{dataset}.json", dataset=sorted(config["datasets"])),
        data=sorted({t for t in TARGETS if not t.startswith("results/")}),
        outputs=job_outputs([t for t in TARGETS if t.startswith("results/")], workflow.rules),
    output:
        report(
            "results/provenance.json",
            caption="../report/provenance.rst",
            category="Provenance",
        ),
    log:
        "results/logs/provenance/provenance.log",
    group:
        "pufferfish"
    params:
        code=CODE,
        # reruns: any config edit changes the config's hash, a new commit or a modified tracked
        # file the git state's digest (the record holds the state itself, as the job found it)
        config_sha256=config_hash(config),
        git=git_state_key(workflow.basedir),
        repo=workflow.basedir,
        # for the caption: the record as written, read back from this job's own output (the
        # report shows the file, never a second look at the tree; never triggers a rerun)
        record=lambda w, output: once_written(output[0], provenance_summary, {}),
    script:
        "../scripts/provenance.py"


TARGETS.append("results/provenance.json")

# an output whose directory is a file (results/plans as a file), that is a directory, or
# that cannot be written: named now, before any job
try:
    check_output_paths([str(f) for rule in workflow.rules for f in list(rule.output) + list(rule.log)])
except OutputError as err:
    sys.stderr.write(f"error: {err}\n")
    sys.exit(1)

# the report shows a job's params as name=str(value): config sections and caption records in
# YAML flow style (config.yaml's notation) instead of Python dicts. Their repr, which Snakemake
# records to rerun a job whose params changed, stays the plain one (pufferfish.pipeline.params).
for _rule in workflow.rules:
    for _name, (_index, _end) in list(_rule.params._names.items()):
        if _end is None:
            _rule.params[_index] = readable_param(_rule.params[_index])
            setattr(_rule.params, _name, _rule.params[_index])


onsuccess:
    print_violations("results/audit/summary.csv")

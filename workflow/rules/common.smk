# Loaded first: validate the configuration and type it (one line and exit 1 on a mistake:
# duplicate keys, the schema, the grids and cross-references, what the cached data can tell),
# choose the papers this run runs (the Snakefile includes their rules), then hold the list of
# final targets that each rules file extends.
import re
import sys
from pathlib import Path

from snakemake.utils import validate

try:
    from pufferfish.pipeline.config import check_duplicate_keys, load_schema, load_settings, schema_file
    from pufferfish.pipeline.data_checks import check_data
    from pufferfish.errors import ConfigError, PufferfishError
    from pufferfish.papers import selected
except ModuleNotFoundError as err:
    sys.stderr.write(
        f"error: {(err.name or 'pufferfish').split('.')[0]} is not installed in {sys.executable}: run `make setup` "
        "(or `pip install -r requirements.txt -e .` in your own environment)\n"
    )
    sys.exit(1)

SCHEMA = Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml"
# the validated config as frozen dataclasses (pufferfish.pipeline.config.Settings: the shared
# settings, and each paper's own as SETTINGS.<paper>). The rules read its structure (which
# figures and experiments, which users each needs); each job gets its section as a plain
# mapping param, since Snakemake reruns a job when a param changes but only compares params of
# builtin types, and turns it into the section's dataclass itself.
try:
    for _configfile in workflow.configfiles:  # config.yaml and any --configfile: no key twice in a mapping
        check_duplicate_keys(_configfile)
    SCHEMA_FILLED = load_schema(SCHEMA)  # the shared schema, each paper's section and the registry's names merged in
    SETTINGS = load_settings(config, SCHEMA_FILLED)  # fills the schema's defaults into config
    # the papers this run runs, in their order (pufferfish.papers): config `papers`, else every
    # installed paper with a section; the Snakefile includes their rules files
    PAPERS = selected(config)
    check_data(config)  # columns, conditioning values, encodings: on the cached data, before any job
except PufferfishError as err:  # a config mistake, or an installed paper's broken declaration
    sys.stderr.write(f"{err}\n" if isinstance(err, ConfigError) else f"error: {err}\n")
    sys.exit(1)
# snakemake's own pass, against the same filled-in schema (defaults are already filled in; this
# keeps the schema the contract)
with schema_file(SCHEMA_FILLED) as _schema_path:
    validate(config, _schema_path)

# package functions that rules call when they run (params of figure captions, provenance)
from pufferfish.pipeline.report import audit_violations, paper_value_files, read_violation_lines

#: final targets; every rules file appends its own
TARGETS = []
#: every audit table (the audit summary's inputs); every rules file appends its own as it
#: appends its targets, and report.smk, included last, reads the list
AUDIT_TABLES = []
#: directories (prefixes) under results/audit/ of tables that are not in the audit schema (a
#: rules file appends its own; every other table there must be in AUDIT_TABLES)
NOT_IN_AUDIT_SCHEMA = []

# digests of the package code each stage runs: a `code` param, so editing src/ reruns the jobs
from pufferfish.pipeline.sources import source_digest

CODE = source_digest()  # the whole package (every computing rule)
FETCH_CODE = source_digest(["pipeline.fetch", "files", "pipeline.jobs", "errors"])  # downloads only


def once_written(path, read, empty):
    """``read(path)`` once the job has written ``path``, else ``empty``: for a caption param
    derived from the job's own output, which Snakemake evaluates before the job runs (the file
    is not there yet) and again for the report (it is). Such a param never triggers a rerun."""
    return read(path) if Path(path).exists() else empty


def raw_csv(dataset):
    """The cached table of a dataset (rule download)."""
    return f"data/raw/{dataset}.csv"


def raw_json(dataset):
    """The provenance record of a dataset (rule download)."""
    return f"data/raw/{dataset}.json"


def alternatives(names):
    """A wildcard constraint matching exactly the given names."""
    return "|".join(re.escape(n) for n in sorted(names)) or "(?!x)x"


#: further checks a rules file reports at the end of a run: callables returning WARNING lines
END_OF_RUN_WARNINGS = []


def print_violations(summary_csv):
    """At the end of a successful run, repeat every audit violation (and every line of
    :data:`END_OF_RUN_WARNINGS`' checks) as a warning."""
    for line in read_violation_lines(summary_csv):
        sys.stderr.write(f"{line}\n")
    for check in END_OF_RUN_WARNINGS:
        for line in check():
            sys.stderr.write(f"{line}\n")

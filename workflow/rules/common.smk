# Loaded first: validate the configuration (one line and exit 1 on a mistake: duplicate keys, the
# schema and cross-references, what the cached data can tell), then
# hold the list of final targets that each rules file extends.
import re
import sys
from pathlib import Path

from snakemake.utils import validate

try:
    from pufferfish.pipeline.config import (check_data, check_duplicate_keys, gmm_experiment_names, load_schema,
                                            validate_config)
    from pufferfish.errors import ConfigError
except ModuleNotFoundError as err:
    sys.stderr.write(
        f"error: {(err.name or 'pufferfish').split('.')[0]} is not installed in {sys.executable}: run `make setup` "
        "(or `pip install -r requirements.txt -e .` in your own environment)\n"
    )
    sys.exit(1)

SCHEMA = Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml"
try:
    for _configfile in workflow.configfiles:  # config.yaml and any --configfile: no key twice in a mapping
        check_duplicate_keys(_configfile)
    validate_config(config, load_schema(SCHEMA))
    check_data(config)  # columns, conditioning values, encodings: on the cached data, before any job
except ConfigError as err:
    sys.stderr.write(f"{err}\n")
    sys.exit(1)
# snakemake's own pass (defaults are already filled in; this keeps the schema the contract)
validate(config, str(SCHEMA))

#: final targets; every rules file appends its own
TARGETS = []

# digests of the package code each stage runs: a `code` param, so editing src/ reruns the jobs
from pufferfish.pipeline.sources import source_digest

CODE = source_digest()  # the whole package (every computing rule)
FETCH_CODE = source_digest(["pipeline.fetch", "pipeline.io", "pipeline.cli", "errors"])  # downloads only


def raw_csv(dataset):
    """The cached table of a dataset (rule download)."""
    return f"data/raw/{dataset}.csv"


def raw_json(dataset):
    """The provenance record of a dataset (rule download)."""
    return f"data/raw/{dataset}.json"


def alternatives(names):
    """A wildcard constraint matching exactly the given names."""
    return "|".join(re.escape(n) for n in sorted(names)) or "(?!x)x"


def experiment_data_users(name):
    """Data-derived users (config multiuser.data_users) an experiment refers to."""
    spec = config["multiuser"]["experiments"][name]
    data_users = config["multiuser"].get("data_users", {})
    panels = spec["panels"].values() if "panels" in spec else [spec]
    names = set(spec.get("rest", []))
    for panel in panels:
        names |= set(panel.get("rest", []))
        names |= {s["user"] for s in panel["secrets"] if isinstance(s, dict) and "user" in s}
    return sorted(n for n in names if n in data_users)


def audit_tables():
    """Every per-experiment audit table of both papers (inputs of the summary)."""
    tables = [f"results/audit/multiuser_{e}.csv" for e in sorted(config["multiuser"]["experiments"])]
    gauss = config["gaussian"]
    figs = (["fig2"] if "fig2" in gauss else []) + gmm_experiment_names(gauss)
    tables += [f"results/audit/gaussian_{f}.csv" for f in figs]
    return tables


def reproduction_inputs(paper_values):
    """The output files that paper_values.yaml reads."""
    from pufferfish.pipeline.report import paper_value_files

    return paper_value_files(paper_values)


def print_violations(summary_csv):
    """At the end of a successful run, repeat every audit violation as a warning."""
    from pufferfish.pipeline.report import read_violation_lines

    for line in read_violation_lines(summary_csv):
        sys.stderr.write(line + "\n")


def git_state(repo):
    """Commit and modified-tracked-files flag of the repository (None outside git)."""
    from pufferfish.pipeline.report import git_state as _git_state

    return _git_state(repo)


def read_user_records(paths):
    """Provenance records of data-derived users (for figure captions)."""
    from pufferfish.multiuser.experiments import read_user_records as _read

    return _read(paths)


def audit_violations(path):
    """The audit rows of a table whose scale misses its target, one line each (for captions)."""
    from pufferfish.pipeline.report import audit_violations as _violations

    return _violations(path)


def read_gmm_rows(path):
    """Rows used and dropped per secret of a GMM fit (for captions)."""
    from pufferfish.gaussian.experiments import read_gmm_rows as _rows

    return _rows(path)

# Loaded first: validate the configuration and type it (one line and exit 1 on a mistake:
# duplicate keys, the schema, the grids and cross-references, what the cached data can tell),
# then hold the list of final targets that each rules file extends.
import re
import sys
from pathlib import Path

from snakemake.utils import validate

try:
    from pufferfish.pipeline.config import check_duplicate_keys, load_schema, load_settings, schema_file
    from pufferfish.pipeline.data_checks import check_data
    from pufferfish.errors import ConfigError
except ModuleNotFoundError as err:
    sys.stderr.write(
        f"error: {(err.name or 'pufferfish').split('.')[0]} is not installed in {sys.executable}: run `make setup` "
        "(or `pip install -r requirements.txt -e .` in your own environment)\n"
    )
    sys.exit(1)

SCHEMA = Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml"
# the validated config as frozen dataclasses (pufferfish.pipeline.config.Settings, built of each
# experiment's own settings classes). The rules read its structure (which figures and
# experiments, which users each needs); each job gets its section as a plain mapping param,
# since Snakemake reruns a job when a param changes but only compares params of builtin types,
# and turns it into the section's dataclass itself.
try:
    for _configfile in workflow.configfiles:  # config.yaml and any --configfile: no key twice in a mapping
        check_duplicate_keys(_configfile)
    SCHEMA_FILLED = load_schema(SCHEMA)  # the schema file, the registry's method names filled in
    SETTINGS = load_settings(config, SCHEMA_FILLED)  # fills the schema's defaults into config
    check_data(config)  # columns, conditioning values, encodings: on the cached data, before any job
except ConfigError as err:
    sys.stderr.write(f"{err}\n")
    sys.exit(1)
# snakemake's own pass, against the same filled-in schema (defaults are already filled in; this
# keeps the schema the contract)
with schema_file(SCHEMA_FILLED) as _schema_path:
    validate(config, _schema_path)

# package functions that rules call when they run (params of figure captions, provenance)
from pufferfish.multiuser.captions import read_user_records
from pufferfish.pipeline.report import audit_violations, paper_value_files, read_violation_lines

#: final targets; every rules file appends its own
TARGETS = []
#: every audit table (the audit summary's inputs); every rules file appends its own as it
#: appends its targets, and report.smk, included last, reads the list
AUDIT_TABLES = []

# digests of the package code each stage runs: a `code` param, so editing src/ reruns the jobs
from pufferfish.pipeline.sources import source_digest

CODE = source_digest()  # the whole package (every computing rule)
FETCH_CODE = source_digest(["pipeline.fetch", "files", "pipeline.jobs", "errors"])  # downloads only


def once_written(path, read, empty):
    """``read(path)`` once the job has written ``path``, else ``empty``: for a caption param
    derived from the job's own output, which Snakemake evaluates before the job runs (the file
    is not there yet) and again for the report (it is). Such a param never triggers a rerun."""
    return read(path) if Path(path).exists() else empty


def gmm_rows(gmm_json):
    """The rows-used record of a GMM fit, for captions (``read_gmm_rows``)."""
    from pufferfish.gaussian.captions import read_gmm_rows

    return read_gmm_rows(gmm_json)


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


def data_user_priors(w):
    """The provenance records of the data users experiment ``w.experiment`` needs (rule multiuser_data_user)."""
    return [f"results/priors/{u}.json" for u in SETTINGS.multiuser.data_users_of(w.experiment)]


def multiuser_experiment_output(*, plan):
    """The outputs of an experiment of paper 000: its theta, audit and query-prior tables, the
    figure (PNG, PDF, plotted numbers), and for a ``kind: plan`` experiment pi* and Delta*."""
    out = {
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
    if plan:
        out["plan"] = "results/plans/multiuser_{experiment}.csv"
        out["cdf"] = "results/plans/multiuser_{experiment}_cdf.csv"
    return out


def gaussian_figure_output(*, audited):
    """The outputs of a figure of paper 004: its b table and the figure (PNG, PDF, plotted
    numbers), and for the audited figure its audit table."""
    out = {
        "theta": report(
            "results/theta/gaussian_{fig}.csv",
            caption="../report/theta_table.rst",
            category="Tables: theta and b",
            labels={"table": "gaussian_{fig}"},
        ),
        "png": report(
            "results/figures/gaussian/{fig}.png",
            caption="../report/gaussian_figure.rst",
            category="Gaussian priors (paper 004)",
            labels={"figure": "{fig}"},
        ),
        "pdf": "results/figures/gaussian/{fig}.pdf",
        "csv": "results/figures/gaussian/{fig}.csv",
    }
    if audited:
        out["audit"] = "results/audit/gaussian_{fig}.csv"
    return out


def comparison_inputs(wildcards):
    """The priors a pair of config `comparison` needs: the data users' JSON (a multiuser pair)
    or its setting's conditionals (a Table 1 pair)."""
    from pufferfish.comparison.experiments import parse_pair, slug

    pair = {slug(p): p for p in (config.get("comparison") or {}).get("pairs", [])}[wildcards.pair]
    kind, name, panel = parse_pair(pair, config)
    if kind == "table1":
        return {"table1": f"results/priors/wasserstein_{name}.json"}
    return {"users": [f"results/priors/{u}.json" for u in SETTINGS.multiuser.data_users_of(name)]}


def comparison_config(wildcards):
    """The part of the config one pair of `comparison` reads (its experiment or setting, the
    users, the grid): editing another experiment or the list of pairs does not rerun it."""
    from pufferfish.comparison.experiments import parse_pair, slug

    section = config.get("comparison") or {}
    pair = {slug(p): p for p in section.get("pairs", [])}[wildcards.pair]
    kind, name, panel = parse_pair(pair, config)
    out = {"comparison": {k: section[k] for k in ("epsilons", "delta", "alpha")}}
    if kind == "table1":
        out["wasserstein"] = {"settings": {name: config["wasserstein"]["settings"][name]}}
    else:
        mu = config["multiuser"]
        out["multiuser"] = {
            "users": mu["users"],
            "data_users": mu["data_users"],
            "experiments": {name: mu["experiments"][name]},
        }
    return out


def attribute_privacy_caption(figure_csv):
    """The caption lines of the attribute-privacy figure (``attribute_caption``)."""
    from pufferfish.sensitivity.captions import attribute_caption

    return attribute_caption(figure_csv)


def diffusion_check_caption(check_csv):
    """The verdict of the diffusion check, for the figure's caption (``diffusion_caption``)."""
    from pufferfish.sensitivity.captions import diffusion_caption

    return diffusion_caption(check_csv)


def coupling_warnings():
    """The diffusion check's rows above the bound (Prop. 6.3), as WARNING lines at the end of the run."""
    from pufferfish.sensitivity.captions import read_coupling_violations

    return read_coupling_violations("results/theta/diffusion_check.csv")

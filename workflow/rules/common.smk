# Loaded first: validate the configuration (one line and exit 1 on a mistake), then
# hold the list of final targets that each rules file extends.
import sys
from pathlib import Path

from snakemake.utils import validate

from pufferfish.config import load_schema, validate_config
from pufferfish.errors import ConfigError

SCHEMA = Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml"
try:
    validate_config(config, load_schema(SCHEMA))
except ConfigError as err:
    sys.stderr.write(f"{err}\n")
    sys.exit(1)
# snakemake's own pass (defaults are already filled in; this keeps the schema the contract)
validate(config, str(SCHEMA))

#: final targets; every rules file appends its own
TARGETS = []


def datasets_used():
    """Dataset keys referenced by some experiment (only those are downloaded by `all`)."""
    used = {u["dataset"] for u in config["multiuser"].get("data_users", {}).values()}
    used |= {spec["dataset"] for key, spec in config["gaussian"].items() if key in ("fig3", "fig4")}
    return sorted(used)

"""Validation of ``config.yaml``: the JSON schema, then the cross-references.

:func:`validate_config` is what the Snakefile calls when the workflow loads. A mistake
becomes a :class:`~pufferfish.errors.ConfigError` whose message is one line of the form
``experiments.fig4.epsilons[0] = -0.1: must be > 0``.
"""

from __future__ import annotations

import copy
import json
import math
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

import jsonschema
import numpy as np
import yaml

from pufferfish import registry
from pufferfish.errors import ConfigError
from pufferfish.grids import MAX_GRID, check_deltas, check_epsilons, expand_grid

__all__ = ["load_schema", "validate_config", "format_path", "SCHEMA_PATH", "gmm_experiment_names",
           "GAUSSIAN_FIXED_KEYS"]

#: the schema, package data (``workflow/schemas/config.schema.yaml`` is a symlink to it)
SCHEMA_PATH = Path(__file__).with_name("config.schema.yaml")

def load_schema(path: str | Path = SCHEMA_PATH) -> dict:
    """Read the YAML JSON-schema at ``path``."""
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def format_path(parts) -> str:
    """Render a JSON path as ``a.b[0].c``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text or "(top level)"


def _show(value) -> str:
    if isinstance(value, (dict, list)):
        text = json.dumps(value, default=str)
        return text if len(text) <= 60 else text[:57] + "..."
    if isinstance(value, str):
        return repr(value)
    return str(value)


#: reasons that only format the schema keyword's value
_REASONS = {
    "exclusiveMinimum": "must be > {}", "minimum": "must be >= {}", "exclusiveMaximum": "must be < {}",
    "maximum": "must be <= {}", "const": "must be {!r}", "pattern": "must match the pattern {}",
    "minItems": "must have at least {} item(s)", "maxItems": "must have at most {} item(s)",
    "minProperties": "must have at least {} key(s)", "uniqueItems": "must not repeat an item",
}
_KINDS = {"integer": "an integer", "number": "a number", "string": "a string", "array": "a list",
          "object": "a mapping", "boolean": "true or false"}


def _reason(error: jsonschema.ValidationError) -> str:
    v, s = error.validator, error.validator_value
    if v in _REASONS:
        return _REASONS[v].format(s)
    if v == "type":
        return "must be " + " or ".join(_KINDS.get(k, k) for k in (s if isinstance(s, list) else [s]))
    if v == "enum":
        return "must be one of " + ", ".join(str(x) for x in s)
    if v in ("oneOf", "anyOf"):
        desc = error.schema.get("description")
        return "is not a valid form" + (f" (expected {desc})" if desc else "")
    if v == "not":
        return "combines keys that exclude each other"
    return error.message


def _best_error(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """Descend into oneOf/anyOf to the branch the user most likely meant."""
    while error.validator in ("oneOf", "anyOf") and error.context:
        branches: dict[int, list] = defaultdict(list)
        for sub in error.context:
            branches[sub.relative_schema_path[0]].append(sub)
        # a branch whose root type/const/required fails is a different form: skip it
        def is_other_form(errs):
            return any(len(e.relative_path) == 0 and e.validator in ("type", "const", "enum") for e in errs) or any(
                len(e.relative_path) == 1 and e.validator in ("const",) for e in errs)
        viable = [errs for errs in branches.values() if not is_other_form(errs)]
        if len(viable) != 1:
            return error
        error = max(viable[0], key=lambda e: len(e.absolute_path))
    return error


def _raise_schema_error(config: Mapping, schema: Mapping) -> None:
    validator_cls = jsonschema.validators.validator_for(schema)
    validator = validator_cls(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: (list(map(str, e.absolute_path)), str(e.validator)))
    if not errors:
        return
    error = _best_error(errors[0])
    path = list(error.absolute_path)
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        raise ConfigError(f"config: {format_path(path + [extra[0]]) if extra else format_path(path)}: unknown key")
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        raise ConfigError(f"config: {format_path(path + missing[:1])}: missing required key")
    if error.validator == "propertyNames":
        raise ConfigError(f"config: {format_path(path)}: key {error.instance!r} must be letters, digits and _")
    raise ConfigError(f"config: {format_path(path)} = {_show(error.instance)}: {_reason(error)}")


def _fill_defaults(config: dict, schema: Mapping) -> dict:
    """Fill schema defaults (as ``snakemake.utils.validate(..., set_default=True)`` does)."""
    base = jsonschema.validators.validator_for(schema)

    def set_defaults(validator, properties, instance, schema_):
        if isinstance(instance, dict):
            for key, sub in properties.items():
                if "default" in sub and key not in instance:
                    instance[key] = copy.deepcopy(sub["default"])
        yield from base.VALIDATORS["properties"](validator, properties, instance, schema_)

    extended = jsonschema.validators.extend(base, {"properties": set_defaults})
    extended(schema).validate(config)
    return config


def _secret_kind(secret) -> str:
    return "absent" if secret == "absent" else next(iter(secret))


def _check_keys_and_numbers(node, path=()) -> None:
    """Every key is a string and every number is finite (YAML's .inf and .nan pass the schema's bounds).

    YAML reads an unquoted ``2:`` as an integer key and ``on:``/``yes:`` as booleans; the
    schema's name patterns only apply to strings, so such keys are refused here.
    """
    if isinstance(node, Mapping):
        for key, value in node.items():
            if not isinstance(key, str):
                where = f"config: {format_path(path)}" if path else "config"
                raise ConfigError(f"{where}: key {key!r} must be a string (quote it in config.yaml)")
            _check_keys_and_numbers(value, (*path, key))
    elif isinstance(node, list):
        for k, value in enumerate(node):
            _check_keys_and_numbers(value, (*path, k))
    elif isinstance(node, float) and not math.isfinite(node):
        raise ConfigError(f"config: {format_path(path)} = {node}: must be finite")


def _check_grid(spec, where: str, check) -> None:
    try:
        check(expand_grid(spec, name=where), name=where)
    except ConfigError as err:
        raise ConfigError(f"config: {err}") from None


def _check_references(config: Mapping) -> None:
    datasets = config.get("datasets", {})
    mu = config.get("multiuser", {})
    users = mu.get("users", {})
    data_users = mu.get("data_users", {})
    for name, user in users.items():
        where = f"config: multiuser.users.{name}"
        if len(user["values"]) != len(user["probabilities"]):
            raise ConfigError(f"{where}: values and probabilities have different lengths "
                              f"({len(user['values'])} vs {len(user['probabilities'])})")
        if len(set(user["values"])) != len(user["values"]):
            raise ConfigError(f"{where}.values: must not repeat a value")
        total = float(np.sum(user["probabilities"]))
        if abs(total - 1.0) > 1e-9:
            raise ConfigError(f"{where}.probabilities: sum to {total!r}, must sum to 1 (within 1e-9)")
    for name in set(users) & set(data_users):
        raise ConfigError(f"config: multiuser.data_users.{name}: name already used in multiuser.users")
    for exp_name in mu.get("experiments", {}):  # results/plans/multiuser_<name>_cdf.csv belongs to <name>
        if exp_name.endswith("_cdf"):
            raise ConfigError(f"config: multiuser.experiments.{exp_name}: an experiment name must not end in '_cdf'")
    for section, names in (("users", users), ("data_users", data_users)):
        for name in names:  # results/priors/<name>.csv must not clash with results/priors/multiuser_<experiment>.csv
            if name.startswith("multiuser_"):
                raise ConfigError(f"config: multiuser.{section}.{name}: a user name must not start with 'multiuser_'")
    for name, user in data_users.items():
        if user["dataset"] not in datasets:
            raise ConfigError(f"config: multiuser.data_users.{name}.dataset = {user['dataset']!r}: "
                              f"not a key of datasets (have: {', '.join(sorted(datasets))})")
    known = set(users) | set(data_users)
    for exp_name, exp in mu.get("experiments", {}).items():
        where = f"config: multiuser.experiments.{exp_name}"
        _check_grid(exp["epsilons"], f"multiuser.experiments.{exp_name}.epsilons", check_epsilons)
        for k, user in enumerate(exp.get("rest", [])):
            if user not in known:
                raise ConfigError(f"{where}.rest[{k}] = {user!r}: unknown user (not in multiuser.users or data_users)")
        if exp["kind"] == "plan" and "panels" in exp:
            raise ConfigError(f"{where}: kind 'plan' draws one secret pair; use `secrets`, not `panels`")
        panels = exp["panels"] if "panels" in exp else {"": {"secrets": exp["secrets"]}}
        for panel_name, panel in panels.items():
            pwhere = f"{where}.panels.{panel_name}" if panel_name else where
            for k, user in enumerate(panel.get("rest", [])):
                if user not in known:
                    raise ConfigError(f"{pwhere}.rest[{k}] = {user!r}: unknown user")
            secrets = panel["secrets"]
            for k, secret in enumerate(secrets):
                if isinstance(secret, Mapping) and "user" in secret and secret["user"] not in known:
                    raise ConfigError(f"{pwhere}.secrets[{k}].user = {secret['user']!r}: unknown user "
                                      f"(not in multiuser.users or data_users)")
            if secrets[0] == secrets[1]:
                raise ConfigError(f"{pwhere}.secrets: the two secrets are the same")
            kinds = (_secret_kind(secrets[0]), _secret_kind(secrets[1]))
            for method in exp["methods"]:
                record = registry.get(method)
                if not record.applies_to(kinds):
                    raise ConfigError(f"{where}.methods: {method} does not apply to the secret pair "
                                      f"({kinds[0]}, {kinds[1]}) of {pwhere.removeprefix('config: ')}")
                if record.bernoulli:  # Bernoulli users only; data users are checked on the data
                    for k, secret in enumerate(secrets):
                        user = users.get(secret["user"])
                        if user is not None and any(v not in (0, 1) for v, pr in
                                                    zip(user["values"], user["probabilities"]) if pr > 0):
                            raise ConfigError(f"{where}.methods: {method} needs Bernoulli users, but "
                                              f"{pwhere.removeprefix('config: ')}.secrets[{k}].user = "
                                              f"{secret['user']!r} takes values outside {{0, 1}}")
    gauss = config.get("gaussian", {})
    for fig in gmm_experiment_names(gauss):
        spec = gauss[fig]
        if spec["dataset"] not in datasets:
            raise ConfigError(f"config: gaussian.{fig}.dataset = {spec['dataset']!r}: not a key of datasets")
        _check_grid(spec["epsilons"], f"gaussian.{fig}.epsilons", check_epsilons)
    if "fig5" in gauss:
        _check_grid(gauss["fig5"]["deltas"], "gaussian.fig5.deltas", check_deltas)
    if "fig2" in gauss:
        start, stop = gauss["fig2"]["K"]["start"], gauss["fig2"]["K"]["stop"]
        if stop < start:
            raise ConfigError("config: gaussian.fig2.K.stop: must be >= K.start")
        if stop - start + 1 > MAX_GRID:
            raise ConfigError(f"config: gaussian.fig2.K = {{start: {start}, stop: {stop}}}: "
                              f"at most {MAX_GRID} values allowed")
    if "fig1" in gauss:
        lo, hi = gauss["fig1"]["window"]
        if not lo < hi:
            raise ConfigError(f"config: gaussian.fig1.window = [{lo}, {hi}]: must be increasing")


#: keys of the ``gaussian`` section that are not GMM experiments
GAUSSIAN_FIXED_KEYS = ("fig1", "fig2", "fig5", "gmm")


def _check_gaussian_keys(gaussian) -> None:
    """A mistyped fixed key (``GMM``, ``Fig5``) would be read as a GMM experiment: say so; and a
    GMM experiment named ``<other>_theta`` would write ``<other>``'s theta figure."""
    if not isinstance(gaussian, Mapping):
        return
    for key in gaussian:
        if key not in GAUSSIAN_FIXED_KEYS and key.lower() in GAUSSIAN_FIXED_KEYS:
            raise ConfigError(f"config: gaussian.{key}: not one of {', '.join(GAUSSIAN_FIXED_KEYS)} (keys are "
                              f"case-sensitive; any other key is read as a GMM experiment)")
        if key.endswith("_theta"):
            raise ConfigError(f"config: gaussian.{key}: a GMM experiment name must not end in '_theta' "
                              f"(results/figures/gaussian/<name>_theta.* are the b tables' figures)")


def gmm_experiment_names(gaussian: Mapping) -> list[str]:
    """The GMM experiments of paper 004 in config ``gaussian`` (fig3, fig4 and any added key), sorted."""
    return sorted(k for k in gaussian if k not in GAUSSIAN_FIXED_KEYS)


def validate_config(config: dict, schema: Mapping | None = None) -> dict:
    """Check ``config`` against the schema and its cross-references; fill the defaults.

    Returns the same dict with defaults filled in. Raises :class:`ConfigError` with a
    one-line message naming the offending key and value.
    """
    schema = load_schema() if schema is None else schema
    if not isinstance(config, Mapping):
        raise ConfigError("config: the configuration must be a mapping of keys")
    _check_keys_and_numbers(config)
    _check_gaussian_keys(config.get("gaussian"))
    _raise_schema_error(config, schema)
    _fill_defaults(config, schema)
    _check_references(config)
    return config

"""config.yaml, validated and typed: the JSON schema, the typed settings, the cross-references.

One layer, each check once:

1. the JSON schema (``config.schema.yaml``, package data) checks every key, type and range
   and fills in the defaults (every default lives there);
2. :meth:`Settings.from_config` turns the validated mapping into the typed settings each
   experiment defines (:mod:`pufferfish.settings` for the shared ones,
   ``pufferfish.<paper>.settings`` for each paper's), expanding and checking the grids;
3. the cross-references no schema can state (users named by experiments, methods that
   apply to a secret pair, sizes the computation can honour) are checked here.

:func:`load_settings` is what the workflow calls when it loads (:func:`validate_config` when
only the filled-in mapping is wanted); :func:`check_data` then checks what the cached data
can tell. A mistake becomes a :class:`~pufferfish.errors.ConfigError` whose message is one
line of the form ``config: multiuser.experiments.fig4.epsilons[0] = -0.1: must be > 0``.
"""

from __future__ import annotations

import copy
import json
import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import jsonschema
import numpy as np
import yaml

from pufferfish import registry
from pufferfish.comparison.settings import ComparisonSettings
from pufferfish.errors import ConfigError
from pufferfish.gaussian.settings import GAUSSIAN_FIXED_KEYS, GaussianSettings, gmm_experiment_names
from pufferfish.grids import MAX_GRID
from pufferfish.iteration.settings import IterationSettings
from pufferfish.multiuser.settings import MultiuserSettings
from pufferfish.sensitivity.settings import SensitivitySettings
from pufferfish.settings import AuditSettings, DatasetSettings, read_section
from pufferfish.wasserstein.settings import PierquinSetting

__all__ = ["load_schema", "validate_config", "load_settings", "Settings", "format_path", "SCHEMA_PATH",
           "check_duplicate_keys", "check_data", "cached_dataset", "known_columns"]

#: the schema, package data (``workflow/schemas/config.schema.yaml`` is a symlink to it)
SCHEMA_PATH = Path(__file__).with_name("config.schema.yaml")

#: PyYAML's safe loader, its libyaml (C) build where installed: the same documents, parsed
#: 5-10 times faster (the workflow parses the config and the schema at every start)
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_schema(path: str | Path = SCHEMA_PATH) -> dict:
    """Read the YAML JSON-schema at ``path``."""
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=SAFE_LOADER)  # noqa: S506 (a safe loader)


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
    "minLength": "must have at least {} character(s)",
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


def _check_method_params(exp_name: str, exp: Mapping) -> None:
    """Every listed method has the parameters its registry record ``needs`` (``delta``, ``alpha``)
    and values it is stated for (``refuses``), e.g.
    ``config: multiuser.experiments.fig5.methods: gawm_laplace needs `delta` (set multiuser.experiments.fig5.delta)``."""
    where = f"multiuser.experiments.{exp_name}"
    params = {key: exp[key] for key in ("delta", "alpha") if key in exp}
    for method in exp["methods"]:
        record = registry.get(method)
        for need in record.needs:
            if need not in params:
                raise ConfigError(f"config: {where}.methods: {method} needs `{need}` (set {where}.{need})")
        reason = record.refuses(params) if record.refuses is not None else ""
        if reason:
            raise ConfigError(f"config: {where}.methods: {method} {reason}")


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
        for k, user in enumerate(exp.get("rest", [])):
            if user not in known:
                raise ConfigError(f"{where}.rest[{k}] = {user!r}: unknown user (not in multiuser.users or data_users)")
        if exp["kind"] == "plan" and "panels" in exp:
            raise ConfigError(f"{where}: kind 'plan' draws one secret pair; use `secrets`, not `panels`")
        _check_method_params(exp_name, exp)
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


def _check_pierquin(config: Mapping) -> None:
    """Cross-references of ``pierquin.settings`` (paper 002's Table 1): datasets, DP range, output names.

    Each setting's dataset is a key of ``datasets``; its DP sensitivity is declared
    (``domain`` or ``range``; implied by an ``indicator`` or ``codes`` encoding); the
    released attribute is not the secret column; and ``results/priors/pierquin_<setting>.*``
    is not also a user's prior (``results/priors/<user>.*``).
    """
    from pufferfish.wasserstein.conditionals import SECTION, declared_range

    settings = (config.get("pierquin") or {}).get("settings", {})
    datasets = config.get("datasets", {})
    mu = config.get("multiuser", {})
    users = set(mu.get("users", {})) | set(mu.get("data_users", {}))
    for name, spec in settings.items():
        where = f"config: {SECTION}.{name}"
        if spec["dataset"] not in datasets:
            raise ConfigError(f"{where}.dataset = {spec['dataset']!r}: not a key of datasets "
                              f"(have: {', '.join(sorted(datasets))})")
        if spec["attribute"] == spec["column"]:
            raise ConfigError(f"{where}: attribute and column are both {spec['attribute']!r}; the secret "
                              "column must be another column")
        declared_range(spec, setting=name)
        if f"pierquin_{name}" in users:
            raise ConfigError(f"{where}: results/priors/pierquin_{name}.csv would also be the prior of the user "
                              f"pierquin_{name} (multiuser); rename one of them")


def _check_comparison(config: Mapping) -> None:
    """Cross-references of ``comparison``: every pair names an experiment (and panel) or a
    Table 1 setting; alpha = 2 (the only order DAGWM is stated at)."""
    spec = config.get("comparison")
    if not spec:
        return
    from pufferfish.comparison.experiment import parse_pair, slug

    seen = {}
    for pair in spec["pairs"]:
        parse_pair(pair, config)
        if slug(pair) in seen:
            raise ConfigError(f"config: comparison.pairs: {pair!r} and {seen[slug(pair)]!r} share the output name "
                              f"{slug(pair)}")
        seen[slug(pair)] = pair
    if float(spec["alpha"]) != 2.0:
        raise ConfigError(f"config: comparison.alpha = {spec['alpha']}: must be 2 (dagwm_cauchy, paper 002 Cor. 4.1, "
                          "is stated at alpha = 2)")


def _check_iteration(config: Mapping) -> None:
    """Cross-references of ``iteration.series``: each series reads a column its dataset declares
    (``datasets.<key>.columns``, checked against the data when it is read), sorted by ``file``
    or a declared column; and its outputs (``results/theta/iteration_<name>.csv``,
    ``iteration_<name>_sigma.csv``) are not the Fig. 6 table's or another series' files."""
    series = (config.get("iteration") or {}).get("series") or {}
    datasets = config.get("datasets", {})
    for name, spec in series.items():
        where = f"config: iteration.series.{name}"
        if name == "fig6" or name.endswith("_sigma"):
            raise ConfigError(f"{where}: a series name must not be 'fig6' or end in '_sigma' (results/theta/"
                              f"iteration_{name}.csv would be another table's file)")
        if spec["dataset"] not in datasets:
            raise ConfigError(f"{where}.dataset = {spec['dataset']!r}: not a key of datasets "
                              f"(have: {', '.join(sorted(datasets))})")
        columns = datasets[spec["dataset"]].get("columns", [])
        for key in ("column", "order"):
            if (key == "column" or spec[key] != "file") and spec[key] not in columns:
                raise ConfigError(f"{where}.{key} = {spec[key]!r}: not a column of datasets.{spec['dataset']}.columns "
                                  f"(have: {', '.join(map(str, columns))}{'; or file' if key == 'order' else ''})")
def _check_sensitivity(config: Mapping) -> None:
    """Cross-references of ``sensitivity.attribute_privacy``: every triple's dataset is a key of
    ``datasets`` (its columns are checked against the data by :func:`check_data`)."""
    attribute = (config.get("sensitivity") or {}).get("attribute_privacy") or {}
    datasets = config.get("datasets", {})
    for k, triple in enumerate(attribute.get("triples", [])):
        if triple["dataset"] not in datasets:
            raise ConfigError(f"config: sensitivity.attribute_privacy.triples[{k}].dataset = {triple['dataset']!r}: "
                              f"not a key of datasets (have: {', '.join(sorted(datasets))})")


@dataclass(frozen=True)
class Settings:
    """config.yaml, validated: the ``seed`` of every random draw and one object per section."""

    schema_path: ClassVar[str] = ""
    seed: int
    datasets: dict[str, DatasetSettings]
    multiuser: MultiuserSettings
    gaussian: GaussianSettings
    pierquin: dict[str, PierquinSetting]
    comparison: ComparisonSettings | None
    audit: AuditSettings
    iteration: IterationSettings | None
    sensitivity: SensitivitySettings | None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Settings:
        """The settings of a configuration that the schema has validated (defaults filled in)."""
        s = read_section(config, "", required=("seed", "datasets", "multiuser", "gaussian", "audit"),
                         optional=("pierquin", "comparison", "iteration", "sensitivity"))
        pierquin = read_section(s.get("pierquin") or {}, "pierquin", required=(), optional=("settings",))
        return cls(seed=int(s["seed"]),
                   datasets={k: DatasetSettings.from_config(k, v) for k, v in s["datasets"].items()},
                   multiuser=MultiuserSettings.from_config(s["multiuser"]),
                   gaussian=GaussianSettings.from_config(s["gaussian"]),
                   pierquin={k: PierquinSetting.from_config(k, v) for k, v in (pierquin.get("settings") or {}).items()},
                   comparison=None if not s.get("comparison") else ComparisonSettings.from_config(s["comparison"]),
                   audit=AuditSettings.from_config(s["audit"]),
                   iteration=None if not s.get("iteration") else IterationSettings.from_config(s["iteration"]),
                   sensitivity=None if not s.get("sensitivity") else SensitivitySettings.from_config(
                       s["sensitivity"], seed=s["seed"]))

    @classmethod
    def load(cls, config: Mapping[str, Any]) -> Settings:
        """The settings of a copy of ``config``, validated (:func:`load_settings`; ``config`` is left as it is)."""
        return load_settings(copy.deepcopy(dict(config)))


def load_settings(config: dict, schema: Mapping | None = None) -> Settings:
    """Validate ``config`` and return it typed: the schema (filling its defaults into ``config``),
    then :meth:`Settings.from_config` (the grids), then the cross-references.

    Raises :class:`ConfigError` with a one-line message naming the offending key and value.
    """
    schema = load_schema() if schema is None else schema
    if not isinstance(config, Mapping):
        raise ConfigError("config: the configuration must be a mapping of keys")
    _check_keys_and_numbers(config)
    _check_gaussian_keys(config.get("gaussian"))
    _raise_schema_error(config, schema)
    _fill_defaults(config, schema)
    settings = Settings.from_config(config)
    _check_references(config)
    _check_pierquin(config)
    _check_comparison(config)
    _check_iteration(config)
    _check_sensitivity(config)
    _check_limits(config)
    return settings


def validate_config(config: dict, schema: Mapping | None = None) -> dict:
    """Check ``config`` as :func:`load_settings` does; return the same dict with the defaults filled in."""
    load_settings(config, schema)
    return config


def _check_limits(config: Mapping) -> None:
    """Values the schema admits but the computation cannot honour, refused before any job.

    ``audit.bisection_rtol`` below :data:`pufferfish.audit.laplace_lattice.MIN_RTOL` (no float
    bracket is that narrow); a lattice user, or an experiment's priors built from lattice
    users and reported values, spanning more than
    :data:`pufferfish.lattice.pmf.MAX_LATTICE_POINTS` points.
    """
    from pufferfish.audit.laplace_lattice import MIN_RTOL
    from pufferfish.lattice.pmf import MAX_LATTICE_POINTS

    rtol = config.get("audit", {}).get("bisection_rtol")
    if isinstance(rtol, (int, float)) and rtol < MIN_RTOL:
        raise ConfigError(f"config: audit.bisection_rtol = {rtol!r}: must be >= {MIN_RTOL!r} (a bracket of two "
                          "float64 numbers a few ulps apart)")
    mu = config.get("multiuser", {})
    users = mu.get("users", {})
    spans = {}
    for name, user in users.items():
        values = [v for v, p in zip(user["values"], user["probabilities"]) if p > 0] or user["values"]
        spans[name] = (min(values), max(values))
        if max(values) - min(values) + 1 > MAX_LATTICE_POINTS:
            raise ConfigError(f"config: multiuser.users.{name}.values: span {max(values) - min(values) + 1} lattice "
                              f"points (from {min(values)} to {max(values)}), at most {MAX_LATTICE_POINTS} allowed")
    for exp_name, exp in mu.get("experiments", {}).items():
        panels = exp["panels"] if "panels" in exp else {"": {"secrets": exp["secrets"]}}
        for panel_name, panel in panels.items():
            rest = panel.get("rest", exp.get("rest", []))
            parts = []
            for secret in panel["secrets"]:
                if secret == "absent":
                    parts.append((0, 0))
                elif "value" in secret:
                    parts.append((secret["value"], secret["value"]))
                else:
                    parts.append(spans.get(secret["user"]))
            if any(part is None for part in parts) or any(u not in spans for u in rest):
                continue  # a data user: its range is known only from the data
            lo = sum(spans[u][0] for u in rest) + min(p[0] for p in parts)
            hi = sum(spans[u][1] for u in rest) + max(p[1] for p in parts)
            if hi - lo + 1 > MAX_LATTICE_POINTS:
                where = f"multiuser.experiments.{exp_name}" + (f".panels.{panel_name}" if panel_name else "")
                raise ConfigError(f"config: {where}: the two query priors span {hi - lo + 1} lattice points (from "
                                  f"{lo} to {hi}), at most {MAX_LATTICE_POINTS} allowed")


# ------------------------------------------------------------------------------ config files: duplicate keys
def check_duplicate_keys(path: str | Path) -> None:
    """Refuse a YAML (or JSON) config file in which a mapping repeats a key.

    YAML loaders, Snakemake's included, keep the last of two equal keys without a word (a
    second ``D1:`` under ``multiuser.users`` silently replaces the first). The message
    names the key, where it is and both line numbers, e.g.
    ``config: multiuser.users.D1: key 'D1' appears twice in config.yaml (lines 67 and 70)``.
    YAML merge keys (``<<: *anchor``) may be overridden, as YAML intends.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"config: cannot read {path}: {err.strerror or err}") from None
    try:
        root = yaml.compose(text, Loader=SAFE_LOADER)
    except yaml.YAMLError:
        _check_json_duplicates(text, path)  # Snakemake also reads JSON; a YAML error there is not ours to report
        return
    if root is not None:
        _walk_duplicates(root, (), path, yaml.constructor.SafeConstructor())


def _walk_duplicates(node, where: tuple, path: Path, constructor) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: dict = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = constructor.construct_object(key_node, deep=True)
            try:
                marker = (type(key).__name__, key)
                first = seen.get(marker)
            except TypeError:  # an unhashable key (a list): YAML itself refuses it later
                continue
            line = key_node.start_mark.line + 1
            if first is not None:
                raise ConfigError(f"config: {format_path([*where, key])}: key {key!r} appears twice in {path.name} "
                                  f"(lines {first} and {line}); the second would silently replace the first")
            seen[marker] = line
            _walk_duplicates(value_node, (*where, key), path, constructor)
    elif isinstance(node, yaml.SequenceNode):
        for k, item in enumerate(node.value):
            _walk_duplicates(item, (*where, k), path, constructor)


def _check_json_duplicates(text: str, path: Path) -> None:
    def pairs(items):
        keys = [k for k, _ in items]
        for k in keys:
            if keys.count(k) > 1:
                raise ConfigError(f"config: key {k!r} appears twice in one mapping of {path.name}")
        return dict(items)

    try:
        json.loads(text, object_pairs_hook=pairs)
    except ValueError as err:
        if isinstance(err, ConfigError):
            raise


# ------------------------------------------------------------------------------ load-time data checks
#: the fields of a dataset spec that decide the bytes of data/raw/<dataset>.csv, by source (ucimlrepo, archive)
_SOURCE_FIELDS = (("uci_id",), ("url", "member"))


def cached_dataset(name: str, spec: Mapping, raw_dir: str | Path = "data/raw") -> dict | None:
    """The provenance record of ``data/raw/<name>.json`` if the cached table is the one ``spec`` asks for.

    The cache is current when both files exist and the record's source, UCI id, URL,
    member, ``read_csv`` options, row count and pinned sha256 equal the spec's (then the
    download job will not fetch anything else); otherwise ``None``.
    """
    raw_dir = Path(raw_dir)
    csv, record_path = raw_dir / f"{name}.csv", raw_dir / f"{name}.json"
    if not (csv.is_file() and record_path.is_file()):
        return None
    try:
        with open(record_path, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(record, Mapping):
        return None
    fields = _SOURCE_FIELDS[spec.get("source") == "archive"]
    same = record.get("source") == spec.get("source") and all(record.get(k) == spec.get(k) for k in fields)
    same = same and dict(record.get("read_csv") or {}) == dict(spec.get("read_csv") or {})
    same = same and record.get("rows") == spec.get("rows")
    same = same and (record.get("sha256_expected") or "").lower() == (spec.get("sha256") or "").lower()
    return dict(record) if same and isinstance(record.get("columns"), list) else None


def known_columns(name: str, spec: Mapping, raw_dir: str | Path = "data/raw") -> list[str] | None:
    """Every column the table of dataset ``name`` will have, when it is known before any job.

    From the cached table's record (:func:`cached_dataset`), else from ``read_csv.names``
    (archive sources name their columns in config); ``None`` when only the download can tell.
    """
    record = cached_dataset(name, spec, raw_dir)
    if record is not None:
        return [str(c) for c in record["columns"]]
    names = (spec.get("read_csv") or {}).get("names")
    usecols = (spec.get("read_csv") or {}).get("usecols")
    if isinstance(names, list) and usecols is None:
        return [str(c) for c in names]
    return None


def _data_requests(config: Mapping) -> list[dict]:
    """What each data user, GMM experiment, Table 1 setting and attribute-privacy triple reads:
    where (config key), dataset, attribute, given (for a setting, its secret ``column``; for a
    triple, its ``protected`` column, and ``keys`` names the config key of each column)."""
    requests = []
    for name, spec in config.get("multiuser", {}).get("data_users", {}).items():
        requests.append({"where": f"multiuser.data_users.{name}", "kind": "data_user", "name": name, "spec": spec,
                         "dataset": spec["dataset"], "attribute": spec["attribute"],
                         "givens": [("given", spec["given"])]})
    gauss = config.get("gaussian", {})
    for fig in gmm_experiment_names(gauss):
        spec = gauss[fig]
        requests.append({"where": f"gaussian.{fig}", "kind": "gmm", "name": fig, "spec": spec,
                         "dataset": spec["dataset"], "attribute": spec["attribute"],
                         "givens": [(f"secrets[{k}].given", s["given"]) for k, s in enumerate(spec["secrets"])]})
    for name, spec in (config.get("pierquin") or {}).get("settings", {}).items():
        # paper 002's Table 1 settings: the released attribute given each value of a secret column
        requests.append({"where": f"pierquin.settings.{name}", "kind": "pierquin", "name": name, "spec": spec,
                         "dataset": spec["dataset"], "attribute": spec["attribute"],
                         "givens": [("column", {spec["column"]: None})]})
    attribute = (config.get("sensitivity") or {}).get("attribute_privacy") or {}
    for k, spec in enumerate(attribute.get("triples", [])):
        # closed-form sensitivities (paper 002, Prop. 6.2): a released column given a protected one
        requests.append({"where": f"sensitivity.attribute_privacy.triples[{k}]", "kind": "sensitivity",
                         "name": str(k), "spec": spec, "dataset": spec["dataset"], "attribute": spec["released"],
                         "givens": [("protected", {spec["protected"]: None})],
                         "keys": ("released", "protected")})
    return requests


def check_data(config: Mapping, raw_dir: str | Path = "data/raw") -> None:
    """What can be checked of the data before any job runs (called by the workflow after :func:`validate_config`).

    * every column a data user, GMM experiment, Table 1 setting or attribute-privacy triple
      reads (``attribute``, the ``given`` columns, ``released`` and ``protected``) exists,
      where the dataset's columns are known: from the cached table (``data/raw/<dataset>.json``,
      when it is the table the spec asks for, :func:`cached_dataset`) or from ``read_csv.names``;
    * every column a dataset declares in ``columns`` is in its cached table;
    * on a cached table, every conditioning value matches some row, the encodings fit
      (codes cover the values, indicator values occur, numeric values are integers) and
      each GMM secret has enough numeric rows for ``gaussian.gmm.components``: the same
      functions the jobs run (:func:`pufferfish.multiuser.experiments.data_user_prior`,
      :func:`pufferfish.data_priors.condition`, :func:`pufferfish.gaussian.gmm.numeric_values`,
      :func:`pufferfish.sensitivity.experiments.triple_columns`).

    A mistake is a :class:`ConfigError` naming the config key. Where the data are not cached
    yet, the jobs make the same checks when they run.
    """
    datasets = config.get("datasets", {})
    frames: dict[str, object] = {}
    for name, spec in datasets.items():
        record = cached_dataset(name, spec, raw_dir)
        if record is not None:
            present = set(map(str, record["columns"]))
            for k, column in enumerate(spec.get("columns", [])):
                if str(column) not in present:
                    raise ConfigError(f"config: datasets.{name}.columns[{k}] = {column!r}: not a column of the cached "
                                      f"{Path(raw_dir) / name}.csv (columns: {', '.join(record['columns'])})")
    for req in _data_requests(config):
        columns = known_columns(req["dataset"], datasets[req["dataset"]], raw_dir)
        if columns is None:
            continue
        used = [(req.get("keys", ("attribute",))[0], req["attribute"])] + [
            (g if req["kind"] in ("pierquin", "sensitivity") else f"{g}.{c}", c)
            for g, given in req["givens"] for c in given]
        for key, column in used:
            if str(column) not in columns:
                raise ConfigError(f"config: {req['where']}.{key}: no column {column!r} in dataset {req['dataset']} "
                                  f"(columns: {', '.join(columns)})")
    requests = [req for req in _data_requests(config)
                if cached_dataset(req["dataset"], datasets[req["dataset"]], raw_dir) is not None]
    # read as the job reads it: data users with pandas' defaults, GMM experiments with low_memory=False;
    # only the columns some request reads (a column's values do not depend on the others)
    usecols: dict[tuple, set] = defaultdict(set)
    for req in requests:
        usecols[(req["dataset"], req["kind"] == "data_user")].update(_request_columns(req))
    for req in requests:
        key = (req["dataset"], req["kind"] == "data_user")
        frame = _cached_frame(req["dataset"], raw_dir, frames, low_memory=key[1], usecols=usecols[key])
        if frame is not None:
            _check_request_on_frame(req, frame, config)


def _request_columns(req: Mapping) -> set:
    """The columns of its dataset that a data request reads: the attribute and the conditioning columns."""
    return {str(req["attribute"])} | {str(column) for _, given in req["givens"] for column in given}


def _cached_frame(name: str, raw_dir, frames: dict, *, low_memory: bool, usecols=None):
    import pandas as pd

    key = (name, low_memory)
    if key not in frames:
        try:
            frames[key] = pd.read_csv(Path(raw_dir) / f"{name}.csv", low_memory=low_memory,
                                      usecols=sorted(usecols) if usecols else None)
        except (OSError, ValueError, pd.errors.ParserError):  # unreadable: the job will say so
            frames[key] = None
    return frames[key]


def _check_request_on_frame(req: Mapping, frame, config: Mapping) -> None:
    from pufferfish.errors import DataError, PufferfishError
    from pufferfish.data_priors import condition

    where = req["where"]
    try:
        if req["kind"] == "data_user":
            from pufferfish.multiuser.experiments import data_user_prior

            data_user_prior(frame, req["spec"], name=req["name"])
            return
        if req["kind"] == "pierquin":
            from pufferfish.wasserstein.conditionals import conditional_priors

            conditional_priors(frame, req["spec"], setting=req["name"])
            return
        if req["kind"] == "sensitivity":
            from pufferfish.sensitivity.experiments import triple_columns
            from pufferfish.sensitivity.settings import AttributeTriple

            triple = AttributeTriple(req["spec"]["dataset"], req["spec"]["released"], req["spec"]["protected"])
            try:
                triple_columns(frame, triple)
            except DataError as err:  # its message names the triple; the config key names it here
                text = str(err).splitlines()[0].removeprefix(f"sensitivity.attribute_privacy [{triple.label}]")
                raise ConfigError(f"config: {where}: {text.removeprefix(':').strip()}") from None
            return
        from pufferfish.gaussian.gmm import numeric_values

        spec = req["spec"]
        components = int(config.get("gaussian", {}).get("gmm", {}).get("components", 1))
        for k, secret in enumerate(spec["secrets"]):
            where = f"{req['where']}.secrets[{k}]"
            cond = condition(frame, attribute=spec["attribute"], given=secret["given"], dataset=spec["dataset"],
                             missing_values=list(spec.get("missing_values", [])))
            values = numeric_values(cond.values, name=f"{spec['attribute']} | {secret['label']}")
            if values.size < components or np.unique(values).size < components:
                raise DataError(f"{np.unique(values).size} distinct value(s) in {values.size} row(s) of "
                                f"{spec['attribute']} | {secret['label']}, fewer than the {components} GMM components "
                                f"(gaussian.gmm.components)")
    except PufferfishError as err:
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        message = message.removeprefix("config: ").removeprefix(req["where"]).removeprefix(":").strip()
        raise ConfigError(f"config: {where}: {message}") from None

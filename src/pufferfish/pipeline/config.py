"""config.yaml, validated and typed: the JSON schema, the typed settings, each paper's own checks.

One layer, each check once, derived from the declared papers (:mod:`pufferfish.papers`):

1. the JSON schema (:func:`load_schema`: the shared part ``config.schema.yaml``, package
   data, with the schema of each installed paper's section merged in and the method names of
   the registry filled in) checks every key, type and range and fills in the defaults (every
   default lives there);
2. :meth:`Settings.from_config` turns the validated mapping into the typed settings: the
   shared ones (:mod:`pufferfish.settings`) and those of each paper the run runs (its
   declaration's ``settings``), expanding and checking the grids;
3. the cross-references no schema can state are each paper's own: its declaration's
   ``check_references(config)`` (and ``check_keys(config)`` before the schema where a key
   could be misread).

:func:`load_settings` is what the workflow calls when it loads (:func:`validate_config` when
only the filled-in mapping is wanted); :func:`pufferfish.pipeline.data_checks.check_data` then
checks what the cached data can tell. A mistake becomes a
:class:`~pufferfish.errors.ConfigError` whose message is one line of the form
``config: datasets.adult.rows = 0: must be >= 1``.

Which papers run: those the configuration's ``papers`` lists (``snakemake --config
papers=[...]``), else every paper with a section (:func:`pufferfish.papers.selected`). Every
section is checked against the schema; the papers that run are typed and cross-checked.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import tempfile
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import jsonschema
import yaml

from pufferfish import registry
from pufferfish.errors import ConfigError
from pufferfish.papers import DeclarationError, declared, present, selected
from pufferfish.settings import AuditSettings, DatasetSettings, read_section

__all__ = ["load_schema", "schema_file", "validate_config", "load_settings", "Settings", "format_path", "SCHEMA_PATH",
           "check_duplicate_keys"]

#: the schema, package data (``workflow/schemas/config.schema.yaml`` is a symlink to it)
SCHEMA_PATH = Path(__file__).with_name("config.schema.yaml")

#: PyYAML's safe loader, its libyaml (C) build where installed: the same documents, parsed
#: 5-10 times faster (the workflow parses the config and the schema at every start)
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

def load_schema(path: str | Path = SCHEMA_PATH) -> dict:
    r"""The config's JSON schema: the shared part at ``path``, with each installed paper's section
    merged in and the names of the registry's methods and of the papers filled in.

    The shared file holds what every run needs (``seed``, ``datasets``, ``audit``, the
    ``papers`` switch) and the ``$defs`` the papers share; each declared paper
    (:func:`pufferfish.papers.declared`) adds the schema of its section (its ``schema`` file,
    in its package) as ``properties.<key>``, its own ``$defs`` joining the shared ones. The
    shared file leaves ``$defs.method`` and the items of ``papers`` open (any string: it is a
    valid schema on its own); their ``enum`` is set here to the methods a config may list
    (:func:`pufferfish.registry.names` with ``automatic=False``) and to the installed papers,
    so that a new method or paper needs no edit of the shared schema.

    Parameters
    ----------
    path : str or pathlib.Path
        The shared schema file (default: the package's, :data:`SCHEMA_PATH`).

    Returns
    -------
    dict
        The schema, every paper's section merged in, the two ``enum`` filled in.

    Raises
    ------
    OSError
        A schema file cannot be read (a broken installation, or a wrong ``path``).
    yaml.YAMLError
        It is not YAML.
    pufferfish.papers.DeclarationError
        A paper's section clashes with a shared key or ``$defs`` name.
    """
    schema = _read_yaml(path)
    for paper in declared():
        section = _read_yaml(paper.schema)
        own = section.pop("$defs", None) or {}
        clash = sorted(set(own) & set(schema["$defs"])) + sorted({paper.key} & set(schema["properties"]))
        if clash:
            raise DeclarationError(f"paper {paper.key}: its schema ({paper.schema}) defines {clash[0]!r} again")
        schema["$defs"].update(own)
        schema["properties"][paper.key] = section
    schema["$defs"]["method"]["enum"] = registry.names(automatic=False)
    schema["properties"]["papers"]["items"]["enum"] = [paper.key for paper in declared()]
    return schema


def _read_yaml(path: str | Path):
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=SAFE_LOADER)  # noqa: S506 (a safe loader)


@contextlib.contextmanager
def schema_file(schema: Mapping) -> Iterator[str]:
    r"""The path of a temporary JSON file holding ``schema``, removed on exit: for
    ``snakemake.utils.validate``, which reads its schema from a path (pass it the schema of
    :func:`load_schema`, so that Snakemake validates against the same method names).

    Parameters
    ----------
    schema : collections.abc.Mapping
        A schema, e.g. of :func:`load_schema`.

    Returns
    -------
    collections.abc.Iterator
        Yields the temporary file's path (a context manager).

    Raises
    ------
    TypeError
        ``schema`` cannot be written as JSON.
    """
    with tempfile.TemporaryDirectory(prefix="pufferfish-schema-") as directory:
        path = Path(directory) / "config.schema.json"
        path.write_text(json.dumps(schema), encoding="utf-8")
        yield str(path)


def format_path(parts) -> str:
    r"""Render a JSON path as ``a.b[0].c``.

    Parameters
    ----------
    parts : iterable
        Keys (str) and list indices (int), outermost first.

    Returns
    -------
    str
        The path, or ``(top level)`` for none.

    Raises
    ------
    TypeError
        ``parts`` is not iterable.
    """
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


@dataclass(frozen=True)
class Settings:
    """config.yaml, validated: the ``seed`` of every random draw, the datasets, the audit's
    tolerances and, in ``papers``, the typed settings of each paper the run runs (key -> what
    its declaration's ``settings`` builds, in the papers' order).

    A paper's settings are also an attribute, ``settings.<key>``: ``None`` for an installed
    paper the run does not run.
    """

    schema_path: ClassVar[str] = ""
    seed: int
    datasets: dict[str, DatasetSettings]
    audit: AuditSettings
    papers: dict[str, Any]

    def __getattr__(self, name: str):
        runs = self.__dict__.get("papers") or {}
        if name in runs:
            return runs[name]
        if not name.startswith("_") and any(paper.key == name for paper in declared()):
            return None
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Settings:
        """The settings of a configuration that the schema has validated (defaults filled in)."""
        s = read_section(config, "", required=("seed", "datasets", "audit"),
                         optional=("papers", *(paper.key for paper in declared())))
        return cls(seed=int(s["seed"]),
                   datasets={k: DatasetSettings.from_config(k, v) for k, v in s["datasets"].items()},
                   audit=AuditSettings.from_config(s["audit"]),
                   papers={paper.key: paper.settings(s[paper.key], s) for paper in selected(s)})

    @classmethod
    def load(cls, config: Mapping[str, Any]) -> Settings:
        """The settings of a copy of ``config``, validated (:func:`load_settings`; ``config`` is left as it is)."""
        return load_settings(copy.deepcopy(dict(config)))


def load_settings(config: dict, schema: Mapping | None = None) -> Settings:
    r"""Validate ``config`` and return it typed: the schema (filling its defaults into ``config``),
    then :meth:`Settings.from_config` (the grids), then the cross-references of each paper the
    run runs (:func:`pufferfish.papers.selected`).

    Parameters
    ----------
    config : dict
        The loaded configuration; the schema's defaults are filled into it.
    schema : collections.abc.Mapping, optional
        The schema (default: :func:`load_schema`).

    Returns
    -------
    Settings
        The typed settings.

    Raises
    ------
    ConfigError
        One line naming the offending key and value.
    """
    schema = load_schema() if schema is None else schema
    if not isinstance(config, Mapping):
        raise ConfigError("config: the configuration must be a mapping of keys")
    for paper in declared():
        for old in paper.renamed_from:
            if old in config:
                raise ConfigError(f"config: {old}: renamed to {paper.key}")
    _check_keys_and_numbers(config)
    for paper in present(config):
        if paper.check_keys is not None:
            paper.check_keys(config)
    _raise_schema_error(config, schema)
    _fill_defaults(config, schema)
    settings = Settings.from_config(config)
    for paper in selected(config):
        paper.check_references(config)
    _check_limits(config)
    return settings


def validate_config(config: dict, schema: Mapping | None = None) -> dict:
    r"""Check ``config`` as :func:`load_settings` does; return the same dict with the defaults filled in.

    Parameters
    ----------
    config : dict
        The configuration to check.
    schema : collections.abc.Mapping, optional
        As for :func:`load_settings`.

    Returns
    -------
    dict
        ``config`` itself, its defaults filled in.

    Raises
    ------
    ConfigError
        As :func:`load_settings`.
    """
    load_settings(config, schema)
    return config


def _check_limits(config: Mapping) -> None:
    """``audit.bisection_rtol`` below :data:`pufferfish.audit.laplace_lattice.MIN_RTOL` (no float bracket
    is that narrow): a value the schema admits but the computation cannot honour."""
    from pufferfish.audit.laplace_lattice import MIN_RTOL

    rtol = config.get("audit", {}).get("bisection_rtol")
    if isinstance(rtol, (int, float)) and rtol < MIN_RTOL:
        raise ConfigError(f"config: audit.bisection_rtol = {rtol!r}: must be >= {MIN_RTOL!r} (a bracket of two "
                          "float64 numbers a few ulps apart)")


# ------------------------------------------------------------------------------ config files: duplicate keys
def check_duplicate_keys(path: str | Path) -> None:
    r"""Refuse a YAML (or JSON) config file in which a mapping repeats a key.

    YAML loaders, Snakemake's included, keep the last of two equal keys without a word (a
    second ``adult:`` under ``datasets`` silently replaces the first). The message
    names the key, where it is and both line numbers, e.g.
    ``config: datasets.adult: key 'adult' appears twice in config.yaml (lines 28 and 41)``.
    YAML merge keys (``<<: *anchor``) may be overridden, as YAML intends.

    Parameters
    ----------
    path : str or pathlib.Path
        The config file.

    Returns
    -------
    None
        No mapping repeats a key.

    Raises
    ------
    ConfigError
        The file cannot be read, or a key repeats (naming it and both lines).
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

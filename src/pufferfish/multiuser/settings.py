"""Typed settings of paper 000's experiments (config ``multiuser``): users, secrets, experiments.

Built by :mod:`pufferfish.pipeline.config` from the validated config; a job builds the
section it receives (:mod:`pufferfish.settings` says how and why). The section's
cross-references, which no schema can state (users named by experiments, methods that apply
to a secret pair, lattices the computation can hold), are checked by
:func:`check_references`; what its data users read is :func:`data_requests`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pufferfish import registry
from pufferfish.errors import ConfigError
from pufferfish.settings import DataRequest, Encoding, epsilon_grid, floats, read_section

__all__ = ["LatticeUserSettings", "DataUserSettings", "Secret", "Panel", "ExperimentSettings", "users_from_config",
           "MultiuserSettings", "check_references", "data_requests"]


@dataclass(frozen=True)
class LatticeUserSettings:
    """A user given in config ``multiuser.users`` (paper 000, Tables 2-4): values, their
    probabilities and the presence probability zeta (Section 3)."""

    schema_path: ClassVar[str] = "/$defs/lattice_user"
    values: tuple[int, ...]
    probabilities: tuple[float, ...]
    presence: float

    @classmethod
    def from_config(cls, name: str, section: Mapping) -> LatticeUserSettings:
        s = read_section(section, f"multiuser.users.{name}", required=("values", "probabilities", "presence"))
        return cls(tuple(int(v) for v in s["values"]), floats(s["probabilities"], f"multiuser.users.{name}"),
                   float(s["presence"]))


@dataclass(frozen=True)
class DataUserSettings:
    """A user read off a dataset (config ``multiuser.data_users``): Pr(``attribute`` | ``given``),
    encoded to integers by ``encoding``."""

    schema_path: ClassVar[str] = "/$defs/data_user"
    dataset: str
    attribute: str
    given: dict
    encoding: Encoding
    presence: float

    @classmethod
    def from_config(cls, name: str, section: Mapping) -> DataUserSettings:
        where = f"multiuser.data_users.{name}"
        s = read_section(section, where, required=("dataset", "attribute", "given", "encoding", "presence"))
        return cls(str(s["dataset"]), str(s["attribute"]), dict(s["given"]),
                   Encoding.from_config(s["encoding"], where=f"{where}.encoding"), float(s["presence"]))


@dataclass(frozen=True)
class Secret:
    """One secret of a pair (paper 000, eqs. 7-9): user i is ``absent``, reports ``value``, or
    draws from ``user`` (a key of ``multiuser.users`` or ``multiuser.data_users``)."""

    kind: str
    value: int | None = None
    user: str | None = None

    @classmethod
    def from_config(cls, spec, *, where: str) -> Secret:
        if spec == "absent":
            return cls("absent")
        if isinstance(spec, Mapping) and set(spec) == {"value"}:
            return cls("value", value=int(spec["value"]))
        if isinstance(spec, Mapping) and set(spec) == {"user"}:
            return cls("user", user=str(spec["user"]))
        raise ConfigError(f"config: {where} = {spec!r}: must be absent, {{value: <integer>}} or {{user: <name>}}")

    def as_config(self):
        """The form config.yaml writes."""
        return "absent" if self.kind == "absent" else {self.kind: getattr(self, self.kind)}


def _secret_pair(specs, where: str) -> tuple[Secret, Secret]:
    if not isinstance(specs, (list, tuple)) or len(specs) != 2:
        raise ConfigError(f"config: {where} = {specs!r}: must be a pair of secrets")
    return tuple(Secret.from_config(s, where=f"{where}[{k}]") for k, s in enumerate(specs))  # type: ignore[return-value]


@dataclass(frozen=True)
class Panel:
    """A secret pair drawn in one panel of an experiment; ``rest`` None means the experiment's."""

    schema_path: ClassVar[str] = "/$defs/experiment/properties/panels/additionalProperties"
    secrets: tuple[Secret, Secret]
    rest: tuple[str, ...] | None

    @classmethod
    def from_config(cls, section: Mapping, *, where: str) -> Panel:
        s = read_section(section, where, required=("secrets",), optional=("rest",))
        return cls(_secret_pair(s["secrets"], f"{where}.secrets"),
                   None if "rest" not in s else tuple(map(str, s["rest"])))


@dataclass(frozen=True)
class ExperimentSettings:
    r"""One figure or table of paper 000 (config ``multiuser.experiments``).

    ``kind`` is ``plan`` (:math:`\pi^*` is drawn) or ``theta``; either ``secrets`` (one pair) or
    ``panels`` (several, side by side) is set; ``rest`` are the other users; ``methods`` are
    registry names (:mod:`pufferfish.registry`) calibrated over ``epsilons``.
    """

    schema_path: ClassVar[str] = "/$defs/experiment"
    name: str
    kind: str
    title: str | None
    rest: tuple[str, ...]
    secrets: tuple[Secret, Secret] | None
    panels: dict[str, Panel] | None
    methods: tuple[str, ...]
    epsilons: tuple[float, ...]
    delta: float | None
    alpha: float | None

    @classmethod
    def from_config(cls, name: str, section: Mapping) -> ExperimentSettings:
        where = f"multiuser.experiments.{name}"
        s = read_section(section, where, required=("kind", "rest", "methods", "epsilons"),
                         optional=("title", "secrets", "panels", "delta", "alpha"))
        panels = None if "panels" not in s else {
            str(p): Panel.from_config(spec, where=f"{where}.panels.{p}") for p, spec in s["panels"].items()}
        return cls(name=name, kind=str(s["kind"]), title=s.get("title"), rest=tuple(map(str, s["rest"])),
                   secrets=None if "secrets" not in s else _secret_pair(s["secrets"], f"{where}.secrets"),
                   panels=panels, methods=tuple(map(str, s["methods"])),
                   epsilons=epsilon_grid(s["epsilons"], f"{where}.epsilons"),
                   delta=None if s.get("delta") is None else float(s["delta"]),
                   alpha=None if s.get("alpha") is None else float(s["alpha"]))

    def pairs(self) -> dict[str, Panel]:
        """Every panel with its own ``rest`` filled in; one panel named ``""`` when there are ``secrets``."""
        if self.panels is None:
            return {"": Panel(self.secrets, self.rest)}  # type: ignore[arg-type]
        return {name: Panel(p.secrets, self.rest if p.rest is None else p.rest) for name, p in self.panels.items()}

    def user_names(self) -> list[str]:
        """Every user the experiment names (the other users and the secrets' users), sorted."""
        names: set[str] = set(self.rest)
        for panel in self.pairs().values():
            names |= set(panel.rest or ())
            names |= {s.user for s in panel.secrets if s.kind == "user"}
        return sorted(names)


def users_from_config(section: Mapping) -> tuple[dict[str, LatticeUserSettings], dict[str, DataUserSettings]]:
    """The lattice users and the data users of config ``multiuser`` without its experiments.

    What the rules pass to an experiment's jobs, so that editing one experiment reruns only
    its own jobs.

    Parameters
    ----------
    section : Mapping
        ``{users, data_users}``, validated by the schema.

    Returns
    -------
    (dict of str to LatticeUserSettings, dict of str to DataUserSettings)

    Raises
    ------
    ConfigError
        A missing or unknown key (naming it).
    """
    s = read_section(section, "multiuser", required=("users", "data_users"))
    return ({k: LatticeUserSettings.from_config(k, v) for k, v in s["users"].items()},
            {k: DataUserSettings.from_config(k, v) for k, v in s["data_users"].items()})


@dataclass(frozen=True)
class MultiuserSettings:
    """Config ``multiuser`` (paper 000): lattice users, data users and experiments, by name."""

    schema_path: ClassVar[str] = "/properties/multiuser"
    users: dict[str, LatticeUserSettings]
    data_users: dict[str, DataUserSettings]
    experiments: dict[str, ExperimentSettings]

    @classmethod
    def from_config(cls, section: Mapping) -> MultiuserSettings:
        s = read_section(section, "multiuser", required=("users", "data_users", "experiments"))
        return cls(*users_from_config({"users": s["users"], "data_users": s["data_users"]}),
                   {k: ExperimentSettings.from_config(k, v) for k, v in s["experiments"].items()})

    def data_users_of(self, experiment: str) -> list[str]:
        """The data users (``data_users``) experiment ``experiment`` needs, sorted."""
        return [n for n in self.experiments[experiment].user_names() if n in self.data_users]

    def plan_experiments(self) -> list[str]:
        """The experiments of ``kind: plan``, sorted."""
        return sorted(k for k, v in self.experiments.items() if v.kind == "plan")


# ------------------------------------------------------------------------------ cross-references (validated config)
def check_references(config: Mapping) -> None:
    """Cross-references of config ``multiuser`` that no schema can state, on the validated mapping.

    Each lattice user's values and probabilities make a distribution; user names are unique
    and clash with no output; data users read a key of ``datasets``; experiments name known
    users, and methods that apply to each secret pair with the parameters they need; their
    priors span at most :data:`pufferfish.lattice.pmf.MAX_LATTICE_POINTS` points.

    Parameters
    ----------
    config : Mapping
        The whole configuration, validated by the schema (defaults filled in).

    Returns
    -------
    None

    Raises
    ------
    ConfigError
        One line naming the key and what is wrong with it.
    """
    mu = config.get("multiuser", {})
    _check_users(mu, config.get("datasets", {}))
    for exp_name, exp in mu.get("experiments", {}).items():
        _check_experiment(exp_name, exp, mu)
    _check_lattice_sizes(mu)


def _check_users(mu: Mapping, datasets: Mapping) -> None:
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


def _secret_kind(secret) -> str:
    return "absent" if secret == "absent" else next(iter(secret))


def _check_experiment(exp_name: str, exp: Mapping, mu: Mapping) -> None:
    """The users, panels and methods of experiment ``exp_name``."""
    users = mu.get("users", {})
    known = set(users) | set(mu.get("data_users", {}))
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


def _check_method_params(exp_name: str, exp: Mapping) -> None:
    """Every method of experiment ``exp_name`` has the parameters its registry record ``needs``
    (``delta``, ``alpha``) and values it is stated for (``refuses``), e.g.
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


def _check_lattice_sizes(mu: Mapping) -> None:
    """A lattice user, or an experiment's priors built from lattice users and reported values,
    spanning more than :data:`pufferfish.lattice.pmf.MAX_LATTICE_POINTS` points (data users'
    ranges are known only from the data: their jobs check them)."""
    from pufferfish.lattice.pmf import MAX_LATTICE_POINTS

    spans = {}
    for name, user in mu.get("users", {}).items():
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


# ------------------------------------------------------------------------------ data requests
def data_requests(config: Mapping, reader: Callable) -> list[DataRequest]:
    """What each data user of config ``multiuser.data_users`` reads: its ``attribute`` given its
    ``given`` columns, read as its job builds the prior
    (:func:`pufferfish.multiuser.user_priors.data_user_prior`, pandas' default ``low_memory``).

    Parameters
    ----------
    config : Mapping
        The whole configuration, validated by the schema.
    reader : callable
        The function its jobs read the rows with, called as ``reader(frame, **arguments)``
        (the declaration passes it: :func:`pufferfish.multiuser.paper.read_rows`).

    Returns
    -------
    list of DataRequest

    Raises
    ------
    KeyError
        A data user without ``attribute``, ``given`` or ``dataset`` (the schema requires them).
    """
    requests = []
    for name, spec in config.get("multiuser", {}).get("data_users", {}).items():
        where = f"multiuser.data_users.{name}"
        columns = ((f"{where}.attribute", spec["attribute"]),) + tuple(
            (f"{where}.given.{column}", column) for column in spec["given"])
        requests.append(DataRequest(where=where, dataset=spec["dataset"], columns=columns,
                                    reader=reader,
                                    arguments={"spec": spec, "name": name}, label=where, low_memory=True))
    return requests

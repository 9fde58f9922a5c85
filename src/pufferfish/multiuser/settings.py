"""Typed settings of paper 000's experiments (config ``multiuser``): users, secrets, experiments.

Built by :mod:`pufferfish.pipeline.config` from the validated config; a job builds the
section it receives (:mod:`pufferfish.settings` says how and why).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from pufferfish.errors import ConfigError
from pufferfish.settings import Encoding, epsilon_grid, floats, read_section

__all__ = ["LatticeUserSettings", "DataUserSettings", "Secret", "Panel", "ExperimentSettings", "users_from_config",
           "MultiuserSettings"]


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
    """One figure or table of paper 000 (config ``multiuser.experiments``).

    ``kind`` is ``plan`` (pi* is drawn) or ``theta``; either ``secrets`` (one pair) or
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
    """The lattice users and the data users of ``{users, data_users}`` (config ``multiuser``
    without its experiments: what the rules pass to an experiment's jobs, so that editing one
    experiment reruns only its own jobs)."""
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

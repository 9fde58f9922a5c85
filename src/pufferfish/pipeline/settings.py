"""The validated configuration as frozen dataclasses: one class per section of config.yaml.

:func:`pufferfish.pipeline.config.validate_config` checks a configuration against the schema
(``pufferfish/pipeline/config.schema.yaml``, shipped as package data) and fills in the
schema's defaults; ``from_config`` then turns the validated mapping, or one section of it,
into the classes below, once. None of them has a default of its own: **every default lives
in the schema**. A key that is missing (the mapping was not validated) or that a class does
not know (the schema gained a key this module lacks) is a :class:`ConfigError` naming it,
never a silently dropped value. Each class names the part of the schema it types
(``schema_path``, a JSON pointer); a test holds the two together.

Grids (``epsilons``, ``deltas``) are expanded here with :func:`pufferfish.grids.expand_grid`
and checked, so the code that computes reads tuples of floats.

The workflow builds :class:`Settings` when it loads (``workflow/rules/common.smk``) and reads
its structure (which figures, which experiments, which users each one needs) from it. The
jobs get their section as a plain mapping in a Snakemake ``param`` and call the section's
``from_config``: Snakemake reruns a job when a param changes, but it only compares params of
builtin types (a dataclass param would silently stop the reruns on a config edit).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pufferfish.errors import ConfigError
from pufferfish.grids import check_deltas, check_epsilons, expand_grid

__all__ = [
    "Settings", "AuditSettings", "DatasetSettings",
    "MultiuserSettings", "LatticeUserSettings", "DataUserSettings", "Encoding", "Secret", "Panel",
    "ExperimentSettings", "users_from_config",
    "GaussianSettings", "GaussianPrior", "Fig1Settings", "IntRange", "Fig2Settings", "Fig5Settings",
    "GMMSettings", "ConditionalSecret", "PrivacyPair", "GMMExperimentSettings",
    "PAPER_FIGURES",
]

#: the figures of paper 004 with a fixed key in config ``gaussian`` (any other key but ``gmm``
#: is a GMM experiment, see :func:`pufferfish.pipeline.config.gmm_experiment_names`)
PAPER_FIGURES = ("fig1", "fig2", "fig5")


def _section(section, where: str, *, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> Mapping:
    """``section`` if it is a mapping with every ``required`` key and no key outside ``required + optional``.

    ``where`` is the section's path in config.yaml (``""`` for the top level).
    """
    if not isinstance(section, Mapping):
        raise ConfigError(f"config: {where or 'the configuration'} = {section!r}: must be a mapping")
    unknown = sorted(set(section) - set(required) - set(optional), key=str)
    if unknown:
        raise ConfigError(f"config: {_join(where, unknown[0])}: not a key that pufferfish.pipeline.settings knows "
                          f"(add it there and to the schema)")
    missing = [key for key in required if key not in section]
    if missing:
        raise ConfigError(f"config: {_join(where, missing[0])}: missing (validate the configuration first: "
                          f"pufferfish.pipeline.config.validate_config fills in the schema's defaults)")
    return section


def _join(where: str, key) -> str:
    return f"{where}.{key}" if where else str(key)


def _floats(values, where: str) -> tuple[float, ...]:
    try:
        if isinstance(values, (str, bytes, Mapping)):
            raise TypeError
        return tuple(float(v) for v in values)
    except (TypeError, ValueError):
        raise ConfigError(f"config: {where} = {values!r}: must be a list of numbers") from None


def _grid(spec, where: str, check) -> tuple[float, ...]:
    """The values of grid ``spec`` (a list or ``{start, stop, step}``), each accepted by ``check``."""
    try:
        return tuple(float(v) for v in check(expand_grid(spec, name=where), name=where))
    except ConfigError as err:
        raise ConfigError(f"config: {err}") from None


def _epsilons(spec, where: str) -> tuple[float, ...]:
    return _grid(spec, where, check_epsilons)


def _deltas(spec, where: str) -> tuple[float, ...]:
    return _grid(spec, where, check_deltas)


# ------------------------------------------------------------------------------ audit, datasets
@dataclass(frozen=True)
class AuditSettings:
    """Config ``audit``: a scale violates its target when the achieved loss exceeds
    target * (1 + ``rtol``); the bisection for theta_min / b_min stops at relative width
    ``bisection_rtol`` or after ``bisection_max_steps`` steps."""

    schema_path: ClassVar[str] = "/properties/audit"
    rtol: float
    bisection_rtol: float
    bisection_max_steps: int

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "audit") -> AuditSettings:
        s = _section(section, where, required=("rtol", "bisection_rtol", "bisection_max_steps"))
        return cls(float(s["rtol"]), float(s["bisection_rtol"]), int(s["bisection_max_steps"]))


@dataclass(frozen=True)
class DatasetSettings:
    """One key of config ``datasets`` (read by :func:`pufferfish.pipeline.fetch.download`).

    ``source`` is ``ucimlrepo`` (with ``uci_id``) or ``archive`` (with ``url``, ``member``,
    ``sha256`` and the ``read_csv`` options); ``rows`` and ``columns`` are checked after reading.
    """

    schema_path: ClassVar[str] = "/properties/datasets/additionalProperties"
    name: str
    source: str
    rows: int
    columns: tuple[str, ...]
    uci_id: int | None
    url: str | None
    member: str | tuple[str, ...] | None
    sha256: str | None
    read_csv: dict | None
    citation: str | None

    @classmethod
    def from_config(cls, name: str, section: Mapping) -> DatasetSettings:
        where = f"datasets.{name}"
        s = _section(section, where, required=("source", "rows", "columns"),
                     optional=("uci_id", "url", "member", "sha256", "read_csv", "citation"))
        member = s.get("member")
        return cls(name=name, source=str(s["source"]), rows=int(s["rows"]), columns=tuple(map(str, s["columns"])),
                   uci_id=None if s.get("uci_id") is None else int(s["uci_id"]), url=s.get("url"),
                   member=tuple(member) if isinstance(member, list) else member, sha256=s.get("sha256"),
                   read_csv=None if s.get("read_csv") is None else dict(s["read_csv"]), citation=s.get("citation"))


# ------------------------------------------------------------------------------ paper 000
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
        s = _section(section, f"multiuser.users.{name}", required=("values", "probabilities", "presence"))
        return cls(tuple(int(v) for v in s["values"]), _floats(s["probabilities"], f"multiuser.users.{name}"),
                   float(s["presence"]))


@dataclass(frozen=True)
class Encoding:
    """How a data user's attribute becomes integers: ``numeric`` (as they are), ``codes``
    (``values[0]`` -> 1, ``values[1]`` -> 2, ...) or ``indicator`` (``values`` -> 1, else 0)."""

    kind: str
    values: tuple = ()

    @classmethod
    def from_config(cls, spec, *, where: str) -> Encoding:
        if spec == "numeric":
            return cls("numeric")
        if isinstance(spec, Mapping) and len(spec) == 1 and next(iter(spec)) in ("codes", "indicator"):
            kind = next(iter(spec))
            return cls(kind, tuple(spec[kind]))
        raise ConfigError(f"config: {where} = {spec!r}: must be numeric, {{codes: [...]}} or {{indicator: [...]}}")

    def as_config(self):
        """The form config.yaml writes (what :func:`pufferfish.pipeline.priors.encode` reads)."""
        return "numeric" if self.kind == "numeric" else {self.kind: list(self.values)}


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
        s = _section(section, where, required=("dataset", "attribute", "given", "encoding", "presence"))
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
        s = _section(section, where, required=("secrets",), optional=("rest",))
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
        s = _section(section, where, required=("kind", "rest", "methods", "epsilons"),
                     optional=("title", "secrets", "panels", "delta", "alpha"))
        if ("secrets" in s) == ("panels" in s):
            raise ConfigError(f"config: {where}: needs either secrets or panels (not both)")
        panels = None if "panels" not in s else {
            str(p): Panel.from_config(spec, where=f"{where}.panels.{p}") for p, spec in s["panels"].items()}
        return cls(name=name, kind=str(s["kind"]), title=s.get("title"), rest=tuple(map(str, s["rest"])),
                   secrets=None if "secrets" not in s else _secret_pair(s["secrets"], f"{where}.secrets"),
                   panels=panels, methods=tuple(map(str, s["methods"])),
                   epsilons=_epsilons(s["epsilons"], f"{where}.epsilons"),
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
    s = _section(section, "multiuser", required=("users", "data_users"))
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
        s = _section(section, "multiuser", required=("users", "data_users", "experiments"))
        return cls(*users_from_config({"users": s["users"], "data_users": s["data_users"]}),
                   {k: ExperimentSettings.from_config(k, v) for k, v in s["experiments"].items()})

    def data_users_of(self, experiment: str) -> list[str]:
        """The data users (``data_users``) experiment ``experiment`` needs, sorted."""
        return [n for n in self.experiments[experiment].user_names() if n in self.data_users]

    def plan_experiments(self) -> list[str]:
        """The experiments of ``kind: plan``, sorted."""
        return sorted(k for k, v in self.experiments.items() if v.kind == "plan")


# ------------------------------------------------------------------------------ paper 004
@dataclass(frozen=True)
class GaussianPrior:
    """A Gaussian prior G(``mean``, ``std``^2)."""

    schema_path: ClassVar[str] = "/$defs/gaussian_prior"
    mean: float
    std: float

    @classmethod
    def from_config(cls, section: Mapping, *, where: str) -> GaussianPrior:
        s = _section(section, where, required=("mean", "std"))
        return cls(float(s["mean"]), float(s["std"]))


@dataclass(frozen=True)
class Fig1Settings:
    """Fig. 1 of paper 004: two Gaussian priors, Laplace noise of scale ``laplace_b``, the plotted ``window``."""

    schema_path: ClassVar[str] = "/properties/gaussian/properties/fig1"
    priors: tuple[GaussianPrior, GaussianPrior]
    laplace_b: float
    window: tuple[float, float]

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "gaussian.fig1") -> Fig1Settings:
        s = _section(section, where, required=("priors", "laplace_b", "window"))
        priors = tuple(GaussianPrior.from_config(p, where=f"{where}.priors[{k}]") for k, p in enumerate(s["priors"]))
        window = _floats(s["window"], f"{where}.window")
        if len(priors) != 2 or len(window) != 2:
            raise ConfigError(f"config: {where}: needs two priors and a window [lo, hi]")
        return cls(priors, float(s["laplace_b"]), window)  # type: ignore[arg-type]


@dataclass(frozen=True)
class IntRange:
    """The integers ``start``, ..., ``stop`` (both included)."""

    schema_path: ClassVar[str] = "/properties/gaussian/properties/fig2/properties/K"
    start: int
    stop: int

    @classmethod
    def from_config(cls, section: Mapping, *, where: str) -> IntRange:
        s = _section(section, where, required=("start", "stop"))
        return cls(int(s["start"]), int(s["stop"]))

    def values(self) -> tuple[int, ...]:
        return tuple(range(self.start, self.stop + 1))


@dataclass(frozen=True)
class Fig2Settings:
    """Fig. 2 of paper 004: Corollary 1, eq. (11), for K identical users G(``mu``, sigma^2) over
    ``K`` and each ``sigma2``, at (``epsilon``, ``delta``)."""

    schema_path: ClassVar[str] = "/properties/gaussian/properties/fig2"
    mu: float
    sigma2: tuple[float, ...]
    K: IntRange
    epsilon: float
    delta: float

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "gaussian.fig2") -> Fig2Settings:
        s = _section(section, where, required=("mu", "sigma2", "K", "epsilon", "delta"))
        return cls(float(s["mu"]), _floats(s["sigma2"], f"{where}.sigma2"),
                   IntRange.from_config(s["K"], where=f"{where}.K"), float(s["epsilon"]), float(s["delta"]))


@dataclass(frozen=True)
class Fig5Settings:
    """Fig. 5 of paper 004: tau*(delta) over the ``deltas`` grid."""

    schema_path: ClassVar[str] = "/properties/gaussian/properties/fig5"
    deltas: tuple[float, ...]

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "gaussian.fig5") -> Fig5Settings:
        s = _section(section, where, required=("deltas",))
        return cls(_deltas(s["deltas"], f"{where}.deltas"))


@dataclass(frozen=True)
class GMMSettings:
    """Config ``gaussian.gmm``: mixture components, EM restarts and iterations of every GMM fit."""

    schema_path: ClassVar[str] = "/properties/gaussian/properties/gmm"
    components: int
    n_init: int
    max_iter: int

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "gaussian.gmm") -> GMMSettings:
        s = _section(section, where, required=("components", "n_init", "max_iter"))
        return cls(int(s["components"]), int(s["n_init"]), int(s["max_iter"]))


@dataclass(frozen=True)
class ConditionalSecret:
    """A secret of a GMM experiment: the rows with ``given`` (column -> value), shown as ``label``."""

    schema_path: ClassVar[str] = "/$defs/gmm_experiment/properties/secrets/items"
    label: str
    given: dict

    @classmethod
    def from_config(cls, section: Mapping, *, where: str) -> ConditionalSecret:
        s = _section(section, where, required=("label", "given"))
        return cls(str(s["label"]), dict(s["given"]))


@dataclass(frozen=True)
class PrivacyPair:
    """An (``epsilon``, ``delta``) target."""

    schema_path: ClassVar[str] = "/$defs/privacy_pair"
    epsilon: float
    delta: float

    @classmethod
    def from_config(cls, section: Mapping, *, where: str) -> PrivacyPair:
        s = _section(section, where, required=("epsilon", "delta"))
        return cls(float(s["epsilon"]), float(s["delta"]))


@dataclass(frozen=True)
class GMMExperimentSettings:
    """A GMM experiment of paper 004 (Figs. 3-4 and any other key of config ``gaussian``).

    A numeric ``attribute`` of ``dataset`` given each of two ``secrets`` is fitted by a GMM;
    Theorem 2 (eq. 13) is audited at every (epsilon, delta) of ``privacy`` and over the
    ``epsilons`` grid. ``missing_values`` are codes of a missing attribute (dropped), ``unit``
    labels the axes and ``note`` is added to the caption.
    """

    schema_path: ClassVar[str] = "/$defs/gmm_experiment"
    name: str
    dataset: str
    attribute: str
    note: str
    unit: str
    missing_values: tuple
    secrets: tuple[ConditionalSecret, ConditionalSecret]
    privacy: tuple[PrivacyPair, ...]
    epsilons: tuple[float, ...]

    @classmethod
    def from_config(cls, name: str, section: Mapping) -> GMMExperimentSettings:
        where = f"gaussian.{name}"
        s = _section(section, where, required=("dataset", "attribute", "note", "unit", "missing_values", "secrets",
                                               "privacy", "epsilons"))
        secrets = tuple(ConditionalSecret.from_config(x, where=f"{where}.secrets[{k}]")
                        for k, x in enumerate(s["secrets"]))
        if len(secrets) != 2:
            raise ConfigError(f"config: {where}.secrets: must be two secrets, found {len(secrets)}")
        privacy = tuple(PrivacyPair.from_config(p, where=f"{where}.privacy[{k}]") for k, p in enumerate(s["privacy"]))
        return cls(name=name, dataset=str(s["dataset"]), attribute=str(s["attribute"]), note=str(s["note"]),
                   unit=str(s["unit"]), missing_values=tuple(s["missing_values"]), secrets=secrets,  # type: ignore[arg-type]
                   privacy=privacy, epsilons=_epsilons(s["epsilons"], f"{where}.epsilons"))

    def privacy_grid(self) -> list[tuple[float, float]]:
        """(epsilon, delta): the figure's pairs, then every epsilon of the grid at each of their
        deltas; sorted by decreasing delta, then increasing epsilon."""
        pairs = [(p.epsilon, p.delta) for p in self.privacy]
        deltas = list(dict.fromkeys(d for _, d in pairs))
        check_deltas(deltas, name=f"gaussian.{self.name}.privacy.delta")
        out = list(pairs)
        for d in deltas:
            for e in self.epsilons:
                if (e, d) not in out:
                    out.append((e, d))
        return sorted(out, key=lambda p: (-p[1], p[0]))


@dataclass(frozen=True)
class GaussianSettings:
    """Config ``gaussian`` (paper 004): Figs. 1, 2 and 5 (None when absent), the mixture
    settings ``gmm``, and the GMM ``experiments`` (every other key: fig3, fig4, ...)."""

    schema_path: ClassVar[str] = "/properties/gaussian"
    fig1: Fig1Settings | None
    fig2: Fig2Settings | None
    fig5: Fig5Settings | None
    gmm: GMMSettings
    experiments: dict[str, GMMExperimentSettings]

    @classmethod
    def from_config(cls, section: Mapping) -> GaussianSettings:
        from pufferfish.pipeline.config import GAUSSIAN_FIXED_KEYS

        # any key but the fixed ones is a GMM experiment: only ``gmm`` (a schema default) is required
        _section(section, "gaussian", required=("gmm",), optional=tuple(section))
        experiments = {k: GMMExperimentSettings.from_config(k, v) for k, v in section.items()
                       if k not in GAUSSIAN_FIXED_KEYS}
        return cls(fig1=Fig1Settings.from_config(section["fig1"]) if "fig1" in section else None,
                   fig2=Fig2Settings.from_config(section["fig2"]) if "fig2" in section else None,
                   fig5=Fig5Settings.from_config(section["fig5"]) if "fig5" in section else None,
                   gmm=GMMSettings.from_config(section["gmm"]), experiments=dict(sorted(experiments.items())))

    def figures(self) -> list[str]:
        """The figures of :data:`PAPER_FIGURES` present in the config."""
        return [f for f in PAPER_FIGURES if getattr(self, f) is not None]

    def figure(self, name: str) -> Fig1Settings | Fig2Settings | Fig5Settings:
        """The settings of figure ``name`` (fig1, fig2 or fig5)."""
        value = getattr(self, name, None) if name in PAPER_FIGURES else None
        if value is None:
            raise ConfigError(f"config: gaussian.{name}: not a figure of the config (have: "
                              f"{', '.join(self.figures()) or 'none'})")
        return value

    @staticmethod
    def figure_from_config(name: str, section: Mapping) -> Fig1Settings | Fig2Settings | Fig5Settings:
        """The settings of figure ``name`` (fig1, fig2 or fig5) from its section of config ``gaussian``."""
        classes = {"fig1": Fig1Settings, "fig2": Fig2Settings, "fig5": Fig5Settings}
        if name not in classes:
            raise ConfigError(f"config: gaussian.{name}: not one of {', '.join(PAPER_FIGURES)}")
        return classes[name].from_config(section, where=f"gaussian.{name}")


# ------------------------------------------------------------------------------ paper 002, comparison
@dataclass(frozen=True)
class PierquinSetting:
    """One setting of paper 002's Table 1 (config ``pierquin.settings``): the released
    ``attribute`` of ``dataset`` (encoded by ``encoding``) given each value of the secret
    ``column`` (``values``: all present when None); DP sensitivity from ``domain`` or ``range``."""

    schema_path: ClassVar[str] = "/$defs/pierquin_setting"
    name: str
    title: str | None
    note: str
    dataset: str
    attribute: str
    encoding: Encoding
    column: str
    values: tuple | None
    domain: tuple[int, int] | None
    range: float | None

    @classmethod
    def from_config(cls, name: str, section: Mapping) -> PierquinSetting:
        where = f"pierquin.settings.{name}"
        s = _section(section, where, required=("dataset", "attribute", "encoding", "column", "note"),
                     optional=("title", "values", "domain", "range"))
        return cls(name=name, title=s.get("title"), note=str(s["note"]), dataset=str(s["dataset"]),
                   attribute=str(s["attribute"]), encoding=Encoding.from_config(s["encoding"], where=f"{where}.encoding"),
                   column=str(s["column"]), values=None if s.get("values") is None else tuple(s["values"]),
                   domain=None if s.get("domain") is None else (int(s["domain"][0]), int(s["domain"][1])),
                   range=None if s.get("range") is None else float(s["range"]))


@dataclass(frozen=True)
class ComparisonSettings:
    """Config ``comparison``: the secret ``pairs`` on which every mechanism is calibrated and
    audited over ``epsilons`` at ``delta`` (Laplace, Gaussian) and Renyi order ``alpha`` (Cauchy)."""

    schema_path: ClassVar[str] = "/properties/comparison"
    pairs: tuple[str, ...]
    epsilons: tuple[float, ...]
    delta: float
    alpha: float

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "comparison") -> ComparisonSettings:
        s = _section(section, where, required=("pairs", "epsilons", "delta", "alpha"))
        return cls(tuple(map(str, s["pairs"])), _epsilons(s["epsilons"], f"{where}.epsilons"), float(s["delta"]),
                   float(s["alpha"]))


# ------------------------------------------------------------------------------ the whole file
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

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Settings:
        """The settings of a configuration that :func:`~pufferfish.pipeline.config.validate_config` has checked."""
        s = _section(config, "", required=("seed", "datasets", "multiuser", "gaussian", "audit"),
                     optional=("pierquin", "comparison"))
        pierquin = _section(s.get("pierquin") or {}, "pierquin", required=(), optional=("settings",))
        return cls(seed=int(s["seed"]),
                   datasets={k: DatasetSettings.from_config(k, v) for k, v in s["datasets"].items()},
                   multiuser=MultiuserSettings.from_config(s["multiuser"]),
                   gaussian=GaussianSettings.from_config(s["gaussian"]),
                   pierquin={k: PierquinSetting.from_config(k, v) for k, v in (pierquin.get("settings") or {}).items()},
                   comparison=None if not s.get("comparison") else ComparisonSettings.from_config(s["comparison"]),
                   audit=AuditSettings.from_config(s["audit"]))

    @classmethod
    def load(cls, config: Mapping[str, Any]) -> Settings:
        """Validate a copy of ``config`` (filling the schema's defaults), then :meth:`from_config`."""
        import copy

        from pufferfish.pipeline.config import validate_config

        return cls.from_config(validate_config(copy.deepcopy(dict(config))))

"""Typed settings of the closed-form sensitivity experiments, built from a validated plain mapping.

Config section ``sensitivity`` (two subsections)::

    sensitivity:
      attribute_privacy:
        triples:                 # (dataset, released column, protected column[, the released column's domain])
          - {dataset: student_mat, released: G3, protected: studytime}
          - {dataset: heart_cleveland, released: age, protected: num, domain: [0, 100]}
        epsilons: [1.0]          # a list or {start, stop, step}
        delta: 1.0e-5            # (eps, delta) of the Gaussian scale
        alpha: 2                 # Renyi order of the Cauchy scale (DAGWM: 2 only)
      diffusion:
        potentials: [quadratic, logcosh]
        lambdas: [0.5, 1.0]
        times: {start: 0.25, stop: 4.0, step: 0.25}
        diameter: 2.0            # D, the diameter of Theta = [start, start + D]
        start: -1.0              # the lower secret initial point
        paths: 2000              # synchronously coupled Euler-Maruyama paths per (potential, lambda, time)
        max_step: 0.01           # cap of the Euler step (the contraction cap 2/(lambda + beta) also applies)
        epsilons: [1.0]          # the OU audit: Laplace (eps-PP) and Gaussian ((eps, delta)-PP) scales of the bound
        delta: 1.0e-5

Either subsection may be left out (its experiment is then not run; :class:`SensitivitySettings`
holds both). The seed of the paths is the config's top-level ``seed``. Every ``from_config`` checks its
keys (an unknown or missing key is a :class:`ConfigError` naming it) and its values; the
triples' datasets are checked by :func:`check_references` and what they read of the data is
:func:`data_requests`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from pufferfish.checks import integer, real
from pufferfish.errors import ConfigError, InvalidArgumentError
from pufferfish.grids import check_epsilons, expand_grid
from pufferfish.settings import DataRequest

__all__ = ["AttributeTriple", "AttributePrivacySettings", "DiffusionSettings", "SensitivitySettings",
           "check_references", "data_requests"]


def _section(section, where: str, *, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> Mapping:
    if not isinstance(section, Mapping):
        raise ConfigError(f"config: {where} = {section!r:.60}: must be a mapping")
    unknown = sorted(set(section) - set(required) - set(optional), key=str)
    if unknown:
        raise ConfigError(f"config: {where}.{unknown[0]}: not a key of {where}")
    missing = [k for k in required if k not in section]
    if missing:
        raise ConfigError(f"config: {where}.{missing[0]}: missing")
    return section


def _name(value, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"config: {where} = {value!r}: must be a non-empty string")
    return value


def _checked(check, *args, **kwargs):
    """Run a :mod:`pufferfish.checks` check and report its failure as a config error."""
    try:
        return check(*args, **kwargs)
    except (InvalidArgumentError, TypeError) as err:
        raise ConfigError(f"config: {err}") from None


def _grid(spec, where: str, *, positive: bool) -> tuple[float, ...]:
    try:
        values = expand_grid(spec, name=where)
    except (ConfigError, TypeError) as err:
        raise ConfigError(f"config: {err}") from None
    if positive:
        values = _checked(check_epsilons, values, name=where)
    out = tuple(_checked(real, v, name=f"{where}[{k}]", lo=0.0) for k, v in enumerate(values))
    if len(set(out)) != len(out):
        raise ConfigError(f"config: {where} = {list(out)}: a value is repeated")
    return out


@dataclass(frozen=True)
class AttributeTriple:
    """One (dataset, released, protected) triple: release column ``released`` of ``dataset``
    (a key of config ``datasets``) while protecting column ``protected`` of the same record.

    ``domain`` (lo, hi): the released column's domain, whose range hi - lo is its DP sensitivity
    (the data must lie in it); None: the observed range is used, and labelled as such.
    """

    schema_path: ClassVar[str] = "/properties/sensitivity/properties/attribute_privacy/properties/triples/items"
    dataset: str
    released: str
    protected: str
    domain: tuple[int, int] | None = None

    @property
    def label(self) -> str:
        """``dataset: released | protected`` (the audit table's panel and the figure's tick)."""
        return f"{self.dataset}: {self.released} | {self.protected}"

    @classmethod
    def from_config(cls, section: Mapping, *, where: str) -> AttributeTriple:
        s = _section(section, where, required=("dataset", "released", "protected"), optional=("domain",))
        triple = cls(*(_name(s[k], f"{where}.{k}") for k in ("dataset", "released", "protected")),
                     domain=None if s.get("domain") is None else _domain(s["domain"], f"{where}.domain"))
        if triple.released == triple.protected:
            raise ConfigError(f"config: {where}: released and protected are both {triple.released!r}")
        return triple


def _domain(value, where: str) -> tuple[int, int]:
    """[lo, hi], two integers lo < hi."""
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ConfigError(f"config: {where} = {value!r:.60}: must be [lo, hi], two integers")
    lo, hi = (_checked(integer, v, name=f"{where}[{k}]") for k, v in enumerate(value))
    if not lo < hi:
        raise ConfigError(f"config: {where} = [{lo}, {hi}]: must be increasing")
    return lo, hi


@dataclass(frozen=True)
class AttributePrivacySettings:
    """Config ``sensitivity.attribute_privacy`` (module docstring)."""

    schema_path: ClassVar[str] = "/properties/sensitivity/properties/attribute_privacy"
    triples: tuple[AttributeTriple, ...]
    epsilons: tuple[float, ...]
    delta: float
    alpha: float

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "sensitivity.attribute_privacy") -> AttributePrivacySettings:
        s = _section(section, where, required=("triples", "epsilons", "delta", "alpha"))
        raw = s["triples"]
        if isinstance(raw, (str, bytes, Mapping)) or not hasattr(raw, "__iter__") or not list(raw):
            raise ConfigError(f"config: {where}.triples = {raw!r:.60}: must be a non-empty list of "
                              "{dataset, released, protected}")
        triples = tuple(AttributeTriple.from_config(t, where=f"{where}.triples[{k}]") for k, t in enumerate(raw))
        if len({(t.dataset, t.released, t.protected) for t in triples}) != len(triples):
            raise ConfigError(f"config: {where}.triples: a triple is repeated")
        delta = _checked(real, s["delta"], name=f"{where}.delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        alpha = _checked(real, s["alpha"], name=f"{where}.alpha", lo=1.0, lo_open=True)
        if alpha != 2.0:
            raise ConfigError(f"config: {where}.alpha = {s['alpha']!r}: the DAGWM Cauchy scale is stated for alpha = 2 "
                              "(paper 002, Cor. 4.1)")
        return cls(triples, _grid(s["epsilons"], f"{where}.epsilons", positive=True), delta, alpha)


@dataclass(frozen=True)
class DiffusionSettings:
    """Config ``sensitivity.diffusion`` (module docstring) and the config's ``seed``."""

    schema_path: ClassVar[str] = "/properties/sensitivity/properties/diffusion"
    potentials: tuple[str, ...]
    lambdas: tuple[float, ...]
    times: tuple[float, ...]
    diameter: float
    start: float
    paths: int
    max_step: float
    epsilons: tuple[float, ...]
    delta: float
    seed: int

    @classmethod
    def from_config(cls, section: Mapping, *, seed, where: str = "sensitivity.diffusion") -> DiffusionSettings:
        from pufferfish.sensitivity.diffusion import POTENTIALS

        s = _section(section, where, required=("potentials", "lambdas", "times", "diameter", "start", "paths",
                                               "max_step", "epsilons", "delta"))
        pots = s["potentials"]
        if isinstance(pots, (str, bytes, Mapping)) or not hasattr(pots, "__iter__") or not list(pots):
            raise ConfigError(f"config: {where}.potentials = {pots!r}: must be a non-empty list of "
                              f"{', '.join(POTENTIALS)}")
        pots = tuple(pots)
        for k, p in enumerate(pots):
            if p not in POTENTIALS:
                raise ConfigError(f"config: {where}.potentials[{k}] = {p!r}: must be one of {', '.join(POTENTIALS)}")
        if len(set(pots)) != len(pots):
            raise ConfigError(f"config: {where}.potentials = {list(pots)}: a potential is repeated")
        return cls(potentials=pots,
                   lambdas=_grid(s["lambdas"], f"{where}.lambdas", positive=True),
                   times=_grid(s["times"], f"{where}.times", positive=False),
                   diameter=_checked(real, s["diameter"], name=f"{where}.diameter", lo=0.0, lo_open=True),
                   start=_checked(real, s["start"], name=f"{where}.start"),
                   paths=_checked(integer, s["paths"], name=f"{where}.paths", lo=1),
                   max_step=_checked(real, s["max_step"], name=f"{where}.max_step", lo=0.0, lo_open=True),
                   epsilons=_grid(s["epsilons"], f"{where}.epsilons", positive=True),
                   delta=_checked(real, s["delta"], name=f"{where}.delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True),
                   seed=_checked(integer, seed, name="seed", lo=0))


@dataclass(frozen=True)
class SensitivitySettings:
    """Config ``sensitivity`` (module docstring): each experiment's settings, None when its
    subsection is absent (at least one is present)."""

    schema_path: ClassVar[str] = "/properties/sensitivity"
    attribute_privacy: AttributePrivacySettings | None
    diffusion: DiffusionSettings | None

    @classmethod
    def from_config(cls, section: Mapping, *, seed, where: str = "sensitivity") -> SensitivitySettings:
        s = _section(section, where, required=(), optional=("attribute_privacy", "diffusion"))
        if not s:
            raise ConfigError(f"config: {where}: must have attribute_privacy or diffusion (or leave it out)")
        attribute = s.get("attribute_privacy")
        diffusion = s.get("diffusion")
        return cls(
            attribute_privacy=None if attribute is None else AttributePrivacySettings.from_config(
                attribute, where=f"{where}.attribute_privacy"),
            diffusion=None if diffusion is None else DiffusionSettings.from_config(
                diffusion, seed=seed, where=f"{where}.diffusion"))


def check_references(config: Mapping) -> None:
    """Cross-references of config ``sensitivity.attribute_privacy``: every triple's dataset is a
    key of ``datasets`` (its columns are checked against the data, :func:`data_requests`).

    Parameters
    ----------
    config : Mapping
        The whole configuration, validated by the schema (defaults filled in).

    Returns
    -------
    None
        The configuration is accepted when nothing is raised.

    Raises
    ------
    ConfigError
        One line naming the key and what is wrong with it.
    """
    attribute = (config.get("sensitivity") or {}).get("attribute_privacy") or {}
    datasets = config.get("datasets", {})
    for k, triple in enumerate(attribute.get("triples", [])):
        if triple["dataset"] not in datasets:
            raise ConfigError(f"config: sensitivity.attribute_privacy.triples[{k}].dataset = {triple['dataset']!r}: "
                              f"not a key of datasets (have: {', '.join(sorted(datasets))})")


def data_requests(config: Mapping, reader: Callable) -> list[DataRequest]:
    """What each attribute-privacy triple reads (paper 002, Prop. 6.2): its ``released`` column
    and its ``protected`` one, read as its job reads them
    (:func:`pufferfish.sensitivity.experiments.triple_columns`).

    Parameters
    ----------
    config : Mapping
        The whole configuration, validated by the schema.
    reader : callable
        The function its jobs read the rows with, called as ``reader(frame, **arguments)``
        (the declaration passes it: :func:`pufferfish.sensitivity.paper.read_rows`).

    Returns
    -------
    list of pufferfish.settings.DataRequest
        One request per triple: its dataset and the two columns it reads.

    Raises
    ------
    ConfigError
        A triple that is not well formed (one line naming it).
    """
    attribute = (config.get("sensitivity") or {}).get("attribute_privacy") or {}
    requests = []
    for k, spec in enumerate(attribute.get("triples", [])):
        where = f"sensitivity.attribute_privacy.triples[{k}]"
        triple = AttributeTriple.from_config(spec, where=where)
        requests.append(DataRequest(where=where, dataset=spec["dataset"], low_memory=False,
                                    columns=((f"{where}.released", spec["released"]),
                                             (f"{where}.protected", spec["protected"])),
                                    reader=reader,
                                    arguments={"triple": triple},
                                    label=f"sensitivity.attribute_privacy [{triple.label}]"))
    return requests

"""Typed settings of the iteration experiments (config section ``iteration``), frozen dataclasses.

Each class has ``from_config``, which takes the section as a plain mapping (the validated
config) and refuses, with one line naming the key, a missing or unknown key and a value of
the wrong type or range (:mod:`pufferfish.checks`). The experiments
(:mod:`pufferfish.iteration.experiments`) take these objects, never the raw mapping.

The model of both experiments is noisy gradient descent with the quadratic loss
l(w, x) = (w - x)^2 / 2 (K = 1, no gradient bound, contraction c = 1 - eta).

Sizes (steps, secret positions, a series' records) are bounded by what this machine's memory can
hold (:mod:`pufferfish.iteration.limits`): a larger one is refused here, before any job runs;
:func:`check_limits` checks a series' record count (``datasets.<key>.rows``) the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from pufferfish.checks import integer, real
from pufferfish.errors import ConfigError
from pufferfish.grids import check_epsilons, expand_grid
from pufferfish.iteration.limits import limit_message, max_records, max_steps

__all__ = ["Fig6Settings", "SeriesSettings", "IterationSettings", "check_references", "check_limits"]


def _keys(section, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> Mapping:
    if not isinstance(section, Mapping):
        raise ConfigError(f"config: {where} = {section!r}: must be a mapping")
    unknown = sorted(set(map(str, section)) - set(required) - set(optional))
    if unknown:
        raise ConfigError(f"config: {where}.{unknown[0]}: not a key of this section "
                          f"(known: {', '.join(required + optional)})")
    missing = [key for key in required if key not in section]
    if missing:
        raise ConfigError(f"config: {where}.{missing[0]}: missing")
    return section


def _list(values, where: str, check) -> tuple:
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__iter__"):
        raise ConfigError(f"config: {where} = {values!r}: must be a list")
    out = tuple(check(v, f"{where}[{i}]") for i, v in enumerate(values))
    if not out:
        raise ConfigError(f"config: {where}: must not be empty")
    return out


def _eta(value, where: str) -> float:
    return real(value, name=where, lo=0.0, hi=1.0, lo_open=True)


def _positive(value, where: str) -> float:
    return real(value, name=where, lo=0.0, lo_open=True)


def _alpha(value, where: str) -> float:
    return real(value, name=where, lo=1.0, lo_open=True)


@dataclass(frozen=True)
class Fig6Settings:
    """Config ``iteration.fig6``: the analogue of paper 002's Fig. 6 (Appendix F.5.4).

    Step size ``eta``, noise ``sigma``, diameter ``diameter`` (D), Renyi order ``alpha``, the
    1-based ``secret_index`` (the paper: the first record), the numbers of ``steps`` T, the
    correlations of the ``equal`` family (Sigma_tu = rho, t != u) and of the ``decaying``
    family (Sigma_tu = rho^|t-u|).
    """

    schema_path: ClassVar[str] = "/properties/iteration/properties/fig6"
    eta: float
    sigma: float
    diameter: float
    alpha: float
    secret_index: int
    steps: tuple[int, ...]
    equal: tuple[float, ...]
    decaying: tuple[float, ...]

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "iteration.fig6") -> Fig6Settings:
        s = _keys(section, where, ("eta", "sigma", "diameter", "alpha", "secret_index", "steps", "equal", "decaying"))
        bound = max_steps()

        def sized(value, key: str, lo: int) -> int:   # a number of steps or a position: 1..bound
            number = integer(value, name=key, lo=lo)
            if number > bound:
                raise ConfigError(f"config: {limit_message(key, number, bound, 'steps')}")
            return number

        secret = sized(s["secret_index"], f"{where}.secret_index", 1)
        steps = _list(s["steps"], f"{where}.steps", lambda v, w: sized(v, w, secret))
        return cls(eta=_eta(s["eta"], f"{where}.eta"), sigma=_positive(s["sigma"], f"{where}.sigma"),
                   diameter=_positive(s["diameter"], f"{where}.diameter"), alpha=_alpha(s["alpha"], f"{where}.alpha"),
                   secret_index=secret, steps=steps,
                   equal=_list(s["equal"], f"{where}.equal", lambda v, w: real(v, name=w, lo=0.0, hi=1.0)),
                   decaying=_list(s["decaying"], f"{where}.decaying",
                                  lambda v, w: real(v, name=w, lo=0.0, hi=1.0, hi_open=True)))


@dataclass(frozen=True)
class SeriesSettings:
    """Config ``iteration.series.<name>``: one column of a dataset as the records x_1..x_T.

    ``dataset`` (a key of ``datasets``), ``column`` (numeric), ``order``: ``file`` (the rows
    as the file has them) or the name of a column to sort by (stable). The prior is the
    stationary Gaussian of the column's biased sample autocovariance, D = max - min. Step sizes
    ``etas``, noise ``sigma``, Renyi order ``alpha``; secrets at the first record, the last, and
    every ``secret_every``-th. Calibration over ``epsilons`` at ``delta``.
    """

    schema_path: ClassVar[str] = "/$defs/iteration_series"
    name: str
    dataset: str
    column: str
    order: str
    etas: tuple[float, ...]
    sigma: float
    alpha: float
    secret_every: int
    epsilons: tuple[float, ...]
    delta: float

    @classmethod
    def from_config(cls, name: str, section: Mapping) -> SeriesSettings:
        where = f"iteration.series.{name}"
        if str(name).endswith("_exposure"):
            raise ConfigError(f"config: {where}: a series name must not end in '_exposure' (results/theta/"
                              f"iteration_{name}.csv would be another series' exposure table)")
        s = _keys(section, where, ("dataset", "column", "order", "etas", "sigma", "alpha", "secret_every",
                                   "epsilons", "delta"))
        for key in ("dataset", "column", "order"):
            if not isinstance(s[key], str) or not s[key]:
                raise ConfigError(f"config: {where}.{key} = {s[key]!r}: must be a non-empty string")
        try:
            epsilons = tuple(float(e) for e in check_epsilons(expand_grid(s["epsilons"], name=f"{where}.epsilons"),
                                                              name=f"{where}.epsilons"))
        except ConfigError as err:
            raise ConfigError(f"config: {err}") from None
        etas = _list(s["etas"], f"{where}.etas", _eta)
        every, bound = integer(s["secret_every"], name=f"{where}.secret_every", lo=1), max_records(len(etas))
        if every > bound:   # a position past the largest series this machine can hold
            raise ConfigError(f"config: {limit_message(f'{where}.secret_every', every, bound, 'records')}")
        return cls(name=str(name), dataset=s["dataset"], column=s["column"], order=s["order"],
                   etas=etas, sigma=_positive(s["sigma"], f"{where}.sigma"),
                   alpha=_alpha(s["alpha"], f"{where}.alpha"),
                   secret_every=every,
                   epsilons=epsilons,
                   delta=real(s["delta"], name=f"{where}.delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True))

    def secret_indices(self, records: int) -> tuple[int, ...]:
        """1, every ``secret_every``-th record, and ``records`` (1-based, sorted, distinct)."""
        records = integer(records, name="records", lo=1)
        return tuple(sorted({1, records, *range(self.secret_every, records + 1, self.secret_every)}))


@dataclass(frozen=True)
class IterationSettings:
    """Config ``iteration``: the Fig. 6 analogue and the real-data series (one entry each)."""

    schema_path: ClassVar[str] = "/properties/iteration"
    fig6: Fig6Settings
    series: dict

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "iteration") -> IterationSettings:
        s = _keys(section, where, ("fig6", "series"))
        series = s["series"]
        if not isinstance(series, Mapping):
            raise ConfigError(f"config: {where}.series = {series!r}: must be a mapping of series names")
        return cls(fig6=Fig6Settings.from_config(s["fig6"], where=f"{where}.fig6"),
                   series={str(k): SeriesSettings.from_config(str(k), v) for k, v in series.items()})


def check_references(config: Mapping) -> None:
    """Cross-references of config ``iteration.series``: each series reads a column its dataset
    declares (``datasets.<key>.columns``, checked against the data when it is read), sorted by
    ``file`` or a declared column; and its outputs (``results/theta/iteration_<name>.csv``,
    ``iteration_<name>_sigma.csv``) are not the Fig. 6 table's or another series' files; and each
    series' record count fits this machine (:func:`check_limits`).

    Parameters
    ----------
    config : Mapping
        The whole configuration, validated by the schema (defaults filled in).

    Raises
    ------
    ConfigError
        One line naming the key and what is wrong with it.
    """
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
    check_limits(config)


def check_limits(config: Mapping) -> None:
    """Each series' record count (its dataset's declared ``rows``) within what this machine can hold.

    A series of T records with E step sizes needs about T (:data:`~pufferfish.iteration.limits.RECORD_BYTES`
    + E :data:`~pufferfish.iteration.limits.EXPOSURE_BYTES`) bytes (:func:`~pufferfish.iteration.limits.max_records`);
    the dataset's declared ``rows`` is checked against the data when it is read, so this bound holds
    before any job runs.

    Parameters
    ----------
    config : Mapping
        The whole configuration, validated by the schema (defaults filled in).

    Raises
    ------
    ConfigError
        One line naming the series, its dataset's rows and the bound.
    """
    series = (config.get("iteration") or {}).get("series") or {}
    datasets = config.get("datasets") or {}
    for name, spec in series.items():
        rows = (datasets.get(spec.get("dataset")) or {}).get("rows")
        if not isinstance(rows, int) or isinstance(rows, bool):
            continue
        bound = max_records(len(spec.get("etas") or [1]))
        if rows > bound:
            key = f"datasets.{spec['dataset']}.rows"
            raise ConfigError(f"config: {limit_message(key, rows, bound, 'records')} "
                              f"(iteration.series.{name} reads every row)")

"""Typed settings of paper 003's experiments (config ``distp``): the grids and the cases.

Built by :mod:`pufferfish.pipeline.config` from the validated config; a job builds the
section it receives. :func:`check_references` checks what the schema cannot state;
:func:`data_requests` declares what each case reads of its dataset
(:func:`pufferfish.distp.experiments.case_laws`). Derivations: ``docs/math/paper003-distribution.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from pufferfish.audit.target import EPSILON_DELTA_MAX
from pufferfish.errors import ConfigError
from pufferfish.settings import DataRequest, epsilon_grid, floats, read_section

__all__ = ["DistpGrid", "DistpCase", "from_config", "check_references", "data_requests"]

_GRID_KEYS = ("base_epsilons", "dummies", "dummy_distributions", "epsilons", "tupling_epsilons", "targets", "delta",
              "rtol", "figure_base_epsilon", "figure_epsilon")


@dataclass(frozen=True)
class DistpGrid:
    """The grids of every case (config ``distp.grid``): eps_A, k, nu, the eps of the delta
    curves (``epsilons``; the tupling mechanism's at ``tupling_epsilons``), the calibration
    ``targets`` at ``delta``, the certified route's ``rtol``, and the eps_A and eps the
    figures fix."""

    schema_path: ClassVar[str] = "/properties/distp/properties/grid"
    base_epsilons: tuple[float, ...]
    dummies: tuple[int, ...]
    dummy_distributions: tuple[str, ...]
    epsilons: tuple[float, ...]
    tupling_epsilons: tuple[float, ...]
    targets: tuple[float, ...]
    delta: float
    rtol: float
    figure_base_epsilon: float
    figure_epsilon: float

    @classmethod
    def from_config(cls, section: Mapping) -> DistpGrid:
        s = read_section(section, "distp.grid", required=_GRID_KEYS)
        return cls(base_epsilons=floats(s["base_epsilons"], "distp.grid.base_epsilons"),
                   dummies=tuple(int(k) for k in s["dummies"]),
                   dummy_distributions=tuple(str(v) for v in s["dummy_distributions"]),
                   epsilons=epsilon_grid(s["epsilons"], "distp.grid.epsilons"),
                   tupling_epsilons=epsilon_grid(s["tupling_epsilons"], "distp.grid.tupling_epsilons"),
                   targets=epsilon_grid(s["targets"], "distp.grid.targets"), delta=float(s["delta"]),
                   rtol=float(s["rtol"]), figure_base_epsilon=float(s["figure_base_epsilon"]),
                   figure_epsilon=float(s["figure_epsilon"]))


@dataclass(frozen=True)
class DistpCase:
    """One case (config ``distp.cases.<name>``): the ``released`` column of ``dataset`` among
    the records whose ``protected`` column is ``values[0]`` (lambda0) or ``values[1]`` (lambda1);
    ``kind`` ``ordinal`` (integer values: every mechanism) or ``categorical`` (RR and tupling over RR)."""

    schema_path: ClassVar[str] = "/$defs/distp_case"
    name: str
    dataset: str
    released: str
    protected: str
    values: tuple
    kind: str

    @classmethod
    def from_config(cls, name: str, section: Mapping) -> DistpCase:
        s = read_section(section, f"distp.cases.{name}",
                         required=("dataset", "released", "protected", "values", "kind"))
        return cls(name=name, dataset=str(s["dataset"]), released=str(s["released"]), protected=str(s["protected"]),
                   values=tuple(s["values"]), kind=str(s["kind"]))


def from_config(section: Mapping) -> tuple[DistpGrid, dict[str, DistpCase]]:
    """The typed section ``distp`` (validated): its grid and its cases by name."""
    s = read_section(section, "distp", required=("grid", "cases"))
    return DistpGrid.from_config(s["grid"]), {k: DistpCase.from_config(k, v) for k, v in s["cases"].items()}


def check_references(config: Mapping) -> None:
    """Cross-references of config ``distp``: each case's dataset is a key of ``datasets``, its
    released column is not its protected column, and the figures' eps_A and eps are on the grids.

    Parameters
    ----------
    config : Mapping
        The whole configuration, validated by the schema (defaults filled in).

    Raises
    ------
    ConfigError
        One line naming the key and what is wrong with it.
    """
    section = config.get("distp") or {}
    if not section:
        return
    datasets = config.get("datasets", {})
    for name, spec in section.get("cases", {}).items():
        where = f"config: distp.cases.{name}"
        if spec["dataset"] not in datasets:
            raise ConfigError(f"{where}.dataset = {spec['dataset']!r}: not a key of datasets "
                              f"(have: {', '.join(sorted(datasets))})")
        if spec["released"] == spec["protected"]:
            raise ConfigError(f"{where}: released and protected are both {spec['released']!r}")
    grid = section["grid"]
    for key in ("epsilons", "tupling_epsilons", "targets"):  # each an (epsilon, delta) pair's epsilon
        _check_epsilon_limit(grid[key], f"distp.grid.{key}")
    if float(grid["figure_base_epsilon"]) not in floats(grid["base_epsilons"], "distp.grid.base_epsilons"):
        raise ConfigError(f"config: distp.grid.figure_base_epsilon = {grid['figure_base_epsilon']!r}: not one of "
                          "distp.grid.base_epsilons")
    if float(grid["figure_epsilon"]) not in epsilon_grid(grid["tupling_epsilons"], "distp.grid.tupling_epsilons"):
        raise ConfigError(f"config: distp.grid.figure_epsilon = {grid['figure_epsilon']!r}: not one of "
                          "distp.grid.tupling_epsilons")


def _check_epsilon_limit(grid, where: str) -> None:
    """Every epsilon of ``grid`` (a list or {start, stop, step}) is at most
    :data:`~pufferfish.audit.target.EPSILON_DELTA_MAX` (e^epsilon past it is not a float)."""
    values = epsilon_grid(grid, where)
    for k, value in enumerate(values):
        if value > EPSILON_DELTA_MAX:
            at = f"{where}[{k}]" if isinstance(grid, list) else f"{where} (its value {value:g})"
            shown = f" = {grid[k]!r}" if isinstance(grid, list) else ""
            raise ConfigError(f"config: {at}{shown}: must be <= {EPSILON_DELTA_MAX:g} (an (epsilon, delta) "
                              "target's e^epsilon must be a float)")


def data_requests(config: Mapping, reader: Callable) -> list[DataRequest]:
    """What each case reads: its released column given its protected column, read as its job
    builds the two laws (``reader``, :func:`pufferfish.distp.paper.read_rows`: the job's
    :func:`pufferfish.distp.experiments.case_laws`)."""
    requests = []
    for name, spec in ((config.get("distp") or {}).get("cases") or {}).items():
        where = f"distp.cases.{name}"
        requests.append(DataRequest(where=where, dataset=spec["dataset"], label=where, low_memory=False,
                                    columns=((f"{where}.released", spec["released"]),
                                             (f"{where}.protected", spec["protected"])),
                                    reader=reader,
                                    arguments={"spec": dict(spec), "name": name}))
    return requests

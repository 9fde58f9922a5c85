"""Typed settings of config ``toy``, its cross-checks and what it reads of the data."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from pufferfish.errors import ConfigError
from pufferfish.settings import DataRequest, epsilon_grid, read_section

__all__ = ["ToySettings", "check_references", "data_requests"]

KEYS = ("dataset", "attribute", "positive", "protected", "pair", "epsilons")


@dataclass(frozen=True)
class ToySettings:
    """Config ``toy``: release ``attribute`` of ``dataset`` (1 where it equals ``positive``)
    through randomized response at each of ``epsilons``; the secret pair is the two values
    ``pair`` of column ``protected``."""

    schema_path: ClassVar[str] = "/properties/toy"
    dataset: str
    attribute: str
    positive: object
    protected: str
    pair: tuple
    epsilons: tuple[float, ...]

    @classmethod
    def from_config(cls, section: Mapping) -> ToySettings:
        s = read_section(section, "toy", required=KEYS)
        return cls(dataset=str(s["dataset"]), attribute=str(s["attribute"]), positive=s["positive"],
                   protected=str(s["protected"]), pair=tuple(s["pair"]),
                   epsilons=epsilon_grid(s["epsilons"], "toy.epsilons"))


def check_references(config: Mapping) -> None:
    """``toy.dataset`` is a key of ``datasets``; the attribute and the protected column differ.

    Raises
    ------
    ConfigError
        One line naming the key.
    """
    toy = config["toy"]
    if toy["dataset"] not in config["datasets"]:
        raise ConfigError(f"config: toy.dataset = {toy['dataset']!r}: not a key of datasets "
                          f"(have: {', '.join(config['datasets'])})")
    if toy["attribute"] == toy["protected"]:
        raise ConfigError(f"config: toy.protected = {toy['protected']!r}: the released attribute itself")


def data_requests(config: Mapping, reader: Callable) -> list[DataRequest]:
    """The columns ``toy`` reads, with ``reader`` (the declaration's ``read_rows``): each value of
    the pair has records."""
    toy = config["toy"]
    return [DataRequest(where="toy.pair", dataset=toy["dataset"], label="toy", low_memory=False,
                        columns=(("toy.attribute", toy["attribute"]), ("toy.protected", toy["protected"])),
                        reader=reader, arguments={"settings": ToySettings.from_config(toy)})]

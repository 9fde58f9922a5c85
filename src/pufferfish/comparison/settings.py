"""Typed settings of the noise comparison (config ``comparison``).

Built by :mod:`pufferfish.pipeline.config` from the validated config; a job builds the
section it receives (:mod:`pufferfish.settings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from pufferfish.settings import epsilon_grid, read_section

__all__ = ["ComparisonSettings"]


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
        s = read_section(section, where, required=("pairs", "epsilons", "delta", "alpha"))
        return cls(tuple(map(str, s["pairs"])), epsilon_grid(s["epsilons"], f"{where}.epsilons"), float(s["delta"]),
                   float(s["alpha"]))

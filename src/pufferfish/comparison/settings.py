"""Typed settings of the noise comparison (config ``comparison``).

Built by :mod:`pufferfish.pipeline.config` from the validated config; a job builds the
section it receives (:mod:`pufferfish.settings`). Its cross-references (which experiment,
panel or Table 1 setting each pair names) are checked by :func:`check_references`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from pufferfish.errors import ConfigError
from pufferfish.settings import epsilon_grid, read_section

__all__ = ["ComparisonSettings", "check_references"]


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


def check_references(config: Mapping) -> None:
    """Cross-references of config ``comparison``: every pair names an experiment (and panel)
    or a Table 1 setting (:func:`pufferfish.comparison.experiments.parse_pair`), no two pairs
    share an output name, and alpha = 2 (the only order DAGWM is stated at).

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
    spec = config.get("comparison")
    if not spec:
        return
    from pufferfish.comparison.experiments import parse_pair, slug

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

"""The declaration of paper 002's Wasserstein mechanisms and Table 1 (Pierquin, Bellet, Tommasi,
Boussard, ICML 2024): config section ``wasserstein``, found through the entry point
``wasserstein = "pufferfish.wasserstein.paper:PAPER"`` of group ``pufferfish.papers``
(pyproject.toml)."""

from pathlib import Path

from pufferfish.wasserstein import settings
from pufferfish.wasserstein.methods import METHODS
from pufferfish.papers import Paper

__all__ = ["PAPER"]

PAPER = Paper(
    key="wasserstein",
    title="Renyi pufferfish privacy (paper 002)",
    settings=lambda section, config: settings.from_config(section),
    schema=Path(__file__).with_name("config.schema.yaml"),
    check_references=settings.check_references,
    data_requests=settings.data_requests,
    rules="workflow/rules/wasserstein.smk",
    report="workflow/report/sections/wasserstein.rst",
    paper_values="workflow/report/paper_values/wasserstein.yaml",
    methods=METHODS,
    order=30,
    renamed_from=("pierquin",),  # its key before issue 30
)

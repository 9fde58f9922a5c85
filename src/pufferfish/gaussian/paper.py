"""The declaration of paper 004, "Approximation of Pufferfish Privacy for Gaussian Priors" (Ding,
IEEE TIFS 2024): config section ``gaussian``, found through the entry point ``gaussian =
"pufferfish.gaussian.paper:PAPER"`` of group ``pufferfish.papers`` (pyproject.toml)."""

from pathlib import Path

from pufferfish.gaussian import settings
from pufferfish.papers import Paper

__all__ = ["PAPER"]

PAPER = Paper(
    key="gaussian",
    title="Gaussian priors (paper 004)",
    settings=lambda section, config: settings.GaussianSettings.from_config(section),
    schema=Path(__file__).with_name("config.schema.yaml"),
    check_keys=settings.check_keys,
    check_references=settings.check_references,
    data_requests=settings.data_requests,
    rules="workflow/rules/gaussian.smk",
    report="workflow/report/sections/gaussian.rst",
    paper_values="workflow/report/paper_values/gaussian.yaml",
    order=20,
)

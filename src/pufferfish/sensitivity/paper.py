"""The declaration of the closed-form sensitivities (paper 002, Sections 6.2-6.3): config section
``sensitivity``, found through the entry point ``sensitivity =
"pufferfish.sensitivity.paper:PAPER"`` of group ``pufferfish.papers`` (pyproject.toml)."""

from pathlib import Path

from pufferfish.sensitivity import settings
from pufferfish.papers import Paper

__all__ = ["PAPER"]

PAPER = Paper(
    key="sensitivity",
    title="Closed-form sensitivities (paper 002, Sections 6.2-6.3)",
    settings=lambda section, config: settings.SensitivitySettings.from_config(section, seed=config["seed"]),
    schema=Path(__file__).with_name("config.schema.yaml"),
    check_references=settings.check_references,
    data_requests=settings.data_requests,
    rules="workflow/rules/sensitivity.smk",
    report="workflow/report/sections/sensitivity.rst",
    paper_values="workflow/report/paper_values/sensitivity.yaml",
    order=60,
)

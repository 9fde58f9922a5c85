"""The declaration of the noise comparison, "which noise for my secret pair?" (every mechanism of
papers 000 and 002): config section ``comparison``, found through the entry point ``comparison =
"pufferfish.comparison.paper:PAPER"`` of group ``pufferfish.papers`` (pyproject.toml)."""

from pathlib import Path

from pufferfish.comparison import command, settings
from pufferfish.papers import Command, Paper

__all__ = ["PAPER"]

#: this paper's declaration (:class:`pufferfish.papers.Paper`), read through its entry point
PAPER = Paper(
    key="comparison",
    title="Which noise for my secret pair?",
    settings=lambda section, config: settings.ComparisonSettings.from_config(section),
    schema=Path(__file__).with_name("config.schema.yaml"),
    check_references=settings.check_references,
    rules="workflow/rules/comparison.smk",
    report="workflow/report/sections/comparison.rst",
    commands=(Command("calibrate", command.add_calibrate_parser, command.run, command.CALIBRATE_EXAMPLE),
              Command("audit", command.add_audit_parser, command.run, command.AUDIT_EXAMPLE)),
    needs=("multiuser", "wasserstein"),  # its pairs read their priors (results/priors/)
    order=40,
)

"""The declaration of the toy paper: config section ``toy``, found through the entry point
``toy = "toy_paper.paper:PAPER"`` of group ``pufferfish.papers`` (this distribution's pyproject.toml)."""

from pathlib import Path

from pufferfish.papers import Command, Paper
from toy_paper import command, settings

__all__ = ["PAPER"]

HERE = Path(__file__).parent

PAPER = Paper(
    key="toy",
    title="Toy paper: randomized response on a bit",
    settings=lambda section, config: settings.ToySettings.from_config(section),
    schema=HERE / "config.schema.yaml",
    check_references=settings.check_references,
    data_requests=settings.data_requests,
    rules=HERE / "workflow" / "rules.smk",
    report=HERE / "workflow" / "report" / "section.rst",
    commands=(Command("toy", command.add_parser, command.run, command.EXAMPLE),),
)

"""The declaration of amplification by iteration (paper 002, Sections 5 and 6.4): config section
``iteration``, found through the entry point ``iteration = "pufferfish.iteration.paper:PAPER"``
of group ``pufferfish.papers`` (pyproject.toml)."""

from pathlib import Path

from pufferfish.iteration import command, settings
from pufferfish.papers import Command, Paper

__all__ = ["PAPER"]

#: this paper's declaration (:class:`pufferfish.papers.Paper`), read through its entry point
PAPER = Paper(
    key="iteration",
    title="Amplification by iteration (paper 002)",
    settings=lambda section, config: settings.IterationSettings.from_config(section),
    schema=Path(__file__).with_name("config.schema.yaml"),
    check_references=settings.check_references,
    rules="workflow/rules/iteration.smk",
    report="workflow/report/sections/iteration.rst",
    paper_values="workflow/report/paper_values/iteration.yaml",
    commands=(Command("iteration", command.add_parser, command.run, command.EXAMPLE),),
    order=50,
)

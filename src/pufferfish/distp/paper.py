"""The declaration of paper 003, distribution privacy and the tupling mechanism (Kawamoto and
Murakami): config section ``distp``, found through the entry point ``distp =
"pufferfish.distp.paper:PAPER"`` of group ``pufferfish.papers`` (pyproject.toml)."""

from pathlib import Path

from pufferfish.distp import command, settings
from pufferfish.papers import Command, Paper

__all__ = ["PAPER", "read_rows"]


def read_rows(frame, **arguments):
    """The reader of a case's rows, :func:`pufferfish.distp.experiments.case_laws` (the job's own),
    imported when the data are checked: the declaration loads only what is light."""
    from pufferfish.distp.experiments import case_laws

    return case_laws(frame, **arguments)


#: this paper's declaration (:class:`pufferfish.papers.Paper`), read through its entry point
PAPER = Paper(
    key="distp",
    title="Distribution privacy (paper 003)",
    settings=lambda section, config: settings.from_config(section),
    schema=Path(__file__).with_name("config.schema.yaml"),
    check_references=settings.check_references,
    data_requests=lambda config: settings.data_requests(config, reader=read_rows),
    rules="workflow/rules/distp.smk",
    report="workflow/report/sections/distp.rst",
    commands=(Command("distp", command.add_parser, command.run, command.EXAMPLE),),
    order=70,
)

"""The declaration of the toy paper: config section ``toy``, found through the entry point
``toy = "toy_paper.paper:PAPER"`` of group ``pufferfish.papers`` (this distribution's pyproject.toml)."""

from pathlib import Path

from pufferfish.papers import Command, Paper
from toy_paper import command, settings

__all__ = ["PAPER", "read_rows"]

HERE = Path(__file__).parent


def read_rows(frame, **arguments):
    """The reader of the section's rows, :func:`toy_paper.experiments.bernoulli_priors` (the job's
    own), imported when the data are checked: the declaration loads only what is light."""
    from toy_paper.experiments import bernoulli_priors

    return bernoulli_priors(frame, **arguments)

#: this paper's declaration (:class:`pufferfish.papers.Paper`), read through its entry point
PAPER = Paper(
    key="toy",
    title="Toy paper: randomized response on a bit",
    settings=lambda section, config: settings.ToySettings.from_config(section),
    schema=HERE / "config.schema.yaml",
    check_references=settings.check_references,
    data_requests=lambda config: settings.data_requests(config, reader=read_rows),
    rules=HERE / "workflow" / "rules.smk",
    report=HERE / "workflow" / "report" / "section.rst",
    commands=(Command("toy", command.add_parser, command.run, command.EXAMPLE),),
)

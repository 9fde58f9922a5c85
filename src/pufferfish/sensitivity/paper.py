"""The declaration of the closed-form sensitivities (paper 002, Sections 6.2-6.3): config section
``sensitivity``, found through the entry point ``sensitivity =
"pufferfish.sensitivity.paper:PAPER"`` of group ``pufferfish.papers`` (pyproject.toml)."""

from pathlib import Path

from pufferfish.sensitivity import settings
from pufferfish.papers import Paper

__all__ = ["PAPER", "read_rows"]


def read_rows(frame, **arguments):
    """The reader of an attribute-privacy triple's rows,
    :func:`pufferfish.sensitivity.experiments.triple_columns` (the job's own), imported when the
    data are checked: the declaration loads only what is light."""
    from pufferfish.sensitivity.experiments import triple_columns

    return triple_columns(frame, **arguments)


#: this paper's declaration (:class:`pufferfish.papers.Paper`), read through its entry point
PAPER = Paper(
    key="sensitivity",
    title="Closed-form sensitivities (paper 002, Sections 6.2-6.3)",
    settings=lambda section, config: settings.SensitivitySettings.from_config(section, seed=config["seed"]),
    schema=Path(__file__).with_name("config.schema.yaml"),
    check_references=settings.check_references,
    data_requests=lambda config: settings.data_requests(config, reader=read_rows),
    rules="workflow/rules/sensitivity.smk",
    report="workflow/report/sections/sensitivity.rst",
    paper_values="workflow/report/paper_values/sensitivity.yaml",
    order=60,
)

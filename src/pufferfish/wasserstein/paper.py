"""The declaration of paper 002's Wasserstein mechanisms and Table 1 (Pierquin, Bellet, Tommasi,
Boussard, ICML 2024): config section ``wasserstein``, found through the entry point
``wasserstein = "pufferfish.wasserstein.paper:PAPER"`` of group ``pufferfish.papers``
(pyproject.toml)."""

from pathlib import Path

from pufferfish.wasserstein import settings
from pufferfish.wasserstein.methods import METHODS
from pufferfish.papers import Paper

__all__ = ["PAPER", "read_rows"]


def read_rows(frame, **arguments):
    """The reader of a Table 1 setting's rows,
    :func:`pufferfish.wasserstein.conditionals.conditional_priors` (the job's own), imported
    when the data are checked: the declaration loads only what is light."""
    from pufferfish.wasserstein.conditionals import conditional_priors

    return conditional_priors(frame, **arguments)

#: this paper's declaration (:class:`pufferfish.papers.Paper`), read through its entry point
PAPER = Paper(
    key="wasserstein",
    title="Renyi pufferfish privacy (paper 002)",
    settings=lambda section, config: settings.from_config(section),
    schema=Path(__file__).with_name("config.schema.yaml"),
    check_references=settings.check_references,
    data_requests=lambda config: settings.data_requests(config, reader=read_rows),
    rules="workflow/rules/wasserstein.smk",
    report="workflow/report/sections/wasserstein.rst",
    paper_values="workflow/report/paper_values/wasserstein.yaml",
    methods=METHODS,
    order=30,
    renamed_from=("pierquin",),  # its key before issue 30
)

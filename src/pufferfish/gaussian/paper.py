"""The declaration of paper 004, "Approximation of Pufferfish Privacy for Gaussian Priors" (Ding,
IEEE TIFS 2024): config section ``gaussian``, found through the entry point ``gaussian =
"pufferfish.gaussian.paper:PAPER"`` of group ``pufferfish.papers`` (pyproject.toml)."""

from pathlib import Path

from pufferfish.gaussian import settings
from pufferfish.papers import Paper

__all__ = ["PAPER", "read_rows"]


def read_rows(frame, **arguments):
    """The reader of a GMM experiment's secret's rows,
    :func:`pufferfish.gaussian.gmm.check_secret_rows` (the job's own), imported when the data
    are checked: the declaration loads only what is light."""
    from pufferfish.gaussian.gmm import check_secret_rows

    return check_secret_rows(frame, **arguments)


#: this paper's declaration (:class:`pufferfish.papers.Paper`), read through its entry point
PAPER = Paper(
    key="gaussian",
    title="Gaussian priors (paper 004)",
    settings=lambda section, config: settings.GaussianSettings.from_config(section),
    schema=Path(__file__).with_name("config.schema.yaml"),
    check_keys=settings.check_keys,
    check_references=settings.check_references,
    data_requests=lambda config: settings.data_requests(config, reader=read_rows),
    rules="workflow/rules/gaussian.smk",
    report="workflow/report/sections/gaussian.rst",
    paper_values="workflow/report/paper_values/gaussian.yaml",
    order=20,
)

"""The declaration of paper 000, "Multi-user Pufferfish Privacy" (Ding, Lu, Yang, Zhang): config
section ``multiuser``, found through the entry point ``multiuser =
"pufferfish.multiuser.paper:PAPER"`` of group ``pufferfish.papers`` (pyproject.toml)."""

from pathlib import Path

from pufferfish.multiuser import settings
from pufferfish.multiuser.methods import METHODS
from pufferfish.papers import Paper

__all__ = ["PAPER", "read_rows"]


def read_rows(frame, **arguments):
    """The reader of a data user's rows, :func:`pufferfish.multiuser.user_priors.data_user_prior`
    (the job's own), imported when the data are checked: the declaration loads only what is
    light."""
    from pufferfish.multiuser.user_priors import data_user_prior

    return data_user_prior(frame, **arguments)


#: this paper's declaration (:class:`pufferfish.papers.Paper`), read through its entry point
PAPER = Paper(
    key="multiuser",
    title="Multi-user pufferfish privacy (paper 000)",
    settings=lambda section, config: settings.MultiuserSettings.from_config(section),
    schema=Path(__file__).with_name("config.schema.yaml"),
    check_references=settings.check_references,
    data_requests=lambda config: settings.data_requests(config, reader=read_rows),
    rules="workflow/rules/multiuser.smk",
    report="workflow/report/sections/multiuser.rst",
    paper_values="workflow/report/paper_values/multiuser.yaml",
    methods=METHODS,
    order=10,
)

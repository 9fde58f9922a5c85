"""The declaration of paper 000, "Multi-user Pufferfish Privacy" (Ding, Lu, Yang, Zhang): config
section ``multiuser``, found through the entry point ``multiuser =
"pufferfish.multiuser.paper:PAPER"`` of group ``pufferfish.papers`` (pyproject.toml)."""

from pathlib import Path

from pufferfish.multiuser import settings
from pufferfish.multiuser.methods import METHODS
from pufferfish.papers import Paper

__all__ = ["PAPER"]

PAPER = Paper(
    key="multiuser",
    title="Multi-user pufferfish privacy (paper 000)",
    settings=lambda section, config: settings.MultiuserSettings.from_config(section),
    schema=Path(__file__).with_name("config.schema.yaml"),
    check_references=settings.check_references,
    data_requests=settings.data_requests,
    rules="workflow/rules/multiuser.smk",
    report="workflow/report/sections/multiuser.rst",
    paper_values="workflow/report/paper_values/multiuser.yaml",
    methods=METHODS,
    order=10,
)

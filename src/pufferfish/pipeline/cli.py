"""Glue between Snakemake's ``script:`` directive and the package.

Every workflow script is ``run(main)``: the user's mistakes (:class:`PufferfishError`)
end as one line on stderr (and in the rule's log), exit status 1 and no output files;
anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from pufferfish.errors import PufferfishError
from pufferfish.pipeline.io import remove_quietly

__all__ = ["run", "setup_logging"]


def setup_logging(log_path: str | None) -> logging.Logger:
    """Log INFO and above to ``log_path`` (the rule's ``log:``) and WARNING to stderr."""
    logger = logging.getLogger("pufferfish")
    logger.setLevel(logging.INFO)
    logger.handlers.clear()
    if log_path:
        handler = logging.FileHandler(log_path, mode="w", encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
        logger.addHandler(handler)
    err = logging.StreamHandler(sys.stderr)
    err.setLevel(logging.WARNING)
    err.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    logger.addHandler(err)
    logger.propagate = False
    return logger


def run(main: Callable, smk) -> None:
    """Call ``main(smk)`` for a Snakemake job ``smk`` (the ``snakemake`` object of a script)."""
    log_path = smk.log[0] if len(smk.log) else None
    logger = setup_logging(log_path)
    try:
        main(smk)
    except PufferfishError as err:
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        if log_path:
            with open(log_path, "a", encoding="utf-8") as handle:
                handle.write(f"ERROR {message}\n")
        remove_quietly(*[str(o) for o in smk.output])
        sys.stderr.write(f"error: {message}\n")
        sys.exit(1)

"""Errors that are the user's to fix: a bad config value, missing data, no network.

Every entry point (the Snakefile, the workflow scripts) turns these into one line on
stderr and a non-zero exit, never a traceback (see :mod:`pufferfish.pipeline.cli`).
"""

from __future__ import annotations

__all__ = ["PufferfishError", "ConfigError", "DataError", "DownloadError", "NotApplicableError", "InvalidDistributionError"]


class PufferfishError(Exception):
    """Base class of the errors a user can fix; ``str(err)`` is a single line."""


class ConfigError(PufferfishError, ValueError):
    """A configuration value is invalid; the message names the key."""


class DataError(PufferfishError, ValueError):
    """The data do not support the request (missing column, absent conditioning value...)."""


class DownloadError(PufferfishError, OSError):
    """A dataset could not be obtained or failed its verification."""


class InvalidDistributionError(PufferfishError, ValueError):
    """A probability mass function is invalid (negative mass, not summing to one...)."""


class NotApplicableError(PufferfishError, ValueError):
    """A calibration method was asked for priors outside its assumptions."""

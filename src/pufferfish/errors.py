"""Errors that are the user's to fix: a bad config value, missing data, no network.

Every entry point (the Snakefile, the workflow scripts) turns these into one line on
stderr and a non-zero exit, never a traceback (see :mod:`pufferfish.pipeline.jobs`).
"""

from __future__ import annotations

__all__ = ["PufferfishError", "ConfigError", "DataError", "DownloadError", "NotApplicableError", "InvalidDistributionError",
           "InvalidArgumentError", "ArgumentTypeError", "OutputError", "ComputationError", "UsageError", "TargetNotMetError"]


class PufferfishError(Exception):
    """Base class of the errors a user can fix; ``str(err)`` is a single line."""


class ConfigError(PufferfishError, ValueError):
    """A configuration value is invalid; the message names the key."""


class InvalidArgumentError(ConfigError):
    """An argument of a public function has a value it cannot honour (NaN, out of range, empty...).

    A :class:`ConfigError` too: config values reach the package as such arguments. The
    message names the argument and the value, e.g. ``epsilons[1] = nan: must be finite and > 0``.
    """


class ArgumentTypeError(PufferfishError, TypeError):
    """An argument of a public function has the wrong type (a string or bool where a number goes...)."""


class OutputError(PufferfishError, OSError):
    """An output cannot be written (its directory is a file, the disk is full...); the message names the path."""


class DataError(PufferfishError, ValueError):
    """The data do not support the request (missing column, absent conditioning value...)."""


class DownloadError(PufferfishError, OSError):
    """A dataset could not be obtained or failed its verification."""


class InvalidDistributionError(PufferfishError, ValueError):
    """A probability mass function is invalid (negative mass, not summing to one...)."""


class NotApplicableError(PufferfishError, ValueError):
    """A calibration method was asked for priors outside its assumptions."""


class ComputationError(PufferfishError, ArithmeticError):
    """An exact computation cannot be carried out to its stated accuracy at this input (a
    quadrature that would need more panels than its budget, tails it cannot bound): the audit
    refuses instead of returning a number it cannot vouch for. The message names the input."""


class UsageError(PufferfishError):
    """A mistake in the command line of ``pufferfish`` (exit status 2): an option missing, two
    options that exclude each other; the message names the option."""


class TargetNotMetError(PufferfishError):
    """A calibration ran and printed its table, but for some target no parameter met it (exit status 1).

    ``output`` holds the table (printed on stdout as for a success); the message, one line on
    stderr, names the targets not met."""

    def __init__(self, message: str, output: str):
        super().__init__(message)
        self.output = output

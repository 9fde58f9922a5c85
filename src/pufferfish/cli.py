"""The ``pufferfish`` command: the skeleton that adds each installed paper's subcommands.

Every subcommand belongs to a paper and is declared by it (:class:`pufferfish.papers.Command`,
in the paper's package: e.g. ``pufferfish calibrate``); this module builds the parser from the
declared papers (:func:`pufferfish.papers.declared`, in their order), runs the subcommand
given, and turns a mistake into one line ``error: ...`` on stderr: exit status 2 for a usage
mistake (:class:`~pufferfish.errors.UsageError`, a malformed command line) and 1 for the data
(any other :class:`~pufferfish.errors.PufferfishError`, an unreadable file), never a
traceback. What the subcommands share (argument types, progress lines, output formats) is
:mod:`pufferfish.command_line`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pufferfish.errors import PufferfishError, TargetNotMetError, UsageError

__all__ = ["main"]

#: the command's one-line description
DESCRIPTION = "Noise calibration for pufferfish privacy on your own CSV, every scale audited exactly."


class _Parser(argparse.ArgumentParser):
    """argparse that ends a usage mistake in one line ``error: ...`` (status 2), not the usage block."""

    def error(self, message: str):
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def _commands() -> dict:
    """Every installed paper's subcommands by name, in the papers' order."""
    from pufferfish.papers import DeclarationError, declared

    commands = {}
    for paper in declared():
        for command in paper.commands:
            if command.name in commands:
                raise DeclarationError(f"paper {paper.key}: declares the command {command.name!r}, which another "
                                       "installed paper declares")
            commands[command.name] = command
    return commands


def build_parser(commands: dict | None = None) -> argparse.ArgumentParser:
    """The ``pufferfish`` parser: one subcommand per command of the declared papers (``commands``,
    default :func:`_commands`); the example under ``--help`` is the first command's."""
    commands = _commands() if commands is None else commands
    fmt = argparse.RawDescriptionHelpFormatter
    first = next(iter(commands.values()), None)
    parser = _Parser(prog="pufferfish", formatter_class=fmt, description=DESCRIPTION,
                     epilog=first.example if first is not None else None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for command in commands.values():
        command.add_parser(sub, fmt)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``pufferfish`` console script: 0 on success, 2 for a usage mistake, 1 for the data.

    The user's mistakes (:class:`~pufferfish.errors.PufferfishError`, and ``OSError`` such as an
    unreadable file) end in one line ``error: ...`` on stderr; anything else is a bug and keeps
    its traceback.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after ``pufferfish`` (default: the command line).

    Returns
    -------
    int
        The exit status: 0 on success, 2 for a usage mistake, 1 for the data.

    Raises
    ------
    SystemExit
        From :mod:`argparse` for ``--help`` (status 0) and a malformed command line (status 2,
        its one-line message on stderr).
    """
    try:
        commands = _commands()
        args = build_parser(commands).parse_args(argv)
        text = commands[args.command].run(args)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except TargetNotMetError as err:  # the table, then the line naming what was not met
        _write(err.output)
        print(f"error: {err}", file=sys.stderr)
        return 1
    except (PufferfishError, OSError) as err:
        print(f"error: {_one_line(err)}", file=sys.stderr)
        return 1
    _write(text)
    return 0


def _write(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `pufferfish ... | head`
        pass


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    if isinstance(err, OSError) and err.filename is not None and str(err.filename) not in text:
        text = f"{err.filename}: {text}"
    return text or type(err).__name__

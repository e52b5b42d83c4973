"""The standard library's private names that minirag uses.

Written against CPython 3.11 to 3.13. argparse keeps a parser's subcommands and
options only on private attributes; faulthandler's `_sigabrt` is its own test hook
for a fatal error, which the converter worker's test-only `crash` operation uses.
"""

from __future__ import annotations

import argparse

SUPPORTED = ((3, 11), (3, 14))


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommand parsers of `parser` (its first subparsers group), by name."""
    group = parser._subparsers  # noqa: SLF001
    if group is None:
        return {}
    return dict(group._group_actions[0].choices or {})  # noqa: SLF001 - a dict of parsers


def options_taking_values(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string of `parser` that takes a value (`--base-dir`, not `--json`)."""
    return {flag for action in parser._actions if action.nargs != 0  # noqa: SLF001
            for flag in action.option_strings}


def abort() -> None:
    """Take the process down with SIGABRT, as Python's fatal errors do."""
    import faulthandler

    faulthandler._sigabrt()  # type: ignore[attr-defined]  # noqa: SLF001

"""User-facing errors: one line, exit code 2, no traceback."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

USAGE_EXIT_CODE = 2
"""Exit code for a mistake in what the user asked for (argparse uses the same)."""


class UsageError(Exception):
    """A mistake in the user's request; each message names the thing and what is accepted."""

    def __init__(self, *messages: str):
        super().__init__("; ".join(messages))
        self.messages = messages
        """One line per problem."""


def _report(error: UsageError) -> None:
    for message in error.messages:
        print(f"error: {message}", file=sys.stderr)


def exit_on_usage_error(main: Callable[[], int]) -> int:
    """Run ``main``; turn a :class:`UsageError` into its one-line message on stderr and exit code 2."""
    try:
        return main()
    except UsageError as error:
        _report(error)
        return USAGE_EXIT_CODE
    except SystemExit as stop:
        if stop.code == USAGE_EXIT_CODE:  # raised by usage_errors_exit, already reported
            return USAGE_EXIT_CODE
        raise


@contextlib.contextmanager
def usage_errors_exit() -> Iterator[None]:
    """Inside Isaac Lab's ``launch_simulation`` block: report a :class:`UsageError` and leave with
    ``SystemExit(2)``, which the launcher passes on (it prints a traceback for any other exception)."""
    try:
        yield
    except UsageError as error:
        _report(error)
        raise SystemExit(USAGE_EXIT_CODE) from None

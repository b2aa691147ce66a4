"""User-facing errors: one line, exit code 2, no traceback."""

from __future__ import annotations

import sys
from collections.abc import Callable

USAGE_EXIT_CODE = 2
"""Exit code for a mistake in what the user asked for (argparse uses the same)."""


class UsageError(Exception):
    """A mistake in the user's request; its message names the thing and what is accepted."""


def exit_on_usage_error(main: Callable[[], int]) -> int:
    """Run ``main``; turn a :class:`UsageError` into its one-line message on stderr and exit code 2."""
    try:
        return main()
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE_EXIT_CODE

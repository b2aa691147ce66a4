"""User-facing errors: one line, exit code 2, no traceback."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

USAGE_EXIT_CODE = 2
"""Exit code for a mistake in what the user asked for (argparse uses the same)."""

STALLED_EXIT_CODE = 75
"""``EX_TEMPFAIL``: a simulation step hung and the command gave up (training, evaluation, benchmark); rerunning the
same command (``--resume auto`` for training) continues."""


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


def check_writable(folder: Path, flag: str = "--output") -> None:
    """Refuse, before anything runs, a folder that cannot be created or written (nothing is left behind).

    Raises:
        UsageError: Naming the folder and why.
    """
    folder = folder.absolute()
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    if not existing.is_dir():
        raise UsageError(f"{flag} {folder}: {existing} is a file, not a folder")
    try:  # a probe folder, removed at once (permission bits do not tell for root, nor for /proc)
        os.rmdir(tempfile.mkdtemp(dir=existing, prefix=".go2_probe_"))
    except OSError as error:
        raise UsageError(f"{flag} {folder}: cannot create folders in {existing} ({error.strerror})") from None


def prepare_output_file(path: Path, flag: str) -> Path:
    """An output file's path, absolute, with its folder created when missing, after refusing (before anything
    runs) a path that is a folder or whose folder cannot be created or written.

    Raises:
        UsageError: Naming the flag, the path and why.
    """
    path = Path(path).absolute()
    if path.is_dir():
        raise UsageError(f"{flag} {path}: is a folder; give a file name")
    check_writable(path.parent, flag)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path

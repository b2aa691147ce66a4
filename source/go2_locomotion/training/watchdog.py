"""A stall watchdog for training: ends the process when no iteration finishes within a time bound.

A simulator step that never returns (OvPhysX on rough terrain, docs/learning.md) blocks the main thread inside C
code: no signal handler runs and no Python exception can reach it. The watchdog is a daemon thread that notices the
missing heartbeat, lets its callbacks record the stall, and exits the process with :data:`STALLED_EXIT_CODE`, so that
the same command with ``--resume auto`` (a requeued job, a shell loop) continues from the newest checkpoint.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable

from ..errors import STALLED_EXIT_CODE

__all__ = ["STALLED_EXIT_CODE", "StallWatchdog"]


class StallWatchdog:
    """Calls ``on_stall(seconds_since_beat)`` and then exits with :data:`STALLED_EXIT_CODE` when :meth:`beat` was
    not called for ``timeout_s`` seconds while started. ``exit`` is ``os._exit``: the stuck main thread can never
    take part in an orderly interpreter shutdown."""

    def __init__(
        self,
        timeout_s: float,
        on_stall: Callable[[float], None],
        *,
        exit: Callable[[int], None] = os._exit,
    ) -> None:
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        self.timeout_s = float(timeout_s)
        self.on_stall = on_stall
        self._exit = exit
        self._last_beat = time.monotonic()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def beat(self) -> None:
        """Progress was made: the bound starts again from now."""
        self._last_beat = time.monotonic()

    def start(self) -> None:
        self.beat()
        self._stopped.clear()
        self._thread = threading.Thread(target=self._watch, name="go2-stall-watchdog", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _watch(self) -> None:
        # wake often enough that the exit comes at most ~5 % after the bound
        poll_s = min(1.0, self.timeout_s / 20)
        while not self._stopped.wait(poll_s):
            silent = time.monotonic() - self._last_beat
            if silent >= self.timeout_s:
                try:
                    self.on_stall(silent)
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    self._exit(STALLED_EXIT_CODE)
                return

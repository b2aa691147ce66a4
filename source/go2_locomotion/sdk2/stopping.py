"""How the DDS programs (the controller, the simulated Go2) are stopped from outside: SIGTERM runs the program's
own handler, Ctrl-C (SIGINT) raises ``KeyboardInterrupt`` — also where SIGINT came ignored, as a script's
background job (``cmd &``) starts it: a robot controller must damp on Ctrl-C however it was started."""

from __future__ import annotations

import signal
from collections.abc import Callable


def install_stop_signals(on_sigterm: Callable) -> Callable[[], None]:
    """SIGTERM calls ``on_sigterm(signum, frame)``, SIGINT raises ``KeyboardInterrupt``; returns the function that
    puts the previous handlers back (call it first thing in the run's ``finally``). Main thread only (Python's rule
    for signal handlers)."""
    previous = {
        signal.SIGTERM: signal.signal(signal.SIGTERM, on_sigterm),
        signal.SIGINT: signal.signal(signal.SIGINT, signal.default_int_handler),
    }

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    return restore

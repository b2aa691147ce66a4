"""The controller's clock: a fixed period on absolute deadlines (no drift), and what it measured (jitter, step
time, overruns, missed periods)."""

from __future__ import annotations

import gc
import math
import time
from dataclasses import dataclass, field

import numpy as np


@dataclass
class TimingFigures:
    """Timing of the policy loop over a window of steps [s]."""

    steps: int = 0
    lateness: list[float] = field(default_factory=list)
    """Per step: wake-up time minus the step's deadline."""
    waits: list[float] = field(default_factory=list)
    """Per step: from wake-up to the start of the work (waiting for the robot's next LowState)."""
    work: list[float] = field(default_factory=list)
    """Per step: from the start of the work to the command written."""
    periods: list[float] = field(default_factory=list)
    """Between the starts of consecutive steps' work: the policy period the robot sees."""
    overruns: int = 0
    """Steps whose work ended after the next deadline."""
    missed: int = 0
    """Deadlines skipped entirely (the loop woke more than a period late)."""

    def summary(self) -> dict:
        """Figures in milliseconds (``None`` where there is no data yet)."""

        def stats(values: list[float]) -> dict:
            if not values:
                return {"mean_ms": None, "p99_ms": None, "max_ms": None}
            array = 1e3 * np.asarray(values)
            return {
                "mean_ms": round(float(array.mean()), 3),
                "p99_ms": round(float(np.percentile(array, 99)), 3),
                "max_ms": round(float(array.max()), 3),
            }

        return {
            "steps": self.steps,
            "period": {
                **stats(self.periods),
                "std_ms": round(1e3 * float(np.std(self.periods)), 3) if self.periods else None,
            },
            "lateness": stats(self.lateness),
            "wait": stats(self.waits),
            "work": stats(self.work),
            "overruns": self.overruns,
            "missed_periods": self.missed,
        }

    def line(self) -> str:
        """One log line of the figures."""
        s = self.summary()

        def fmt(key: str) -> str:
            v = s[key]
            return "n/a" if v["mean_ms"] is None else f"{v['mean_ms']:.2f} / {v['p99_ms']:.2f} / {v['max_ms']:.2f} ms"

        return (
            f"{s['steps']} steps, period {fmt('period')} (mean / p99 / max), lateness {fmt('lateness')}, "
            f"LowState wait {fmt('wait')}, work {fmt('work')}, overruns {s['overruns']}, missed periods "
            f"{s['missed_periods']}"
        )


class PeriodicClock:
    """Wakes the loop every ``period`` seconds on absolute deadlines; measures each step.

    Args:
        period: Seconds between steps.
    """

    def __init__(self, period: float):
        self.period = period
        self.deadline = time.monotonic()
        self.window = TimingFigures()
        """Figures since the last :meth:`take_window`."""
        self.total = TimingFigures()
        """Figures since the start."""
        self._woke: float | None = None
        self._began: float | None = None
        self._previous: float | None = None

    def wait(self) -> float:
        """Sleep until the next deadline; returns the wake-up time (``time.monotonic()``). A wake-up more than a
        period late skips the deadlines it missed (counted), so the loop never runs steps back to back."""
        delay = self.deadline - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        now = time.monotonic()
        late = now - self.deadline
        if late >= self.period:
            skipped = math.floor(late / self.period)
            self.deadline += skipped * self.period
            late -= skipped * self.period
            for figures in (self.window, self.total):
                figures.missed += skipped
        for figures in (self.window, self.total):
            figures.lateness.append(late)
        self._woke = self._began = now
        return now

    def begin(self, now: float) -> None:
        """The step's work starts at ``now`` (after waiting for input since the wake-up)."""
        self._began = now
        for figures in (self.window, self.total):
            figures.waits.append(now - self._woke)
            if self._previous is not None:
                figures.periods.append(now - self._previous)
        self._previous = now

    def done(self) -> bool:
        """The step's command is out; returns whether the step overran (its work ended after the next deadline)."""
        now = time.monotonic()
        self.deadline += self.period
        overran = now > self.deadline
        if self._previous != self._began:  # no begin(): the work started at the wake-up
            self.begin(self._began)
        for figures in (self.window, self.total):
            figures.steps += 1
            figures.work.append(now - self._began)
            figures.overruns += overran
        return overran

    def take_window(self) -> TimingFigures:
        """The figures since the last call, and start a new window."""
        window, self.window = self.window, TimingFigures()
        return window


def freeze_heap() -> None:
    """Collect once, then exempt every object alive now from Python's garbage collector: a full collection of
    the ~60,000 objects that numpy, MuJoCo, ONNX Runtime and CycloneDDS leave behind takes 100-300 ms, a stall no
    real-time loop survives; the loop's own short-lived objects are still collected."""
    gc.collect()
    gc.freeze()

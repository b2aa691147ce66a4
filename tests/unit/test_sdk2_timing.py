"""The controller's clock on a fake time source: absolute deadlines, lateness, overruns and missed periods counted as
a hand-made timeline says."""

from __future__ import annotations

import pytest

from go2_locomotion.sdk2 import timing


class FakeTime:
    """``monotonic`` and ``sleep`` over a clock that only moves when told (``sleep`` oversleeps by ``wake_s``)."""

    def __init__(self, wake_s: float = 0.0):
        self.now, self.wake_s = 100.0, wake_s

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds + self.wake_s


@pytest.fixture
def fake(monkeypatch):
    clock = FakeTime(wake_s=0.0005)
    monkeypatch.setattr(timing, "time", clock)
    return clock


def test_deadlines_are_absolute_and_lateness_is_measured(fake):
    clock = timing.PeriodicClock(0.02)
    wakes = []
    for _ in range(5):
        wakes.append(clock.wait())
        fake.now += 0.003  # 3 ms of work
        assert clock.done() is False
    # the first deadline is "now" (no sleep); every later one is 20 ms after the previous deadline, not after the
    # previous wake-up: the 0.5 ms oversleep does not accumulate
    assert wakes[0] == pytest.approx(100.0)
    assert [w - 100.0 for w in wakes[1:]] == pytest.approx([0.0205, 0.0405, 0.0605, 0.0805])
    figures = clock.total.summary()
    assert figures["steps"] == 5 and figures["overruns"] == 0 and figures["missed_periods"] == 0
    assert figures["lateness"]["max_ms"] == pytest.approx(0.5)
    assert figures["work"]["mean_ms"] == pytest.approx(3.0)
    assert figures["period"]["mean_ms"] == pytest.approx((20.5 + 3 * 20.0) / 4)  # the first wake-up was on time


def test_an_overrun_and_the_periods_it_skips_are_counted(fake):
    clock = timing.PeriodicClock(0.02)
    clock.wait()
    fake.now += 0.05  # a 50 ms step: past the next deadline (20 ms) and the one after (40 ms)
    assert clock.done() is True
    woke = clock.wait()  # late by 30 ms for the 20 ms deadline: one whole period skipped, 10 ms late for the 40 ms one
    assert woke == pytest.approx(100.05)
    figures = clock.total.summary()
    assert figures["overruns"] == 1 and figures["missed_periods"] == 1
    assert clock.total.lateness[-1] == pytest.approx(0.01)
    fake.now += 0.001
    clock.done()
    assert clock.wait() == pytest.approx(100.06 + 0.0005)  # back on the 20 ms grid: next deadline at 60 ms


def test_windows_restart_but_the_total_keeps_counting(fake):
    clock = timing.PeriodicClock(0.01)
    for _ in range(3):
        clock.wait()
        clock.done()
    window = clock.take_window()
    clock.wait()
    clock.done()
    assert window.steps == 3 and clock.window.steps == 1 and clock.total.steps == 4
    assert "4 steps" in clock.total.line() and "missed periods 0" in clock.total.line()


def test_the_wait_for_input_is_measured_apart_from_the_work(fake):
    clock = timing.PeriodicClock(0.02)
    for _ in range(3):
        clock.wait()
        fake.now += 0.004  # 4 ms waiting for the robot's LowState after the wake-up
        clock.begin(fake.now)
        fake.now += 0.001  # 1 ms of work
        clock.done()
    figures = clock.total.summary()
    assert figures["wait"]["mean_ms"] == pytest.approx(4.0)
    assert figures["work"]["mean_ms"] == pytest.approx(1.0)
    assert figures["period"]["mean_ms"] == pytest.approx(20.25)  # between the starts of work: 20.5 ms, then 20 ms

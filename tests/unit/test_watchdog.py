"""The stall watchdog (:mod:`go2_locomotion.training.watchdog`): in-process with a recorded exit, and in real
processes whose main thread is stuck, as the main thread of a training run is when a simulator step never returns."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from go2_locomotion.training.watchdog import STALLED_EXIT_CODE, StallWatchdog

TOY = Path(__file__).parents[1] / "toy_training.py"


def _watch(timeout_s: float):
    stalls, exits, exited = [], [], threading.Event()

    def record_exit(code):
        exits.append(code)
        exited.set()

    watchdog = StallWatchdog(timeout_s, stalls.append, exit=record_exit)
    return watchdog, stalls, exits, exited


def test_no_heartbeat_for_the_bound_records_the_stall_then_exits_75():
    watchdog, stalls, exits, exited = _watch(0.3)
    started = time.monotonic()
    watchdog.start()
    assert exited.wait(5)
    elapsed = time.monotonic() - started
    watchdog.stop()
    assert exits == [STALLED_EXIT_CODE] == [75]
    assert len(stalls) == 1 and 0.3 <= stalls[0] <= elapsed
    # the poll is a twentieth of the bound: the exit comes soon after it
    assert elapsed < 0.3 + 0.2


def test_heartbeats_within_the_bound_keep_it_quiet():
    watchdog, stalls, exits, _ = _watch(0.3)
    watchdog.start()
    for _ in range(12):  # 0.6 s of beats every 0.05 s: twice the bound in total, never a gap of it
        time.sleep(0.05)
        watchdog.beat()
    watchdog.stop()
    assert (stalls, exits) == ([], [])


def test_a_stopped_watchdog_never_fires():
    watchdog, stalls, exits, _ = _watch(0.1)
    watchdog.start()
    watchdog.stop()
    time.sleep(0.3)
    assert (stalls, exits) == ([], [])


def test_the_bound_must_be_positive():
    with pytest.raises(ValueError, match="timeout_s must be > 0, got 0"):
        StallWatchdog(0, print)


def test_a_process_whose_main_thread_is_stuck_in_c_exits_75():
    """The main thread blocks in a C call holding no Python frame to interrupt (a pipe read that never returns),
    as it does inside ``ovphysx_step_sync``: the watchdog still ends the process, with its message."""
    code = (
        "import os, sys; from go2_locomotion.training.watchdog import StallWatchdog\n"
        "StallWatchdog(0.5, lambda s: print(f'stalled {s:.1f}', flush=True)).start()\n"
        "r, w = os.pipe(); os.read(r, 1)\n"
    )
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == STALLED_EXIT_CODE, done.stderr
    assert done.stdout.startswith("stalled 0.5")
    assert time.monotonic() - started < 30


def test_a_training_run_whose_step_hangs_exits_75_and_resumes_from_its_checkpoint(tmp_path):
    """The package's runner on the toy environment, whose step blocks for good at iteration 5: the run exits with
    code 75 and says where to continue; the same command then resumes from the newest checkpoint (iteration 4)."""
    folder = tmp_path / "run"
    command = [sys.executable, str(TOY), str(folder), "--stall_timeout_s", "5.0", "--max_iterations", "8"]
    first = subprocess.run([*command, "--hang_at_iteration", "5"], capture_output=True, text=True, timeout=300)
    assert first.returncode == STALLED_EXIT_CODE, first.stdout[-2000:] + first.stderr[-2000:]
    assert "after iteration 4: the simulation step is stuck; exiting with code 75" in first.stderr
    assert "continues from" in first.stderr and "model_4.pt" in first.stderr
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
    assert "resumed from model_4.pt at 5" in again.stdout
    assert [int(x) for x in (folder / "iterations_rank0.txt").read_text().split()] == list(range(8))

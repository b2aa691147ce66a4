"""The shipped Go2-Rough-Blind policy climbs 10 cm stairs on the simulated Go2 over real DDS (loopback, two
processes), exactly as a user runs it: ``sim_go2.py --terrain stairs_up:0.10`` and ``deploy_sdk2.py --bundle
pretrained --task Go2-Rough-Blind``. Three starts, each must reach half a tile (4 m, the terrain grid's success
distance) up the steps without a fall."""

from __future__ import annotations

import numpy as np
import pytest

from go2_locomotion.sdk2.bench import Bench, ControllerRecord, SimRecord, segments_text, stall
from go2_locomotion.sim2sim.loop import Segment

pytestmark = pytest.mark.sim

TASK = "Go2-Rough-Blind"
CELL = "stairs_up:0.10"
SCRIPT = [Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("climb", 8.0, (1.0, 0.0, 0.0))]
"""Stand, then 1 m/s ahead, up the steps (the terrain grid's command)."""

SUCCESS_DISTANCE_M = 4.0
"""Half of Go2-Rough's 8 m tile, from its centre: the terrain grid's success criterion."""

STEP_M = 0.10
STARTS = 3
STALE_S = 0.06
"""The controller's stale bound for the 50 Hz policy (3 periods) [s], as the walk test's."""

ATTEMPTS_PER_START = 2
"""A start is run again only when the machine stalled a process (the records show it); a miss without a stall fails."""


def _climb(folder):
    folder.mkdir()
    with Bench(folder) as bench:
        controller = bench.controller("--task", TASK, "--autostart", "--commands", segments_text(SCRIPT))
        assert controller.wait_for("waiting for LowState", 120), controller.text()
        sim = bench.sim("--bundle", "pretrained", "--task", TASK, "--terrain", CELL, "--duration", "60")
        code = controller.wait(150)
        sim.signal(2)
        sim.wait(30)
    return code, controller.text()


def _result(folder) -> dict:
    record, log = SimRecord.read(folder / "sim.jsonl"), ControllerRecord.read(folder / "controller.jsonl")
    start = log.policy_start()
    end = start + sum(s.duration_s for s in SCRIPT)  # then damping: the robot lies down
    walking = [r for r in record.trunk if start <= r["t"] < end]
    origin = np.asarray(walking[0]["pos"][:2])
    distance = max(float(np.linalg.norm(np.asarray(r["pos"][:2]) - origin)) for r in walking)
    grounds = [r["ground"] for r in walking if r["ground"] is not None]
    return {
        "distance": distance,
        "fell": any(r["down"] for r in walking),
        "climbed": max(grounds) - grounds[0],
    }


def test_the_blind_policy_climbs_10_cm_stairs_over_dds(tmp_path):
    results = []
    for start in range(STARTS):
        for attempt in range(ATTEMPTS_PER_START):
            folder = tmp_path / f"start_{start}_attempt_{attempt}"
            code, output = _climb(folder)
            result = _result(folder) if code == 0 else None
            ok = result is not None and result["distance"] >= SUCCESS_DISTANCE_M and not result["fell"]
            stalled = stall(folder, STALE_S)
            if ok or stalled is None:
                break
            print(f"start {start + 1}, attempt {attempt + 1}: the machine stalled the bench ({stalled}); again")
        assert code == 0, output
        assert "DAMPING:" not in output, output  # no fault on the way
        print(f"start {start + 1}: {result}")
        results.append(result)
    assert all(not r["fell"] for r in results), results
    assert all(r["distance"] >= SUCCESS_DISTANCE_M for r in results), results
    assert all(r["climbed"] >= 3 * STEP_M - 1e-3 for r in results), results  # up the steps, not along a landing

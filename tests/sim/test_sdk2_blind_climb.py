"""The shipped Go2-Rough-Blind policy climbs stairs on the simulated Go2 over real DDS (loopback, two processes),
exactly as a user runs it: ``sim_go2.py --terrain stairs_up:0.05`` and ``deploy_sdk2.py --bundle pretrained --task
Go2-Rough-Blind``. Three starts, each must reach half a tile (4 m, the terrain grid's success distance) up the steps
without a fall. 5 cm steps: the shipped policy climbs them in every terrain grid (PhysX 0.88, MuJoCo 1.0); on 10 cm
steps it fell over DDS after two steps, as half its MuJoCo grid robots do (docs/pretrained.md)."""

from __future__ import annotations

import numpy as np
import pytest

from go2_locomotion.sdk2.bench import Bench, ControllerRecord, SimRecord, segments_text, stall
from go2_locomotion.sim2sim.loop import Segment

pytestmark = pytest.mark.sim

TASK = "Go2-Rough-Blind"
CELL = "stairs_up:0.05"
SCRIPT = [Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("climb", 6.0, (1.0, 0.0, 0.0))]
"""Stand, then 1 m/s ahead, up the steps (the terrain grid's command)."""

SUCCESS_DISTANCE_M = 4.0
"""Half of Go2-Rough's 8 m tile, from its centre: the terrain grid's success criterion."""

STEP_M = 0.05
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
    """The terrain grid's verdict on the trunk's record: success when the trunk gets 4 m from where the policy took
    over before it ever touches the ground (past the tile's edge the cell ends, so later records do not count)."""
    record, log = SimRecord.read(folder / "sim.jsonl"), ControllerRecord.read(folder / "controller.jsonl")
    start = log.policy_start()
    end = start + sum(s.duration_s for s in SCRIPT)  # then damping: the robot lies down
    walking = [r for r in record.trunk if start <= r["t"] < end]
    origin = np.asarray(walking[0]["pos"][:2])
    distance, climbed, fell = 0.0, 0.0, False
    for row in walking:
        fell = bool(row["down"])
        if fell:
            break
        distance = max(distance, float(np.linalg.norm(np.asarray(row["pos"][:2]) - origin)))
        if row["ground"] is not None:
            climbed = max(climbed, row["ground"] - walking[0]["ground"])
        if distance >= SUCCESS_DISTANCE_M:
            break
    return {"success": distance >= SUCCESS_DISTANCE_M and not fell, "distance": distance, "climbed": climbed}


def test_the_blind_policy_climbs_10_cm_stairs_over_dds(tmp_path):
    results = []
    for start in range(STARTS):
        for attempt in range(ATTEMPTS_PER_START):
            folder = tmp_path / f"start_{start}_attempt_{attempt}"
            code, output = _climb(folder)
            result = _result(folder) if code == 0 else None
            ok = result is not None and result["success"]
            stalled = stall(folder, STALE_S)
            if ok or stalled is None:
                break
            print(f"start {start + 1}, attempt {attempt + 1}: the machine stalled the bench ({stalled}); again")
        assert code == 0, output
        assert "DAMPING:" not in output, output  # no fault on the way
        print(f"start {start + 1}: {result}")
        results.append(result)
    assert all(r["success"] for r in results), results
    assert all(r["climbed"] >= 3 * STEP_M - 1e-3 for r in results), results  # up the steps, not along a landing

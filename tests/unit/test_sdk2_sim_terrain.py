"""The simulated Go2 on a terrain cell (``scripts/sim_go2.py --terrain stairs_up:0.10``): the staircase is in its
MuJoCo model where the cell puts it, the robot starts standing at the cell's start facing the steps, and the record
says where the ground under the trunk is. Isaac Lab's terrain generator runs on its own here (no simulator, no DDS).

A climb over real DDS, once a blind policy climbs, runs the two scripts as a user does (``bench.Bench``):

    python scripts/sim_go2.py --terrain stairs_up:0.10 --bundle <bundle> --log sim.jsonl
    python scripts/deploy_sdk2.py --bundle <bundle> --network lo --autostart --commands "stand:2:0,0,0 up:12:0.5,0,0"

and reads how high it climbed from ``sim.jsonl``: each trunk record's ``ground`` against the start's.
"""

from __future__ import annotations

import json

import mujoco
import numpy as np
import pytest

from go2_locomotion import pretrained
from go2_locomotion.robot.bundle import load_bundle
from go2_locomotion.sdk2.messages import command_arrays, lowcmd
from go2_locomotion.sdk2.safety import JointLimits
from go2_locomotion.sdk2.sim import SimulatedGo2
from go2_locomotion.sim2sim.terrain import build_ground

# Go2-Rough's 10 cm stairs up, by hand: an 8 m tile with a 1 m border leaves the steps 3 m from the centre; 0.3 m
# treads around a 3 m platform make (8 - 2 - 3) // (2 x 0.3) + 1 = 6 steps, so the centre box reaches 3 - 6 x 0.3 =
# 1.2 m, 7 steps of 0.1 m below the border (the inverted pyramid sinks towards its centre).
RISER, TREAD, FIRST_EDGE, STEPS = 0.10, 0.3, 1.2, 6
START_Z = -(STEPS + 1) * RISER


@pytest.fixture(scope="module")
def bundle():
    return load_bundle(pretrained.bundle())


@pytest.fixture(scope="module")
def stairs():
    return build_ground("stairs_up:0.10")


class _Loopback:
    """Stands in for the DDS bus: LowStates go nowhere, no LowCmd comes."""

    interface, domain_id, error = "lo", 0, None

    def writer(self, topic, message_type):
        return self

    def write(self, message):
        pass

    def subscribe(self, topic, message_type, handler):
        return self

    def close(self):
        pass


def test_the_ground_is_one_cell_or_flat():
    assert build_ground("flat") is None
    with pytest.raises(ValueError, match=r"^stairs_up:0.1 stairs_down:0.1: one cell \(e.g. stairs_up:0.10\) or flat"):
        build_ground("stairs_up:0.1 stairs_down:0.1")
    with pytest.raises(ValueError, match=r"^stairs:0.1: terrain cell 'stairs:0.1': unknown terrain 'stairs'"):
        build_ground("stairs:0.1")


def test_the_staircase_rises_ahead_of_the_robot(bundle, stairs):
    robot = SimulatedGo2(bundle, terrain=stairs, say=lambda _: None)
    model, data = robot.model, robot.data
    geom, down = np.zeros(1, dtype=np.int32), np.array([0.0, 0.0, -1.0])

    def top(x: float, y: float) -> float:  # anything in the model, robot included, straight under (x, y)
        return 5.0 - mujoco.mj_ray(model, data, np.array([x, y, 5.0]), down, None, 1, -1, geom)

    assert top(0.8, 0.0) == pytest.approx(START_Z, abs=1e-9)  # the platform the robot stands on
    for k in range(STEPS):  # the middle of each tread, ahead (+x) and off to the side
        x = FIRST_EDGE + (k + 0.5) * TREAD
        for y in (0.0, 0.4, -0.4):
            assert top(x, y) - START_Z == pytest.approx((k + 1) * RISER, abs=1e-9), (k, y)
    assert top(3.5, 0.0) == pytest.approx(0.0, abs=1e-9)  # the border, level with the top step


def test_the_robot_starts_standing_at_the_cells_start_facing_the_steps(bundle, stairs):
    robot = SimulatedGo2(bundle, terrain=stairs, say=lambda _: None)
    model, data = robot.model, robot.data
    np.testing.assert_allclose(data.qpos[0:2], 0.0)
    np.testing.assert_allclose(data.qpos[3:7], [1.0, 0.0, 0.0, 0.0])  # level, facing +x: the steps 1.2 m ahead
    feet = [data.xpos[model.body(f"{leg}_foot").id][2] for leg in ("FL", "FR", "RL", "RR")]
    assert min(feet) == pytest.approx(START_Z + 0.022 + 0.002, abs=1e-9)  # foot radius + 2 mm above the platform
    limits = JointLimits.from_bundle(bundle)
    stand = command_arrays(lowcmd(limits.standing, np.zeros(12), np.zeros(12), limits.kp, limits.kd))
    for _ in range(round(1.0 / robot.dt)):
        robot.physics_step(stand)
    flat = SimulatedGo2(bundle, say=lambda _: None)
    for _ in range(round(1.0 / flat.dt)):
        flat.physics_step(stand)
    assert not robot.plant.is_down() and robot.plant.foot_contacts().all()
    assert data.qpos[2] - START_Z == pytest.approx(flat.data.qpos[2], abs=1e-3)  # stands as on the floor


def test_the_record_says_where_the_robot_started_and_the_ground_under_it(bundle, stairs, tmp_path):
    log = tmp_path / "sim.jsonl"
    robot = SimulatedGo2(bundle, terrain=stairs, log=log, say=lambda _: None)
    trunk_z = float(robot.data.qpos[2])
    robot.run(_Loopback(), duration_s=0.1)
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    start = rows[0]["start"]
    assert start["terrain"] == "stairs_up:0.1" and start["origin"] == pytest.approx([0.0, 0.0, START_Z])
    assert start["pos"] == pytest.approx([0.0, 0.0, trunk_z], abs=1e-4) and start["ground"] == pytest.approx(START_Z)
    trunk = [row for row in rows if "pos" in row]
    assert len(trunk) == 5 and all(row["ground"] == pytest.approx(START_Z) for row in trunk)  # every 20 ms

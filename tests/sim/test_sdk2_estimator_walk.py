"""The trunk-velocity estimator against MuJoCo's truth while the pretrained policy walks on it, in one process (no
DDS, no clock): the simulated Go2's own LowStates in, the estimate into the policy, every 5 ms physics step."""

from __future__ import annotations

import numpy as np
import pytest

from go2_locomotion import pretrained
from go2_locomotion.robot.bundle import load_bundle
from go2_locomotion.robot.controller import ReferenceController, RobotState
from go2_locomotion.sdk2.estimator import VelocityEstimator
from go2_locomotion.sdk2.messages import command_arrays, lowcmd, reading
from go2_locomotion.sdk2.safety import JointLimits
from go2_locomotion.sdk2.sim import SimulatedGo2
from go2_locomotion.sim2sim.loop import Segment
from go2_locomotion.sim2sim.loop import run as sim2sim
from go2_locomotion.sim2sim.report import SETTLE_S

pytestmark = pytest.mark.sim

SCRIPT = [
    Segment("forward", 4.0, (0.6, 0.0, 0.0)),
    Segment("lateral", 3.0, (0.0, 0.4, 0.0)),
    Segment("fast", 4.0, (1.0, 0.0, 0.0)),
    Segment("backward", 3.0, (-0.5, 0.0, 0.0)),
]


def test_the_estimate_follows_the_truth_and_the_policy_walks_on_it():
    bundle = load_bundle(pretrained.bundle())
    robot, policy, estimator = (
        SimulatedGo2(bundle, say=lambda _: None),
        ReferenceController(bundle),
        VelocityEstimator(),
    )
    limits = JointLimits.from_bundle(bundle)
    steps = 0

    def physics(command) -> None:
        nonlocal steps
        estimator.update(reading(robot.lowstate(steps * robot.dt)))
        robot.physics_step(command)
        steps += 1

    stand = command_arrays(lowcmd(limits.standing, np.zeros(12), np.zeros(12), limits.kp, limits.kd))
    forces = []
    for k in range(300):  # stand up from the spawn pose and stand 1.5 s; the last 0.5 s calibrates the contacts
        physics(stand)
        if k >= 200:
            forces.append(reading(robot.lowstate(steps * robot.dt)).foot_force)
    assert estimator.calibrate(np.mean(forces, axis=0))
    errors, achieved = [], []
    for segment in SCRIPT:
        rows = []
        for step in range(round(segment.duration_s / policy.policy_dt)):
            r = reading(robot.lowstate(steps * robot.dt))
            truth = robot.plant.base_lin_vel()
            state = RobotState(
                joint_pos=r.q, joint_vel=r.dq, base_ang_vel=r.gyroscope, base_quat=r.quaternion,
                base_lin_vel=estimator.velocity, command=np.asarray(segment.command),
            )  # fmt: skip
            out = policy.act(state)
            command = command_arrays(lowcmd(out.joint_pos_target, np.zeros(12), np.zeros(12), out.kp, out.kd))
            if step * policy.policy_dt >= SETTLE_S:
                errors.append(estimator.velocity - truth)
                rows.append(truth[:2])
            for _ in range(4):
                physics(command)
        achieved.append(np.mean(rows, axis=0))
    errors = np.asarray(errors)
    rms = np.sqrt(np.mean(errors**2, axis=0))
    # measured: 0.04 / 0.05 / 0.07 m/s RMS (x, y, z); the policy was trained with +-0.1 m/s of uniform noise on it
    assert np.all(rms[:2] < 0.1) and abs(errors[:, 0].mean()) < 0.05 and abs(errors[:, 1].mean()) < 0.05, rms
    truth_fed = [s["mean_velocity"][:2] for s in sim2sim(bundle, SCRIPT)["segments"]]
    for segment, mine, reference in zip(SCRIPT, achieved, truth_fed, strict=True):
        assert np.all(np.abs(mine - np.asarray(reference)) <= 0.05), (segment.name, mine, reference)

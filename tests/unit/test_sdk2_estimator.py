"""The trunk-velocity estimator on hand-made LowStates: still robot, accelerometer integration in flight, the foot
that disagrees, the contact calibration; its kinematics against the description's standing height."""

from __future__ import annotations

import numpy as np
import pytest

from go2_locomotion.assets import go2_description as go2
from go2_locomotion.sdk2.bench import standing_reading
from go2_locomotion.sdk2.estimator import SDK2_LEGS, LegKinematics, VelocityEstimator
from go2_locomotion.sdk2.messages import RobotReading

STANDING = np.array([-0.1, 0.8, -1.5, 0.1, 0.8, -1.5, -0.1, 1.0, -1.5, 0.1, 1.0, -1.5])


def _reading(tick: int, **changes) -> RobotReading:
    return standing_reading(STANDING, tick=tick, **changes)


def test_legs_are_in_sdk2_order_and_reach_the_standing_height():
    assert SDK2_LEGS == ("FR", "FL", "RR", "RL")
    points, velocities = LegKinematics().contacts(STANDING, np.zeros(12), np.array([0.0, 0.0, 1.0]))
    # contact points lie one foot radius below the foot spheres: the trunk height standing, from the description
    # (which measures from the foot bodies' origins; the spheres sit 2 mm off them: within 2 mm)
    pose = {
        f"{leg}_{part}_joint": STANDING[3 * k + j]
        for k, leg in enumerate(SDK2_LEGS)
        for j, part in enumerate(("hip", "thigh", "calf"))
    }
    assert -points[:, 2].mean() == pytest.approx(go2.standing_height(pose), abs=2e-3)
    assert points[0, 0] > 0 > points[0, 1] and points[3, 0] < 0 < points[3, 1]  # FR front right, RL rear left
    assert np.allclose(velocities, 0.0)


def test_a_still_robot_reads_zero_on_four_feet():
    estimator = VelocityEstimator()
    for tick in range(0, 50, 5):
        estimator.update(_reading(tick))
    assert np.allclose(estimator.velocity, 0.0) and estimator.stance.all()


def test_in_flight_the_accelerometer_integrates():
    estimator = VelocityEstimator()
    assert estimator.calibrate(np.full(4, 37.0)) and estimator.force_thresholds.tolist() == [18.5] * 4
    estimator.update(_reading(0))  # on the ground, still: the estimate starts at zero
    for k in range(1, 11):  # 10 readings 5 ms apart, no foot loaded, 2 m/s^2 forward
        estimator.update(_reading(5 * k, foot_force=np.zeros(4), accelerometer=np.array([2.0, 0.0, 9.81])))
    assert not estimator.stance.any()
    assert estimator.velocity == pytest.approx([2.0 * 0.05, 0.0, 0.0], abs=1e-9)  # no rotation: origin = centre of mass


def test_the_legs_pull_the_estimate_back_with_the_time_constant():
    estimator = VelocityEstimator()
    estimator.update(_reading(0, foot_force=np.zeros(4)))
    estimator.calibrate(np.full(4, 37.0))
    for k in range(1, 11):
        estimator.update(_reading(5 * k, foot_force=np.zeros(4), accelerometer=np.array([2.0, 0.0, 9.81])))
    estimator.update(_reading(60))  # feet down again, legs still: one 10 ms correction toward zero
    assert estimator.velocity[0] == pytest.approx(0.1 * np.exp(-0.010 / 0.05) + 2.0 * 0.0 * 0.01, rel=1e-6)


def test_a_foot_that_disagrees_is_left_out():
    estimator = VelocityEstimator()
    dq = np.zeros(12)
    dq[0:3] = [0.0, 3.0, -3.0]  # the FR leg swings fast while on the ground: its estimate is far from the others'
    estimator.update(_reading(0, dq=dq))
    assert estimator.stance.tolist() == [False, True, True, True]
    assert np.allclose(estimator.velocity, 0.0)


def test_calibration_needs_a_reading_on_every_foot():
    estimator = VelocityEstimator()
    assert estimator.calibrate(np.array([40.0, 0.0, 38.0, 41.0])) is False and estimator.force_thresholds is None
    assert estimator.calibrate(np.array([100.0, 80.0, 90.0, 120.0])) is True
    assert estimator.force_thresholds.tolist() == [50.0, 40.0, 45.0, 60.0]


def test_non_finite_readings_leave_the_estimate_finite():
    estimator = VelocityEstimator()
    estimator.update(_reading(0))
    estimator.update(_reading(5, accelerometer=np.array([np.nan, 0.0, 9.81])))
    assert np.all(np.isfinite(estimator.velocity))

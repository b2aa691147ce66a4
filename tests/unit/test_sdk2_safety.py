"""The safety rules on their own: the mode machine, what makes a reading unusable, the target clamps, staleness."""

from __future__ import annotations

import math

import numpy as np
import pytest

from go2_locomotion import pretrained
from go2_locomotion.robot.bundle import SDK2_JOINT_ORDER, load_bundle
from go2_locomotion.sdk2.bench import standing_reading
from go2_locomotion.sdk2.messages import RobotReading
from go2_locomotion.sdk2.safety import (
    JointLimits,
    Mode,
    Supervisor,
    clamp_targets,
    is_stale,
    reading_fault,
)

STANDING = np.array([-0.1, 0.8, -1.5, 0.1, 0.8, -1.5, -0.1, 1.0, -1.5, 0.1, 1.0, -1.5])
LIMITS = JointLimits(
    position=np.tile([[-1.0472, 1.0472], [-1.5708, 3.4907], [-2.7227, -0.83776]], (4, 1)),
    effort=np.tile([23.7, 23.7, 45.43], 4),
    velocity=np.full(12, 30.0),
    standing=STANDING,
    kp=np.full(12, 25.0),
    kd=np.full(12, 0.5),
)


def _reading(**changes) -> RobotReading:
    return standing_reading(STANDING, **changes)


def test_limits_come_from_the_bundle_in_sdk2_order():
    limits = JointLimits.from_bundle(load_bundle(pretrained.bundle()))
    # deploy.yaml lists FL first; SDK2 motor 0 is FR_hip: default -0.1 rad, motor 3 is FL_hip: +0.1 rad
    assert SDK2_JOINT_ORDER[0] == "FR_hip_joint" and limits.standing[0] == -0.1 and limits.standing[3] == 0.1
    assert limits.effort[2] == 45.43 and limits.kp.tolist() == [25.0] * 12
    assert limits.position[7].tolist() == pytest.approx([-0.5236, 4.5379004])  # RR thigh


def test_modes_start_ramp_stand_policy_stop():
    sup = Supervisor(ramp_s=2.0)
    assert sup.mode is Mode.DAMPING
    lying = STANDING + 0.6
    assert sup.start(10.0, lying) == "standing up over 2 s" and sup.mode is Mode.RAMP
    assert sup.ramp_target(11.0, STANDING) == pytest.approx(lying - 0.3)  # half way after 1 of 2 s
    assert sup.mode is Mode.RAMP
    assert sup.ramp_target(12.0, STANDING) == pytest.approx(STANDING) and sup.mode is Mode.STAND
    assert sup.start(13.0, STANDING) == "policy on" and sup.mode is Mode.POLICY
    assert sup.start(13.5, STANDING).startswith("start ignored")
    assert sup.stop(14.0, walking=True) == "zero command" and sup.mode is Mode.POLICY
    assert sup.stop(14.5, walking=False) == "damping" and sup.mode is Mode.DAMPING
    assert sup.stop(15.0, walking=False) == "already damping"


def test_stop_while_standing_up_damps_at_once():
    sup = Supervisor(ramp_s=3.0)
    sup.start(0.0, STANDING)
    assert sup.stop(1.0, walking=False) == "damping" and sup.mode is Mode.DAMPING


def test_a_fault_damps_once_and_is_remembered_until_the_next_start():
    sup = Supervisor(ramp_s=3.0)
    sup.start(0.0, STANDING)
    assert sup.trip(1.0, "LowState stale") is True
    assert sup.mode is Mode.DAMPING and sup.fault == "LowState stale"
    assert sup.trip(1.1, "LowState stale") is False  # already damping: reported once
    sup.start(5.0, STANDING)
    assert sup.fault is None and sup.mode is Mode.RAMP


def test_a_good_reading_has_no_fault():
    assert reading_fault(_reading(), LIMITS) is None


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"q": np.r_[np.nan, STANDING[1:]]}, "LowState q holds a non-finite value"),
        ({"gyroscope": np.array([0.0, np.inf, 0.0])}, "LowState gyroscope holds a non-finite value"),
        ({"quaternion": np.array([1.2, 0.0, 0.0, 0.0])}, "IMU quaternion has norm 1.200"),
        ({"q": np.r_[STANDING[:2], -2.95, STANDING[3:]]}, "FR_calf_joint at -2.950 rad, beyond its range"),
        ({"dq": np.r_[np.zeros(5), 31.0, np.zeros(6)]}, "FL_calf_joint turns at 31.0 rad/s"),
        ({"gyroscope": np.array([0.0, 0.0, -16.0])}, "trunk turns at 16.0 rad/s"),
        # 70 deg roll: gravity z = -cos(70 deg) = -0.34 > -0.5
        ({"quaternion": np.array([math.cos(math.radians(35)), math.sin(math.radians(35)), 0, 0])}, "tilted 70 deg"),
    ],
)
def test_unusable_readings_are_named(changes, message):
    assert message in reading_fault(_reading(**changes), LIMITS)


def test_a_joint_just_inside_the_margin_is_accepted():
    # -2.7227 rad limit, 0.2 rad margin: -2.9 is 0.177 beyond, still accepted
    assert reading_fault(_reading(q=np.r_[STANDING[:2], -2.9, STANDING[3:]]), LIMITS) is None


def test_clamp_to_effort_then_joint_limits():
    q, dq = STANDING.copy(), np.zeros(12)
    target = STANDING.copy()
    target[0] += 2.0  # hip: 25 x 2.0 = 50 N m asked, 23.7 allowed -> 23.7 / 25 = 0.948 rad from q
    target[2] -= 0.5  # calf at -2.0: inside its range, 12.5 N m: unchanged
    target[4] = 4.0  # thigh beyond its 3.4907 upper limit, but also 80 N m from q=0.8: effort first -> 0.8 + 0.948
    out = clamp_targets(target, q, dq, LIMITS.kp, LIMITS.kd, LIMITS)
    assert out[0] == pytest.approx(-0.1 + 0.948)
    assert out[2] == pytest.approx(-2.0)
    assert out[4] == pytest.approx(0.8 + 0.948)
    # a joint moving at +10 rad/s: kd dq = 5 N m of damping shifts the allowed window by 5 / 25 = 0.2 rad
    dq[1] = 10.0
    target = STANDING.copy()
    target[1] += 2.0
    assert clamp_targets(target, q, dq, LIMITS.kp, LIMITS.kd, LIMITS)[1] == pytest.approx(0.8 + 0.2 + 0.948)
    # the joint range wins over the effort window: a thigh at its upper limit asked to go beyond
    q2 = STANDING.copy()
    q2[1] = 3.4
    target = q2.copy()
    target[1] = 3.9
    assert clamp_targets(target, q2, np.zeros(12), LIMITS.kp, LIMITS.kd, LIMITS)[1] == pytest.approx(3.4907)


def test_zero_gain_motors_are_not_effort_clamped():
    kp = LIMITS.kp.copy()
    kp[0] = 0.0
    target = STANDING.copy()
    target[0] = 1.0
    assert clamp_targets(target, STANDING, np.zeros(12), kp, LIMITS.kd, LIMITS)[0] == 1.0


def test_staleness():
    assert is_stale(10.0, None, 0.06)
    assert not is_stale(10.0, 9.95, 0.06)
    assert is_stale(10.0, 9.93, 0.06)

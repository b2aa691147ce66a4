"""The simulated Go2's motors, model and scripted remote on their own (no DDS, no clock): the SDK2 PD law within the
DC-motor curve, no torque before a command, a model file instead of the description, buttons held for a press,
sticks kept where they were set."""

from __future__ import annotations

import numpy as np
import pytest

from go2_locomotion import pretrained
from go2_locomotion.assets import go2_description as go2
from go2_locomotion.robot.bundle import load_bundle
from go2_locomotion.sdk2.messages import command_arrays, lowcmd
from go2_locomotion.sdk2.safety import JointLimits
from go2_locomotion.sdk2.sim import SimulatedGo2, check_model_file, motor_torque, parse_remote, remote_at

LIMITS = {
    "effort_limit": np.full(12, 23.7),
    "saturation_effort": np.full(12, 23.7),
    "velocity_limit": np.full(12, 30.0),
}


def test_the_motors_apply_the_sdk2_pd_law_within_the_motor_curve():
    q, dq = np.zeros(12), np.zeros(12)
    target, speed, tau = np.zeros(12), np.zeros(12), np.zeros(12)
    target[0] = 0.1  # 20 x 0.1 = 2 N m
    speed[1], dq[1], tau[1] = 2.0, 1.0, 0.3  # kd (dq* - dq) + tau = 0.5 x (2 - 1) + 0.3 = 0.8 N m
    target[2] = 2.0  # 40 N m asked, 23.7 N m at rest
    target[3], dq[3] = 2.0, 15.0  # 40 - 0.5 x 15 = 32.5 N m asked; at half the speed limit the motor gives 11.85
    command = command_arrays(lowcmd(target, speed, tau, np.full(12, 20.0), np.full(12, 0.5)))
    torque = motor_torque(command, q, dq, LIMITS)
    assert torque[:4] == pytest.approx([2.0, 0.8, 23.7, 11.85], abs=1e-5)
    assert np.all(torque[4:] == 0.0)
    assert np.all(motor_torque(None, q, dq, LIMITS) == 0.0)  # no torque before the first valid LowCmd


def test_a_scripted_button_is_held_for_a_press_and_a_stick_stays_where_it_was_set():
    events = parse_remote("2:start 3:ly=0.6 4:L2+B 5:ly=0")
    assert remote_at(events, 1.9).buttons == frozenset()
    assert remote_at(events, 2.1).buttons == {"start"}
    assert remote_at(events, 2.25).buttons == frozenset()  # held 0.2 s
    assert remote_at(events, 3.5).ly == 0.6 and remote_at(events, 4.1).buttons == {"L2", "B"}
    assert remote_at(events, 4.1).ly == 0.6 and remote_at(events, 5.0).ly == 0.0


def _standing_height(bundle, model_file=None) -> float:
    """Trunk height [m] after 1 s of the standing pose at the policy's gains."""
    robot, limits = SimulatedGo2(bundle, model_file=model_file, say=lambda _: None), JointLimits.from_bundle(bundle)
    stand = command_arrays(lowcmd(limits.standing, np.zeros(12), np.zeros(12), limits.kp, limits.kd))
    for _ in range(200):
        robot.physics_step(stand)
    return float(robot.data.qpos[2])


def test_a_model_file_replaces_the_description(tmp_path):
    """A model file is simulated with its own joint figures: the description written out with the bundle's rotor
    inertia and joint friction (what the plant gives the description) stands as the description does."""
    from go2_locomotion.sim2sim.plant import set_joint_dynamics

    bundle = load_bundle(pretrained.bundle())
    spec = go2.build_spec(spawn_height=0.0)
    set_joint_dynamics(spec, bundle)
    (tmp_path / "same.xml").write_text(spec.to_xml())
    spec.body(go2.BASE_BODY).mass *= 2
    (tmp_path / "heavy.xml").write_text(spec.to_xml())
    check_model_file(tmp_path / "heavy.xml")
    standing = _standing_height(bundle)
    assert _standing_height(bundle, tmp_path / "same.xml") == pytest.approx(standing, abs=1e-6)
    assert _standing_height(bundle, tmp_path / "heavy.xml") < standing - 0.03  # twice the trunk sags at kp 25


def test_a_model_file_without_the_descriptions_names_is_refused_in_one_line(tmp_path):
    spec = go2.build_spec(spawn_height=0.0)
    spec.body("FR_foot").name = "FR_toe"
    (tmp_path / "renamed.xml").write_text(spec.to_xml())
    with pytest.raises(ValueError, match=r"^--model \S+renamed.xml: lacks body FR_foot; accepted: a Go2 named as"):
        check_model_file(tmp_path / "renamed.xml")
    with pytest.raises(ValueError, match=r"^--model \S+missing.xml: ParseXML: Error opening file") as error:
        check_model_file(tmp_path / "missing.xml")
    assert "\n" not in str(error.value)

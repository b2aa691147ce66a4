"""The heading hold of the deploy controller (``deploy_sdk2.py --hold_heading``): the yaw rate it sends worked out by
hand, when it lets go of the heading, what it does to a policy that turns by a bias, and where its figures come
from (the bundle)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from deploy_fixtures import edited_pretrained

from go2_locomotion import pretrained
from go2_locomotion.robot.bundle import BundleError, load_bundle
from go2_locomotion.robot.heading import HeadingHold, yaw_of
from go2_locomotion.sdk2 import cli
from go2_locomotion.sdk2.bench import standing_reading
from go2_locomotion.sdk2.runner import Deployment, DeploySettings
from go2_locomotion.sim2sim.loop import Segment

DT = 0.02


def _quat(yaw: float) -> np.ndarray:
    return np.array([math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)])


def test_the_yaw_rate_is_the_training_controllers_on_the_held_heading():
    hold = HeadingHold(0.5, (-1.0, 1.0))
    assert yaw_of(_quat(0.3)) == pytest.approx(0.3)
    # the first straight step holds the heading it finds: no correction yet
    assert hold(np.array([0.5, 0.0, 0.0]), _quat(0.2)).tolist() == pytest.approx([0.5, 0.0, 0.0])
    assert hold.heading == pytest.approx(0.2)
    # turned 0.1 rad left of it: 0.5 / s x -0.1 rad
    assert hold(np.array([0.5, 0.0, 0.0]), _quat(0.3))[2] == pytest.approx(-0.05)
    # lateral walking is moving too
    assert hold(np.array([0.0, -0.3, 0.0]), _quat(0.1))[2] == pytest.approx(0.05)
    # clipped to the range: 0.5 x -2.5 rad = -1.25 -> -1
    assert hold(np.array([1.0, 0.0, 0.0]), _quat(2.7))[2] == pytest.approx(-1.0)


def test_the_error_wraps_across_pi():
    hold = HeadingHold(0.5, (-1.0, 1.0))
    hold(np.array([0.5, 0.0, 0.0]), _quat(3.1))
    # from 3.1 to -3.1 is 0.083 rad to the left, not 6.2 to the right: steer right by 0.5 x 0.0832
    assert hold(np.array([0.5, 0.0, 0.0]), _quat(-3.1))[2] == pytest.approx(-0.5 * (2 * math.pi - 6.2))


def test_turning_or_standing_lets_the_heading_go():
    hold = HeadingHold(0.5, (-1.0, 1.0))
    hold(np.array([0.5, 0.0, 0.0]), _quat(0.0))
    turn = hold(np.array([0.5, 0.0, 0.4]), _quat(0.5))
    assert turn.tolist() == pytest.approx([0.5, 0.0, 0.4]) and hold.heading is None
    # straight again: the heading where the turn ended, not the old one
    assert hold(np.array([0.5, 0.0, 0.0]), _quat(0.5))[2] == pytest.approx(0.0)
    assert hold(np.zeros(3), _quat(0.9)).tolist() == [0.0, 0.0, 0.0] and hold.heading is None


def test_a_policy_that_turns_by_a_bias_stops_turning():
    """A robot whose yaw rate is the command plus a bias of 0.05 rad/s: alone it turns 0.05 rad/s for good; held it
    settles where the correction cancels the bias, bias / k = 0.1 rad off the held heading, and turns no more."""
    hold, bias, yaw, yaws = HeadingHold(0.5, (-1.0, 1.0)), 0.05, 0.0, []
    for _ in range(round(30 / DT)):
        command = hold(np.array([0.5, 0.0, 0.0]), _quat(yaw))
        yaw += DT * (command[2] + bias)
        yaws.append(yaw)
    assert yaws[-1] == pytest.approx(bias / 0.5, abs=1e-4)
    assert abs(yaws[-1] - yaws[-round(10 / DT)]) / 10 < 1e-4  # rad/s over the last 10 s


def test_the_figures_come_from_the_bundle(tmp_path):
    hold = HeadingHold.from_bundle(load_bundle(pretrained.bundle()))
    assert (hold.stiffness, hold.low, hold.high) == (0.5, -1.0, 1.0)

    def no_heading(manifest):
        manifest["commands"]["base_velocity"]["heading_command"] = False

    with pytest.raises(BundleError, match="heading_command is false"):
        HeadingHold.from_bundle(load_bundle(edited_pretrained(tmp_path, no_heading)))
    with pytest.raises(ValueError, match="stiffness must be a finite number > 0"):
        HeadingHold(0.0, (-1.0, 1.0))


def test_the_controller_holds_the_heading_of_a_scripted_run():
    bundle = load_bundle(pretrained.bundle())
    segments = [Segment("a", 0.1, (0.5, 0.0, 0.0)), Segment("turn", 0.04, (0.5, 0.0, 0.3))]
    d = Deployment(
        bundle,
        DeploySettings(interface="lo", ramp_s=1.0, autostart=True, segments=segments, hold_heading=True),
        log=lambda _: None,
    )
    assert "holds the heading (yaw rate 0.5/s x the heading error" in d.intro()
    sent, now, yaw = [], 0.0, 0.0
    while not d.finished and now < 10:
        now += DT
        reading = standing_reading(d.limits.standing, tick=round(1000 * now), received=now, quaternion=_quat(yaw))
        _, record = d.step(now, [reading])
        if record["mode"] == "policy":
            sent.append(record["command"])
            yaw += 0.02  # the robot turns left 0.02 rad a step whatever it is told
    # held at the first policy step's heading 0: 0, -0.01, -0.02, ... then the turn's own yaw rate
    assert [c[2] for c in sent[:5]] == pytest.approx([0.0, -0.01, -0.02, -0.03, -0.04])
    assert [c[2] for c in sent[5:7]] == pytest.approx([0.3, 0.3])


def test_a_bundle_without_the_stiffness_is_refused_in_one_line(tmp_path, capsys):
    def drop(manifest):
        del manifest["commands"]["base_velocity"]["heading_control_stiffness"]

    bundle = edited_pretrained(tmp_path, drop)
    assert cli.deploy_main(["--bundle", str(bundle), "--network", "lo", "--hold_heading"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error: --bundle {bundle}: ") and "heading_control_stiffness" in line

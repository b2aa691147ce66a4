"""The reference controller with an observation history (a blind policy's bundle): frames oldest first, a reset
fills every frame with the first reading, reading the observation changes nothing, act moves it one frame; the
bundle checks refuse a history that does not add up and a simulator-only term."""

from __future__ import annotations

import numpy as np
import pytest
from deploy_fixtures import make_bundle

from go2_locomotion.robot.bundle import BundleError, load_bundle
from go2_locomotion.robot.controller import ReferenceController, RobotState

FRAME = 48
"""The fixture's frame: trunk and joint terms, no clock or scan."""
LENGTH = 3


def _with_history(manifest: dict, length: int = LENGTH) -> None:
    manifest["observation"]["history"] = {"length": length, "order": "oldest first"}
    manifest["observation"]["width"] = FRAME * length
    manifest["policy"]["input"]["width"] = FRAME * length


def _history_bundle(folder):
    # a policy that reads the OLDEST frame's relative joint positions: the history's order decides what it does
    weight = np.zeros((12, FRAME * LENGTH))
    weight[:, 12:24] = np.eye(12)
    return make_bundle(folder, weight=weight, edit=_with_history)


def _state(controller: ReferenceController, step: int) -> RobotState:
    """A reading that names its step: joints 0.01 x step off the standing pose, roll rate = step."""
    standing = controller.to_sdk2(controller.bundle.joint_array("joints.default_position"))
    return RobotState(joint_pos=standing + 0.01 * step, joint_vel=np.zeros(12), base_ang_vel=np.array([step, 0.0, 0.0]),
                      projected_gravity=np.array([0.0, 0.0, -1.0]), base_lin_vel=np.zeros(3))  # fmt: skip


@pytest.fixture
def controller(tmp_path):
    return ReferenceController(_history_bundle(tmp_path))


def test_a_reset_history_repeats_the_first_frame_and_reading_it_changes_nothing(controller):
    assert controller.history_length == LENGTH
    first = controller.observation(_state(controller, 0))
    assert first.shape == (FRAME * LENGTH,)
    frames = first.reshape(LENGTH, FRAME)
    np.testing.assert_array_equal(frames, np.tile(frames[0], (LENGTH, 1)))
    np.testing.assert_array_equal(controller.observation(_state(controller, 0)), first)  # no side effect


def test_frames_move_oldest_first_and_the_first_frame_pads_until_there_are_enough(controller):
    controller.act(_state(controller, 0))
    second = controller.observation(_state(controller, 1)).reshape(LENGTH, FRAME)
    # angular velocity x is the step index: [first, first, current]
    assert second[:, 3].tolist() == [0.0, 0.0, 1.0]
    controller.act(_state(controller, 1))
    controller.act(_state(controller, 2))
    fourth = controller.observation(_state(controller, 3)).reshape(LENGTH, FRAME)
    assert fourth[:, 3].tolist() == [1.0, 2.0, 3.0]  # step 0 has left the window


def test_the_policy_acts_on_the_oldest_frame(controller):
    out = [controller.act(_state(controller, step)) for step in range(4)]
    # the weight reads the oldest frame's joint offsets: 0.01 x (step - 2), clamped at the reset frame
    for step, expected in enumerate([0.0, 0.0, 0.0, 0.01]):
        np.testing.assert_allclose(out[step].action, np.full(12, expected), atol=1e-6)


def test_reset_forgets_the_history(controller):
    for step in range(3):
        controller.act(_state(controller, step))
    controller.reset()
    frames = controller.observation(_state(controller, 7)).reshape(LENGTH, FRAME)
    assert frames[:, 3].tolist() == [7.0, 7.0, 7.0]


def test_a_history_that_does_not_add_up_is_refused(tmp_path):
    def bad(manifest):
        _with_history(manifest)
        manifest["observation"]["width"] = FRAME * LENGTH + 1

    folder = make_bundle(tmp_path, weight=np.zeros((12, FRAME * LENGTH)), edit=bad)
    with pytest.raises(BundleError, match=r"'observation.width' is 145, but the terms add up to 48 per frame, 144"):
        load_bundle(folder)


def test_a_simulator_only_term_is_refused(tmp_path):
    def privileged(manifest):
        manifest["observation"]["terms"][0]["function"] = "feet_contact_force"

    with pytest.raises(BundleError, match="'feet_contact_force'.*the reference controller builds: base_lin_vel"):
        load_bundle(make_bundle(tmp_path, edit=privileged))

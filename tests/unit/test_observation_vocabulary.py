"""The observation vocabulary (``robot/observations.py``): each term rebuilt from a robot state by hand, the
parameters the exporter writes for it from a term config, and a term added to the table alone being checked and
rebuilt by the bundle reader and the reference controller."""

import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from deploy_fixtures import make_bundle
from isaaclab.managers import ObservationTermCfg, SceneEntityCfg

from go2_locomotion.export.manifest import ExportError, observation_format_name, term_params
from go2_locomotion.robot.bundle import BundleError, load_bundle
from go2_locomotion.robot.controller import ReferenceController, RobotState
from go2_locomotion.robot.observations import OBSERVATION_TERMS, ObservationTerm, StepContext
from go2_locomotion.tasks import mdp
from go2_locomotion.tasks.mdp.symmetry import MIRROR_RULES

REVERSED = np.arange(12)[::-1]
"""A joint map for the context: policy joint i is motor 11 - i."""


def _context(**overrides) -> StepContext:
    fields = {
        "to_policy": lambda sdk2: np.asarray(sdk2, dtype=np.float64)[REVERSED],
        "default_position": np.full(12, 0.5),
        "default_velocity": np.full(12, 0.25),
        "last_action": np.full(12, 0.125),
        "steps": 6,
        "policy_dt": 0.02,
    }
    return StepContext(**(fields | overrides))


def _state(**overrides) -> RobotState:
    fields = {"joint_pos": np.arange(12.0), "joint_vel": np.arange(12.0) * 2, "base_ang_vel": np.array([1.0, 2, 3])}
    return RobotState(**(fields | overrides))


def _rebuild(function: str, state: RobotState, params: dict | None = None, context: StepContext | None = None):
    term = {"name": f"the_{function}", "width": 2, "params": params or {}}
    return OBSERVATION_TERMS[function].rebuild(state, term, context or _context())


def test_joint_terms_are_in_policy_order_relative_to_the_defaults():
    np.testing.assert_array_equal(_rebuild("joint_pos_rel", _state()), np.arange(11.0, -1, -1) - 0.5)
    np.testing.assert_array_equal(_rebuild("joint_vel_rel", _state()), np.arange(22.0, -1, -2) - 0.25)
    # no previous action measured: the controller's own; a measured one is reordered like the joints
    np.testing.assert_array_equal(_rebuild("last_action", _state()), np.full(12, 0.125))
    np.testing.assert_array_equal(_rebuild("last_action", _state(last_action=np.arange(12.0))), np.arange(11.0, -1, -1))


def test_base_terms_by_hand():
    np.testing.assert_array_equal(_rebuild("base_ang_vel", _state()), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(_rebuild("generated_commands", _state()), [0.0, 0.0, 0.0])  # no command: stand
    np.testing.assert_array_equal(_rebuild("generated_commands", _state(command=[0.5, 0, 1])), [0.5, 0.0, 1.0])
    # rolled 90 degrees about x (left side down): gravity points along the trunk's -y
    rolled = np.array([math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0])
    np.testing.assert_allclose(_rebuild("projected_gravity", _state(base_quat=rolled)), [0, -1, 0], atol=1e-12)
    np.testing.assert_array_equal(_rebuild("projected_gravity", _state(projected_gravity=[0, 0, -1])), [0, 0, -1])


def test_missing_measurements_are_named():
    with pytest.raises(ValueError, match=r"RobotState\.base_lin_vel is required .*'the_base_lin_vel'"):
        _rebuild("base_lin_vel", _state())
    with pytest.raises(ValueError, match="projected_gravity or base_quat"):
        _rebuild("projected_gravity", _state())
    with pytest.raises(ValueError, match=r"RobotState\.height_scan is required .*\[2\] heights"):
        _rebuild("height_scan", _state(), {"offset": 0.5, "sensor_offset_z": 0.0})


def test_clock_counts_the_controllers_steps_unless_the_robot_gives_them():
    # 0.5 s cycle of 0.02 s steps: 25 steps; step 6 is 6/25 of the way round
    angle = 2 * math.pi * 6 / 25
    params = {"period": 0.5, "standing_command": 0.1}
    clock = _rebuild("gait_phase", _state(command=[1.0, 0, 0]), params)
    np.testing.assert_allclose(clock, [math.sin(angle), math.cos(angle)], atol=1e-12)
    np.testing.assert_allclose(
        _rebuild("gait_phase", _state(command=[1.0, 0, 0], steps_since_start=25), params), [0, 1]
    )
    # told to stand (command norm 0.05 <= 0.1): the stand reading
    np.testing.assert_array_equal(_rebuild("gait_phase", _state(command=[0.03, 0.04, 0]), params), [0.0, 0.0])
    # without a standing command the clock always runs
    np.testing.assert_allclose(_rebuild("gait_phase", _state(), {"period": 0.5}), clock, atol=1e-12)


def test_height_scan_is_the_scanners_height_minus_the_offset():
    params = {"offset": 0.5, "sensor_offset_z": 0.1}
    heights = _rebuild("height_scan", _state(height_scan=np.array([0.3, 0.4])), params)
    np.testing.assert_allclose(heights, [-0.1, 0.0], atol=1e-12)


def _scanner_env(sensor_z: float, trunk_z: float, points: list[list[float]]):
    starts = torch.tensor([[[x, y, 0.0] for x, y in points]])
    sensor = SimpleNamespace(
        data=SimpleNamespace(pos_w=SimpleNamespace(torch=torch.tensor([[0.0, 0.0, sensor_z]]))),
        ray_starts=SimpleNamespace(torch=starts),
        cfg=SimpleNamespace(ray_alignment="yaw"),
    )
    robot = SimpleNamespace(data=SimpleNamespace(root_pos_w=SimpleNamespace(torch=torch.tensor([[0.0, 0.0, trunk_z]]))))

    class Scene:
        sensors = {"height_scanner": sensor}

        def __getitem__(self, name):
            return {"robot": robot}[name]

    return SimpleNamespace(scene=Scene())


def _params(func, env=None, **params) -> dict:
    name = observation_format_name(func)
    return term_params(env, name, ObservationTermCfg(func=func, params=params), OBSERVATION_TERMS[name])


def test_exported_params_come_from_the_term_config_in_the_vocabularys_order():
    assert _params(mdp.base_lin_vel) == {}
    assert _params(mdp.generated_commands, command_name="base_velocity") == {"command_name": "base_velocity"}
    clock = _params(mdp.gait_phase, standing_command=0.1, period=0.5, command_name="base_velocity")
    assert list(clock.items()) == [("command_name", "base_velocity"), ("period", 0.5), ("standing_command", 0.1)]
    # the function's default standing command (0) where the config leaves it out; none without a command to read
    assert _params(mdp.gait_phase, period=0.5, command_name="c") == {
        "command_name": "c",
        "period": 0.5,
        "standing_command": 0.0,
    }
    assert _params(mdp.gait_phase, period=0.5) == {"period": 0.5}
    assert _params(mdp.gait_phase, period=0.5, command_name=None, standing_command=0.2) == {
        "command_name": None,
        "period": 0.5,
    }


def test_exported_scan_params_read_the_scanner():
    env = _scanner_env(sensor_z=0.73, trunk_z=0.4, points=[[0.1, -0.2], [0.3, 0.4]])
    scan = _params(mdp.height_scan, env, sensor_cfg=SceneEntityCfg("height_scanner"))
    # Isaac Lab's default offset 0.5 m; the scanner 0.33 m above the trunk origin (float32 0.33000001 -> 0.33)
    assert scan == {
        "offset": 0.5,
        "sensor_offset_z": 0.33,
        "points_xy": [[0.1, -0.2], [0.3, 0.4]],
        "ray_alignment": "yaw",
    }
    assert _params(mdp.height_scan, env, sensor_cfg=SceneEntityCfg("height_scanner"), offset=0.25)["offset"] == 0.25


def test_a_term_reading_some_joints_is_refused():
    joints = SceneEntityCfg("robot", joint_names=["FL_hip_joint"])
    joints.joint_ids = [0]
    with pytest.raises(ExportError, match="observation term 'joint_pos_rel' reads a subset of the joints"):
        _params(mdp.joint_pos_rel, asset_cfg=joints)


def test_each_term_is_keyed_by_its_mdp_function_and_mirrors():
    """The exporter recognises each vocabulary term by the function the task package exports under its name, and
    symmetry-augmented training can mirror every term a bundle carries."""
    for name in OBSERVATION_TERMS:
        function = getattr(mdp, name)
        assert observation_format_name(function) == name
        assert any(function is key for key in MIRROR_RULES), f"{name} has no left-right mirror"


def test_a_term_added_to_the_vocabulary_is_checked_and_rebuilt(tmp_path, monkeypatch):
    """One table entry is all the bundle reader and the controller need: a one-value term rebuilt from the
    controller's step count is read, rebuilt, and refused at any other width."""
    steps = ObservationTerm(
        function="policy_steps",
        input="steps",
        units="policy steps since start, [1]",
        width=1,
        rebuild=lambda state, term, context: np.array([float(context.steps)]),
    )
    monkeypatch.setitem(OBSERVATION_TERMS, steps.function, steps)

    def add(width):
        def edit(manifest):
            term = {"name": "steps", "function": "policy_steps", "start": 48, "width": width, "params": {}}
            manifest["observation"]["terms"].append(term)
            manifest["observation"]["width"] += width

        return edit

    controller = ReferenceController(make_bundle(tmp_path / "one", edit=add(1), weight=np.zeros((12, 49))))
    state = _state(projected_gravity=np.array([0, 0, -1.0]), base_lin_vel=np.zeros(3))
    assert controller.observation(state)[48] == 0.0
    controller.act(state)
    controller.act(state)
    assert controller.observation(state)[48] == 2.0
    with pytest.raises(
        BundleError, match=r"'observation.terms\[7\].width' is 2, but the reference controller builds 1"
    ):
        load_bundle(make_bundle(tmp_path / "two", edit=add(2), weight=np.zeros((12, 50))))

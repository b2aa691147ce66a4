"""Deploy bundle against the real simulator: the reference controller, built from deploy.yaml and policy.onnx
alone, reproduces Isaac Lab's policy observation and the simulator's joint targets in SDK2 order, for the
Newton joint order and for the PhysX order (Isaac Lab's own ``joint_ordering=physx`` resolver), on Newton and on
the real PhysX engine (OvPhysX)."""

import json

import numpy as np
import pytest
import torch
import yaml
from deploy_fixtures import NEWTON_ORDER, PHYSX_ORDER
from isaac_env import make_env
from tensordict import TensorDict

from go2_locomotion.compat import private_api
from go2_locomotion.export.manifest import export_bundle
from go2_locomotion.robot.bundle import SDK2_JOINT_ORDER, load_bundle
from go2_locomotion.robot.controller import ReferenceController, RobotState
from go2_locomotion.tasks import FAST_SAC_ENTRY_POINT
from go2_locomotion.tasks.mdp.history import history_frames
from go2_locomotion.versions import package_versions

PPO = "rsl_rl_cfg_entry_point"
NUM_ENVS = 3
STEPS = 15
# 10-step episodes, so time-outs reset robots (and their previous action) inside the recording
SHORT_EPISODES = ["env.episode_length_s=0.2"]
SMALL_TERRAIN = ["env.scene.terrain.terrain_generator.num_rows=2", "env.scene.terrain.terrain_generator.num_cols=3"]
STEER = {
    0: {0: (0.0, 0.0, 0.0), 1: (0.6, 0.0, 0.0)},
    5: {0: (0.5, 0.2, 0.3), 1: (0.0, 0.0, 0.0)},
    12: {1: (0.05, 0.0, 0.05)},
}
"""Commands given during the recording, by step and robot: robot 0 stands, then walks; robot 1 walks, then stands
(at the end with a command of norm 0.07, inside the stand rule's 0.1); robot 2 keeps its random commands."""


def _np(x) -> np.ndarray:
    x = x.torch if hasattr(x, "torch") else x
    return x.detach().cpu().numpy().astype(np.float64)


def _runner(wrapped, task: str, agent: str):
    from isaaclab_rl.rsl_rl import check_rsl_rl_version, create_rsl_rl_runner, handle_deprecated_rsl_rl_cfg
    from isaaclab_tasks.utils import resolve_presets
    from isaaclab_tasks.utils.parse_cfg import load_cfg_from_registry

    agent_cfg = resolve_presets(load_cfg_from_registry(task, agent))
    agent_cfg = handle_deprecated_rsl_rl_cfg(agent_cfg, check_rsl_rl_version())
    agent_cfg.device = "cpu"
    agent_cfg.actor.obs_normalization = True
    return create_rsl_rl_runner(wrapped, agent_cfg), agent_cfg


def _record(task: str, overrides: list[str], export_dir, agent: str = PPO):
    """Export a freshly initialised policy from a live env, then run it and record, per step and env, the
    robot state in SDK2 order (mapped by joint name, independently of the manifest), Isaac Lab's policy
    observation and the simulator's joint position targets after the step."""
    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper

    records = []
    with make_env(task, num_envs=NUM_ENVS, overrides=[*SHORT_EPISODES, *overrides], play_mode=True) as gym_env:
        env = gym_env.unwrapped
        wrapped = RslRlVecEnvWrapper(gym_env)
        runner, agent_cfg = _runner(wrapped, task, agent)
        policy_model = runner.alg.get_policy()
        obs = wrapped.get_observations()
        # non-trivial, well-conditioned normaliser statistics, which the ONNX model must carry: a first update
        # with the two rows mean -/+ std sets exactly that mean and (population) std
        normalizer = private_api.observation_normalizer(policy_model)
        generator = torch.Generator().manual_seed(0)
        width = normalizer.mean.shape[-1]
        mean = torch.empty(width).uniform_(-0.2, 0.2, generator=generator)
        std = torch.empty(width).uniform_(0.5, 2.0, generator=generator)
        was_training = normalizer.training
        with torch.no_grad():
            normalizer.train()
            normalizer.update(torch.stack([mean - std, mean + std]))
        normalizer.train(was_training)
        torch.testing.assert_close(normalizer.mean, mean)
        torch.testing.assert_close(normalizer.std, std)
        export_bundle(env, runner, agent_cfg, export_dir, task=task, checkpoint=None)
        policy = runner.get_inference_policy(device="cpu")

        robot = env.scene["robot"]
        names = list(robot.joint_names)
        to_sdk2 = [names.index(n) for n in SDK2_JOINT_ORDER]
        scanner = env.scene.sensors.get("height_scanner")
        resets = 0
        term = env.command_manager.get_term("base_velocity")
        # a history (the blind actor) moves once per step: a command steered between steps reaches it a step later
        history = history_frames(env.cfg.observations.policy) > 1
        for step in range(STEPS):
            seen_command = _np(env.command_manager.get_command("base_velocity"))
            for robot_id, command in STEER.get(step, {}).items():
                term.steer(command, [robot_id])
            if step in STEER and not history:  # the policy sees a changed command at once, as in playback
                obs = TensorDict(env.observation_manager.compute(), batch_size=[NUM_ENVS])
                seen_command = _np(env.command_manager.get_command("base_velocity"))
            quat_xyzw = _np(robot.data.root_quat_w)
            state = {
                "joint_pos": _np(robot.data.joint_pos)[:, to_sdk2],
                "joint_vel": _np(robot.data.joint_vel)[:, to_sdk2],
                "base_ang_vel": _np(robot.data.root_ang_vel_b),
                "base_lin_vel": _np(robot.data.root_lin_vel_b),
                "projected_gravity": _np(robot.data.projected_gravity_b),
                "base_quat": quat_xyzw[:, [3, 0, 1, 2]],
                "command": seen_command,
                "last_action": _np(env.action_manager.action)[:, to_sdk2],
                "steps_since_start": env.episode_length_buf.cpu().numpy().copy(),
            }
            if scanner is not None:
                state["height_scan"] = _np(scanner.data.pos_w)[:, 2:3] - _np(scanner.data.ray_hits_w)[..., 2]
            observation = _np(obs["policy"])
            with torch.inference_mode():
                actions = policy(obs)
                obs, _, dones, _ = wrapped.step(actions)
            resets += int(dones.sum())
            records.append(
                {
                    "state": state,
                    "observation": observation,
                    "action": _np(actions)[:, to_sdk2],
                    "target": _np(robot.actuators.target_command.position)[:, to_sdk2],
                }
            )
    return names, records, resets


CASES = {
    "flat-newton": ("Go2-Flat", []),
    "flat-physx": ("Go2-Flat", ["env.scene.robot.joint_ordering=physx"]),
    "rough-newton": ("Go2-Rough", SMALL_TERRAIN),
    "rough-physx": ("Go2-Rough", [*SMALL_TERRAIN, "env.scene.robot.joint_ordering=physx"]),
    # the real PhysX engine (OvPhysX): its native joint order is PhysX's, the public one stays pinned
    "flat-ovphysx": ("Go2-Flat", ["physics=physx"]),
    "rough-ovphysx": ("Go2-Rough", [*SMALL_TERRAIN, "physics=physx"]),
    # a blind actor: 10 frames of history, kept by the controller across the recorded resets
    "blind-newton": ("Go2-Rough-Blind", SMALL_TERRAIN),
    "blind-ovphysx": ("Go2-Rough-Blind", [*SMALL_TERRAIN, "physics=physx"]),
    # FastSAC's squashed-mean action (action_scale x tanh) inside policy.onnx, through Isaac Lab's own runner factory
    "flat-newton-fast_sac": ("Go2-Flat", [], FAST_SAC_ENTRY_POINT),
    "rough-ovphysx-fast_sac": ("Go2-Rough", [*SMALL_TERRAIN, "physics=physx"], FAST_SAC_ENTRY_POINT),
}


@pytest.mark.parametrize("case", list(CASES))
def test_reference_controller_matches_simulator(case, asset_cache, tmp_path):
    task, overrides, *agent = CASES[case]
    names, records, resets = _record(task, overrides, tmp_path, *agent)
    case = case.removesuffix("-fast_sac")
    assert names == (PHYSX_ORDER if case.endswith("-physx") else NEWTON_ORDER)
    assert resets > 0, "no episode ended during the recording; the reset path went untested"

    manifest = yaml.safe_load((tmp_path / "deploy.yaml").read_text())
    assert manifest["joints"]["names"] == names
    on_physx = case.endswith("-ovphysx")
    assert manifest["joints"]["backend"] == ("ovphysx" if on_physx else "newton")
    assert manifest["joints"]["backend_names"] == (PHYSX_ORDER if on_physx else NEWTON_ORDER)
    assert manifest["observation"]["normalizer"] is not None
    # PhysX has no MuJoCo integrator, cone or substeps; sim2sim falls back to its own then
    assert (manifest["physics"]["integrator"] is None) == on_physx

    if task == "Go2-Flat":  # the clock stops while told to stand, and runs again when moving
        clock = np.array([[record["observation"][i][48:50] for i in range(2)] for record in records])  # [T, 2, 2]
        stopped = np.all(clock == 0.0, axis=-1)
        assert stopped[:5, 0].all() and not stopped[5:, 0].any()
        assert not stopped[:5, 1].any() and stopped[5:, 1].all()

    # one controller per robot, reset where its episode starts, as a robot-side program runs it
    controllers = [ReferenceController(tmp_path) for _ in range(NUM_ENVS)]
    for step, record in enumerate(records):
        for i, controller in enumerate(controllers):
            state = RobotState(**{key: value[i] for key, value in record["state"].items()})
            if state.steps_since_start == 0:
                controller.reset()
            np.testing.assert_allclose(
                controller.observation(state),
                record["observation"][i],
                atol=1e-5,
                err_msg=f"{case}: observation, step {step}, env {i}",
            )
            # the IMU quaternion path gives the same observation
            state_from_quat = RobotState(**{**vars(state), "projected_gravity": None})
            np.testing.assert_allclose(controller.observation(state_from_quat), record["observation"][i], atol=1e-5)
            out = controller.act(state)
            np.testing.assert_allclose(out.action, record["action"][i], atol=1e-5, err_msg=f"{case}: action")
            np.testing.assert_allclose(
                out.joint_pos_target,
                record["target"][i],
                atol=1e-5,
                err_msg=f"{case}: joint target, step {step}, env {i}",
            )
            np.testing.assert_array_equal(out.kp, np.full(12, 25.0))
            np.testing.assert_array_equal(out.kd, np.full(12, 0.5))


def test_manifest_fields(asset_cache, tmp_path):
    """The manifest's figures, checked by hand against the Go2 configuration."""
    from isaaclab_tasks.utils import resolve_task_config

    _record("Go2-Flat", ["env.scene.robot.joint_ordering=physx"], tmp_path)
    bundle = load_bundle(tmp_path)
    m = bundle.manifest
    assert m["written_by"] == package_versions("go2_locomotion", "isaaclab", "rsl-rl-lib")
    assert None not in m["written_by"].values()
    # what a MuJoCo re-simulation reads, from the resolved task config
    env_cfg, _ = resolve_task_config("Go2-Flat", None, play_mode=True, overrides=[])
    solver = env_cfg.sim.physics.solver_cfg
    friction = env_cfg.events.physics_material.params
    assert {key: m["physics"][key] for key in ("backend", "substeps", "integrator", "cone", "robot_friction")} == {
        "backend": "newton",
        "substeps": env_cfg.sim.physics.num_substeps,
        "integrator": solver.integrator,
        "cone": solver.cone,
        "robot_friction": {
            "static": list(friction["static_friction_range"]),
            "dynamic": list(friction["dynamic_friction_range"]),
            "event": "physics_material",
        },
    }
    assert m["timing"] == {"policy_rate_hz": 50.0, "policy_dt": 0.02, "sim_dt": 0.005, "decimation": 4}
    joints = m["joints"]
    assert joints["names"] == PHYSX_ORDER and joints["backend_names"] == NEWTON_ORDER
    # FL_hip is SDK2 motor 3, FR_hip motor 0, RL_hip 9, RR_hip 6; FL_thigh 4 ...
    assert joints["policy_to_sdk2"] == [3, 0, 9, 6, 4, 1, 10, 7, 5, 2, 11, 8]
    assert joints["sdk2_to_policy"] == [1, 5, 9, 0, 4, 8, 3, 7, 11, 2, 6, 10]
    assert joints["default_position"] == [0.1, -0.1, 0.1, -0.1, 0.8, 0.8, 1.0, 1.0, -1.5, -1.5, -1.5, -1.5]
    actuators = m["actuators"]
    assert actuators["model"] == "DCMotor"
    assert actuators["effort_limit"] == [23.7] * 8 + [45.43] * 4
    # the real Go2 (the default): the motor's 30 rad/s no-load speed, behind the 45.43 / 23.7 knee reduction at the calf
    assert actuators["velocity_limit"] == pytest.approx([30.0] * 8 + [30.0 * 23.7 / 45.43] * 4, abs=1e-5)
    assert m["action"]["scale"] == [0.25] * 12 and m["action"]["offset"] == joints["default_position"]
    terms = m["observation"]["terms"]
    assert [(t["name"], t["start"], t["width"]) for t in terms] == [
        ("base_lin_vel", 0, 3),
        ("base_ang_vel", 3, 3),
        ("projected_gravity", 6, 3),
        ("velocity_commands", 9, 3),
        ("joint_pos", 12, 12),
        ("joint_vel", 24, 12),
        ("actions", 36, 12),
        ("gait_phase", 48, 2),
    ]
    assert terms[0]["noise"] == {
        "type": "UniformNoiseCfg",
        "training_only": True,
        "n_min": -0.1,
        "n_max": 0.1,
        "operation": "add",
    }
    assert m["observation"]["width"] == 50 and m["policy"]["input"] == {"name": "obs", "width": 50}
    clock = m["observation"]["terms"][-1]
    assert (clock["function"], clock["start"], clock["width"], clock["params"]) == (
        "gait_phase",
        48,
        2,
        {"command_name": "base_velocity", "period": 0.5, "standing_command": 0.1},
    )
    assert m["policy"]["output"] == {"name": "actions", "width": 12}
    assert m["commands"]["base_velocity"]["ranges"]["lin_vel_x"] == [-1.0, 1.0]
    # what the deploy side's heading hold reuses: the command's own heading controller
    commands = env_cfg.commands.base_velocity
    assert m["commands"]["base_velocity"]["heading_command"] is True
    assert m["commands"]["base_velocity"]["heading_control_stiffness"] == commands.heading_control_stiffness == 0.5

    # the freshly initialised policy's bundle runs through sim2sim and leaves its report and plot
    from go2_locomotion import sim2sim

    report = sim2sim.run(bundle, sim2sim.parse_segments("stand:1:0,0,0 forward:1:0.5,0,0"))
    json_path, png_path = sim2sim.write_report(report, tmp_path / "sim2sim")
    assert json.loads(json_path.read_text())["segments"][1]["command"] == [0.5, 0.0, 0.0]
    assert len(report["series"]["time"]) == 100 and png_path.stat().st_size > 10_000


def test_sim2sim_follows_isaac_lab_in_closed_loop(asset_cache, tmp_path):
    """The whole sim2sim chain (MuJoCo state -> reference controller -> policy.onnx -> PD + DC-motor limits in
    MuJoCo on this package's MJCF) against Isaac Lab on Newton running the same fresh policy: dropped from 0.4 m,
    command 0.3 m/s forward, 2 s, no randomisation, robot friction as trained. Measured when written (two fresh
    policies): trunk height within 0.2 mm, joints within 0.004 rad, trunk velocity within 0.004 m/s."""
    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper

    from go2_locomotion.sim2sim import Go2Plant

    still = ["env.events.add_base_mass=null", "env.events.base_com=null", "env.events.reset_base=null"]
    exact_pose = ["env.events.reset_robot_joints.params.position_range=[1.0,1.0]"]
    command = [
        "env.commands.base_velocity.heading_command=false",
        "env.commands.base_velocity.rel_standing_envs=0.0",
        "env.commands.base_velocity.ranges.lin_vel_x=[0.3,0.3]",
        "env.commands.base_velocity.ranges.lin_vel_y=[0.0,0.0]",
        "env.commands.base_velocity.ranges.ang_vel_z=[0.0,0.0]",
    ]
    heights, joints, velocities = [], [], []
    with make_env("Go2-Flat", num_envs=1, overrides=[*still, *exact_pose, *command], play_mode=True) as gym_env:
        env = gym_env.unwrapped
        wrapped = RslRlVecEnvWrapper(gym_env)
        runner, agent_cfg = _runner(wrapped, "Go2-Flat", PPO)
        export_bundle(env, runner, agent_cfg, tmp_path, task="Go2-Flat", checkpoint=None)
        policy = runner.get_inference_policy(device="cpu")
        robot = env.scene["robot"]
        to_sdk2 = [list(robot.joint_names).index(n) for n in SDK2_JOINT_ORDER]
        assert _np(robot.data.root_pos_w)[0, 2] == pytest.approx(0.4, abs=1e-6)
        np.testing.assert_allclose(_np(env.command_manager.get_command("base_velocity"))[0], [0.3, 0.0, 0.0])
        obs = wrapped.get_observations()
        for _ in range(100):
            with torch.inference_mode():
                obs, _, _, _ = wrapped.step(policy(obs))
            heights.append(_np(robot.data.root_pos_w)[0, 2])
            joints.append(_np(robot.data.joint_pos)[0, to_sdk2])
            velocities.append(_np(robot.data.root_lin_vel_b)[0])

    controller = ReferenceController(tmp_path)
    plant = Go2Plant(controller.bundle, base_height=0.4)
    errors = {"height": [], "joints": [], "velocity": []}
    for step in range(100):
        out = controller.act(plant.state(np.array([0.3, 0.0, 0.0])))
        plant.apply(out.joint_pos_target, out.kp, out.kd)
        errors["height"].append(abs(plant.data.qpos[2] - heights[step]))
        errors["joints"].append(np.abs(plant.state(np.zeros(3)).joint_pos - joints[step]).max())
        errors["velocity"].append(np.abs(plant.base_lin_vel() - velocities[step]).max())
    assert min(heights) < 0.25, "the robot never landed; the comparison would not cover contact"
    worst = {key: max(values) for key, values in errors.items()}
    assert worst["height"] < 0.001 and worst["joints"] < 0.01 and worst["velocity"] < 0.02, worst

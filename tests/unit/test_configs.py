"""Figures of the task and agent configurations, as promised to users."""

import pytest

from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2FlatPPORunnerCfg, Go2RoughPPORunnerCfg
from go2_locomotion.assets import go2, go2_usd
from go2_locomotion.tasks import go2_flat_play_env_cfg, go2_rough_play_env_cfg
from go2_locomotion.tasks.flat_env_cfg import Go2FlatEnvCfg
from go2_locomotion.tasks.velocity_env_cfg import Go2RoughEnvCfg

# width of each proprioceptive term, in the order the observation concatenates them
PROPRIO = {
    "base_lin_vel": 3,
    "base_ang_vel": 3,
    "projected_gravity": 3,
    "velocity_commands": 3,
    "joint_pos": 12,
    "joint_vel": 12,
    "actions": 12,
}


def _active_terms(group):
    return [name for name, term in group.to_dict().items() if isinstance(term, dict) and term.get("func")]


def test_timing():
    for cfg in (Go2RoughEnvCfg(), Go2FlatEnvCfg()):
        assert cfg.decimation == 4
        assert cfg.sim.dt == 0.005
        assert cfg.sim.dt * cfg.decimation == pytest.approx(0.02)  # 50 Hz policy
        assert cfg.episode_length_s == 20.0
        assert cfg.scene.num_envs == 4096


def test_observation_layout():
    rough, flat = Go2RoughEnvCfg(), Go2FlatEnvCfg()
    assert _active_terms(flat.observations.policy) == [*PROPRIO, "gait_phase"]
    assert _active_terms(rough.observations.policy) == [*PROPRIO, "height_scan"]
    pattern = rough.scene.height_scanner.pattern_cfg
    rays = (round(pattern.size[0] / pattern.resolution) + 1) * (round(pattern.size[1] / pattern.resolution) + 1)
    assert rays == 17 * 11
    assert sum(PROPRIO.values()) == 48  # + the trot clock's sin, cos on flat ground: 50
    assert sum(PROPRIO.values()) + rays == 235
    assert rough.observations.policy.height_scan.clip == (-1.0, 1.0)
    for cfg in (rough, flat):
        assert cfg.observations.policy.enable_corruption
        assert cfg.observations.policy.concatenate_terms


def test_actions_and_robot():
    cfg = Go2RoughEnvCfg()
    assert cfg.actions.joint_pos.scale == 0.25
    assert cfg.actions.joint_pos.use_default_offset
    robot = cfg.scene.robot
    assert robot.init_state.pos[2] == 0.4
    assert robot.init_state.joint_pos == {
        ".*L_hip_joint": 0.1,
        ".*R_hip_joint": -0.1,
        "F[L,R]_thigh_joint": 0.8,
        "R[L,R]_thigh_joint": 1.0,
        ".*_calf_joint": -1.5,
    }
    legs = robot.actuators["legs"]
    assert (legs.stiffness, legs.damping) == (25.0, 0.5)
    assert legs.actuator_effort_limit == {".*_hip_joint": 23.7, ".*_thigh_joint": 23.7, ".*_calf_joint": 45.43}
    assert legs.actuator_velocity_limit == 30.0
    # one public joint order on every backend, leg by leg (Newton's native order; PhysX would go joint type first)
    legs_first = [f"{leg}_{part}_joint" for leg in ("FL", "FR", "RL", "RR") for part in ("hip", "thigh", "calf")]
    assert list(robot.joint_ordering) == legs_first
    assert list(Go2FlatEnvCfg().scene.robot.joint_ordering) == legs_first


def test_rewards():
    rough, flat = Go2RoughEnvCfg().rewards, Go2FlatEnvCfg().rewards
    shared = {
        "track_lin_vel_xy_exp": 1.5,
        "track_ang_vel_z_exp": 0.75,
        "lin_vel_z_l2": -2.0,
        "ang_vel_xy_l2": -0.05,
        "dof_torques_l2": -2.0e-4,
        "dof_acc_l2": -2.5e-7,
    }
    for rewards in (rough, flat):
        for name, weight in shared.items():
            assert getattr(rewards, name).weight == weight, name
        assert rewards.base_height_l2.params["target_height"] == go2.STANDING_BASE_HEIGHT
    assert rough.feet_air_time.params["sensor_cfg"].body_names == ".*_foot"
    assert rough.feet_air_time.weight == 0.01
    # flat ground trades Isaac Lab's air-time term (it pays only for steps over 0.5 s) for the trot clock's
    assert flat.feet_air_time is None and rough.trot is None
    assert flat.trot.params["sensor_cfg"].body_names == ["FL_foot", "FR_foot", "RL_foot", "RR_foot"]
    # diagonal pairs in step, the pairs half a cycle apart
    assert flat.trot.params["swing_offsets"] == (0.0, 0.5, 0.5, 0.0)
    # a fall costs -200 x 0.02 s = -4 (only falls: is_terminated excludes time-outs)
    for rewards in (rough, flat):
        assert rewards.termination_penalty.weight == -200.0
        assert rewards.termination_penalty.func.__name__ == "is_terminated"
    assert rough.flat_orientation_l2 is None
    assert flat.flat_orientation_l2.weight == -2.5
    # rough measures trunk height above the scanned ground, flat above the plane
    assert rough.base_height_l2.params["sensor_cfg"].name == "height_scanner"
    assert flat.base_height_l2.params["sensor_cfg"] is None


def test_flat_drops_terrain_machinery():
    rough, flat = Go2RoughEnvCfg(), Go2FlatEnvCfg()
    assert rough.scene.terrain.terrain_type == "generator"
    assert rough.curriculum.terrain_levels is not None
    sub = rough.scene.terrain.terrain_generator.sub_terrains
    assert sub["boxes"].grid_height_range == (0.025, 0.1)
    assert (sub["random_rough"].noise_range, sub["random_rough"].noise_step) == ((0.01, 0.06), 0.01)
    assert sub["pyramid_stairs"].step_height_range == sub["pyramid_stairs_inv"].step_height_range == (0.025, 0.12)
    assert flat.scene.terrain.terrain_type == "usd"
    assert flat.scene.terrain.terrain_generator is None
    assert flat.scene.height_scanner is None
    assert flat.observations.policy.height_scan is None
    assert flat.curriculum.terrain_levels is None


def _file_fields(node, path=""):
    """Every (path, value) of a field naming a file to load (USD, MDL, texture) in a config dict."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key.endswith("visualizer_cfg"):
                continue  # debug markers, loaded only when debug visualisation is on (the sim tests cover play)
            if key in ("usd_path", "mdl_path", "texture_file") and isinstance(value, str):
                yield f"{path}.{key}", value
            else:
                yield from _file_fields(value, f"{path}.{key}")


def test_scene_loads_only_local_files():
    for cfg in (Go2RoughEnvCfg(), Go2FlatEnvCfg()):
        files = dict(_file_fields(cfg.scene.to_dict(), "scene"))
        assert files["scene.robot.spawn.usd_path"] == go2_usd.OFFLINE_USD  # resolved in the cache at spawn time
        for field, value in files.items():
            assert "://" not in value, f"{field} = {value} needs a download"


def test_play_mode():
    for cfg in (go2_rough_play_env_cfg(), go2_flat_play_env_cfg()):
        assert cfg.scene.num_envs == 50
        assert not cfg.observations.policy.enable_corruption
        assert cfg.events.push_robot is None
        assert cfg.commands.base_velocity.debug_vis
    terrain = go2_rough_play_env_cfg().scene.terrain
    assert (terrain.terrain_generator.num_rows, terrain.terrain_generator.num_cols) == (5, 5)
    # play mode must not leak into the training config
    assert Go2RoughEnvCfg().scene.terrain.terrain_generator.num_rows == 10
    assert Go2RoughEnvCfg().events.push_robot is not None


def test_agents():
    rough, flat = Go2RoughPPORunnerCfg(), Go2FlatPPORunnerCfg()
    for agent in (rough, flat):
        assert agent.num_steps_per_env == 24
        alg = agent.algorithm
        assert (alg.num_mini_batches, alg.num_learning_epochs) == (4, 5)
        assert (alg.clip_param, alg.entropy_coef, alg.learning_rate, alg.desired_kl) == (0.2, 0.01, 1e-3, 0.01)
        assert (alg.gamma, alg.lam, alg.max_grad_norm, alg.schedule) == (0.99, 0.95, 1.0, "adaptive")
        assert alg.use_clipped_value_loss
        assert agent.obs_groups == {"actor": ["policy"], "critic": ["policy"]}
    assert rough.actor.hidden_dims == rough.critic.hidden_dims == [512, 256, 128]
    assert flat.actor.hidden_dims == flat.critic.hidden_dims == [128, 128, 128]
    assert (rough.max_iterations, flat.max_iterations) == (1500, 300)
    # rollout geometry at the default 4096 environments
    transitions = Go2RoughEnvCfg().scene.num_envs * rough.num_steps_per_env
    assert transitions == 98_304
    assert transitions // rough.algorithm.num_mini_batches == 24_576
    assert rough.algorithm.num_mini_batches * rough.algorithm.num_learning_epochs == 20


@pytest.mark.parametrize(("task", "njmax"), [("Go2-Flat", 65), ("Go2-Rough", 400)])
def test_physics_presets_resolve_like_isaac_lab(task, njmax):
    from isaaclab.physics import PhysxAutoCfg
    from isaaclab_newton.physics import NewtonCfg
    from isaaclab_tasks.utils import resolve_task_config

    import go2_locomotion.tasks  # noqa: F401

    default, _ = resolve_task_config(task, None, overrides=[])
    assert isinstance(default.sim.physics, NewtonCfg) and default.sim.physics.solver_cfg.njmax == njmax
    physx, _ = resolve_task_config(task, None, overrides=["physics=physx"])
    assert isinstance(physx.sim.physics, PhysxAutoCfg)
    # the PhysX path keeps the same MDP
    assert physx.rewards.to_dict() == default.rewards.to_dict()
    assert physx.scene.robot.spawn.usd_path == default.scene.robot.spawn.usd_path

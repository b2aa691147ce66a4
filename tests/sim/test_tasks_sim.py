"""Each task built on the real simulator (Newton / MuJoCo-Warp, and PhysX through OvPhysX, on the CPU) with a few
environments."""

import math

import pytest
import torch
from isaac_env import make_env
from network_guard import no_network

from go2_locomotion.assets import go2_description
from go2_locomotion.training.preflight import config_observation_term_widths

NUM_ENVS = 4
WIDTH = {"Go2-Rough": 237, "Go2-Flat": 50, "Go2-Rough-Play": 237, "Go2-Flat-Play": 50}
# 0.5 s episodes = 25 policy steps, so 40 steps must time every environment out at least once; random actions can
# tip a robot onto its trunk before then (which depends on each robot's drawn figures), so that ending is off here
SHORT_EPISODE = ["env.episode_length_s=0.5", "env.terminations.base_contact=null"]
SMALL_TERRAIN = ["env.scene.terrain.terrain_generator.num_rows=2", "env.scene.terrain.terrain_generator.num_cols=3"]


def _overrides(task):
    return SHORT_EPISODE + (SMALL_TERRAIN if task == "Go2-Rough" else [])


@pytest.mark.parametrize("physics", ["newton_mjwarp", "physx"])
@pytest.mark.parametrize("task", sorted(WIDTH))
def test_random_actions(task, physics):
    overrides = [*_overrides(task), f"physics={physics}"]
    with no_network() as attempts, make_env(task, num_envs=NUM_ENVS, overrides=overrides) as env:
        obs, _ = env.reset(seed=0)
        assert obs["policy"].shape == (NUM_ENVS, WIDTH[task])
        # every term's width as the preflight check derives it from the config (no simulator) is the live one
        manager = env.unwrapped.observation_manager
        live = {
            group: {
                term: math.prod(dims)
                for term, dims in zip(manager.active_terms[group], manager.group_obs_term_dim[group], strict=True)
            }
            for group in manager.active_terms
        }
        assert live == config_observation_term_widths(env.unwrapped.cfg)
        assert env.action_space.shape == (NUM_ENVS, 12)
        timeouts = torch.zeros(NUM_ENVS, dtype=torch.long)
        generator = torch.Generator().manual_seed(0)
        for _ in range(40):
            actions = 2 * torch.rand(NUM_ENVS, 12, generator=generator) - 1
            obs, reward, terminated, truncated, _ = env.step(actions)
            assert torch.isfinite(obs["policy"]).all()
            assert reward.shape == (NUM_ENVS,) and torch.isfinite(reward).all()
            timeouts += truncated.long()
        assert (timeouts >= 1).all(), f"every env should time out within 40 steps of 0.5 s episodes: {timeouts}"
        assert env.unwrapped.episode_length_buf.max() < 25
    assert attempts == [], f"network access attempted: {attempts}"


def test_cache_folder_changed_after_import_is_used_at_spawn(tmp_path, monkeypatch):
    """A job script or notebook that sets the cache folder after the configs were imported: a description that
    differs from the shipped asset's (a foot 0.5 mm larger) is built into, and spawned from, the folder in force
    when the environment is created."""
    from isaaclab_tasks.utils import resolve_task_config

    import go2_locomotion.tasks  # noqa: F401  (imports and registers every config)
    from go2_locomotion.assets import go2_usd

    env_cfg, _ = resolve_task_config("Go2-Flat", None, overrides=[])
    assert env_cfg.scene.robot.spawn.usd_path == go2_usd.OFFLINE_USD
    later = tmp_path / "set_after_import"
    monkeypatch.setenv(go2_usd.CACHE_ENV_VAR, str(later))
    monkeypatch.setattr(go2_description, "FOOT_RADIUS", go2_description.FOOT_RADIUS + 0.0005)
    assert go2_usd.shipped_usd_path() is None
    with make_env("Go2-Flat", num_envs=2) as env:
        env.reset(seed=0)
        for _ in range(5):
            obs, *_ = env.step(torch.zeros(2, 12))
        assert torch.isfinite(obs["policy"]).all()
    (built,) = later.glob("go2-*.usda")
    assert built == go2_usd.go2_usd_path() and go2_usd.is_complete(built)


def test_fall_ends_the_episode_by_base_contact():
    with make_env("Go2-Flat", num_envs=2) as env:
        env.reset(seed=0)
        robot = env.unwrapped.scene["robot"]
        pose = robot.data.root_pose_w.torch.clone()
        # upside down (180 deg about x; quaternion x, y, z, w) 0.3 m above env 0's origin: it lands on its back
        pose[0, 2] = env.unwrapped.scene.env_origins[0, 2] + 0.3
        pose[0, 3:7] = torch.tensor([1.0, 0.0, 0.0, 0.0])
        robot.write_root_pose_to_sim_index(root_pose=pose[:1], env_ids=torch.tensor([0], dtype=torch.int32))
        terminations = env.unwrapped.termination_manager
        for _ in range(50):
            _, _, terminated, truncated, _ = env.step(torch.zeros(2, 12))
            if terminated[0]:
                break
        assert terminated[0] and not truncated[0]
        assert terminations.get_term("base_contact")[0]


def test_offline_model_in_the_simulator():
    with make_env("Go2-Flat", num_envs=1, overrides=["env.events.add_base_mass=null"]) as env:
        env.reset(seed=0)
        robot = env.unwrapped.scene["robot"]
        assert robot.joint_names == list(go2_description.JOINT_NAMES)  # Newton: depth-first
        assert robot.body_names == list(go2_description.BODY_NAMES)
        total_mass = float(robot.data.body_mass.torch[0].sum())
        assert total_mass == pytest.approx(15.206408, rel=0.02)
        default = robot.data.default_joint_pos.torch[0]
        expected = [0.1, 0.8, -1.5, -0.1, 0.8, -1.5, 0.1, 1.0, -1.5, -0.1, 1.0, -1.5]
        assert default.tolist() == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("njmax, warns", [(20, True), (None, False)])
def test_solver_overflow_is_reported(njmax, warns, caplog):
    """Rows beyond njmax are dropped silently by MuJoCo-Warp; the interval event says so once per second."""
    overrides = [] if njmax is None else [f"env.sim.physics.solver_cfg.njmax={njmax}"]
    with make_env("Go2-Flat", num_envs=4, overrides=overrides) as env:
        env.reset(seed=0)
        with caplog.at_level("WARNING"):
            for _ in range(60):  # 1.2 s: the 1 s check runs once
                env.step(torch.zeros(4, 12))
    reports = [r.getMessage() for r in caplog.records if "MuJoCo-Warp overflow" in r.getMessage()]
    if warns:  # four standing feet alone need 40 rows (condim 6, pyramidal cone)
        assert len(reports) == 1 and "NEFC" in reports[0] and "njmax" in reports[0], reports
    else:
        assert reports == []

"""The Go2's left-right mirror against Isaac Lab: a robot placed in the mirror image of another's state (pose,
velocities, joints, command, last action) on a terrain that is its own mirror image reads the mirrored observation,
on both engines; and PPO trains with the augmentation switched on."""

import math
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import torch
from isaac_env import make_env
from isaaclab.utils.math import quat_from_euler_xyz

from go2_locomotion.tasks.mdp.symmetry import joint_mirror, mirror_of
from go2_locomotion.tasks.terrain_cells import cells_generator, parse_cell
from go2_locomotion.tasks.velocity_env_cfg import VELOCITY_COMMAND
from go2_locomotion.training.curves import read_scalars

pytestmark = pytest.mark.sim

ROOT = Path(__file__).parents[2]

CLOCK = slice(48, 50)
"""The trot clock's columns: both robots are at the same episode step, so their clocks agree; the mirror moves the
clock half a cycle (12.5 policy steps, not a reachable step count), tested without a simulator
(tests/unit/test_symmetry.py)."""


def _stairs_cell(cfg):
    # a pyramid of 10 cm steps centred on the robots' origin: the terrain is its own mirror image about y = origin
    cfg.scene.terrain.terrain_generator = cells_generator([parse_cell("stairs_up:0.10")])
    cfg.events.base_com = None  # a randomised centre of mass sits off the centre line of one robot only


def _write_mirrored_pair(env) -> None:
    """Robot 1 in the mirror image of robot 0's state (pose, velocities, joints, command, last action)."""
    robot = env.scene["robot"]
    origin = env.scene.env_origins.torch if hasattr(env.scene.env_origins, "torch") else env.scene.env_origins
    torch.testing.assert_close(origin[0], origin[1])
    # off every step edge (0.1 m rays, 0.3 m treads): x 0.6137 m ahead, y 0.2513 m to the left, mirrored right
    roll, pitch, yaw = torch.tensor([0.12, -0.12]), torch.tensor([-0.07, -0.07]), torch.tensor([0.31, -0.31])
    pose = torch.zeros(2, 7)
    pose[:, :3] = origin[0] + torch.tensor([[0.6137, 0.2513, 0.42], [0.6137, -0.2513, 0.42]])
    pose[:, 3:7] = quat_from_euler_xyz(roll, pitch, yaw)
    velocity = torch.tensor([[0.4, 0.2, -0.1, 0.3, -0.2, 0.5], [0.4, -0.2, -0.1, -0.3, -0.2, -0.5]])
    names = list(robot.joint_names)
    mirror_joints = joint_mirror(names)
    default = robot.data.default_joint_pos.torch[0]
    offset = torch.linspace(-0.3, 0.25, 12)
    joint_pos = torch.stack((default + offset, default + mirror_joints.apply(offset)))
    speed = torch.linspace(-2.0, 1.5, 12)
    joint_vel = torch.stack((speed, mirror_joints.apply(speed)))
    robot.write_root_pose_to_sim_index(root_pose=pose)
    robot.write_root_velocity_to_sim_index(root_velocity=velocity)
    robot.write_joint_position_to_sim_index(position=joint_pos)
    robot.write_joint_velocity_to_sim_index(velocity=joint_vel)
    command = env.command_manager.get_term(VELOCITY_COMMAND)
    command.steer((0.5, 0.2, 0.4), [0])
    command.steer((0.5, -0.2, -0.4), [1])
    action = torch.linspace(-0.8, 0.9, 12)
    env.action_manager.process_action(torch.stack((action, mirror_of(env).actions.apply(action))))
    env.scene.update(dt=0.0)


@contextmanager
def _mirrored_pair(task: str, physics: str) -> Iterator:
    """Two robots of ``task`` in play mode on the stairs cell (:func:`_stairs_cell`), reset, robot 1 written in the
    mirror image of robot 0 (:func:`_write_mirrored_pair`); yields the unwrapped environment."""
    with make_env(task, num_envs=2, overrides=[f"physics={physics}"], play_mode=True, edit=_stairs_cell) as gym_env:
        gym_env.reset(seed=0)
        _write_mirrored_pair(gym_env.unwrapped)
        yield gym_env.unwrapped


@pytest.mark.parametrize("physics", ["newton_mjwarp", "physx"])
def test_a_mirrored_state_reads_the_mirrored_observation(physics):
    with _mirrored_pair("Go2-Rough", physics) as env:
        obs = env.observation_manager.compute()["policy"]
        assert obs.shape == (2, 237)
        scan = obs[:, 50:]
        assert scan.std(dim=1).min() > 0.02  # the scan sees steps, not a plane
        expected = mirror_of(env).groups["policy"].apply(obs[0])
        columns = torch.ones(237, dtype=torch.bool)
        columns[CLOCK] = False
        torch.testing.assert_close(obs[1, columns], expected[columns], atol=1e-5, rtol=0)
        torch.testing.assert_close(obs[1, CLOCK], obs[0, CLOCK])


@pytest.mark.parametrize("physics", ["newton_mjwarp", "physx"])
def test_go2_rough_blind_groups_mirror_with_their_history(physics):
    """Go2-Rough-Blind's blind actor (10 time-major frames of 47) and privileged critic mirror like Go2-Rough's
    policy: every frame of the history by itself, the feet's forces by side."""
    with _mirrored_pair("Go2-Rough-Blind", physics) as env:
        env.observation_manager.reset()  # a fresh history: every frame the written state's reading
        obs = env.observation_manager.compute(update_history=True)
        mirror = mirror_of(env)
        assert obs["policy"].shape == (2, 470)
        frames = obs["policy"].reshape(2, 10, 47)
        # a history made by a reset holds the first reading in every frame
        torch.testing.assert_close(frames[:, :1].expand(-1, 10, -1), frames)
        clock = torch.zeros(470, dtype=torch.bool).reshape(10, 47)
        clock[:, 45:47] = True  # the trot clock closes each frame
        clock = clock.reshape(-1)
        expected = mirror.groups["policy"].apply(obs["policy"][0])
        torch.testing.assert_close(obs["policy"][1, ~clock], expected[~clock], atol=1e-5, rtol=0)
        # the critic: Go2-Rough's 237 inputs clean, then the feet's forces (the last physics step's, not of the
        # written states) and the trunk's added mass
        assert obs["critic"].shape == (2, 237 + 4 + 1)
        assert obs["teacher"].shape == (2, 237)
        expected = mirror.groups["critic"].apply(obs["critic"][0])
        columns = torch.ones(242, dtype=torch.bool)
        columns[CLOCK] = False
        columns[237:] = False  # robots drew different trunk masses at start-up
        torch.testing.assert_close(obs["critic"][1, columns], expected[columns], atol=1e-5, rtol=0)
        torch.testing.assert_close(obs["critic"][:, :237], obs["teacher"])  # no noise in play mode


def test_ppo_trains_on_mirrored_batches(tmp_path):
    """Two iterations of Go2-Flat with the augmentation and the mirror loss switched on from the command line: the run
    finishes and RSL-RL logs a finite, non-zero mirror loss each iteration."""
    command = [sys.executable, str(ROOT / "scripts" / "train.py"), "--task", "Go2-Flat", "--num_envs", "8",
               "--device", "cpu", "--headless", "--max_iterations", "2", "agent.num_steps_per_env=8",
               "agent.algorithm.symmetry_cfg.use_data_augmentation=true",
               "agent.algorithm.symmetry_cfg.use_mirror_loss=true"]  # fmt: skip
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    (run,) = (tmp_path / "logs" / "rsl_rl" / "go2_flat").iterdir()
    mirror_loss = read_scalars(run)["Loss/symmetry"]
    assert sorted(mirror_loss) == [0, 1]
    assert all(math.isfinite(v) and v > 0 for v in mirror_loss.values()), mirror_loss

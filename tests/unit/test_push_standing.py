"""The extra pushes on robots told to stand (``presets=standing_pushes``,
:func:`go2_locomotion.tasks.mdp.push_standing`): Isaac Lab's push, applied only to those robots whose timer fired and
whose command is a stand."""

from types import SimpleNamespace

import pytest
import torch

from go2_locomotion.tasks.mdp import push_standing


class _Robot:
    """What Isaac Lab's push reads and writes: the root velocity ``[N, 6]`` and its setter."""

    device = "cpu"

    def __init__(self, num_envs):
        self.data = SimpleNamespace(root_vel_w=SimpleNamespace(torch=torch.zeros(num_envs, 6)))
        self.writes = []

    def write_root_velocity_to_sim_index(self, root_velocity, env_ids):
        self.writes.append((env_ids.tolist(), root_velocity.tolist()))


def _env(commands):
    commands = torch.tensor(commands, dtype=torch.float32)
    robot = _Robot(len(commands))
    manager = SimpleNamespace(get_command=lambda name: commands if name == "base_velocity" else None)
    return SimpleNamespace(num_envs=len(commands), device="cpu", command_manager=manager, scene={"robot": robot}), robot


PUSH = {"x": (1.0, 1.0), "y": (-0.5, -0.5)}
"""A push with one value per axis [m/s], so the velocity it sets is known exactly."""


def test_only_the_fired_robots_told_to_stand_are_pushed_worked_by_hand():
    """Robots 0-3 command (0, 0, 0), (0.5, 0, 0), (0.05, 0.05, 0) (norm 0.071 <= 0.1: a stand) and (0, 0, 0); the
    timers of robots 0, 1 and 2 fire. Robot 1 walks, robot 3's timer did not fire: only 0 and 2 get (1, -0.5) m/s."""
    env, robot = _env([[0, 0, 0], [0.5, 0, 0], [0.05, 0.05, 0], [0, 0, 0]])
    push_standing(env, torch.tensor([0, 1, 2]), PUSH, "base_velocity", 0.1)
    assert len(robot.writes) == 1
    ids, velocities = robot.writes[0]
    assert ids == [0, 2]
    assert velocities == [[1.0, -0.5, 0.0, 0.0, 0.0, 0.0]] * 2


def test_no_robot_told_to_stand_means_no_write():
    """A yaw rate of 0.2 rad/s alone is over the 0.1 threshold: a turn on the spot, not a stand."""
    env, robot = _env([[0.5, 0, 0], [0, 0, 0.2]])
    push_standing(env, torch.tensor([0, 1]), PUSH, "base_velocity", 0.1)
    assert robot.writes == []


@pytest.mark.parametrize("task", ["Go2-Rough", "Go2-Flat", "Go2-Rough-Blind"])
def test_presets_standing_pushes_adds_the_term_with_the_real_go2_push_and_play_has_none(task):
    from isaaclab_tasks.utils import resolve_task_config

    from go2_locomotion.tasks import velocity_env_cfg as cfg

    env = resolve_task_config(task, None, overrides=["presets=real_go2,standing_pushes"])[0]
    term = env.events.push_standing
    assert term.func is push_standing and term.mode == "interval"
    assert term.interval_range_s == cfg.STANDING_PUSH_INTERVAL_S
    # the same push a walking robot of the real Go2 meets, on the robots the stand rule names
    assert term.params["velocity_range"] == env.events.push_robot.params["velocity_range"]
    assert term.params["command_threshold"] == env.rewards.feet_down_standing.params["command_threshold"]
    assert resolve_task_config(task, None, overrides=["presets=real_go2"])[0].events.push_standing is None
    play = resolve_task_config(f"{task}-Play", None, overrides=["presets=real_go2,standing_pushes"])[0]
    assert play.events.push_standing is None and play.events.push_robot is None

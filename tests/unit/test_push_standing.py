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


class _Scene(dict):
    """``scene["robot"]`` and ``scene.sensors``, as Isaac Lab's interactive scene gives them."""

    def __init__(self, robot, sensors):
        super().__init__(robot=robot)
        self.sensors = sensors


def _env(commands, sensors=None):
    commands = torch.tensor(commands, dtype=torch.float32)
    robot = _Robot(len(commands))
    manager = SimpleNamespace(get_command=lambda name: commands if name == "base_velocity" else None)
    return SimpleNamespace(
        num_envs=len(commands), device="cpu", command_manager=manager, scene=_Scene(robot, sensors or {})
    ), robot


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


def _standing_env(commands, trunk_velocities, contact_times):
    """Robots with commands ``[N, 3]``, trunk velocities in the base frame ``[N, 3]`` [m/s] and four feet's contact
    times ``[N, 4]`` [s] (0 = in the air)."""
    contact = SimpleNamespace(current_contact_time=SimpleNamespace(torch=torch.tensor(contact_times)))
    env, robot = _env(commands, {"contact_forces": SimpleNamespace(data=contact)})
    robot.data.root_lin_vel_b = SimpleNamespace(torch=torch.tensor(trunk_velocities, dtype=torch.float32))
    return env


def test_with_max_trunk_speed_a_pushed_standing_robot_is_free_to_step_worked_by_hand():
    """Three robots told to stand, each with two feet down (share 0.5): robot 0 still (0.05 m/s), robot 1 pushed
    (0.6, 0.8) m/s = 1.0 m/s planar, robot 2 sinking at 0.5 m/s (vertical speed does not count: 0 planar). Without
    the speed bound all three earn 0.5; with 0.2 m/s robot 1 earns nothing."""
    from go2_locomotion.tasks.mdp import feet_down_standing

    env = _standing_env([[0, 0, 0]] * 3, [[0.05, 0, 0], [0.6, 0.8, 0], [0, 0, -0.5]], [[0.1, 0.1, 0, 0]] * 3)
    feet = SimpleNamespace(name="contact_forces", body_ids=[0, 1, 2, 3])
    assert feet_down_standing(env, "base_velocity", 0.1, feet).tolist() == [0.5, 0.5, 0.5]
    assert feet_down_standing(env, "base_velocity", 0.1, feet, max_trunk_speed=0.2).tolist() == [0.5, 0.0, 0.5]


@pytest.mark.parametrize("task", ["Go2-Rough", "Go2-Flat"])
def test_presets_step_when_pushed_bounds_both_standing_rewards_by_the_trunk_speed(task):
    from isaaclab_tasks.utils import resolve_task_config

    from go2_locomotion.tasks import velocity_env_cfg as cfg

    for name in ("feet_down_standing", "standing_joint_deviation_l1"):
        on = getattr(resolve_task_config(task, None, overrides=["presets=step_when_pushed"])[0].rewards, name)
        off = getattr(resolve_task_config(task, None, overrides=[])[0].rewards, name)
        assert on.params["max_trunk_speed"] == cfg.STILL_TRUNK_SPEED
        assert off.params["max_trunk_speed"] is None

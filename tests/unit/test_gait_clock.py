"""The trot clock: the observation and reward terms on a stand-in environment (no simulator), and the reference
controller's clock against the same hand-computed figures. The simulator tier ties the controller to Isaac Lab's
observation to 1e-5 (tests/sim/test_deploy.py)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from go2_locomotion.tasks.mdp import gait
from go2_locomotion.tasks.velocity_env_cfg import GAIT_PERIOD, SWING_OFFSETS

STEP_DT = 0.02
FEET = SimpleNamespace(name="contact_forces", body_ids=[0, 1, 2, 3])
JOINTS = SimpleNamespace(name="robot", joint_ids=slice(None))


class _Scene(SimpleNamespace):
    def __getitem__(self, name):
        return getattr(self, name)


def _env(steps: list[int], contact: list[list[bool]] | None = None, command=(0.5, 0.0, 0.0), joint_pos=None):
    n = len(steps)
    commands = torch.tensor(command if isinstance(command, list) else [command] * n, dtype=torch.float32)
    default = torch.tensor([[0.1, 0.8, -1.5] * 4] * n)
    robot = SimpleNamespace(
        data=SimpleNamespace(
            joint_pos=SimpleNamespace(torch=default if joint_pos is None else default + torch.tensor(joint_pos)),
            default_joint_pos=SimpleNamespace(torch=default),
        )
    )
    contact_time = torch.tensor(contact if contact is not None else [[True] * 4] * n, dtype=torch.float32) * 0.1
    sensor = SimpleNamespace(data=SimpleNamespace(current_contact_time=SimpleNamespace(torch=contact_time)))
    return SimpleNamespace(
        step_dt=STEP_DT,
        episode_length_buf=torch.tensor(steps),
        scene=_Scene(sensors={"contact_forces": sensor}, robot=robot),
        command_manager=SimpleNamespace(get_command=lambda name: commands),
    )


def test_cycle_is_a_whole_number_of_policy_steps():
    assert gait.cycle_steps(GAIT_PERIOD, STEP_DT) == 25
    with pytest.raises(ValueError, match="gait period 0.51 s is not a whole number"):
        gait.cycle_steps(0.51, STEP_DT)


def test_phase_observation_by_hand():
    # 0, a quarter, a half and a full cycle (25 steps), and a later cycle
    obs = gait.gait_phase(_env([0, 25 // 4, 12, 25, 25 * 40 + 5]), GAIT_PERIOD)
    angles = [0.0, 2 * math.pi * 6 / 25, 2 * math.pi * 12 / 25, 0.0, 2 * math.pi * 5 / 25]
    expected = torch.tensor([[math.sin(a), math.cos(a)] for a in angles])
    torch.testing.assert_close(obs, expected, atol=1e-6, rtol=0)


def test_controller_clock_matches_the_observation():
    from go2_locomotion.robot.controller import ReferenceController

    controller = ReferenceController.__new__(ReferenceController)
    controller.policy_dt = STEP_DT
    for steps in (0, 6, 12, 24, 25, 1005):
        expected = gait.gait_phase(_env([steps]), GAIT_PERIOD)[0].numpy()
        np.testing.assert_allclose(controller.gait_phase(steps, GAIT_PERIOD), expected, atol=1e-6)


def test_trot_reward_by_hand():
    reward = lambda env: gait.trot_swing(  # noqa: E731
        env,
        period=GAIT_PERIOD,
        swing_offsets=SWING_OFFSETS,
        command_name="base_velocity",
        command_threshold=0.1,
        sensor_cfg=FEET,
    )
    # step 0: FL and RR start their swing (fraction 0 < 0.5), FR and RL are half a cycle on: due on the ground
    trot = [False, True, True, False]  # in contact: FL, FR, RL, RR
    assert reward(_env([0], [trot])).item() == 0.5
    assert reward(_env([0], [[True] * 4])).item() == 0.0  # standing earns nothing
    assert reward(_env([0], [[False, True, True, True]])).item() == 0.25  # one foot of the pair lifted
    assert reward(_env([0], [[not c for c in trot]])).item() == 0.0
    # step 13 (fraction 0.52): the pairs have swapped
    assert reward(_env([13], [[not c for c in trot]])).item() == 0.5
    # a standing command pays for no step
    assert reward(_env([0], [trot], command=(0.05, 0.0, 0.0))).item() == 0.0


def test_clock_stops_when_told_to_stand():
    # the stand rule: the command's norm (lin x, lin y, yaw rate together) at most 0.1 reads [0, 0]
    commands = [(0.0, 0.0, 0.0), (0.06, 0.0, 0.079), (0.06, 0.0, 0.081), (0.0, 0.0, -0.5), (0.5, 0.0, 0.0)]
    env = _env([6] * 5, command=commands)
    obs = gait.gait_phase(env, GAIT_PERIOD, command_name="base_velocity", standing_command=0.1)
    running = [math.sin(2 * math.pi * 6 / 25), math.cos(2 * math.pi * 6 / 25)]
    # |(0.06, 0, 0.079)| = 0.0992 stands, |(0.06, 0, 0.081)| = 0.1008 moves
    expected = torch.tensor([[0.0, 0.0], [0.0, 0.0], running, running, running])
    torch.testing.assert_close(obs, expected, atol=1e-6, rtol=0)
    # without a command name the clock runs whatever the command (bundles written before the rule)
    torch.testing.assert_close(gait.gait_phase(env, GAIT_PERIOD), torch.tensor([running] * 5), atol=1e-6, rtol=0)


def test_controller_applies_the_same_stand_rule():
    from go2_locomotion.robot.controller import ReferenceController

    controller = ReferenceController.__new__(ReferenceController)
    controller.policy_dt = STEP_DT
    for command in ((0.0, 0.0, 0.0), (0.06, 0.0, 0.079), (0.06, 0.0, 0.081), (0.0, 0.0, -0.5), (1.0, 0.0, 0.0)):
        for steps in (0, 6, 13, 1005):
            env = _env([steps], command=command)
            expected = gait.gait_phase(env, GAIT_PERIOD, command_name="base_velocity", standing_command=0.1)
            got = controller.gait_phase(steps, GAIT_PERIOD, np.array(command), standing_command=0.1)
            np.testing.assert_allclose(got, expected[0].numpy(), atol=1e-6)
    # no command given to the controller is a zero command: standing
    np.testing.assert_array_equal(controller.gait_phase(6, GAIT_PERIOD, None, standing_command=0.1), [0.0, 0.0])


def test_standing_rewards_by_hand():
    stand = {"command_name": "base_velocity", "command_threshold": 0.1}
    three_down = [[True, True, False, True]]
    assert gait.feet_down_standing(_env([0], three_down, command=(0.0, 0.0, 0.0)), sensor_cfg=FEET, **stand) == 0.75
    assert gait.feet_down_standing(_env([0], [[True] * 4], command=(0.0, 0.0, 0.0)), sensor_cfg=FEET, **stand) == 1.0
    assert gait.feet_down_standing(_env([0], [[True] * 4], command=(0.3, 0.0, 0.0)), sensor_cfg=FEET, **stand) == 0.0
    # |deviation| summed over the 12 joints: 0.1 + 0.2 + 0.3 on three joints, the others at the standing pose
    offsets = [[0.1, -0.2, 0.0, 0.0, 0.0, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]
    env = _env([0], command=(0.0, 0.0, 0.0), joint_pos=offsets)
    assert gait.standing_joint_deviation_l1(env, asset_cfg=JOINTS, **stand).item() == pytest.approx(0.6, abs=1e-6)
    env = _env([0], command=(0.0, 0.0, 0.2), joint_pos=offsets)
    assert gait.standing_joint_deviation_l1(env, asset_cfg=JOINTS, **stand).item() == 0.0


def _cycle_env(num_envs: int, command_yaw: float, command_x: float = 0.5):
    data = SimpleNamespace(
        root_ang_vel_b=SimpleNamespace(torch=torch.zeros(num_envs, 3)),
        root_lin_vel_b=SimpleNamespace(torch=torch.zeros(num_envs, 3)),
    )
    robot = SimpleNamespace(data=data)
    commands = torch.tensor([[command_x, 0.0, command_yaw]] * num_envs)
    return SimpleNamespace(
        num_envs=num_envs,
        device="cpu",
        step_dt=STEP_DT,
        common_step_counter=0,
        scene=_Scene(robot=robot),
        command_manager=SimpleNamespace(get_command=lambda name: commands),
    )


def test_cycle_yaw_term_charges_the_drift_and_not_the_trot_sway():
    params = {"command_name": "base_velocity", "period": GAIT_PERIOD, "std": 0.05}
    env = _cycle_env(2, command_yaw=0.0)
    term = gait.cycle_yaw_rate_exp(SimpleNamespace(params=params), env)
    # robot 0 sways +-0.3 rad/s with the trot (two sways a cycle) around a 0.03 rad/s drift; robot 1 sways only
    for step in range(60):
        env.common_step_counter = step + 1
        sway = 0.3 * math.sin(2 * math.pi * 2 * step / 25)
        env.scene.robot.data.root_ang_vel_b.torch[:, 2] = torch.tensor([0.03 + sway, sway])
        reward = term(env, **params)
        if step == 0:  # one sample: the mean is the instantaneous error
            torch.testing.assert_close(reward, torch.exp(-(torch.tensor([0.03, 0.0]) ** 2) / 0.05**2))
    # over whole cycles the sway cancels: the drift keeps exp(-(0.03 / 0.05)^2) = exp(-0.36) of the reward
    torch.testing.assert_close(reward, torch.tensor([math.exp(-0.36), 1.0]), atol=1e-5, rtol=0)
    # a new episode forgets the old cycle: robot 0 now turns 0.1 rad/s as told
    env.command_manager = SimpleNamespace(get_command=lambda name: torch.tensor([[0.5, 0.0, 0.1]] * 2))
    term.reset(torch.tensor([0]))
    env.common_step_counter += 1
    env.scene.robot.data.root_ang_vel_b.torch[:, 2] = torch.tensor([0.1, 0.0])
    reward = term(env, **params)
    assert reward[0].item() == pytest.approx(1.0)
    # robot 1 keeps its cycle: the sways of steps 35-59 sum to 0; step 35's slot now holds the error -0.1
    mean = (-0.3 * math.sin(2 * math.pi * 2 * 35 / 25) - 0.1) / 25
    assert reward[1].item() == pytest.approx(math.exp(-(mean**2) / 0.05**2), abs=1e-5)


def test_cycle_speed_term_charges_walking_slow_and_not_the_trot_surge():
    params = {"command_name": "base_velocity", "period": GAIT_PERIOD, "std": 0.1}
    env = _cycle_env(3, command_yaw=0.0, command_x=1.0)
    term = gait.cycle_lin_vel_xy_exp(SimpleNamespace(params=params), env)
    # robot 0 surges +-0.2 m/s ahead and sways +-0.1 m/s sideways around 0.9 m/s (10 % slow); robot 1 does the same
    # around 1.0 m/s; robot 2 walks a steady 1.0 m/s ahead with a steady 0.05 m/s sideways slip
    for step in range(75):
        env.common_step_counter = step + 1
        surge = 0.2 * math.sin(2 * math.pi * 2 * step / 25)
        sway = 0.1 * math.sin(2 * math.pi * step / 25)
        velocity = env.scene.robot.data.root_lin_vel_b.torch
        velocity[:, 0] = torch.tensor([0.9 + surge, 1.0 + surge, 1.0])
        velocity[:, 1] = torch.tensor([sway, sway, 0.05])
        reward = term(env, **params)
        if step == 0:  # one sample: the mean is the instantaneous error
            torch.testing.assert_close(reward, torch.exp(-torch.tensor([0.01, 0.0, 0.0025]) / 0.01))
    # over whole cycles: exp(-(0.1 / 0.1)^2) for 10 % slow, 1 for the surge alone, exp(-(0.05 / 0.1)^2) for the slip
    torch.testing.assert_close(reward, torch.tensor([math.exp(-1.0), 1.0, math.exp(-0.25)]), atol=1e-5, rtol=0)

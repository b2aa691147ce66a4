"""The trot clock and its stand rule: an observation of where the gait cycle is, rewards for feet that follow it,
and for standing still when told to.

The clock is the episode's policy-step count modulo the steps of one gait cycle, so a robot recomputes it exactly
from the number of policy steps since it started (the reference controller does, :mod:`go2_locomotion.robot`).
The stand rule: while the velocity command's norm is at most ``standing_command``, the clock reads ``[0, 0]`` (a
point off the unit circle, so "stand" is never mistaken for a phase) and the rewards ask for four feet down and the
standing pose instead of a step.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch
from isaaclab.envs.mdp import (
    base_ang_vel,
    base_lin_vel,
    generated_commands,
    joint_deviation_l1,
    push_by_setting_velocity,
)
from isaaclab.managers import ManagerTermBase, SceneEntityCfg

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv


def cycle_steps(period: float, step_dt: float) -> int:
    """Policy steps in one gait cycle of ``period`` seconds; the period must be a whole number of steps."""
    steps = round(period / step_dt)
    if steps < 2 or abs(steps * step_dt - period) > 1e-9:
        raise ValueError(f"gait period {period} s is not a whole number (>= 2) of policy steps of {step_dt} s")
    return steps


def cycle_fraction(env: ManagerBasedRLEnv, period: float) -> torch.Tensor:
    """``[N]`` fraction of the gait cycle in [0, 1): (episode step count mod cycle steps) / cycle steps."""
    steps = cycle_steps(period, env.step_dt)
    return torch.remainder(env.episode_length_buf, steps).float() / steps


def told_to_stand(env: ManagerBasedRLEnv, command_name: str, standing_command: float) -> torch.Tensor:
    """``[N]`` bool: the command's norm (lin x, lin y, yaw rate together) is at most ``standing_command``."""
    return torch.linalg.norm(env.command_manager.get_command(command_name), dim=1) <= standing_command


def gait_phase(
    env: ManagerBasedRLEnv, period: float, command_name: str | None = None, standing_command: float = 0.0
) -> torch.Tensor:
    """``[N, 2]``: sin and cos of 2 pi x the cycle fraction; ``[0, 0]`` while told to stand (with ``command_name``:
    the command's norm at most ``standing_command``). Without ``command_name`` the clock always runs."""
    angle = 2 * math.pi * cycle_fraction(env, period)
    phase = torch.stack((torch.sin(angle), torch.cos(angle)), dim=1)
    if command_name is None:
        return phase
    return phase * (~told_to_stand(env, command_name, standing_command)).float().unsqueeze(1)


def trot_swing(
    env: ManagerBasedRLEnv,
    period: float,
    swing_offsets: tuple[float, ...],
    command_name: str,
    command_threshold: float,
    sensor_cfg: SceneEntityCfg,
) -> torch.Tensor:
    """``[N]`` share of the feet due in the air that are in the air. Foot ``i`` is due in the air during the first
    half of its cycle (cycle fraction + ``swing_offsets[i]``, mod 1). Standing on four feet scores 0, a trot in time
    with the clock 0.5 (two feet due in the air at any time, of four); 0 while told to stand (the command's norm at
    most ``command_threshold``)."""
    sensor = env.scene.sensors[sensor_cfg.name]
    in_air = sensor.data.current_contact_time.torch[:, sensor_cfg.body_ids] <= 0.0
    offsets = torch.tensor(swing_offsets, device=in_air.device)
    leg_fraction = torch.remainder(cycle_fraction(env, period).unsqueeze(1) + offsets, 1.0)
    due_in_air = leg_fraction < 0.5
    moving = ~told_to_stand(env, command_name, command_threshold)
    return (in_air & due_in_air).float().mean(dim=1) * moving.float()


def standing_still(
    env: ManagerBasedRLEnv, command_name: str, command_threshold: float, max_trunk_speed: float | None = None
) -> torch.Tensor:
    """``[N]`` bool: told to stand (:func:`told_to_stand`) and, with ``max_trunk_speed`` [m/s], the trunk's planar
    speed at most that: the robots the standing rewards apply to. A robot pushed while standing moves faster and is
    free to step until it has stopped."""
    standing = told_to_stand(env, command_name, command_threshold)
    if max_trunk_speed is not None:
        standing &= torch.linalg.norm(base_lin_vel(env)[:, :2], dim=1) <= max_trunk_speed
    return standing


def feet_down_standing(
    env: ManagerBasedRLEnv,
    command_name: str,
    command_threshold: float,
    sensor_cfg: SceneEntityCfg,
    max_trunk_speed: float | None = None,
) -> torch.Tensor:
    """``[N]`` share of the feet on the ground while standing still (:func:`standing_still`; 1 with four feet down); 0
    otherwise."""
    sensor = env.scene.sensors[sensor_cfg.name]
    down = sensor.data.current_contact_time.torch[:, sensor_cfg.body_ids] > 0.0
    return down.float().mean(dim=1) * standing_still(env, command_name, command_threshold, max_trunk_speed).float()


def standing_joint_deviation_l1(
    env: ManagerBasedRLEnv,
    command_name: str,
    command_threshold: float,
    asset_cfg: SceneEntityCfg = SceneEntityCfg("robot"),  # noqa: B008 (Isaac Lab's term-parameter convention)
    max_trunk_speed: float | None = None,
) -> torch.Tensor:
    """``[N]`` sum over the joints of |joint position - standing pose| [rad] while standing still
    (:func:`standing_still`); 0 otherwise. Isaac Lab's ``stand_still_joint_deviation_l1`` with this module's stand
    rule (it reads lin x and y only)."""
    still = standing_still(env, command_name, command_threshold, max_trunk_speed)
    return joint_deviation_l1(env, asset_cfg) * still.float()


def push_standing(
    env: ManagerBasedRLEnv,
    env_ids: torch.Tensor,
    velocity_range: dict[str, tuple[float, float]],
    command_name: str,
    command_threshold: float,
    asset_cfg: SceneEntityCfg = SceneEntityCfg("robot"),  # noqa: B008 (Isaac Lab's term-parameter convention)
) -> None:
    """An interval event: Isaac Lab's ``push_by_setting_velocity`` on those of ``env_ids`` told to stand; the
    others are left alone (their own pushes come from the ordinary push term)."""
    ids = torch.arange(env.num_envs, device=env.device)[env_ids]
    ids = ids[told_to_stand(env, command_name, command_threshold)[ids]]
    if ids.numel() > 0:
        push_by_setting_velocity(env, ids, velocity_range, asset_cfg)


class _CycleMeanErrorExp(ManagerTermBase):
    """``[N]`` exp(-|e|^2 / std^2), e a tracking error averaged over the last gait cycle: what a robot gains or loses
    per cycle. A trot sways the trunk's velocities every half cycle; a reward on the instantaneous error charges that
    sway and can hardly tell a small steady bias from it, while over one whole cycle the sway cancels and the bias
    remains. The mean covers the steps since the episode began while fewer than one cycle have passed (each robot's
    last cycle of errors is kept; a reset forgets it). Subclasses say which error (:meth:`error`, :attr:`width`)."""

    width: int
    """Components of the error."""

    def __init__(self, cfg, env: ManagerBasedRLEnv):
        super().__init__(cfg, env)
        steps = cycle_steps(cfg.params["period"], env.step_dt)
        self._errors = torch.zeros(env.num_envs, steps, self.width, device=env.device)
        self._count = torch.zeros(env.num_envs, 1, dtype=torch.long, device=env.device)

    @staticmethod
    def error(env: ManagerBasedRLEnv, command_name: str) -> torch.Tensor:
        """``[N, k]`` the instantaneous tracking error."""
        raise NotImplementedError

    def reset(self, env_ids=None) -> None:
        """A new episode starts a new cycle."""
        ids = slice(None) if env_ids is None else env_ids
        self._errors[ids] = 0.0
        self._count[ids] = 0

    def __call__(self, env: ManagerBasedRLEnv, command_name: str, period: float, std: float) -> torch.Tensor:
        steps = self._errors.shape[1]
        self._errors[:, env.common_step_counter % steps] = self.error(env, command_name)
        self._count.clamp_(max=steps - 1).add_(1)
        mean = self._errors.sum(dim=1) / self._count
        return torch.exp(-mean.square().sum(dim=1) / std**2)


class cycle_yaw_rate_exp(_CycleMeanErrorExp):
    """``[N]`` exp(-e^2 / std^2), e the yaw-rate error (trunk yaw rate - commanded) averaged over the last gait cycle
    [rad/s]: the heading each cycle gains or loses. The trot's yaw sway (about +-0.3 rad/s every half cycle) cancels
    over a cycle; a drift of 0.03 rad/s, which the instantaneous term can hardly tell from the sway, does not."""

    width = 1

    @staticmethod
    def error(env: ManagerBasedRLEnv, command_name: str) -> torch.Tensor:
        return (base_ang_vel(env)[:, 2] - generated_commands(env, command_name)[:, 2]).unsqueeze(1)


class cycle_lin_vel_xy_exp(_CycleMeanErrorExp):
    """``[N]`` exp(-|e|^2 / std^2), e the trunk's planar velocity error (trunk frame, measured - commanded) averaged
    over the last gait cycle [m/s]: the speed each cycle gains or loses. The trot's forward surge and sideways sway
    cancel over a cycle; a robot that walks 10 % slow, which the instantaneous term of width 0.5 m/s hardly charges
    (exp(-0.04) at 1 m/s), does not."""

    width = 2

    @staticmethod
    def error(env: ManagerBasedRLEnv, command_name: str) -> torch.Tensor:
        return base_lin_vel(env)[:, :2] - generated_commands(env, command_name)[:, :2]

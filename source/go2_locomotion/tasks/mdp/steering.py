"""A velocity command a person can take over during playback: :class:`SteerableVelocityCommand`.

Isaac Lab's :class:`~isaaclab.envs.mdp.UniformVelocityCommand`, unchanged until someone steers: then the steered
robots keep the velocity they were given (no resampling, no heading control, no standing draw) until released, and
released robots draw a new random command at once. The policy sees the steered command through the same
``velocity_commands`` observation it was trained with: there is no second path into the policy.

Every Go2 task uses this term (training included), so a checkpoint is steerable whatever task config it was
trained with; without a call to :meth:`SteerableVelocityCommand.steer`, and with ``rel_straight_envs`` 0, it draws
exactly what the library term draws. ``rel_straight_envs`` tells a share of the robots to walk with a yaw rate of
exactly 0 and no heading controller, as a person's stick does.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from isaaclab.envs.mdp import UniformVelocityCommand, UniformVelocityCommandCfg
from isaaclab.utils import configclass


class SteerableVelocityCommand(UniformVelocityCommand):
    """:class:`UniformVelocityCommand` with :meth:`steer` and :meth:`release`."""

    cfg: SteerableVelocityCommandCfg

    def __init__(self, cfg: SteerableVelocityCommandCfg, env):
        super().__init__(cfg, env)
        self.steered = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)
        """Which robots follow a steered command."""
        self.steered_command = torch.zeros(self.num_envs, 3, device=self.device)
        """The steered command of each robot: lin x [m/s], lin y [m/s], yaw rate [rad/s] (body frame)."""

    def ranges(self) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]]:
        """What the policy was trained on: (lin x, lin y, yaw rate) ranges; :meth:`steer` clamps to them."""
        r = self.cfg.ranges
        return tuple(r.lin_vel_x), tuple(r.lin_vel_y), tuple(r.ang_vel_z)

    def steer(self, velocity: Sequence[float], env_ids: Sequence[int] | None = None) -> torch.Tensor:
        """Give robots ``env_ids`` (all when None) the command ``velocity`` = (lin x, lin y, yaw rate), clamped to
        :meth:`ranges`, from now until :meth:`release`; returns the command applied."""
        ids = self._ids(env_ids)
        low, high = (torch.tensor(bound, device=self.device) for bound in zip(*self.ranges(), strict=True))
        command = torch.clamp(torch.as_tensor(velocity, dtype=torch.float32, device=self.device), low, high)
        self.steered[ids] = True
        self.steered_command[ids] = command
        self._hold_steered(ids)
        return command

    def release(self, env_ids: Sequence[int] | None = None) -> None:
        """Hand robots ``env_ids`` (all when None) back to random commands: each draws a new one now."""
        ids = self._ids(env_ids)
        self.steered[ids] = False
        self._resample(ids)

    def _resample_command(self, env_ids: Sequence[int]):
        super()._resample_command(env_ids)
        self._draw_straight(env_ids)
        self._hold_steered(env_ids)

    def _draw_straight(self, env_ids) -> None:
        """A :attr:`~SteerableVelocityCommandCfg.rel_straight_envs` share of ``env_ids`` is told a yaw rate of exactly
        0, open loop (no heading control): what a person's stick sends to walk straight."""
        if self.cfg.rel_straight_envs <= 0.0:
            return
        ids = self._ids(env_ids)
        straight = ids[torch.rand(len(ids), device=self.device) < self.cfg.rel_straight_envs]
        self.vel_command_b[straight, 2] = 0.0
        self.is_heading_env[straight] = False

    def _hold_steered(self, env_ids) -> None:
        """Steered robots among ``env_ids`` keep their steered command, unmodified by heading or standing draws."""
        ids = self._ids(env_ids)
        mask = torch.zeros_like(self.steered)
        mask[ids] = True
        mask &= self.steered
        self.vel_command_b[mask] = self.steered_command[mask]
        self.is_heading_env[mask] = False
        self.is_standing_env[mask] = False

    def _ids(self, env_ids) -> torch.Tensor:
        if env_ids is None or isinstance(env_ids, slice):
            return torch.arange(self.num_envs, device=self.device)[env_ids if env_ids is not None else slice(None)]
        ids = torch.as_tensor(env_ids, dtype=torch.long, device=self.device).reshape(-1)
        if ids.numel() and (ids.min() < 0 or ids.max() >= self.num_envs):
            raise IndexError(f"robot index out of range 0..{self.num_envs - 1}: {ids.tolist()}")
        return ids


@configclass
class SteerableVelocityCommandCfg(UniformVelocityCommandCfg):
    """:class:`UniformVelocityCommandCfg` whose term can be steered (:class:`SteerableVelocityCommand`)."""

    class_type: type = SteerableVelocityCommand

    rel_straight_envs: float = 0.0
    """Share of the robots, drawn at each resampling, told a yaw rate of exactly 0 without heading control [-]: the
    heading controller corrects a drift for the policy, so a policy that only ever meets it never learns to hold
    its heading open loop (docs/learning.md, *Walking straight*). 0 draws exactly what Isaac Lab's term draws."""

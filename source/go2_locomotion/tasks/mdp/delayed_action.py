"""Joint position targets that reach the motors late: :class:`DelayedJointPositionAction`.

A Go2's targets arrive some milliseconds after the state they answer (a DDS round trip and the policy's compute).
Isaac Lab's :class:`~isaaclab.actuators.DelayedPDActuatorCfg` models that on an ideal PD actuator only, and under
Newton-native actuator execution (Isaac Lab 3.0's default on every engine) with one fixed delay; the Go2's joints are
DC motors. So the delay lives in the action term, which Isaac Lab calls once per physics step
(``apply_action``): each robot's targets go through Isaac Lab's :class:`~isaaclab.utils.DelayBuffer` and come out
``d`` physics steps late, ``d`` drawn uniformly from ``[min_delay, max_delay]`` per robot at each reset and held for
the episode. The observation's ``last_action`` is the action the policy sent, as on the robot.
"""

from __future__ import annotations

from collections.abc import Sequence

from isaaclab.envs.mdp import JointPositionAction, JointPositionActionCfg
from isaaclab.utils import DelayBuffer, configclass


class DelayedJointPositionAction(JointPositionAction):
    """:class:`~isaaclab.envs.mdp.JointPositionAction` whose targets are applied ``min_delay``-``max_delay`` physics
    steps late, per robot."""

    cfg: DelayedJointPositionActionCfg

    def __init__(self, cfg: DelayedJointPositionActionCfg, env):
        if not 0 <= cfg.min_delay <= cfg.max_delay:
            raise ValueError(
                f"actions.joint_pos: min_delay {cfg.min_delay} and max_delay {cfg.max_delay} must satisfy "
                "0 <= min_delay <= max_delay (physics steps)"
            )
        super().__init__(cfg, env)
        # a fixed delay (0 included) is set, not drawn: the random stream (resets, events) is then the library term's
        drawn = cfg.min_delay < cfg.max_delay
        self.delay = DelayBuffer(
            cfg.max_delay, self.num_envs, self.device, min_lag=cfg.min_delay, hold_prob=1.0 if drawn else None
        )
        """Each robot's held-back targets; ``delay.time_lags`` is its delay in physics steps."""
        if not drawn:
            self.delay.set_time_lag(cfg.max_delay)

    def apply_actions(self):
        target = self.delay.compute(self.processed_actions)
        self._asset.set_joint_position_target_index(target=target, joint_ids=self._joint_ids)

    def reset(self, env_ids: Sequence[int] | None = None) -> None:
        super().reset(env_ids)
        self.delay.reset(env_ids)


@configclass
class DelayedJointPositionActionCfg(JointPositionActionCfg):
    """:class:`~isaaclab.envs.mdp.JointPositionActionCfg` with a per-robot delay of the targets."""

    class_type: type = DelayedJointPositionAction

    min_delay: int = 0
    """Fewest physics steps a target is held back [-]."""

    max_delay: int = 0
    """Most physics steps a target is held back [-]."""

"""A penalty curriculum keyed to how long the robots stay up (``presets=sac_rewards``).

An off-policy learner from scratch meets the full regularisation penalties (joint torques, accelerations, action
rate, trunk bounce and roll) before it has a gait: moving costs more than standing, and FastSAC's from-scratch runs
learned to stand and crouch (docs/learning.md). holosoma's FastSAC scales its penalties by a factor that starts small
and grows while the episodes are long, shrinks while they are short. :class:`PenaltyCurriculum` does so here: every
episode that ends after at least ``grow_above`` of the episode length (time-outs included) multiplies the factor by
``1 + rate``, every one that ends before ``shrink_below`` of it by ``1 - rate``, within ``[min_scale, 1]``; each
named reward term weighs its configured weight times the factor. The factor is the term's state
(:meth:`get_state`, :meth:`set_state`, the convention of Isaac Lab's ``DifficultyScheduler``): a resumed run keeps it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch
from isaaclab.managers import ManagerTermBase

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv
    from isaaclab.managers import CurriculumTermCfg


def next_scale(
    scale: float,
    lengths: torch.Tensor,
    max_length: int,
    grow_above: float,
    shrink_below: float,
    rate: float,
    floor: float,
) -> float:
    """The factor after episodes of ``lengths`` steps (of ``max_length``) ended: ``x (1 + rate)`` per long one,
    ``x (1 - rate)`` per short one, clamped to ``[floor, 1]``."""
    ends = torch.stack([lengths >= grow_above * max_length, lengths < shrink_below * max_length])
    long, short = ends.sum(dim=1).tolist()  # one transfer to the host per reset, not two
    return min(1.0, max(floor, scale * (1.0 + rate) ** long * (1.0 - rate) ** short))


class PenaltyCurriculum(ManagerTermBase):
    """Scales the weights of the reward terms ``terms`` by a factor that follows the episode lengths (module
    docstring). Returns the factor (Isaac Lab logs it as ``Curriculum/<term name>``)."""

    def __init__(self, cfg: CurriculumTermCfg, env: ManagerBasedRLEnv):
        super().__init__(cfg, env)
        names = cfg.params["terms"]
        self.weights = {name: env.reward_manager.get_term_cfg(name).weight for name in names}
        """The configured (full) weight of each scaled term."""
        self.scale = float(cfg.params.get("initial_scale", 0.1))
        """The factor on the configured weights [-], in ``[min_scale, 1]``."""
        self._apply(env)

    def get_state(self) -> torch.Tensor:
        return torch.tensor(self.scale)

    def set_state(self, state: torch.Tensor) -> None:
        self.scale = float(state)
        self._apply(self._env)

    def _apply(self, env: ManagerBasedRLEnv) -> None:
        for name, weight in self.weights.items():
            term = env.reward_manager.get_term_cfg(name)
            term.weight = weight * self.scale
            env.reward_manager.set_term_cfg(name, term)

    def __call__(
        self,
        env: ManagerBasedRLEnv,
        env_ids: Sequence[int] | torch.Tensor | slice,
        terms: Sequence[str] = (),
        initial_scale: float = 0.1,
        min_scale: float = 0.1,
        rate: float = 0.002,
        grow_above: float = 0.8,
        shrink_below: float = 0.4,
    ) -> float:
        lengths = env.episode_length_buf[env_ids]  # the ending episodes' lengths: the curriculum runs before reset
        scale = next_scale(self.scale, lengths, env.max_episode_length, grow_above, shrink_below, rate, min_scale)
        if scale != self.scale:
            self.scale = scale
            self._apply(env)
        return self.scale

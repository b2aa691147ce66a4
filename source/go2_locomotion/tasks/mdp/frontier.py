"""A terrain curriculum that keeps robots at their frontier (``presets=frontier``).

Isaac Lab's :func:`terrain_levels_vel` moves a robot one level up when it walked more than half a tile and one
down when it walked less than half of what its command asked, and sends a robot that clears the top level to a
uniformly random one. Once the top levels are cleared the spread stays wide, and on a terrain the robots cannot
clear (tall stairs up) few of them train where they fail half the time (docs/learning.md, *What limited it*).

:class:`FrontierTerrainLevels` keeps Isaac Lab's outcome rule and its step, and adds a memory per sub-terrain and
level: the share of its decided episodes (promoted 1, demoted 0) over about the last ``memory`` of them. A share
``frontier_share`` of the robots that end an episode, and every robot that clears the top level, draw their next
level instead, in their own column, with weight ``p (1 - p) + floor`` over the levels of its sub-terrain with at
least ``min_trials`` decided episodes: levels where robots fail about half the time are favoured, the ones they
always clear or never clear are left to the step. The memory pools the columns of one sub-terrain (several
columns share one: 6 of stairs20's 20 are stairs up), so each level gathers episodes from all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch
from isaaclab.managers import ManagerTermBase, SceneEntityCfg

from ..terrain_layout import column_terrains

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv
    from isaaclab.managers import CurriculumTermCfg


class FrontierTerrainLevels(ManagerTermBase):
    """Isaac Lab's terrain-level curriculum with a success memory per sub-terrain and level, and draws that favour
    the levels where robots fail half the time (module docstring). Returns the mean level, as Isaac Lab's term, so
    ``Curriculum/terrain_levels`` means the same with either."""

    def __init__(self, cfg: CurriculumTermCfg, env: ManagerBasedRLEnv):
        super().__init__(cfg, env)
        terrain = env.scene.terrain
        rows = terrain.terrain_origins.shape[0]
        names = column_terrains(terrain.cfg.terrain_generator)
        kinds = list(dict.fromkeys(names))
        self.kind_names = kinds
        """The sub-terrains, in the order of :attr:`success`'s columns."""
        self.column_kind = torch.tensor([kinds.index(n) for n in names], device=env.device)
        """Per terrain column, its sub-terrain's index into :attr:`kind_names`."""
        self.success = torch.zeros(rows, len(kinds), device=env.device)
        """Per level and sub-terrain, the running share of decided episodes that were promoted [-]."""
        self.trials = torch.zeros(rows, len(kinds), device=env.device)
        """Per level and sub-terrain, decided episodes seen (the running share averages the last ~``memory``)."""

    def __call__(
        self,
        env: ManagerBasedRLEnv,
        env_ids: Sequence[int] | torch.Tensor | slice,
        frontier_share: float = 0.5,
        memory: int = 20,
        min_trials: int = 4,
        floor: float = 0.02,
        asset_cfg: SceneEntityCfg = SceneEntityCfg("robot"),  # noqa: B008 (Isaac Lab's term-parameter convention)
    ) -> torch.Tensor:
        terrain = env.scene.terrain
        ids = torch.arange(env.num_envs, device=env.device)[env_ids]
        if ids.numel() == 0:
            return terrain.terrain_levels.float().mean()
        # Isaac Lab's outcome rule (terrain_levels_vel)
        asset = env.scene[asset_cfg.name]
        command = env.command_manager.get_command("base_velocity")
        distance = torch.linalg.norm(asset.data.root_pos_w.torch[ids, :2] - env.scene.env_origins[ids, :2], dim=1)
        up = distance > terrain.cfg.terrain_generator.size[0] / 2
        down = ~up & (distance < torch.linalg.norm(command[ids, :2], dim=1) * env.max_episode_length_s * 0.5)
        levels, kinds = terrain.terrain_levels[ids], self.column_kind[terrain.terrain_types[ids]]
        # episodes that ran (not the start-up reset) and were decided feed the memory
        decided = (up | down) & (env.episode_length_buf[ids] > 0)
        self.remember(levels[decided], kinds[decided], up[decided].float(), memory)
        # next level: Isaac Lab's step (a top clearer to a random level), then a frontier draw for a share of the
        # robots and for every top clearer, where their sub-terrain has a memory
        top = levels + up.long() >= terrain.max_terrain_level
        terrain.update_env_origins(ids, up, down)
        drawn = self.draw(kinds, min_trials, floor)
        chosen = (top | (torch.rand(ids.numel(), device=env.device) < frontier_share)) & (drawn >= 0)
        moved, level = ids[chosen], drawn[chosen]
        terrain.terrain_levels[moved] = level
        terrain.env_origins[moved] = terrain.terrain_origins[level, terrain.terrain_types[moved]]
        return terrain.terrain_levels.float().mean()

    def remember(self, levels: torch.Tensor, kinds: torch.Tensor, outcomes: torch.Tensor, memory: int) -> None:
        """Fold decided outcomes (1 promoted, 0 demoted) into each level's running share: a mean of the first
        ``memory`` episodes, then an exponential average with rate ``1 / memory``. Outcomes on one tile in one call
        are folded in one after another."""
        for level, kind, outcome in zip(levels.tolist(), kinds.tolist(), outcomes.tolist(), strict=True):
            self.trials[level, kind] += 1
            rate = 1.0 / min(float(self.trials[level, kind]), float(memory))
            self.success[level, kind] += rate * (outcome - self.success[level, kind])

    def draw(self, kinds: torch.Tensor, min_trials: int, floor: float) -> torch.Tensor:
        """Per robot (its sub-terrain ``kinds``), a level drawn with weight ``p (1 - p) + floor`` over the levels
        with at least ``min_trials`` decided episodes; ``-1`` where its sub-terrain has none yet."""
        known = self.trials >= min_trials
        weights = torch.where(known, self.success * (1.0 - self.success) + floor, torch.zeros_like(self.success))
        per_robot = weights[:, kinds].T  # (robots, levels)
        has = per_robot.sum(dim=1) > 0
        drawn = torch.full((kinds.numel(),), -1, dtype=torch.long, device=kinds.device)
        if has.any():
            drawn[has] = torch.multinomial(per_robot[has], 1).squeeze(1)
        return drawn

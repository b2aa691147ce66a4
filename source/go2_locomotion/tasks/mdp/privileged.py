"""Privileged observation terms: what the simulator knows and a Go2's ``LowState`` does not (critic inputs only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from isaaclab.managers import ManagerTermBase, SceneEntityCfg

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv


def feet_contact_force(env: ManagerBasedRLEnv, sensor_cfg: SceneEntityCfg) -> torch.Tensor:
    """Magnitude of the net contact force on each body of ``sensor_cfg`` ``[N, bodies]`` [N] (latest physics step)."""
    sensor = env.scene.sensors[sensor_cfg.name]
    return torch.linalg.norm(sensor.data.net_forces_w.torch[:, sensor_cfg.body_ids], dim=-1)


class body_mass_offset(ManagerTermBase):
    """Mass of each body of ``asset_cfg`` minus its mass when the environment was made ``[N, bodies]`` [kg]: what the
    start-up mass randomisation added (a class term: it keeps the masses it saw first)."""

    def __init__(self, cfg, env: ManagerBasedRLEnv):
        super().__init__(cfg, env)
        asset_cfg: SceneEntityCfg = cfg.params["asset_cfg"]
        self._nominal = env.scene[asset_cfg.name].data.body_mass.torch[:, asset_cfg.body_ids].clone()

    def reset(self, env_ids=None) -> None:
        """Nothing per episode: the masses change only at start-up."""

    def __call__(self, env: ManagerBasedRLEnv, asset_cfg: SceneEntityCfg) -> torch.Tensor:
        return env.scene[asset_cfg.name].data.body_mass.torch[:, asset_cfg.body_ids] - self._nominal

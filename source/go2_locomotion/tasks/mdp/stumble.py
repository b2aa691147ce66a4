"""A foot that strikes a riser instead of stepping on a tread (``presets=stumble``).

On stairs a swing foot that does not clear the next step hits the riser's face: the contact force on it is mostly
horizontal. legged_gym (Rudin et al. 2022) and the parkour policies built on it charge a robot whenever a foot's
horizontal contact force exceeds ``ratio`` times its vertical one; a foot standing on a tread or on flat ground
pushes mostly down and is not charged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv
    from isaaclab.managers import SceneEntityCfg


def feet_stumble(env: ManagerBasedRLEnv, sensor_cfg: SceneEntityCfg, ratio: float = 5.0) -> torch.Tensor:
    """1 for a robot any of whose feet (``sensor_cfg``'s bodies) pushes horizontally more than ``ratio`` times
    vertically (latest physics step), else 0 ``[N]``."""
    forces = env.scene.sensors[sensor_cfg.name].data.net_forces_w.torch[:, sensor_cfg.body_ids]
    horizontal = torch.linalg.norm(forces[..., :2], dim=-1)
    return (horizontal > ratio * forces[..., 2].abs()).any(dim=-1).float()

"""Go2-Flat: Go2-Rough on a plane, without the height scanner and the terrain curriculum.

The proprioceptive core (observation terms, the trot clock and its stand rule, the rewards) is Go2-Rough's, so a
gait learnt on one carries to the other; the flat policy observation is the first 50 inputs of the rough one.
"""

from __future__ import annotations

from isaaclab.managers import RewardTermCfg as RewTerm
from isaaclab.utils import configclass
from isaaclab_tasks.utils import preset

from ..assets.go2 import GROUND_USD
from . import mdp
from .velocity_env_cfg import NO_LIN_VEL, PRIVILEGED_CRITIC, Go2RoughEnvCfg


@configclass
class Go2FlatEnvCfg(Go2RoughEnvCfg):
    """Go2-Flat: velocity tracking on an infinite plane; policy observation ``[N, 50]`` (``[N, 47]`` without the trunk
    linear velocity: ``presets=no_lin_vel``, :data:`~.velocity_env_cfg.NO_LIN_VEL`)."""

    def __post_init__(self):
        super().__post_init__()
        # A plane keeps at most the 4 feet and a fallen trunk in contact: small per-env solver buffers.
        newton_mjwarp = self.sim.physics.newton_mjwarp
        newton_mjwarp.solver_cfg.njmax = 65
        newton_mjwarp.solver_cfg.nconmax = 35
        self.sim.physics.default = newton_mjwarp

        self.scene.terrain.terrain_type = "usd"
        self.scene.terrain.usd_path = GROUND_USD  # its material is the file's: Isaac Lab's USD terrain applies none
        self.scene.terrain.terrain_generator = None
        self.scene.terrain.visual_material = None
        self.scene.height_scanner = None
        self.observations.policy.height_scan = None
        policy = self.observations.policy
        policy.base_lin_vel = preset(default=policy.base_lin_vel, **{NO_LIN_VEL: None})
        # the privileged critic group (presets=privileged_critic), a preset until the command line resolves it
        getattr(self.observations.critic, PRIVILEGED_CRITIC).height_scan = None
        self.curriculum.terrain_levels = None

        # Trunk height is measured from the plane (z = 0) rather than from a height scan.
        self.rewards.base_height_l2.params["sensor_cfg"] = None
        self.rewards.flat_orientation_l2 = RewTerm(func=mdp.flat_orientation_l2, weight=-2.5)

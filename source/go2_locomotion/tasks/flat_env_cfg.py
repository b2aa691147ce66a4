"""Go2-Flat: Go2-Rough on a plane, without the height scanner and the terrain curriculum, with a trot clock."""

from __future__ import annotations

from isaaclab.managers import ObservationTermCfg as ObsTerm
from isaaclab.managers import RewardTermCfg as RewTerm
from isaaclab.managers import SceneEntityCfg
from isaaclab.utils import configclass

from ..assets.go2 import GROUND_USD
from ..assets.go2_description import FOOT_BODIES
from . import mdp
from .velocity_env_cfg import Go2RoughEnvCfg

GAIT_PERIOD = 0.5
"""Trot cycle [s]: each foot 0.25 s in the air, 0.25 s on the ground (a 2 Hz trot); 25 policy steps."""

TROT_PAIRS = (("FL_foot", "RR_foot"), ("FR_foot", "RL_foot"))
"""Feet that move together in a trot: the diagonal pairs. The second pair is half a cycle behind the first."""

SWING_OFFSETS = tuple(0.0 if foot in TROT_PAIRS[0] else 0.5 for foot in FOOT_BODIES)
"""Cycle offset of each foot, in :data:`FOOT_BODIES` order."""

STANDING_COMMAND = 0.1
"""Command norm below which the clock asks for no step [m/s, rad/s]."""

STANDING_SHARE = 0.1
"""Share of the environments told to stand still at each command draw [-] (Isaac Lab's default: 0.02). With the
clock running whatever the command, 2 % left standing undertrained: the walking run's policy drifted at 0.19 m/s
when told to stand (docs/learning.md)."""


@configclass
class Go2FlatEnvCfg(Go2RoughEnvCfg):
    """Go2-Flat: velocity tracking on an infinite plane; policy observation ``[N, 50]``."""

    def __post_init__(self):
        super().__post_init__()
        # A plane keeps at most the 4 feet and a fallen trunk in contact: small per-env solver buffers.
        newton_mjwarp = self.sim.physics.newton_mjwarp
        newton_mjwarp.solver_cfg.njmax = 65
        newton_mjwarp.solver_cfg.nconmax = 35
        self.sim.physics.default = newton_mjwarp

        self.scene.terrain.terrain_type = "usd"
        self.scene.terrain.usd_path = GROUND_USD
        self.scene.terrain.terrain_generator = None
        self.scene.terrain.visual_material = None
        self.scene.height_scanner = None
        self.observations.policy.height_scan = None
        self.curriculum.terrain_levels = None

        # Trunk height is measured from the plane (z = 0) rather than from a height scan.
        self.rewards.base_height_l2.params["sensor_cfg"] = None
        self.rewards.flat_orientation_l2 = RewTerm(func=mdp.flat_orientation_l2, weight=-2.5)

        # Trot clock: without it the policy's mean action held a static pose and the robots moved only through
        # the exploration noise (docs/learning.md); with it the mean can step in time with the clock, and the
        # reward pays for feet in the air when the clock says so (standing scores 0; an earlier version that also
        # paid for feet on the ground scored standing at half the maximum, and the policy stood). Isaac Lab's
        # feet_air_time pays only for steps longer than 0.5 s.
        self.observations.policy.gait_phase = ObsTerm(func=mdp.gait_phase, params={"period": GAIT_PERIOD})
        self.rewards.feet_air_time = None
        self.commands.base_velocity.rel_standing_envs = STANDING_SHARE
        self.rewards.trot = RewTerm(
            func=mdp.trot_swing,
            weight=2.0,
            params={
                "period": GAIT_PERIOD,
                "swing_offsets": SWING_OFFSETS,
                "command_name": "base_velocity",
                "command_threshold": STANDING_COMMAND,
                "sensor_cfg": SceneEntityCfg("contact_forces", body_names=list(FOOT_BODIES), preserve_order=True),
            },
        )

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
"""Command norm at or below which the robot is told to stand [m/s, rad/s together]: the clock reads [0, 0] and the
rewards ask for four feet down and the standing pose instead of a step."""

STANDING_SHARE = 0.1
"""Share of the environments told to stand still at each command draw [-] (Isaac Lab's default, 0.02, left
standing undertrained: docs/learning.md)."""

FEET = SceneEntityCfg("contact_forces", body_names=list(FOOT_BODIES), preserve_order=True)
"""The four feet's contact sensors, in :data:`FOOT_BODIES` order."""

TOLD_TO_STAND = {"command_name": "base_velocity", "command_threshold": STANDING_COMMAND}
"""The stand rule's parameters, shared by the rewards that depend on it."""


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

        # Trot clock: without it the policy's mean action held a static pose (docs/learning.md). It stops at a
        # standing command, where the rewards pay for four feet down and the standing pose instead of a step.
        self.observations.policy.gait_phase = ObsTerm(
            func=mdp.gait_phase,
            params={"period": GAIT_PERIOD, "command_name": "base_velocity", "standing_command": STANDING_COMMAND},
        )
        self.rewards.feet_air_time = None
        self.commands.base_velocity.rel_standing_envs = STANDING_SHARE
        self.rewards.trot = RewTerm(
            func=mdp.trot_swing,
            weight=2.0,
            params={"period": GAIT_PERIOD, "swing_offsets": SWING_OFFSETS, "sensor_cfg": FEET, **TOLD_TO_STAND},
        )
        self.rewards.feet_down_standing = RewTerm(
            func=mdp.feet_down_standing, weight=1.0, params={"sensor_cfg": FEET, **TOLD_TO_STAND}
        )
        self.rewards.standing_joint_deviation_l1 = RewTerm(
            func=mdp.standing_joint_deviation_l1, weight=-0.5, params=dict(TOLD_TO_STAND)
        )

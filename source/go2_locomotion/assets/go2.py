"""Isaac Lab configuration of the Go2: articulation, DC-motor actuators, standing pose, offline ground plane.

All actuator and pose figures of the Go2 live here; its geometry and mass live in :mod:`go2_description`.
"""

from __future__ import annotations

import re
from pathlib import Path

import isaaclab.sim as sim_utils
from isaaclab.actuators import DCMotorCfg
from isaaclab.assets import ArticulationCfg
from isaaclab.utils import configclass
from isaaclab.utils.assets import ISAACLAB_NUCLEUS_DIR
from isaaclab_newton.sim.schemas import NewtonArticulationCfg
from isaaclab_physx.sim.schemas import PhysxArticulationCfg, PhysxRigidBodyCfg

from ..compat import ovphysx_cylinders
from . import go2_description, go2_usd
from .go2_description import BODY_NAMES, JOINT_NAMES

SPAWN_HEIGHT = 0.4
"""Height of the trunk origin when an episode starts [m]; the feet then drop about 7 cm to the ground."""

STANDING_JOINT_POS = {
    ".*L_hip_joint": 0.1,
    ".*R_hip_joint": -0.1,
    "F[L,R]_thigh_joint": 0.8,
    "R[L,R]_thigh_joint": 1.0,
    ".*_calf_joint": -1.5,
}
"""Default (standing) joint positions [rad]; actions are offsets from these."""

STANDING_BASE_HEIGHT = go2_description.standing_height(
    {name: value for name in JOINT_NAMES for key, value in STANDING_JOINT_POS.items() if re.fullmatch(key, name)}
)
"""Trunk height above flat ground in the standing pose [m], from the kinematics: the 0.213 m thigh and calf at
the pose above span 0.300 m (front) and 0.291 m (rear) below the trunk; their mean plus the 0.022 m foot radius
is 0.318 m."""

EFFORT_LIMIT = {".*_hip_joint": 23.7, ".*_thigh_joint": 23.7, ".*_calf_joint": 45.43}
"""Peak joint torque [N m]; the calf sits behind an extra knee reduction."""

VELOCITY_LIMIT = 30.0
"""Joint speed limit [rad/s]."""

STIFFNESS = 25.0
"""PD position gain Kp [N m/rad]."""

DAMPING = 0.5
"""PD velocity gain Kd [N m s/rad]."""

HOSTED_GO2_USD = f"{ISAACLAB_NUCLEUS_DIR}/Robots/Unitree/Go2/go2.usd"
"""Isaac Lab's hosted Go2 asset (downloaded at run time). Select it with
``env.scene.robot.spawn.usd_path=<this URL>``; the default is the offline asset built from this package."""

GROUND_USD = str(Path(__file__).parent / "data" / "ground_plane.usda")
"""A collision plane with a physics material, shipped with the package so flat ground needs no download."""


def spawn_go2(prim_path: str, cfg: sim_utils.UsdFileCfg, translation=None, orientation=None, **kwargs):
    """Spawn the Go2 from USD. A config naming the offline asset (:data:`go2_usd.OFFLINE_USD`) spawns the file in
    the cache folder in force now, built there first when missing or incomplete; any other ``usd_path`` is
    spawned as given.

    Same contract as :func:`isaaclab.sim.spawners.from_files.spawn_from_usd`.
    """
    # Imported here, not at module level: Isaac Lab's spawners load USD (pxr), which must not happen before Kit
    # starts inside Isaac Sim; loading the task configs stays free of pxr, as Isaac Lab's own configs are.
    from isaaclab.sim import SimulationContext
    from isaaclab.sim.spawners.from_files import spawn_from_usd

    # the Go2's cylinder colliders can hang OvPhysX's CPU step on rough terrain (an upstream bug, see the module)
    ovphysx_cylinders.use_convex_mesh_cylinders(SimulationContext.instance())
    resolved = go2_usd.resolve_usd_path(cfg.usd_path)
    if resolved != cfg.usd_path:
        cfg = cfg.replace(usd_path=resolved)
    return spawn_from_usd(prim_path, cfg, translation, orientation, **kwargs)


@configclass
class Go2UsdFileCfg(sim_utils.UsdFileCfg):
    """USD spawn settings whose spawner builds the offline Go2 asset on first use."""

    func: str = f"{__name__}:spawn_go2"


GO2_CFG = ArticulationCfg(
    spawn=Go2UsdFileCfg(
        usd_path=go2_usd.OFFLINE_USD,
        activate_contact_sensors=True,
        rigid_props=PhysxRigidBodyCfg(
            disable_gravity=False,
            retain_accelerations=False,
            linear_damping=0.0,
            angular_damping=0.0,
            max_linear_velocity=1000.0,
            max_angular_velocity=1000.0,
            max_depenetration_velocity=1.0,
        ),
        articulation_props=[
            PhysxArticulationCfg(
                enabled_self_collisions=False, solver_position_iteration_count=4, solver_velocity_iteration_count=0
            ),
            NewtonArticulationCfg(self_collision_enabled=False),
        ],
    ),
    init_state=ArticulationCfg.InitialStateCfg(
        pos=(0.0, 0.0, SPAWN_HEIGHT), joint_pos=STANDING_JOINT_POS, joint_vel={".*": 0.0}
    ),
    soft_joint_pos_limit_factor=0.9,
    # Newton enumerates the joints leg by leg, PhysX joint type by joint type: pinning the public order makes a
    # policy trained on one backend read and drive the same joints on the other. On Newton this is its native
    # order, so no permutation runs there.
    joint_ordering=JOINT_NAMES,
    # Bodies likewise (PhysX lists them level by level: base, four hips, four thighs, ...), so per-body buffers
    # (contact forces, poses, masses) index the same bodies on both backends.
    body_ordering=BODY_NAMES,
    actuators={
        "legs": DCMotorCfg(
            joint_names_expr=[".*_hip_joint", ".*_thigh_joint", ".*_calf_joint"],
            actuator_effort_limit=EFFORT_LIMIT,
            saturation_effort=EFFORT_LIMIT,
            actuator_velocity_limit=VELOCITY_LIMIT,
            stiffness=STIFFNESS,
            damping=DAMPING,
            friction=0.0,
        ),
    },
)
"""The Go2 with DC-motor actuators on its 12 leg joints, spawned from the offline asset."""

"""Isaac Lab configuration of the Go2: articulation, DC-motor actuators, standing pose, offline ground plane.

The actuator is built here from the motor and joint figures of :mod:`go2_motors` (each with its source;
docs/robot_model.md puts them beside Unitree's); the pose, delay and payload figures live here; the geometry and
mass in :mod:`go2_description`.
"""

from __future__ import annotations

from pathlib import Path

import isaaclab.sim as sim_utils
from isaaclab.actuators import DCMotorCfg
from isaaclab.assets import ArticulationCfg
from isaaclab.utils import configclass
from isaaclab.utils.assets import ISAACLAB_NUCLEUS_DIR
from isaaclab_newton.sim.schemas import NewtonArticulationCfg
from isaaclab_physx.sim.schemas import PhysxArticulationCfg, PhysxRigidBodyCfg
from isaaclab_tasks.utils import preset

from ..compat import ovphysx_cylinders
from . import go2_description, go2_usd
from .go2_description import BODY_NAMES, JOINT_NAMES
from .go2_motors import (
    ARMATURE,
    EFFORT_LIMIT,
    JOINT_FRICTION,
    JOINT_VISCOUS_FRICTION,
    MOTOR_NO_LOAD_SPEED,
    SATURATION_EFFORT,
    VELOCITY_LIMIT,
)

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

STANDING_BASE_HEIGHT = go2_description.standing_height(go2_description.joint_values(STANDING_JOINT_POS))
"""Trunk height above flat ground in the standing pose [m], from the kinematics: the 0.213 m thigh and calf at
the pose above span 0.300 m (front) and 0.291 m (rear) below the trunk; their mean plus the 0.022 m foot radius
is 0.318 m."""

REAL_GO2 = "real_go2"
"""The preset (``presets=real_go2``) that gives the tasks the Go2 as Unitree specifies it: this module's torque-speed
curve, rotor inertia and joint friction, the targets' delay, and the randomisation a real robot needs
(``tasks/velocity_env_cfg.py``). docs/robot_model.md lists every figure and its source."""

FIRST_GO2 = "first_go2"
"""The preset (``presets=first_go2``) of the package's first Go2: stall torque = peak torque, 30 rad/s at every
joint, no rotor inertia, no joint friction, no delay, friction and trunk mass the only randomisation. The policies
shipped before issue 55 were trained on it (docs/learning.md keeps their figures)."""

DEFAULT_ROBOT = REAL_GO2
"""The robot a task gets without a robot preset (:data:`FIRST_GO2` or :data:`REAL_GO2`): the real Go2 since the three
policies trained on it shipped (issue 55); either stays selectable by name (``presets=first_go2``)."""


def per_robot(*, first, real):
    """A figure that differs between the two Go2 models, as an Isaac Lab preset: ``presets=first_go2`` selects
    ``first``, ``presets=real_go2`` ``real``, no robot preset :data:`DEFAULT_ROBOT`'s."""
    alternatives = {FIRST_GO2: first, REAL_GO2: real}
    return preset(default=alternatives[DEFAULT_ROBOT], **alternatives)


STIFFNESS = 25.0
"""PD position gain Kp [N m/rad]."""

DAMPING = 0.5
"""PD velocity gain Kd [N m s/rad]."""

ACTION_DELAY_S = (0.0, 0.040)
"""Delay of the joint targets, drawn per robot at each reset [s]: 0-40 ms. A Go2 holds 10-20 ms from its state to its
motors (one DDS round trip and the policy's compute); HIMLoco trains a Go2 with 0-15 ms, walk-these-ways with a fixed
30 ms. The range reaches twice the robot's because a Go2-Flat fine-tuned with 0-20 ms fell 5 of 52 times at 40 ms
(docs/robot_model.md): a Wi-Fi hop or a slow policy computer must not topple it. The action term applies it
(``tasks/mdp/delayed_action.py``): Isaac Lab's delayed actuator is an ideal PD, and fixed under Newton-native
actuators."""

PAYLOAD_RANGE = (-1.0, 7.0)
"""Mass added to the trunk at start-up [kg]: up to Unitree's published Go2 payload (about 7 kg), and down by 1 kg
for a lighter build or battery (the trunk is 6.92 kg of the robot's 15.2)."""

CLIMBABLE = "climbable"
"""The preset (``presets=real_go2,climbable``) that narrows the real Go2's randomisation to the bodies that climb 18 cm
stairs: the shipped Go2-Rough climbed 18 cm up in 0.52 of 64 robots nominal and in 0.05 / 0.12 / 0.00 / 0.27 at 40 ms
of delay, 6 kg of payload, friction 0.3 and gains x0.8 (docs/learning.md, *What the real Go2's randomisation costs
on stairs*): trained with the full ranges, the robots that cannot climb fill the top rows and the curriculum
demotes them. Its ranges: :data:`CLIMBABLE_ACTION_DELAY_S`, :data:`CLIMBABLE_PAYLOAD_RANGE` and the friction and
gain ranges of ``tasks/velocity_env_cfg.py``."""

CLIMBABLE_ACTION_DELAY_S = (0.0, 0.020)
"""The targets' delay with ``presets=climbable`` [s]: 0-20 ms, what a Go2 holds (:data:`ACTION_DELAY_S`); 20 ms cost
the 18 cm stairs nothing, 40 ms all but 5 % of them."""

CLIMBABLE_PAYLOAD_RANGE = (-1.0, 3.0)
"""The trunk's payload with ``presets=climbable`` [kg]: 3 kg cost the 18 cm stairs 0.52 -> 0.44 (intervals
overlapping), 6 kg 0.52 -> 0.12."""

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
        # The figures above on the real Go2 (REAL_GO2), none on the package's first (FIRST_GO2)
        "legs": DCMotorCfg(
            joint_names_expr=[".*_hip_joint", ".*_thigh_joint", ".*_calf_joint"],
            actuator_effort_limit=EFFORT_LIMIT,
            saturation_effort=per_robot(first=EFFORT_LIMIT, real=SATURATION_EFFORT),
            actuator_velocity_limit=per_robot(first=MOTOR_NO_LOAD_SPEED, real=VELOCITY_LIMIT),
            stiffness=STIFFNESS,
            damping=DAMPING,
            armature=per_robot(first=None, real=ARMATURE),
            friction=per_robot(first=0.0, real=JOINT_FRICTION),
            dynamic_friction=per_robot(first=None, real=JOINT_FRICTION),
            viscous_friction=per_robot(first=None, real=JOINT_VISCOUS_FRICTION),
        ),
    },
)
"""The Go2 with DC-motor actuators on its 12 leg joints (with ``presets=real_go2``: Unitree's torque-speed curve,
rotor inertia and joint friction), spawned from the offline asset; the targets' 0-40 ms delay is the action term's
(:data:`ACTION_DELAY_S`)."""

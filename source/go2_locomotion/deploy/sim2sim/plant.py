"""The MuJoCo Go2 of the sim-to-sim check: this package's Go2 description on a floor plane, driven by joint
targets through a PD loop with the manifest's gains and DC-motor torque limits at the physics rate (``1 / sim_dt``),
each torque held over ``substeps`` MuJoCo steps as the training simulator does. How MuJoCo steps (substeps,
integrator, friction cone) and the friction come from the bundle's ``physics`` section (:func:`mujoco_settings`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from ...assets import go2_description as go2
from ..bundle import SDK2_JOINT_ORDER, Bundle
from ..controller import RobotState, projected_gravity_from_quat

FALL_GRAVITY_Z = -0.5
"""A robot whose projected gravity z rises above this (tilt beyond 60 deg) has fallen."""

FALL_BASE_HEIGHT = 0.15
"""A trunk below this height above the floor [m] has fallen."""

_SCAN_GROUP = 3
"""MuJoCo geom group of the floor; height-scan rays see only this group."""


@dataclass(frozen=True)
class MujocoSettings:
    """How the MuJoCo model is stepped and how its contacts rub."""

    substeps: int
    """MuJoCo steps per physics step (``timing.sim_dt``); each PD torque is held over them."""
    integrator: str
    """MuJoCo integrator: ``euler``, ``rk4``, ``implicit`` or ``implicitfast``."""
    cone: str
    """Friction cone: ``pyramidal`` or ``elliptic``."""
    friction: float
    """Sliding friction of every geom, floor included (MuJoCo takes the larger of the two geoms') [-]."""


UNRECORDED = MujocoSettings(substeps=2, integrator="implicitfast", cone="pyramidal", friction=0.8)
"""Values for what a bundle's ``deploy.yaml`` does not record: bundles exported before the manifest carried
them (the Go2 tasks' Newton preset then: 2 substeps, ``implicitfast``, pyramidal cones; the robot's static
friction 0.8), and engines without such a setting (PhysX has no MuJoCo integrator)."""


def mujoco_settings(bundle: Bundle, substeps: int | None = None) -> MujocoSettings:
    """The bundle's recorded physics (``physics.substeps``, ``physics.integrator``, ``physics.cone``, the mean of
    ``physics.robot_friction.static``), :data:`UNRECORDED` for what it lacks; ``substeps`` overrides the bundle's.

    Raises:
        ValueError: ``substeps`` is not a positive integer.
    """
    physics = bundle.manifest.get("physics") or {}
    if substeps is None:
        substeps = physics.get("substeps") or UNRECORDED.substeps
    if isinstance(substeps, bool) or not isinstance(substeps, int) or substeps < 1:
        raise ValueError(f"substeps must be a positive integer, got {substeps}")
    static = (physics.get("robot_friction") or {}).get("static")
    return MujocoSettings(
        substeps=substeps,
        integrator=physics.get("integrator") or UNRECORDED.integrator,
        cone=physics.get("cone") or UNRECORDED.cone,
        friction=float(np.mean(static)) if static else UNRECORDED.friction,
    )


def build_model(
    bundle: Bundle, settings: MujocoSettings, base_height: float | None = None
) -> tuple[mujoco.MjModel, mujoco.MjData]:
    """The Go2 description on a floor plane, stepped as ``settings`` say (time step ``sim_dt / substeps``), in
    the manifest's default pose, its trunk origin at ``base_height`` [m] or, when ``None``, with its feet on the
    floor."""
    spec = go2.build_spec(spawn_height=0.0)
    spec.option.timestep = float(bundle.field("timing.sim_dt")) / settings.substeps
    spec.option.integrator = getattr(mujoco.mjtIntegrator, f"mjINT_{settings.integrator.upper()}")
    spec.option.cone = getattr(mujoco.mjtCone, f"mjCONE_{settings.cone.upper()}")
    for geom in spec.geoms:
        geom.friction[0] = settings.friction
    # Looks only (no effect on the physics): a checkered floor that shows the motion, a light, a robot colour.
    spec.add_texture(
        name="checker",
        type=mujoco.mjtTexture.mjTEXTURE_2D,
        builtin=mujoco.mjtBuiltin.mjBUILTIN_CHECKER,
        rgb1=[0.32, 0.36, 0.42],
        rgb2=[0.22, 0.25, 0.3],
        width=256,
        height=256,
    )
    floor_look = spec.add_material(name="floor", texrepeat=[8, 8], reflectance=0.1)
    floor_look.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "checker"
    for geom in spec.geoms:
        geom.rgba = [0.85, 0.55, 0.2, 1.0]
    light = spec.worldbody.add_light(pos=[0, 0, 4], dir=[0, 0, -1], diffuse=[0.8, 0.8, 0.8])
    light.type = mujoco.mjtLightType.mjLIGHT_DIRECTIONAL
    spec.worldbody.add_geom(
        name="floor",
        type=mujoco.mjtGeom.mjGEOM_PLANE,
        size=[0, 0, 0.05],
        friction=[settings.friction, 0.005, 1e-4],
        group=_SCAN_GROUP,
        material="floor",
    )
    model = spec.compile()
    data = mujoco.MjData(model)
    default = dict(zip(bundle.field("joints.names"), bundle.joint_array("joints.default_position"), strict=True))
    for name, position in default.items():
        data.qpos[model.jnt_qposadr[model.joint(name).id]] = position
    mujoco.mj_kinematics(model, data)
    lowest = min(data.xpos[model.body(foot).id][2] for foot in go2.FOOT_BODIES)
    data.qpos[2] = go2.FOOT_RADIUS - lowest + 0.002 if base_height is None else base_height
    mujoco.mj_forward(model, data)
    return model, data


class Go2Plant:
    """The MuJoCo Go2 as the robot side sees it: state out and joint targets in, in SDK2 motor order.

    Args:
        bundle: The bundle whose timing, gains, torque limits and physics settings the plant uses.
        substeps: MuJoCo steps per physics step, each PD torque held over them; ``None``: the bundle's
            ``physics.substeps``.
        base_height: Initial trunk height [m]; ``None`` puts the feet on the floor.
    """

    def __init__(self, bundle: Bundle, substeps: int | None = None, base_height: float | None = None):
        self.settings = mujoco_settings(bundle, substeps)
        model, data = build_model(bundle, self.settings, base_height)
        self.model, self.data, self.substeps = model, data, self.settings.substeps
        self.decimation = int(bundle.field("timing.decimation"))
        to_sdk2 = bundle.sdk2_to_policy
        self.limits = {
            key: bundle.joint_array(f"actuators.{key}")[to_sdk2]
            for key in ("effort_limit", "saturation_effort", "velocity_limit")
        }
        joints = [model.joint(name) for name in SDK2_JOINT_ORDER]
        self.qpos_adr = np.array([model.jnt_qposadr[j.id] for j in joints])
        self.dof_adr = np.array([model.jnt_dofadr[j.id] for j in joints])
        self.base_id = model.body(go2.BASE_BODY).id
        self.base_geoms = {g for g in range(model.ngeom) if model.geom_bodyid[g] == self.base_id}
        self.floor_id = model.geom("floor").id
        scan = [t for t in bundle.field("observation.terms") if t["function"] == "height_scan"]
        self.scan = scan[0]["params"] if scan else None

    def rotation(self) -> np.ndarray:
        return self.data.xmat[self.base_id].reshape(3, 3)

    def base_lin_vel(self) -> np.ndarray:
        """``[3]`` velocity of the trunk's centre of mass in the trunk frame [m/s], as Isaac Lab observes it."""
        omega = self.data.qvel[3:6]  # a free joint's angular velocity is in the body frame
        return self.rotation().T @ self.data.qvel[0:3] + np.cross(omega, self.model.body_ipos[self.base_id])

    def state(self, command: np.ndarray) -> RobotState:
        d = self.data
        return RobotState(
            joint_pos=d.qpos[self.qpos_adr].copy(),
            joint_vel=d.qvel[self.dof_adr].copy(),
            base_ang_vel=d.qvel[3:6].copy(),
            base_quat=d.qpos[3:7].copy(),
            base_lin_vel=self.base_lin_vel(),
            command=command,
            height_scan=self.height_scan() if self.scan else None,
        )

    def height_scan(self) -> np.ndarray:
        """Scanner height above the floor at each scan point, rays cast straight down from yaw-aligned points."""
        rot = self.rotation()
        yaw = math.atan2(rot[1, 0], rot[0, 0])
        c, s = math.cos(yaw), math.sin(yaw)
        base = self.data.xpos[self.base_id]
        scanner_z = base[2] + self.scan["sensor_offset_z"]
        heights = []
        geomid = np.zeros(1, dtype=np.int32)
        groups = np.zeros(6, dtype=np.uint8)
        groups[_SCAN_GROUP] = 1
        for x, y in self.scan["points_xy"]:
            start = np.array([base[0] + c * x - s * y, base[1] + s * x + c * y, scanner_z + 20.0])
            distance = mujoco.mj_ray(self.model, self.data, start, np.array([0.0, 0.0, -1.0]), groups, 1, -1, geomid)
            heights.append(scanner_z - (start[2] - distance) if distance >= 0 else 0.0)
        return np.asarray(heights)

    def apply(self, joint_pos_target: np.ndarray, kp: np.ndarray, kd: np.ndarray) -> None:
        """Advance one policy step: ``decimation`` PD updates (SDK2 order), each held over ``substeps``."""
        for _ in range(self.decimation):
            q, qd = self.data.qpos[self.qpos_adr], self.data.qvel[self.dof_adr]
            self.data.qfrc_applied[self.dof_adr] = dc_motor_torque(
                joint_pos_target,
                q,
                qd,
                kp,
                kd,
                self.limits["effort_limit"],
                self.limits["saturation_effort"],
                self.limits["velocity_limit"],
            )
            for _ in range(self.substeps):
                mujoco.mj_step(self.model, self.data)

    def joint_torque(self) -> np.ndarray:
        """``[12]`` torque of the last PD update, SDK2 order [N m]."""
        return self.data.qfrc_applied[self.dof_adr].copy()

    def joint_limits(self) -> np.ndarray:
        """``[12, 2]`` joint position limits, SDK2 order [rad]."""
        return np.array([self.model.jnt_range[self.model.joint(name).id] for name in SDK2_JOINT_ORDER])

    def foot_contacts(self) -> np.ndarray:
        """``[4]`` whether each foot (FL, FR, RL, RR) touches the floor."""
        down = np.zeros(len(go2.FOOT_BODIES), dtype=bool)
        feet = {self.model.body(name).id: k for k, name in enumerate(go2.FOOT_BODIES)}
        for contact in self.data.contact[: self.data.ncon]:
            if self.floor_id in (contact.geom1, contact.geom2):
                other = contact.geom2 if contact.geom1 == self.floor_id else contact.geom1
                k = feet.get(int(self.model.geom_bodyid[other]))
                if k is not None:
                    down[k] = True
        return down

    def foot_velocities_xy(self) -> np.ndarray:
        """``[4, 2]`` horizontal velocity of each foot's origin in the world [m/s]."""
        velocity = np.zeros(6)
        out = []
        for name in go2.FOOT_BODIES:
            mujoco.mj_objectVelocity(
                self.model, self.data, mujoco.mjtObj.mjOBJ_BODY, self.model.body(name).id, velocity, 0
            )
            out.append(velocity[3:5].copy())  # [angular, linear], world frame
        return np.asarray(out)

    def is_down(self) -> bool:
        """Fallen: tilted beyond 60 deg, trunk below 0.15 m, or trunk touching the floor."""
        gravity = projected_gravity_from_quat(self.data.qpos[3:7])
        return bool(gravity[2] > FALL_GRAVITY_Z or self.data.qpos[2] < FALL_BASE_HEIGHT or self.base_touches_floor())

    def base_touches_floor(self) -> bool:
        for contact in self.data.contact[: self.data.ncon]:
            pair = {contact.geom1, contact.geom2}
            if self.floor_id in pair and pair & self.base_geoms:
                return True
        return False


def dc_motor_torque(target, q, qd, kp, kd, effort_limit, saturation, velocity_limit) -> np.ndarray:
    """PD torque clipped by Isaac Lab's DC-motor model: the available torque falls linearly with speed from
    ``saturation`` at rest to zero at ``velocity_limit``, and never exceeds ``effort_limit``."""
    torque = kp * (target - q) - kd * qd
    top = np.minimum(saturation * (1.0 - qd / velocity_limit), effort_limit)
    bottom = np.maximum(saturation * (-1.0 - qd / velocity_limit), -effort_limit)
    return np.clip(torque, bottom, top)

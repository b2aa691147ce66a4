"""The MuJoCo Go2 of the sim-to-sim check: this package's Go2 description on a floor plane or on a terrain cell
(:mod:`.terrain`), driven by joint targets through a PD loop with the manifest's gains and DC-motor torque limits at
the physics rate (``1 / sim_dt``), each torque held over ``substeps`` MuJoCo steps as the training simulator does.
How MuJoCo steps (substeps, integrator, friction cone) and the friction come from the bundle's ``physics`` section
(:func:`mujoco_settings`). A policy that observes a height scan reads it from MuJoCo ray casts (:mod:`.height_scan`).

Another MJCF Go2 may replace the description (:func:`load_model_file`): its joints and feet named as the
description's, its trunk whatever body carries the free joint (Unitree's ``go2.xml`` calls it ``base_link``), each
foot's contact sphere on the foot body or, as in Unitree's model, on the calf at the foot body's origin
(:func:`foot_geoms`). Unitree's model names its joints and feet as the description does, so no name is mapped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

from ..assets import go2_description as go2
from ..robot.bundle import SDK2_JOINT_ORDER, Bundle
from ..robot.observations import projected_gravity_from_quat
from ..robot.state import RobotState
from .height_scan import HeightSource, MujocoHeightScan, ScanPattern
from .terrain import TerrainGeometry

FALL_GRAVITY_Z = -0.5
"""A robot whose projected gravity z rises above this (tilt beyond 60 deg) has fallen."""

FALL_BASE_HEIGHT = 0.15
"""A trunk below this height above the ground under it [m] has fallen."""

GROUND_GROUP = 3
"""MuJoCo geom group of the ground (the floor plane or a terrain's geoms); height-scan rays see only this group."""

HIDDEN_ROBOT_GROUP = 4
"""Where a model file's robot geoms in :data:`GROUND_GROUP` go when the model keeps visual geoms to draw (Unitree's
``go2.xml`` puts its collision geoms in group 3, hidden by MuJoCo's viewer, behind its meshes); without visual
geoms they go to group 0, drawn. Only the ground stays in :data:`GROUND_GROUP`, so rays never hit the robot."""


@dataclass(frozen=True)
class ModelFile:
    """An MJCF Go2 as loaded for the plant (:func:`load_model_file`)."""

    spec: mujoco.MjSpec
    """The model, its missing visual meshes dropped, its robot geoms out of :data:`GROUND_GROUP`."""
    notes: tuple[str, ...]
    """One line each on what loading changed (visual meshes dropped), for the user."""


def _mesh_path(spec: mujoco.MjSpec, mesh) -> Path:
    """Where MuJoCo looks for ``mesh``'s file: the file itself if absolute, else under the compiler's ``meshdir``
    (relative to the model file's folder unless absolute)."""
    file = Path(mesh.file)
    if file.is_absolute():
        return file
    return Path(spec.modelfiledir) / (spec.compiler.meshdir or "") / file


def load_model_file(path: Path) -> ModelFile:
    """The MJCF Go2 at ``path`` as the plant simulates it. Mesh files that are missing (Unitree's ``go2.xml`` without
    unitree_mujoco's ``assets`` folder) are dropped with the geoms that draw them when those geoms do not collide
    (``contype`` and ``conaffinity`` 0: Unitree's ``visual`` class; its collision geoms are primitives), so the
    physics is the model's; the robot's geoms in :data:`GROUND_GROUP` move out of it (:data:`HIDDEN_ROBOT_GROUP`).

    Raises:
        ValueError: One line naming the file and what is wrong: unreadable (MuJoCo's message), or a missing mesh
            file that a colliding geom needs, and what to do.
    """
    try:
        spec = mujoco.MjSpec.from_file(str(path))
    except ValueError as error:  # MuJoCo's own message: no such file, a bad element
        raise ValueError(f"--model {path}: {' '.join(str(error).split())}") from None
    missing = {}
    for mesh in spec.meshes:
        if mesh.file and not _mesh_path(spec, mesh).is_file():
            missing[mesh.name or Path(mesh.file).stem] = mesh  # MuJoCo names an unnamed mesh after its file
    notes = []
    if missing:
        drawn = [g for g in spec.geoms if g.type == mujoco.mjtGeom.mjGEOM_MESH and g.meshname in missing]
        colliding = [g for g in drawn if g.contype or g.conaffinity]
        if colliding:
            mesh = missing[colliding[0].meshname]
            raise ValueError(
                f"--model {path}: mesh file {_mesh_path(spec, mesh)} not found, and a colliding geom uses it: put the "
                "model's mesh files there (unitree_mujoco: its assets folder next to go2.xml) or fix the compiler's "
                "meshdir"
            )
        first = _mesh_path(spec, next(iter(missing.values())))
        for element in (*drawn, *missing.values()):
            spec.delete(element)
        notes.append(
            f"visual meshes not found ({first} and {len(missing) - 1} more): simulating without them; their geoms "
            "do not collide, so the physics is the model's (for the looks, put the model's mesh folder there)"
        )
    visual = any(not (g.contype or g.conaffinity) for g in spec.geoms)
    world = {id(g) for g in spec.worldbody.geoms}
    for geom in spec.geoms:
        if geom.group == GROUND_GROUP and id(geom) not in world:
            geom.group = HIDDEN_ROBOT_GROUP if visual else 0
    return ModelFile(spec, tuple(notes))


def trunk_body(model: mujoco.MjModel) -> int:
    """The body on the model's first free joint: the trunk, whatever its name (``base`` in the description,
    ``base_link`` in Unitree's ``go2.xml``).

    Raises:
        ValueError: The model has no free joint.
    """
    free = np.flatnonzero(model.jnt_type == mujoco.mjtJoint.mjJNT_FREE)
    if not len(free):
        raise ValueError("the model has no free joint: the trunk must float")
    return int(model.jnt_bodyid[free[0]])


def foot_geoms(model: mujoco.MjModel) -> np.ndarray:
    """``[4]`` each foot's contact sphere, in :data:`go2.FOOT_BODIES` order: the colliding sphere on the foot body,
    or, when the foot body carries none (Unitree's ``go2.xml``), the colliding sphere on its parent (the calf)
    whose centre lies within its radius of the foot body's origin.

    Raises:
        ValueError: A foot body is missing or has no such sphere; the message names it.
    """
    colliding = (model.geom_contype != 0) | (model.geom_conaffinity != 0)
    spheres = np.flatnonzero(colliding & (model.geom_type == mujoco.mjtGeom.mjGEOM_SPHERE))
    found = []
    for name in go2.FOOT_BODIES:
        foot = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
        if foot < 0:
            raise ValueError(f"no body {name}")
        parent = int(model.body_parentid[foot])
        own = [g for g in spheres if model.geom_bodyid[g] == foot]
        near = [
            g
            for g in spheres
            if model.geom_bodyid[g] == parent
            and np.linalg.norm(model.geom_pos[g] - model.body_pos[foot]) <= model.geom_size[g, 0]
        ]
        if not (own or near):
            raise ValueError(f"body {name} has no colliding sphere, on it or at its origin on its parent")
        found.append(int((own or near)[0]))
    return np.array(found)


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


def set_joint_dynamics(spec: mujoco.MjSpec, bundle: Bundle) -> None:
    """Give each joint of ``spec`` the rotor inertia (``armature``), Coulomb friction (``frictionloss``) and viscous
    friction (``damping``) the bundle's policy was trained with
    (:meth:`~go2_locomotion.robot.bundle.Bundle.joint_dynamics`; zeros for a bundle that records none, as its Go2 had
    none)."""
    dynamics = bundle.joint_dynamics()
    for k, name in enumerate(bundle.field("joints.names")):
        joint = spec.joint(name)
        joint.armature = float(dynamics["armature"][k])
        joint.frictionloss = float(dynamics["friction"][k])
        joint.damping[0] = float(dynamics["viscous_friction"][k])  # a hinge's one damping coefficient


def build_model(
    bundle: Bundle,
    settings: MujocoSettings,
    base_height: float | None = None,
    terrain: TerrainGeometry | None = None,
    model_file: Path | None = None,
) -> tuple[mujoco.MjModel, mujoco.MjData]:
    """The Go2 description (or the MJCF Go2 of ``model_file``, named as the description) on a floor plane (or on
    ``terrain``, starting at its origin), stepped as ``settings`` say (time step ``sim_dt / substeps``), in the
    manifest's default pose, its trunk origin ``base_height`` [m] above the floor (the terrain's origin) or, when
    ``None``, with its feet on it (the lowest foot body's origin a foot sphere's radius and 2 mm above it).

    Raises:
        ValueError: ``model_file`` cannot be loaded (:func:`load_model_file`) or lacks a foot sphere.
    """
    if model_file is None:
        spec = go2.build_spec(spawn_height=0.0)
        set_joint_dynamics(spec, bundle)
    else:  # a model file carries its own joints' rotor inertia and friction (Unitree's go2.xml: every joint's)
        spec = load_model_file(model_file).spec
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
    if terrain is None:
        spec.worldbody.add_geom(
            name="floor",
            type=mujoco.mjtGeom.mjGEOM_PLANE,
            size=[0, 0, 0.05],
            friction=[settings.friction, 0.005, 1e-4],
            group=GROUND_GROUP,
            material="floor",
        )
        start = np.zeros(3)
    else:
        terrain.add_to(spec, friction=settings.friction, group=GROUND_GROUP)
        start = terrain.origin
    model = spec.compile()
    data = mujoco.MjData(model)
    default = dict(zip(bundle.field("joints.names"), bundle.joint_array("joints.default_position"), strict=True))
    for name, position in default.items():
        data.qpos[model.jnt_qposadr[model.joint(name).id]] = position
    mujoco.mj_kinematics(model, data)
    # below the trunk origin (a model file may place its trunk above the world origin: Unitree's at 0.445 m)
    lowest = min(data.xpos[model.body(foot).id][2] for foot in go2.FOOT_BODIES) - data.qpos[2]
    radius = float(model.geom_size[foot_geoms(model), 0].max())  # the description's: go2.FOOT_RADIUS
    data.qpos[:2] = start[:2]
    data.qpos[2] = start[2] + (radius - lowest + 0.002 if base_height is None else base_height)
    mujoco.mj_forward(model, data)
    return model, data


class Go2Plant:
    """The MuJoCo Go2 as the robot side sees it: state out and joint targets in, in SDK2 motor order.

    Args:
        bundle: The bundle whose timing, gains, torque limits and physics settings the plant uses.
        substeps: MuJoCo steps per physics step, each PD torque held over them; ``None``: the bundle's
            ``physics.substeps``.
        base_height: Initial trunk height above the floor or the terrain's origin [m]; ``None`` puts the feet on it.
        terrain: The ground (:func:`.terrain.build_cell`); ``None``: a floor plane at z = 0. The robot starts at
            its origin.
        model_file: An MJCF Go2 to simulate instead of the description (:func:`load_model_file`): its joints and
            feet named as the description's, its trunk on the free joint; ``None``: the description.
    """

    def __init__(
        self,
        bundle: Bundle,
        substeps: int | None = None,
        base_height: float | None = None,
        terrain: TerrainGeometry | None = None,
        model_file: Path | None = None,
    ):
        self.settings = mujoco_settings(bundle, substeps)
        model, data = build_model(bundle, self.settings, base_height, terrain, model_file)
        self.model, self.data, self.substeps = model, data, self.settings.substeps
        self.decimation = int(bundle.field("timing.decimation"))
        self.dt_physics = float(bundle.field("timing.sim_dt"))
        """One PD update [s] (``timing.sim_dt``)."""
        self.delay = 0
        """Physics steps the joint targets reach the motors late (a robustness cell's latency); 0: on time."""
        self._targets: list[np.ndarray] = []
        to_sdk2 = bundle.sdk2_to_policy
        self.limits = {
            key: bundle.joint_array(f"actuators.{key}")[to_sdk2]
            for key in ("effort_limit", "saturation_effort", "velocity_limit")
        }
        joints = [model.joint(name) for name in SDK2_JOINT_ORDER]
        self.qpos_adr = np.array([model.jnt_qposadr[j.id] for j in joints])
        self.dof_adr = np.array([model.jnt_dofadr[j.id] for j in joints])
        self.base_id = trunk_body(model)
        self.base_geoms = {g for g in range(model.ngeom) if model.geom_bodyid[g] == self.base_id}
        self.ground_geoms = {g for g in range(model.ngeom) if model.geom_group[g] == GROUND_GROUP}
        self.foot_geoms = foot_geoms(model)
        """``[4]`` each foot's contact sphere, :data:`go2.FOOT_BODIES` order (FL, FR, RL, RR)."""
        pattern = ScanPattern.from_bundle(bundle)
        self.ground = MujocoHeightScan(model, data, pattern or ScanPattern(np.zeros((0, 2))), GROUND_GROUP)
        """The ground under the robot: its height anywhere, and the height scan when the policy observes one."""
        self.height_source: HeightSource | None = self.ground if pattern is not None else None
        """Where :meth:`state` reads the height scan, ``None`` when the policy observes none: MuJoCo's ground by
        default; any :class:`~.height_scan.HeightSource` may replace it (an elevation-map model, say)."""

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
            height_scan=self.height_scan() if self.height_source is not None else None,
        )

    def height_scan(self) -> np.ndarray:
        """``[P]`` trunk origin height above the ground at each scan point of the bundle's pattern [m]
        (:mod:`.height_scan`: yaw-aligned points, rays straight down)."""
        return (self.height_source or self.ground).heights(self.data.qpos[0:3], self.data.qpos[3:7])

    def base_height(self) -> float:
        """Trunk origin height above the ground straight under it [m] (``inf`` with no ground under it)."""
        x, y, z = self.data.qpos[0:3]
        return float(z - self.ground.ground_height(x, y, z + self.ground.pattern.ray_start_height))

    def apply(self, joint_pos_target: np.ndarray, kp: np.ndarray, kd: np.ndarray) -> None:
        """Advance one policy step: ``decimation`` PD updates (SDK2 order), each held over ``substeps``."""
        for _ in range(self.decimation):
            # the targets of `delay` PD updates ago (the oldest there is at the start)
            self._targets = [*self._targets, np.asarray(joint_pos_target)][-(self.delay + 1) :]
            q, qd = self.data.qpos[self.qpos_adr], self.data.qvel[self.dof_adr]
            self.data.qfrc_applied[self.dof_adr] = dc_motor_torque(
                self._targets[0],
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
        """``[4]`` whether each foot (FL, FR, RL, RR) touches the ground."""
        down = np.zeros(len(go2.FOOT_BODIES), dtype=bool)
        feet = {int(g): k for k, g in enumerate(self.foot_geoms)}
        for contact in self.data.contact[: self.data.ncon]:
            if contact.geom1 in self.ground_geoms or contact.geom2 in self.ground_geoms:
                other = contact.geom2 if contact.geom1 in self.ground_geoms else contact.geom1
                k = feet.get(int(other))
                if k is not None:
                    down[k] = True
        return down

    def foot_forces(self) -> np.ndarray:
        """``[4]`` world-vertical force on each foot's contact sphere (FL, FR, RL, RR) [N], the sum over its current
        contacts (each turned from its contact frame into the world); after a step's contacts are computed."""
        forces, force = np.zeros(len(self.foot_geoms)), np.zeros(6)
        feet = {int(g): k for k, g in enumerate(self.foot_geoms)}
        for i, contact in enumerate(self.data.contact[: self.data.ncon]):
            for geom, sign in ((contact.geom1, -1.0), (contact.geom2, 1.0)):  # the force acts on geom2 from geom1
                k = feet.get(int(geom))
                if k is not None:
                    mujoco.mj_contactForce(self.model, self.data, i, force)
                    forces[k] += sign * (contact.frame.reshape(3, 3).T @ force[:3])[2]
        return forces

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
        """Fallen: tilted beyond 60 deg, trunk below 0.15 m above the ground under it, or trunk touching the
        ground."""
        gravity = projected_gravity_from_quat(self.data.qpos[3:7])
        low = self.base_height() < FALL_BASE_HEIGHT
        return bool(gravity[2] > FALL_GRAVITY_Z or low or self.base_touches_floor())

    def _trunk_ground_contacts(self):
        """``(index, contact)`` of every current contact between the trunk and the ground."""
        for i, contact in enumerate(self.data.contact[: self.data.ncon]):
            pair = {contact.geom1, contact.geom2}
            if pair & self.ground_geoms and pair & self.base_geoms:
                yield i, contact

    def base_touches_floor(self) -> bool:
        """Whether the trunk touches the ground (the floor or the terrain)."""
        return next(self._trunk_ground_contacts(), None) is not None

    def base_contact_force(self) -> float:
        """Magnitude of the net force the ground exerts on the trunk [N] (0 without contact): the sum over the
        trunk-ground contacts, each turned from its contact frame into the world — what Isaac Lab's contact sensor
        reports as the trunk's net force and its task compares with the trunk-contact threshold."""
        total, force = np.zeros(3), np.zeros(6)
        for i, contact in self._trunk_ground_contacts():
            mujoco.mj_contactForce(self.model, self.data, i, force)
            # rows of contact.frame are the contact axes in the world; force[:3] is along them
            total += contact.frame.reshape(3, 3).T @ force[:3]
        return float(np.linalg.norm(total))


def dc_motor_torque(target, q, qd, kp, kd, effort_limit, saturation, velocity_limit) -> np.ndarray:
    """PD torque clipped by Isaac Lab's DC-motor model (:func:`dc_motor_clip`)."""
    return dc_motor_clip(kp * (target - q) - kd * qd, qd, effort_limit, saturation, velocity_limit)


def dc_motor_clip(torque, qd, effort_limit, saturation, velocity_limit) -> np.ndarray:
    """``torque`` within Isaac Lab's DC-motor model: the available torque falls linearly with speed from
    ``saturation`` at rest to zero at ``velocity_limit``, and never exceeds ``effort_limit``."""
    top = np.minimum(saturation * (1.0 - qd / velocity_limit), effort_limit)
    bottom = np.maximum(saturation * (-1.0 - qd / velocity_limit), -effort_limit)
    return np.clip(torque, bottom, top)

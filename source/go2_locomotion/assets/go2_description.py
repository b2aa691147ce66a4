"""The project's own Unitree Go2 description, built with MuJoCo's ``MjSpec``.

Every figure of the robot lives in this module: link offsets, masses, inertias, joint axes and ranges, and the
collision primitives. They follow Unitree's published Go2 figures (BSD-3 MuJoCo model); the text here is written
for this project. Figures are given once for the front-left leg; the other legs are mirrored, so a figure cannot
drift between legs.

The model has no visual meshes: collision primitives are also what a viewer draws. Nothing here touches the
network.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import mujoco
import numpy as np

MODEL_NAME = "go2"
"""Name of the MJCF model, and of the USD asset's default prim."""

BASE_BODY = "base"
"""Name of the trunk body (Isaac Lab's Go2 configuration calls it ``base``)."""

LEGS = ("FL", "FR", "RL", "RR")
"""Leg prefixes in the description's (depth-first) order."""

JOINT_NAMES = tuple(f"{leg}_{part}_joint" for leg in LEGS for part in ("hip", "thigh", "calf"))
"""The 12 actuated joints, depth-first: FL hip/thigh/calf, FR ..., RL ..., RR ...."""

FOOT_BODIES = tuple(f"{leg}_foot" for leg in LEGS)
"""Bodies that carry the foot spheres; contact sensing and air-time rewards read these."""

BODY_NAMES = (BASE_BODY,) + tuple(f"{leg}_{part}" for leg in LEGS for part in ("hip", "thigh", "calf", "foot"))
"""All 17 rigid bodies."""


@dataclass(frozen=True)
class Inertial:
    """Mass properties of one link in its body frame."""

    mass: float
    """Mass [kg]."""
    com: tuple[float, float, float]
    """Centre of mass [m]."""
    principal_quat: tuple[float, float, float, float]
    """Orientation (w, x, y, z) of the principal axes."""
    principal_moments: tuple[float, float, float]
    """Principal moments of inertia [kg m^2]."""


# --- trunk -------------------------------------------------------------------------------------------------------
TRUNK = Inertial(
    6.921, (0.021112, 0.0, -0.005366), (-0.000543471, 0.713435, -0.00173769, 0.700719), (0.107027, 0.0980771, 0.0244531)
)
TRUNK_BOX_HALF_SIZE = (0.1881, 0.04675, 0.057)
"""Main trunk collision box half extents [m]."""
HEAD_CYLINDER = (0.05, 0.045, (0.285, 0.0, 0.01))
"""Head collision cylinder: radius [m], half length [m], position [m] (axis along the trunk z)."""
HEAD_SPHERE = (0.047, (0.293, 0.0, -0.06))
"""Chin collision sphere: radius [m], position [m]."""

# --- front-left leg (others mirrored) ----------------------------------------------------------------------------
HIP_OFFSET = (0.1934, 0.0465, 0.0)
"""Hip joint position in the trunk frame [m]."""
THIGH_OFFSET = (0.0, 0.0955, 0.0)
"""Thigh joint position in the hip frame [m]."""
THIGH_LENGTH = 0.213
"""Thigh length: calf joint below the thigh joint [m]."""
CALF_LENGTH = 0.213
"""Calf length: foot centre below the calf joint [m]."""
FOOT_RADIUS = 0.022
"""Foot sphere radius [m]."""
FOOT_SPHERE_OFFSET = (-0.002, 0.0, 0.0)
"""Foot sphere centre in the foot frame [m]."""
FOOT_MASS = 0.01
"""Mass given to each foot body so every rigid body has mass [kg] (0.26 % of the robot)."""

HIP = Inertial(
    0.678,
    (-0.0054, 0.00194, -0.000105),
    (0.497014, 0.499245, 0.505462, 0.498237),
    (0.00088403, 0.000596003, 0.000479967),
)
THIGH = Inertial(
    1.152,
    (-0.00374, -0.0223, -0.0327),
    (0.829533, 0.0847635, -0.0200632, 0.551623),
    (0.00594973, 0.00584149, 0.000878787),
)
CALF = Inertial(
    0.241352,
    (0.00629595, -0.000622121, -0.141417),
    (0.710672, 0.00154099, -0.00450087, 0.703508),
    (0.0014901, 0.00146356, 5.31397e-05),
)

HIP_CYLINDER = (0.046, 0.02, 0.08)
"""Hip motor collision cylinder: radius, half length, lateral offset [m]; its axis is the body y axis."""
THIGH_BOX_HALF_SIZE = (0.1065, 0.01225, 0.017)
"""Thigh collision box half extents along the link (z), then y, then x [m]; centred half way down the thigh."""
CALF_CYLINDERS = ((0.013, 0.06, (0.01, 0.0, -0.06), -0.2), (0.011, 0.0325, (0.02, 0.0, -0.148), 0.05))
"""Calf collision cylinders: radius [m], half length [m], centre [m], pitch about y [rad]."""

HIP_RANGE = (-1.0472, 1.0472)
"""Hip (abduction) joint range [rad]."""
FRONT_THIGH_RANGE = (-1.5708, 3.4907)
"""Front thigh joint range [rad]."""
REAR_THIGH_RANGE = (-0.5236, 4.5379)
"""Rear thigh joint range [rad]."""
CALF_RANGE = (-2.7227, -0.83776)
"""Calf (knee) joint range [rad]."""

TOTAL_MASS = TRUNK.mass + 4 * (HIP.mass + THIGH.mass + CALF.mass + FOOT_MASS)
"""Mass of the whole robot [kg]."""


def joint_values(figure, names=JOINT_NAMES) -> dict[str, float]:
    """``figure`` for each of ``names``: a number for every joint, or ``{regex: value}`` as Isaac Lab's actuator and
    pose configs give it (the first pattern that matches a whole name wins); names no pattern matches are left out."""
    if not isinstance(figure, dict):
        return {name: figure for name in names}
    values = {}
    for name in names:
        match = next((value for key, value in figure.items() if re.fullmatch(key, name)), None)
        if match is not None:
            values[name] = match
    return values


def _quat_to_mat(quat) -> np.ndarray:
    mat = np.zeros(9)
    mujoco.mju_quat2Mat(mat, np.asarray(quat, dtype=np.float64) / np.linalg.norm(quat))
    return mat.reshape(3, 3)


def _mirror(inertial: Inertial, axes: tuple[int, ...]) -> Inertial:
    """Reflect mass properties through the planes normal to ``axes`` (0 = x, 1 = y)."""
    if not axes:
        return inertial
    reflect = np.eye(3)
    for axis in axes:
        reflect[axis, axis] = -1.0
    rot = _quat_to_mat(inertial.principal_quat)
    tensor = reflect @ rot @ np.diag(inertial.principal_moments) @ rot.T @ reflect
    moments, vectors = np.linalg.eigh(tensor)
    if np.linalg.det(vectors) < 0:
        vectors[:, 0] = -vectors[:, 0]
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, vectors.flatten())
    com = tuple(float(c) for c in reflect @ np.asarray(inertial.com))
    return Inertial(inertial.mass, com, tuple(float(q) for q in quat), tuple(float(m) for m in moments))


def _set_inertial(body, inertial: Inertial) -> None:
    body.mass = inertial.mass
    body.ipos = inertial.com
    body.iquat = inertial.principal_quat
    body.inertia = inertial.principal_moments
    body.explicitinertial = True


def _pitch_quat(angle: float) -> list[float]:
    return [float(np.cos(angle / 2)), 0.0, float(np.sin(angle / 2)), 0.0]


_ROLL_90 = [float(np.sqrt(0.5)), float(np.sqrt(0.5)), 0.0, 0.0]
_PITCH_90 = _pitch_quat(np.pi / 2)


def _add_leg(trunk, leg: str) -> None:
    front, left = leg[0] == "F", leg[1] == "L"
    side = 1.0 if left else -1.0
    mirror_y = () if left else (1,)

    hip = trunk.add_body(name=f"{leg}_hip", pos=[HIP_OFFSET[0] * (1 if front else -1), HIP_OFFSET[1] * side, 0.0])
    # The hip's mass is off-centre fore-aft, so rear hips mirror in x as well as in y.
    _set_inertial(hip, _mirror(HIP, mirror_y + (() if front else (0,))))
    hip.add_joint(name=f"{leg}_hip_joint", axis=[1, 0, 0], range=list(HIP_RANGE))
    radius, half_len, lateral = HIP_CYLINDER
    hip.add_geom(
        type=mujoco.mjtGeom.mjGEOM_CYLINDER, size=[radius, half_len, 0], pos=[0, lateral * side, 0], quat=_ROLL_90
    )

    thigh = hip.add_body(name=f"{leg}_thigh", pos=[0.0, THIGH_OFFSET[1] * side, 0.0])
    _set_inertial(thigh, _mirror(THIGH, mirror_y))
    thigh.add_joint(
        name=f"{leg}_thigh_joint", axis=[0, 1, 0], range=list(FRONT_THIGH_RANGE if front else REAR_THIGH_RANGE)
    )
    thigh.add_geom(
        type=mujoco.mjtGeom.mjGEOM_BOX, size=list(THIGH_BOX_HALF_SIZE), pos=[0, 0, -THIGH_LENGTH / 2], quat=_PITCH_90
    )

    calf = thigh.add_body(name=f"{leg}_calf", pos=[0.0, 0.0, -THIGH_LENGTH])
    _set_inertial(calf, _mirror(CALF, mirror_y))
    calf.add_joint(name=f"{leg}_calf_joint", axis=[0, 1, 0], range=list(CALF_RANGE))
    for radius, half_len, centre, pitch in CALF_CYLINDERS:
        calf.add_geom(
            type=mujoco.mjtGeom.mjGEOM_CYLINDER, size=[radius, half_len, 0], pos=list(centre), quat=_pitch_quat(pitch)
        )

    # The foot is its own (welded) body so contact sensors and rewards can address it by name.
    foot = calf.add_body(name=f"{leg}_foot", pos=[0.0, 0.0, -CALF_LENGTH])
    sphere_inertia = 0.4 * FOOT_MASS * FOOT_RADIUS**2
    _set_inertial(foot, Inertial(FOOT_MASS, FOOT_SPHERE_OFFSET, (1.0, 0.0, 0.0, 0.0), (sphere_inertia,) * 3))
    foot.add_geom(
        type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[FOOT_RADIUS, 0, 0], pos=list(FOOT_SPHERE_OFFSET), condim=6, priority=1
    )


def build_spec(spawn_height: float = 0.0) -> mujoco.MjSpec:
    """Build the Go2 as an ``MjSpec``: a floating trunk named ``base`` with four 3-joint legs.

    Args:
        spawn_height: Height of the trunk origin above the world origin [m].
    """
    spec = mujoco.MjSpec()
    spec.modelname = MODEL_NAME
    spec.compiler.degree = False
    trunk = spec.worldbody.add_body(name=BASE_BODY, pos=[0.0, 0.0, spawn_height])
    _set_inertial(trunk, TRUNK)
    trunk.add_freejoint(name="root")
    trunk.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=list(TRUNK_BOX_HALF_SIZE))
    radius, half_len, pos = HEAD_CYLINDER
    trunk.add_geom(type=mujoco.mjtGeom.mjGEOM_CYLINDER, size=[radius, half_len, 0], pos=list(pos))
    radius, pos = HEAD_SPHERE
    trunk.add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[radius, 0, 0], pos=list(pos))
    for leg in LEGS:
        _add_leg(trunk, leg)
    return spec


def to_mjcf(spawn_height: float = 0.0) -> str:
    """The Go2 description as MJCF text."""
    spec = build_spec(spawn_height)
    spec.compile()
    return spec.to_xml()


def standing_height(joint_pos: dict[str, float]) -> float:
    """Trunk height above flat ground in a pose [m]: forward kinematics of ``joint_pos`` (joint name -> angle
    [rad]), the trunk origin's height over the foot sphere centres averaged over the four feet, plus the foot
    radius."""
    model = build_spec().compile()
    data = mujoco.MjData(model)
    for name, angle in joint_pos.items():
        data.qpos[model.jnt_qposadr[model.joint(name).id]] = angle
    mujoco.mj_kinematics(model, data)
    feet = [data.xpos[model.body(foot).id][2] for foot in FOOT_BODIES]
    return float(data.xpos[model.body(BASE_BODY).id][2] - np.mean(feet) + FOOT_RADIUS)

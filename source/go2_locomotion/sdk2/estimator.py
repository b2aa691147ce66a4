"""Trunk velocity from LowState alone, for policies that observe ``base_lin_vel``: a real Go2 in low-level mode
publishes no velocity (its sport service, which estimates one, is off).

Each LowState: the accelerometer predicts the velocity (``dv/dt = f + g - w x v`` in the trunk frame: specific
force, gravity, gyro), then the stance feet correct it. A stance foot's contact point is still on the ground, so
the trunk moves at ``-(J(q) dq + w x p)`` relative to it (leg Jacobian at the contact point, ``p`` the contact
point in the trunk frame). Stance feet: within :data:`~.figures.CONTACT_HEIGHT_BAND` of the lowest foot along
gravity and, once calibrated on the standing robot, loaded above :data:`~.figures.CONTACT_FORCE_FRACTION` of their
standing reading; a foot whose estimate is more than :data:`~.figures.FOOT_AGREEMENT` from the stance feet's
median is slipping or lifting off and left out. The correction pulls the prediction toward the mean of the
remaining feet with time constant :data:`~.figures.VELOCITY_TIME_CONSTANT_S`. The leg kinematics are those of
:mod:`go2_locomotion.assets.go2_description` (MuJoCo), so every leg figure has one source.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from ..assets import go2_description as go2
from ..robot.bundle import SDK2_JOINT_ORDER
from ..robot.controller import projected_gravity_from_quat
from .figures import (
    CONTACT_FORCE_FRACTION,
    CONTACT_HEIGHT_BAND,
    FOOT_AGREEMENT,
    GRAVITY,
    MAX_INTEGRATION_STEP_S,
    VELOCITY_TIME_CONSTANT_S,
)
from .messages import RobotReading

SDK2_LEGS = tuple(name.split("_")[0] for name in SDK2_JOINT_ORDER[::3])
"""Legs in SDK2 order (FR, FL, RR, RL): the order of the motors' leg blocks and of ``LowState_.foot_force``."""


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a x b`` for a ``[3]`` vector ``a`` and ``[3]`` or ``[n, 3]`` vectors ``b`` (numpy's ``cross`` costs ~20x more
    on arrays this small, and the estimator runs on every LowState)."""
    x, y, z = b[..., 0], b[..., 1], b[..., 2]
    out = np.empty(np.shape(b))
    out[..., 0] = a[1] * z - a[2] * y
    out[..., 1] = a[2] * x - a[0] * z
    out[..., 2] = a[0] * y - a[1] * x
    return out


def _median_rows(rows: np.ndarray) -> np.ndarray:
    """Per-column median of a few rows (``np.median`` is slow on four)."""
    ordered = np.sort(rows, axis=0)
    n = len(rows)
    return 0.5 * (ordered[(n - 1) // 2] + ordered[n // 2])


class LegKinematics:
    """Contact points of the four feet and their velocities relative to the trunk, in the trunk frame, from the
    joint positions and speeds (SDK2 order): the description's MuJoCo model with its trunk held at the origin."""

    def __init__(self):
        self.model = go2.build_spec(spawn_height=0.0).compile()
        self.data = mujoco.MjData(self.model)
        joints = [self.model.joint(name) for name in SDK2_JOINT_ORDER]
        self._qpos = np.array([self.model.jnt_qposadr[j.id] for j in joints])
        self._dofs = np.array([self.model.jnt_dofadr[j.id] for j in joints])
        self._feet = [self.model.body(f"{leg}_foot").id for leg in SDK2_LEGS]
        self._sphere = np.asarray(go2.FOOT_SPHERE_OFFSET, dtype=np.float64)
        self._jacp = np.zeros((3, self.model.nv))

    def contacts(self, q: np.ndarray, dq: np.ndarray, up: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``[4, 3]`` contact points (lowest point of each foot sphere along ``up``) and ``[4, 3]`` their
        velocities relative to the trunk [m, m/s], trunk frame, legs FR, FL, RR, RL."""
        d = self.data
        d.qpos[self._qpos] = q
        mujoco.mj_kinematics(self.model, d)
        mujoco.mj_comPos(self.model, d)
        points, velocities = np.zeros((4, 3)), np.zeros((4, 3))
        for k, body in enumerate(self._feet):
            point = d.xpos[body] + d.xmat[body].reshape(3, 3) @ self._sphere - go2.FOOT_RADIUS * up
            mujoco.mj_jac(self.model, d, self._jacp, None, point, body)
            points[k] = point
            velocities[k] = self._jacp[:, self._dofs] @ dq
        return points, velocities


class VelocityEstimator:
    """The trunk's centre-of-mass velocity in the trunk frame [m/s] (what Isaac Lab's ``base_lin_vel`` observes),
    updated with every LowState."""

    def __init__(self):
        self.kinematics = LegKinematics()
        self._com = np.asarray(go2.TRUNK.com, dtype=np.float64)
        self.force_thresholds: np.ndarray | None = None
        """``[4]`` foot-force readings above which a foot counts as loaded; ``None``: height alone decides."""
        self.reset()

    def reset(self) -> None:
        """Forget the estimate (the next LowState sets it from the legs alone)."""
        self._origin_velocity: np.ndarray | None = None
        self._last_tick: int | None = None
        self._gyro = np.zeros(3)
        self.stance = np.zeros(4, dtype=bool)
        """Feet used by the last correction (FR, FL, RR, RL)."""

    def calibrate(self, standing_foot_force: np.ndarray) -> bool:
        """Set the loaded-foot thresholds from the mean foot-force reading of the robot standing on four feet.
        Returns ``False`` (height alone then decides) when a sensor reads nothing."""
        standing = np.asarray(standing_foot_force, dtype=np.float64)
        if standing.shape != (4,) or not np.all(np.isfinite(standing)) or np.any(standing <= 0):
            self.force_thresholds = None
            return False
        self.force_thresholds = CONTACT_FORCE_FRACTION * standing
        return True

    @property
    def velocity(self) -> np.ndarray:
        """``[3]`` centre-of-mass velocity in the trunk frame [m/s]; zero before the first LowState."""
        if self._origin_velocity is None:
            return np.zeros(3)
        return self._origin_velocity + cross(self._gyro, self._com)

    def update(self, reading: RobotReading) -> None:
        """Fold one LowState in (its ``tick`` [ms] gives the time step)."""
        dt = 0.0 if self._last_tick is None else ((reading.tick - self._last_tick) & 0xFFFFFFFF) / 1000.0
        if self._last_tick is not None and dt == 0.0:
            return  # the same reading again
        total = reading.q.sum() + reading.dq.sum() + reading.quaternion.sum()
        if not math.isfinite(total + reading.gyroscope.sum() + reading.accelerometer.sum()):
            return  # NaN or inf somewhere: the controller damps on such a reading; the estimate stays finite
        self._last_tick = reading.tick
        gravity = projected_gravity_from_quat(reading.quaternion)
        gyro = reading.gyroscope
        self._gyro = gyro
        v = self._origin_velocity
        if v is not None and 0.0 < dt <= MAX_INTEGRATION_STEP_S:
            v = v + dt * (reading.accelerometer + GRAVITY * gravity - cross(gyro, v))
        else:
            v, dt = None, 0.0
        points, relative = self.kinematics.contacts(reading.q, reading.dq, -gravity)
        per_foot = -(relative + cross(gyro, points))
        heights = points @ -gravity
        down = heights <= heights.min() + CONTACT_HEIGHT_BAND
        if self.force_thresholds is not None:
            down &= reading.foot_force >= self.force_thresholds
        if down.any():
            spread = per_foot - _median_rows(per_foot[down])
            down &= np.einsum("ij,ij->i", spread, spread) <= FOOT_AGREEMENT**2
        self.stance = down
        if down.any():
            measured = per_foot[down].mean(axis=0)
            gain = 1.0 if v is None else 1.0 - math.exp(-dt / VELOCITY_TIME_CONSTANT_S)
            v = measured if v is None else v + gain * (measured - v)
        self._origin_velocity = v

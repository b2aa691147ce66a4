"""What keeps a real Go2 safe, as plain functions and one small state machine (no DDS, no clock of its own), so
each rule is tested on its own:

- modes (:class:`Supervisor`): start in damping; an explicit start ramps to the bundle's standing pose; a second
  start hands over to the policy; stop zeroes the walking command, stop again (or stop while not walking) goes to
  damping; any fault goes to damping and stays there until the next explicit start;
- faults: LowState older than the bound (:func:`is_stale`), NaN/inf or out-of-range readings
  (:func:`reading_fault`), a non-finite observation or action;
- every joint target clamped to the joint limits and to what the effort limits allow (:func:`clamp_targets`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np

from ..robot.bundle import SDK2_JOINT_ORDER, Bundle
from ..robot.controller import projected_gravity_from_quat
from .figures import (
    JOINT_LIMIT_MARGIN,
    MAX_BASE_ANG_VEL,
    MAX_TILT_GRAVITY_Z,
    QUATERNION_NORM_TOLERANCE,
)
from .messages import RobotReading


@dataclass(frozen=True)
class JointLimits:
    """Per motor, SDK2 order, from ``deploy.yaml``."""

    position: np.ndarray
    """``[12, 2]`` lower, upper joint position [rad]."""
    effort: np.ndarray
    """``[12]`` peak torque [N m]."""
    velocity: np.ndarray
    """``[12]`` joint speed limit [rad/s]."""
    standing: np.ndarray
    """``[12]`` the bundle's standing (default) pose [rad]."""
    kp: np.ndarray
    """``[12]`` the policy's position gains [N m/rad]."""
    kd: np.ndarray
    """``[12]`` the policy's speed gains [N m s/rad]."""

    @classmethod
    def from_bundle(cls, bundle: Bundle) -> JointLimits:
        to_sdk2 = bundle.sdk2_to_policy
        limits = np.asarray(bundle.field("joints.position_limits"), dtype=np.float64).reshape(len(to_sdk2), 2)
        return cls(
            position=limits[to_sdk2],
            effort=bundle.joint_array("actuators.effort_limit")[to_sdk2],
            velocity=bundle.joint_array("actuators.velocity_limit")[to_sdk2],
            standing=bundle.joint_array("joints.default_position")[to_sdk2],
            kp=bundle.joint_array("actuators.kp")[to_sdk2],
            kd=bundle.joint_array("actuators.kd")[to_sdk2],
        )


def is_stale(now: float, received: float | None, bound_s: float) -> bool:
    """Whether the newest LowState (received at ``received``, ``None``: none yet) is older than ``bound_s``."""
    return received is None or now - received > bound_s


def reading_fault(reading: RobotReading, limits: JointLimits) -> str | None:
    """Why ``reading`` cannot be acted on (NaN/inf, a joint beyond its limits by more than the margin or faster
    than its speed limit, an implausible IMU, a fallen trunk), or ``None``."""
    for name in ("q", "dq", "quaternion", "gyroscope", "accelerometer"):
        values = getattr(reading, name)
        if not np.all(np.isfinite(values)):
            return f"LowState {name} holds a non-finite value ({np.asarray(values).round(3).tolist()})"
    norm = float(np.linalg.norm(reading.quaternion))
    if abs(norm - 1.0) > QUATERNION_NORM_TOLERANCE:
        return f"IMU quaternion has norm {norm:.3f} (accepted 1 +- {QUATERNION_NORM_TOLERANCE})"
    low, high = limits.position[:, 0] - JOINT_LIMIT_MARGIN, limits.position[:, 1] + JOINT_LIMIT_MARGIN
    for i in np.flatnonzero((reading.q < low) | (reading.q > high)):
        return (
            f"{SDK2_JOINT_ORDER[i]} at {reading.q[i]:.3f} rad, beyond its range [{limits.position[i, 0]:.3f}, "
            f"{limits.position[i, 1]:.3f}] rad by more than {JOINT_LIMIT_MARGIN} rad"
        )
    for i in np.flatnonzero(np.abs(reading.dq) > limits.velocity):
        return f"{SDK2_JOINT_ORDER[i]} turns at {reading.dq[i]:.1f} rad/s, beyond its {limits.velocity[i]:g} rad/s"
    rate = float(np.max(np.abs(reading.gyroscope)))
    if rate > MAX_BASE_ANG_VEL:
        return f"trunk turns at {rate:.1f} rad/s (gyroscope), beyond {MAX_BASE_ANG_VEL:g} rad/s"
    gravity_z = float(projected_gravity_from_quat(reading.quaternion)[2])
    if gravity_z > MAX_TILT_GRAVITY_Z:
        tilt = math.degrees(math.acos(max(-1.0, min(1.0, -gravity_z))))
        limit = math.degrees(math.acos(-MAX_TILT_GRAVITY_Z))
        return f"trunk tilted {tilt:.0f} deg (beyond {limit:.0f} deg): the robot fell"
    return None


def clamp_targets(
    target: np.ndarray, q: np.ndarray, dq: np.ndarray, kp: np.ndarray, kd: np.ndarray, limits: JointLimits
) -> np.ndarray:
    """Joint targets [rad] limited so that the PD torque ``kp (target - q) - kd dq`` stays within the effort limit
    (where ``kp > 0``), then to the joint position limits (last, so a target never leaves the joint's range)."""
    target = np.asarray(target, dtype=np.float64).copy()
    active = kp > 0
    reach = np.where(active, limits.effort / np.where(active, kp, 1.0), np.inf)
    centre = q + np.where(active, kd * dq / np.where(active, kp, 1.0), 0.0)
    target = np.clip(target, centre - reach, centre + reach)
    return np.clip(target, limits.position[:, 0], limits.position[:, 1])


class Mode(Enum):
    """What the controller sends."""

    DAMPING = "damping"
    """kp 0, a small kd: the robot lowers itself slowly."""
    RAMP = "stand-up"
    """From the measured pose to the standing pose over the ramp time, at the policy's gains."""
    STAND = "standing"
    """The standing pose at the policy's gains; waits for a start to hand over to the policy."""
    POLICY = "policy"
    """The policy walks."""


class Supervisor:
    """The mode and its transitions; the caller supplies the time and the measured joints.

    Args:
        ramp_s: Seconds from the measured pose to the standing pose.
    """

    def __init__(self, ramp_s: float):
        self.ramp_s = ramp_s
        self.mode = Mode.DAMPING
        self.since = 0.0
        """When the current mode began [s]."""
        self.fault: str | None = None
        """Why the controller is in damping, when a fault put it there."""
        self._ramp_from: np.ndarray | None = None

    def _enter(self, mode: Mode, now: float) -> None:
        self.mode, self.since = mode, now

    def start(self, now: float, q: np.ndarray) -> str:
        """An explicit start: damping -> stand-up (from ``q``), standing -> policy. Returns what happened."""
        if self.mode is Mode.DAMPING:
            self._ramp_from = np.asarray(q, dtype=np.float64).copy()
            self.fault = None
            self._enter(Mode.RAMP, now)
            return f"standing up over {self.ramp_s:g} s"
        if self.mode is Mode.STAND:
            self._enter(Mode.POLICY, now)
            return "policy on"
        return f"start ignored while {self.mode.value}"

    def stop(self, now: float, walking: bool) -> str:
        """A stop: while walking (``walking``: the command is not zero) the caller zeroes the command; otherwise
        damping. Returns ``"zero command"`` or ``"damping"`` (or that nothing changed)."""
        if self.mode is Mode.POLICY and walking:
            return "zero command"
        if self.mode is Mode.DAMPING:
            return "already damping"
        self._enter(Mode.DAMPING, now)
        return "damping"

    def trip(self, now: float, reason: str) -> bool:
        """A fault: damping, remembering why. Returns whether the mode changed (so the reason is reported once)."""
        changed = self.mode is not Mode.DAMPING
        if changed:
            self.fault = reason
            self._enter(Mode.DAMPING, now)
        return changed

    def ramp_target(self, now: float, standing: np.ndarray) -> np.ndarray:
        """The stand-up target at ``now``; moves to :attr:`Mode.STAND` when the ramp is done."""
        fraction = min(1.0, (now - self.since) / self.ramp_s)
        target = self._ramp_from + fraction * (np.asarray(standing) - self._ramp_from)
        if fraction >= 1.0:
            self._enter(Mode.STAND, now)
        return target

"""What the robot measures at one policy step (:class:`RobotState`), in its own module (numpy only): the observation
vocabulary (:mod:`.observations`) rebuilds terms from it and the reference controller (:mod:`.controller`) takes it,
so neither imports the other for it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class RobotState:
    """What the robot measures at one policy step. Per-joint arrays are in SDK2 motor order."""

    joint_pos: np.ndarray
    """``[12]`` joint positions [rad]."""
    joint_vel: np.ndarray
    """``[12]`` joint velocities [rad/s]."""
    base_ang_vel: np.ndarray
    """``[3]`` trunk angular velocity in the trunk frame [rad/s] (IMU gyroscope)."""
    projected_gravity: np.ndarray | None = None
    """``[3]`` gravity unit vector in the trunk frame; computed from ``base_quat`` when ``None``."""
    base_quat: np.ndarray | None = None
    """``[4]`` trunk orientation in the world, ``(w, x, y, z)`` (the SDK2 IMU convention)."""
    base_lin_vel: np.ndarray | None = None
    """``[3]`` velocity of the trunk's centre of mass in the trunk frame [m/s] (Isaac Lab's ``root_lin_vel_b``);
    needed when the policy observes it."""
    command: np.ndarray | None = None
    """``[3]`` velocity command: lin x [m/s], lin y [m/s], yaw rate [rad/s]; zero when ``None``."""
    height_scan: np.ndarray | None = None
    """``[P]`` height of the trunk origin above the ground at each scan point [m] (the controller adds the term's
    ``sensor_offset_z``, 0 for the Go2 tasks); needed by rough-terrain policies. Any
    :class:`~go2_locomotion.sim2sim.height_scan.HeightSource` gives it (frame, order and sign there)."""
    last_action: np.ndarray | None = None
    """``[12]`` previous raw action; ``None`` uses the controller's own previous output."""
    steps_since_start: int | None = None
    """Policy steps since the episode (the controller) started, for the trot clock; ``None`` uses the controller's
    own count of :meth:`ReferenceController.act` calls since :meth:`ReferenceController.reset`."""

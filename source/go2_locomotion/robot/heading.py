"""Heading hold on the robot's side (numpy only): while the yaw rate asked for is zero and the robot is told to move,
the yaw rate sent to the policy is the training's heading controller's, ``clip(k x wrap(held heading - yaw))``,
with the heading held where the operator let go of the yaw stick.

Why: a policy told to walk with yaw rate 0 turns by its bias (0.02-0.07 rad/s measured on Unitree's go2.xml:
docs/robot_model.md), which a person on the remote corrects with the stick. Training steered every robot that way
(Isaac Lab's ``heading_command``: the yaw rate is ``heading_control_stiffness`` times the heading error, clipped
to the yaw-rate range), so holding the heading asks nothing the policy has not seen. The stiffness and the range
come from the bundle (``commands.base_velocity`` in ``deploy.yaml``), not from here.
"""

from __future__ import annotations

import math

import numpy as np

from .bundle import Bundle, BundleError


def yaw_of(quat_wxyz: np.ndarray) -> float:
    """The heading of orientation ``(w, x, y, z)`` [rad], as Isaac Lab's ``yaw_quat`` extracts it."""
    w, x, y, z = np.asarray(quat_wxyz, dtype=np.float64)
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


class HeadingHold:
    """The yaw rate that holds the heading of the moment the yaw command last was zero, while moving straight.

    Args:
        stiffness: Yaw rate per radian of heading error [1/s] (Isaac Lab's ``heading_control_stiffness``).
        yaw_rate_range: ``(low, high)`` the yaw rate is clipped to [rad/s] (the policy's ``ang_vel_z`` range).
    """

    def __init__(self, stiffness: float, yaw_rate_range: tuple[float, float]):
        if not (math.isfinite(stiffness) and stiffness > 0):
            raise ValueError(f"heading hold: stiffness must be a finite number > 0 [1/s], got {stiffness}")
        self.stiffness = float(stiffness)
        self.low, self.high = (float(v) for v in yaw_rate_range)
        self.heading: float | None = None
        """The held heading [rad]; ``None`` while turning or standing (taken at the next straight step)."""

    def reset(self) -> None:
        """Let the heading go: the next straight step holds the heading it finds (a new start of the policy)."""
        self.heading = None

    @classmethod
    def from_bundle(cls, bundle: Bundle) -> HeadingHold:
        """The hold the bundle's policy trained with.

        Raises:
            BundleError: The policy was not trained with a heading command, or the manifest predates the stiffness.
        """
        if not bundle.field("commands.base_velocity.heading_command"):
            raise BundleError(
                f"{bundle.directory}: commands.base_velocity.heading_command is false: the policy never trained "
                "with a held heading; hold it on the remote instead"
            )
        return cls(
            float(bundle.field("commands.base_velocity.heading_control_stiffness")),
            tuple(bundle.field("commands.base_velocity.ranges.ang_vel_z")),
        )

    def __call__(self, command: np.ndarray, quat_wxyz: np.ndarray) -> np.ndarray:
        """``command`` (vx, vy, yaw rate) with the yaw rate that holds the heading where it asks for none while
        moving; unchanged (and the heading let go) while it turns or stands."""
        command = np.asarray(command, dtype=np.float64)
        yaw = yaw_of(quat_wxyz)
        if command[2] != 0.0 or not np.any(command[:2] != 0.0):
            self.heading = None
            return command.copy()
        if self.heading is None:
            self.heading = yaw
        held = command.copy()
        held[2] = min(max(self.stiffness * math.remainder(self.heading - yaw, 2.0 * math.pi), self.low), self.high)
        return held

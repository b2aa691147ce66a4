"""Height scans from MuJoCo ray casts (:class:`MujocoHeightScan`), and the interface every height source meets
(:class:`HeightSource`): ``heights(position, quat_wxyz) -> [P]``, the trunk origin's height above the ground [m] at
each point of the bundle's pattern (:class:`ScanPattern`), in the trunk's yaw frame and Isaac Lab's grid order
(``-inf``: no ground).

Why: docs/deploy.md, *Terrain cells and the height scan in MuJoCo*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import mujoco
import numpy as np

from ..robot.heading import yaw_of

RAY_START_HEIGHT = 20.0
"""Ray starts above the trunk origin [m]: Isaac Lab's scanner offset in the Go2 tasks (``deploy.yaml`` does not
record it; a unit test ties it to the task config). Any start above the terrain gives the same hits, as the
ground has no overhangs."""


class HeightSource(Protocol):
    """Anything that gives the height scan of a trunk pose (see the module for the frame, order, units and sign)."""

    def heights(self, position: np.ndarray, quat_wxyz: np.ndarray) -> np.ndarray:
        """``[P]`` trunk origin height above the ground at each scan point [m]."""


@dataclass(frozen=True)
class ScanPattern:
    """Where the height scan samples the ground, read from a bundle's ``height_scan`` observation term."""

    points_xy: np.ndarray
    """``[P, 2]`` scan points in the trunk's yaw frame [m], in the policy's order."""
    ray_start_height: float = RAY_START_HEIGHT
    """Ray starts above the trunk origin [m]."""

    @classmethod
    def from_bundle(cls, bundle) -> ScanPattern | None:
        """The pattern of the bundle's ``height_scan`` term, ``None`` when its policy observes no height scan.

        Raises:
            ValueError: The term's ``ray_alignment`` is not ``yaw`` (the only alignment reproduced here).
        """
        terms = [t for t in bundle.field("observation.terms") if t["function"] == "height_scan"]
        if not terms:
            return None
        params = terms[0]["params"]
        alignment = params.get("ray_alignment", "yaw")
        if alignment != "yaw":
            raise ValueError(f"height_scan: ray_alignment {alignment!r} is not reproduced; accepted: 'yaw'")
        return cls(np.asarray(params["points_xy"], dtype=np.float64).reshape(-1, 2))


def scan_points_world(points_xy: np.ndarray, position: np.ndarray, quat_wxyz: np.ndarray) -> np.ndarray:
    """``[P, 2]`` world x, y of the scan points for a trunk at ``position`` with orientation ``quat_wxyz``."""
    yaw = yaw_of(quat_wxyz)
    c, s = math.cos(yaw), math.sin(yaw)
    rotation = np.array([[c, -s], [s, c]])
    return np.asarray(points_xy) @ rotation.T + np.asarray(position, dtype=np.float64)[:2]


class MujocoHeightScan:
    """:class:`HeightSource` over a MuJoCo model's ground: the geoms of geom group ``group``.

    Args:
        model, data: The MuJoCo model and data (the ground's geom poses are read from ``data``).
        pattern: The scan points and ray start height.
        group: The MuJoCo geom group (0-5) the ground geoms are in.
    """

    def __init__(self, model, data, pattern: ScanPattern, group: int):
        self.model, self.data, self.pattern = model, data, pattern
        self.groups = np.zeros(6, dtype=np.uint8)
        self.groups[group] = 1
        self._geomid = np.zeros(1, dtype=np.int32)
        self._down = np.array([0.0, 0.0, -1.0])

    def ground_height(self, x: float, y: float, start_z: float) -> float:
        """World z of the ground under ``(x, y)``, cast down from ``start_z`` [m]; ``-inf`` when there is none."""
        start = np.array([x, y, start_z], dtype=np.float64)
        distance = mujoco.mj_ray(self.model, self.data, start, self._down, self.groups, 1, -1, self._geomid)
        return start_z - distance if distance >= 0 else -math.inf

    def heights(self, position: np.ndarray, quat_wxyz: np.ndarray) -> np.ndarray:
        position = np.asarray(position, dtype=np.float64)
        start_z = position[2] + self.pattern.ray_start_height
        points = scan_points_world(self.pattern.points_xy, position, quat_wxyz)
        ground = np.array([self.ground_height(x, y, start_z) for x, y in points])
        # no ground: Isaac Lab's hit is at +inf, so its scan reads -inf
        return np.where(np.isfinite(ground), position[2] - ground, -math.inf)

"""The Go2 mirror's context for tests without a simulator: Go2-Rough's scan pattern and the description's joints."""

from __future__ import annotations

import torch
from isaaclab.sensors import patterns

from go2_locomotion.assets.go2_description import JOINT_NAMES
from go2_locomotion.tasks.mdp import symmetry
from go2_locomotion.tasks.velocity_env_cfg import Go2RoughEnvCfg


def scan_points() -> torch.Tensor:
    """Go2-Rough's height-scan points in the sensor frame, the mounting offset included."""
    scanner = Go2RoughEnvCfg().scene.height_scanner
    starts, _ = patterns.grid_pattern(scanner.pattern_cfg, "cpu")
    return starts + torch.tensor(scanner.offset.pos)


def mirror_context(points: torch.Tensor | None = None) -> symmetry.MirrorContext:
    """What the mirror rules read, as a live Go2-Rough environment gives it."""
    points = scan_points() if points is None else points
    return symmetry.MirrorContext(joint_names=JOINT_NAMES, scan_points=lambda sensor: points)

"""The command grid a policy is evaluated on: fixed velocity commands, one per group of robots, kept all episode.

The default grid is built from the task's command ranges, so it spans what the policy was trained for: standing
still, forward at a quarter, half and the full range, backward at half and the full range, sideways at half the
range both ways, turning on the spot at half and the full range both ways, and forward while turning.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class GridCommand:
    """One command of the grid."""

    name: str
    """Label in the report."""
    command: tuple[float, float, float]
    """lin x [m/s], lin y [m/s], yaw rate [rad/s], in the trunk frame (no heading control)."""

    @property
    def moving(self) -> bool:
        """Whether anything but standing still is asked."""
        return any(abs(v) > 0.0 for v in self.command)


# (name, fraction of the x range, of the y range, of the yaw-rate range); the range's positive end for positive
# fractions, its negative end for negative ones.
DEFAULT_FRACTIONS = (
    ("stand", 0.0, 0.0, 0.0),
    ("forward_slow", 0.25, 0.0, 0.0),
    ("forward", 0.5, 0.0, 0.0),
    ("forward_fast", 1.0, 0.0, 0.0),
    ("backward", -0.5, 0.0, 0.0),
    ("backward_fast", -1.0, 0.0, 0.0),
    ("left", 0.0, 0.5, 0.0),
    ("right", 0.0, -0.5, 0.0),
    ("turn_left", 0.0, 0.0, 0.5),
    ("turn_right", 0.0, 0.0, -0.5),
    ("turn_left_fast", 0.0, 0.0, 1.0),
    ("forward_turn", 0.5, 0.0, 0.5),
)
"""The default grid as fractions of the command ranges: 12 commands, one standing."""


def _scaled(fraction: float, limits: tuple[float, float]) -> float:
    low, high = limits
    return round(fraction * (high if fraction >= 0 else -low), 6) + 0.0  # + 0.0: no -0.0 in the report


def default_grid(ranges: dict[str, tuple[float, float]]) -> list[GridCommand]:
    """The default grid for command ranges ``{"lin_vel_x": (lo, hi), "lin_vel_y": ..., "ang_vel_z": ...}``."""
    keys = ("lin_vel_x", "lin_vel_y", "ang_vel_z")
    return [
        GridCommand(name, tuple(_scaled(f, tuple(ranges[k])) for f, k in zip((fx, fy, fz), keys, strict=True)))
        for name, fx, fy, fz in DEFAULT_FRACTIONS
    ]


def check_timing(duration_s: float, settle_s: float) -> None:
    """Raise ``ValueError`` unless ``duration_s`` is a positive number of seconds and ``settle_s`` lies in
    ``[0, duration_s)``; the messages name the command-line flags."""
    if not (math.isfinite(duration_s) and duration_s > 0):
        raise ValueError(f"--duration must be a positive number of seconds, got {duration_s}")
    if not (math.isfinite(settle_s) and 0 <= settle_s < duration_s):
        raise ValueError(f"--settle must be in [0, --duration = {duration_s}), got {settle_s}")


def parse_grid(text: str) -> list[GridCommand]:
    """Parse ``"name:vx,vy,wz name:vx,vy,wz ..."``.

    Raises:
        ValueError: A command is malformed or a name repeats; the message names it and shows the accepted form.
    """
    grid = []
    for token in text.split():
        name, _, values = token.partition(":")
        try:
            command = tuple(float(v) for v in values.split(","))
        except ValueError:
            command = ()
        if not name or len(command) != 3 or not all(math.isfinite(v) for v in command):
            raise ValueError(f"--grid: command {token!r} is not name:vx,vy,wz (e.g. forward:0.5,0,0)")
        if any(c.name == name for c in grid):
            raise ValueError(f"--grid: command name {name!r} appears twice")
        grid.append(GridCommand(name, command))
    if not grid:
        raise ValueError("--grid: no command given; accepted: name:vx,vy,wz [name:vx,vy,wz ...]")
    return grid

"""The command grid a policy is evaluated on: fixed velocity commands, one per group of robots, kept all episode.

The default grid is built from the task's command ranges, so it spans what the policy was trained for: standing
still, forward at a quarter, half and the full range, backward at half and the full range, sideways at half the
range both ways, turning on the spot at half and the full range both ways, forward while turning, and a stop (the
full forward speed, then told to stand).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

STOP_AFTER_S = 6.0
"""When the default grid's ``stop`` robots are told to stand, after walking at the full forward speed [s]."""

STAND_WITHIN_S = 1.0
"""Time a robot has to come to a stand after a stop command [s]: its figures count from then on, and the stop
check asks for it (``time_to_stand_s``)."""


@dataclass(frozen=True)
class GridCommand:
    """One command of the grid; with ``before``, the robots get ``before`` until ``switch_s``, then ``command``."""

    name: str
    """Label in the report."""
    command: tuple[float, float, float]
    """lin x [m/s], lin y [m/s], yaw rate [rad/s], in the trunk frame (no heading control)."""
    before: tuple[float, float, float] | None = None
    """The command until ``switch_s`` (a stop: moving, then told to stand); ``None``: ``command`` throughout."""
    switch_s: float = 0.0
    """When ``command`` replaces ``before`` [s from the episode start]."""

    @property
    def moving(self) -> bool:
        """Whether anything but standing still is asked (after the switch)."""
        return any(abs(v) > 0.0 for v in self.command)

    @property
    def straight(self) -> bool:
        """Told to move without turning, throughout: a yaw rate of 0 and some linear velocity, no switch."""
        return self.before is None and self.command[2] == 0.0 and any(abs(v) > 0.0 for v in self.command[:2])

    def at(self, time_s: float) -> tuple[float, float, float]:
        """The command at ``time_s`` seconds from the episode start."""
        return self.before if self.before is not None and time_s < self.switch_s else self.command

    def describe(self) -> dict:
        """The command as reports list it."""
        described = {"name": self.name, "command": list(self.command)}
        if self.before is not None:
            described.update(before=list(self.before), switch_s=self.switch_s)
        return described

    def counts_from(self, settle_s: float) -> float:
        """When its figures start to count [s]: after the settling time, and after a switch plus
        :data:`STAND_WITHIN_S`."""
        return settle_s if self.before is None else max(settle_s, self.switch_s + STAND_WITHIN_S)


def commands_at(grid: list[GridCommand], assignment, time_s: float) -> list[tuple[float, float, float]]:
    """Each robot's command at ``time_s`` (robot ``r`` keeps ``grid[assignment[r]]``)."""
    return [grid[i].at(time_s) for i in assignment]


def switches_at(grid: list[GridCommand], step: int, step_dt: float) -> bool:
    """Whether a command of the grid switches at policy step ``step`` (the step whose start time passes its
    ``switch_s``)."""
    return any(c.before is not None and round(c.switch_s / step_dt) == step for c in grid)


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


def default_grid(ranges: Mapping[str, Sequence[float]]) -> list[GridCommand]:
    """The default grid for command ranges ``{"lin_vel_x": (lo, hi), "lin_vel_y": ..., "ang_vel_z": ...}`` (a command
    config's ``ranges.to_dict()`` or a bundle's :meth:`~go2_locomotion.robot.bundle.Bundle.command_ranges`; other
    keys are ignored): the commands of :data:`DEFAULT_FRACTIONS`, then ``stop`` (the full forward speed, told to
    stand at :data:`STOP_AFTER_S`)."""
    keys = ("lin_vel_x", "lin_vel_y", "ang_vel_z")
    grid = [
        GridCommand(name, tuple(_scaled(f, tuple(ranges[k])) for f, k in zip((fx, fy, fz), keys, strict=True)))
        for name, fx, fy, fz in DEFAULT_FRACTIONS
    ]
    fastest = next(c for c in grid if c.name == "forward_fast")
    return [*grid, GridCommand("stop", (0.0, 0.0, 0.0), before=fastest.command, switch_s=STOP_AFTER_S)]


def check_timing(duration_s: float, settle_s: float) -> None:
    """Raise ``ValueError`` unless ``duration_s`` is a positive number of seconds and ``settle_s`` lies in
    ``[0, duration_s)``; the messages name the command-line flags."""
    if not (math.isfinite(duration_s) and duration_s > 0):
        raise ValueError(f"--duration must be a positive number of seconds, got {duration_s}")
    if not (math.isfinite(settle_s) and 0 <= settle_s < duration_s):
        raise ValueError(f"--settle must be in [0, --duration = {duration_s}), got {settle_s}")


FORMS = "name:vx,vy,wz (e.g. forward:0.5,0,0) or name:vx,vy,wz@seconds:vx,vy,wz (e.g. stop:1,0,0@6:0,0,0)"
"""The command forms ``--grid`` accepts: a fixed command, or one command until a time and another after it."""


def _velocity(text: str) -> tuple[float, float, float] | None:
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        return None
    return values if len(values) == 3 and all(math.isfinite(v) for v in values) else None


def _command(token: str) -> GridCommand | None:
    name, _, values = token.partition(":")
    first, switch, rest = values.partition("@")
    if not switch:
        command = _velocity(first)
        return GridCommand(name, command) if name and command else None
    seconds, _, second = rest.partition(":")
    before, after = _velocity(first), _velocity(second)
    try:
        switch_s = float(seconds)
    except ValueError:
        return None
    if not (name and before and after and math.isfinite(switch_s) and switch_s > 0):
        return None
    return GridCommand(name, after, before=before, switch_s=switch_s)


def parse_grid(text: str) -> list[GridCommand]:
    """Parse ``"name:vx,vy,wz name:vx,vy,wz@seconds:vx,vy,wz ..."`` (:data:`FORMS`).

    Raises:
        ValueError: A command is malformed or a name repeats; the message names it and shows the accepted forms.
    """
    grid = []
    for token in text.split():
        command = _command(token)
        if command is None:
            raise ValueError(f"--grid: command {token!r} is not {FORMS}")
        if any(c.name == command.name for c in grid):
            raise ValueError(f"--grid: command name {command.name!r} appears twice")
        grid.append(command)
    if not grid:
        raise ValueError(f"--grid: no command given; accepted: {FORMS}")
    return grid

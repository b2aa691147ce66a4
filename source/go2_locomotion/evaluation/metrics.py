"""What a policy does on the command grid, from per-step robot states; the same for every simulator.

A simulator adapter (Isaac Lab in :mod:`.isaaclab`, plain MuJoCo in :mod:`go2_locomotion.sim2sim`) calls
:meth:`GridRecorder.record` once per policy step with numpy arrays over its robots; :meth:`GridRecorder.report`
turns them into per-command figures and a whole-grid summary. Figures are measured after ``settle_s`` (the robot
was just dropped and given its command) and only while a robot is up: a robot that fell stops counting, and is
counted as a fall.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .grid import STAND_WITHIN_S, GridCommand, commands_at

FEET = ("FL", "FR", "RL", "RR")
"""Foot order of the contact and foot-velocity arrays."""

LIMIT_MARGIN = 0.02
"""A joint counts as at its limit within this fraction of its range from either end."""

TORQUE_SATURATION = 0.99
"""A joint counts as torque-saturated at this fraction of its effort limit or more."""

STANDING_SPEED = 0.05
"""A robot stands when all four feet are down and its trunk moves slower than this [m/s] (the stop check)."""

STAND_HOLD_S = 1.0
"""After a stop command, a robot has come to a stand once it stands for this long without a break [s]."""


@dataclass
class StepState:
    """One policy step of ``R`` robots (arrays in the simulator's units: m, s, rad, N m)."""

    lin_vel_b: np.ndarray
    """Trunk linear velocity in the trunk frame ``[R, 3]``."""
    ang_vel_b: np.ndarray
    """Trunk angular velocity in the trunk frame ``[R, 3]``."""
    height: np.ndarray
    """Trunk height above the ground under it ``[R]``."""
    projected_gravity: np.ndarray
    """Unit gravity in the trunk frame ``[R, 3]`` (z = -1 when level)."""
    joint_pos: np.ndarray
    """``[R, 12]``."""
    joint_vel: np.ndarray
    """``[R, 12]``."""
    torque: np.ndarray
    """Applied joint torque ``[R, 12]``."""
    foot_contact: np.ndarray
    """Whether each foot touches the ground ``[R, 4]`` (FL, FR, RL, RR)."""
    foot_vel_xy: np.ndarray
    """Horizontal foot velocity in the world ``[R, 4, 2]``."""
    fell: np.ndarray
    """Whether the robot fell on this step (the task's termination) ``[R]``."""


@dataclass
class GridRecorder:
    """Accumulates steps of robots that each keep one grid command (``assignment[r]`` indexes ``grid``)."""

    grid: list[GridCommand]
    assignment: np.ndarray
    step_dt: float
    settle_s: float
    joint_limits: np.ndarray
    """``[12, 2]`` lower and upper position limits [rad]."""
    effort_limits: np.ndarray
    """``[12]`` [N m]."""
    steps: int = 0
    fallen_at: np.ndarray = field(init=False)
    _counts_from: np.ndarray = field(init=False)
    _series: dict[str, list[np.ndarray]] = field(init=False)

    def __post_init__(self):
        self.assignment = np.asarray(self.assignment, dtype=int)
        self._counts_from = np.array([self.grid[i].counts_from(self.settle_s) for i in self.assignment])
        self.fallen_at = np.full(len(self.assignment), -1, dtype=int)
        self._series = {}

    @property
    def num_robots(self) -> int:
        return len(self.assignment)

    def record(self, state: StepState) -> None:
        """Add one policy step. A robot's figures stop at the step it falls (that step excluded)."""
        up = self.fallen_at < 0
        newly = up & np.asarray(state.fell, dtype=bool)
        self.fallen_at[newly] = self.steps
        time_s = self.steps * self.step_dt
        commands = np.array(commands_at(self.grid, self.assignment, time_s))
        lower, upper = self.joint_limits[:, 0], self.joint_limits[:, 1]
        margin = LIMIT_MARGIN * (upper - lower)
        contact = np.asarray(state.foot_contact, dtype=bool)
        values = {
            "valid": up & ~newly & (time_s >= self._counts_from - 1e-9),
            "vx": state.lin_vel_b[:, 0],
            "vy": state.lin_vel_b[:, 1],
            "wz": state.ang_vel_b[:, 2],
            "xy_error": np.linalg.norm(state.lin_vel_b[:, :2] - commands[:, :2], axis=1),
            "yaw_error": np.abs(state.ang_vel_b[:, 2] - commands[:, 2]),
            "height": state.height,
            "tilt": np.degrees(np.arccos(np.clip(-state.projected_gravity[:, 2], -1.0, 1.0))),
            "torque_abs": np.abs(state.torque).mean(axis=1),
            "torque_max": np.abs(state.torque).max(axis=1),
            "power": np.abs(state.torque * state.joint_vel).sum(axis=1),
            "at_joint_limit": ((state.joint_pos <= lower + margin) | (state.joint_pos >= upper - margin)).mean(axis=1),
            "torque_saturated": (np.abs(state.torque) >= TORQUE_SATURATION * self.effort_limits).mean(axis=1),
            "contact": contact,
            "slip": np.linalg.norm(state.foot_vel_xy, axis=2),
            "all_feet_down": contact.all(axis=1),
            "joint_speed": np.abs(state.joint_vel).mean(axis=1),
            "speed_xy": np.linalg.norm(state.lin_vel_b[:, :2], axis=1),
        }
        for key, value in values.items():
            self._series.setdefault(key, []).append(np.asarray(value, dtype=float if key != "contact" else bool))
        self.steps += 1

    def report(self) -> dict:
        """Per command and for the whole grid; see :data:`FIGURES` for each figure's meaning and unit."""
        series = {key: np.stack(values) for key, values in self._series.items()}  # [T, R, ...]
        valid = series["valid"].astype(bool)
        per_command = []
        for index, command in enumerate(self.grid):
            robots = np.flatnonzero(self.assignment == index)
            per_command.append(self._command_figures(command, robots, series, valid))
        return {"commands": per_command, "summary": summarise(per_command, self.num_robots)}

    def _command_figures(self, command: GridCommand, robots: np.ndarray, series: dict, valid: np.ndarray) -> dict:
        mask = valid[:, robots]  # [T, r]

        def mean(key):
            values = series[key][:, robots][mask]
            return float(values.mean()) if values.size else None

        def rms(key):
            values = series[key][:, robots][mask]
            return float(np.sqrt((values**2).mean())) if values.size else None

        fallen = self.fallen_at[robots]
        falls = fallen >= 0
        figures = {
            **command.describe(),
            "robots": len(robots),
            "samples": int(mask.sum()),
            "achieved": {"vx": mean("vx"), "vy": mean("vy"), "wz": mean("wz")},
            "xy_error": mean("xy_error"),
            "xy_error_rms": rms("xy_error"),
            "yaw_error": mean("yaw_error"),
            "yaw_error_rms": rms("yaw_error"),
            "heading_drift": self._heading_drift(command, robots, series, mask),
            "fall_rate": float(falls.mean()) if len(robots) else None,
            "time_to_fall_s": float(fallen[falls].mean() * self.step_dt) if falls.any() else None,
            "height": mean("height"),
            "tilt_deg": mean("tilt"),
            "torque_mean_abs": mean("torque_abs"),
            "torque_max_abs": float(series["torque_max"][:, robots][mask].max()) if mask.any() else None,
            "power_w": mean("power"),
            "at_joint_limit": mean("at_joint_limit"),
            "torque_saturated": mean("torque_saturated"),
            "all_feet_down": mean("all_feet_down"),
            "joint_speed": mean("joint_speed"),
        }
        figures.update(self._gait(series["contact"][:, robots], series["slip"][:, robots], mask))
        figures.update(time_to_stand_s=None, stood_rate=None)
        if command.before is not None and len(robots):
            times = [self._time_to_stand(command, r, series) for r in robots]
            stood = [t for t in times if t is not None and t <= STAND_WITHIN_S + 1e-9]
            figures.update(time_to_stand_s=None if None in times else max(times), stood_rate=len(stood) / len(robots))
        return figures

    @staticmethod
    def _heading_drift(command: GridCommand, robots: np.ndarray, series: dict, mask: np.ndarray) -> float | None:
        """A straight command (moving, yaw rate 0, no switch): the mean over its robots of each robot's |mean yaw
        rate| [rad/s], i.e. its heading change per second; ``None`` for any other command or without samples."""
        if not command.straight:
            return None
        wz = series["wz"][:, robots]
        drifts = [abs(float(wz[mask[:, k], k].mean())) for k in range(len(robots)) if mask[:, k].any()]
        return float(np.mean(drifts)) if drifts else None

    def _time_to_stand(self, command: GridCommand, robot: int, series: dict) -> float | None:
        """Seconds from ``command``'s switch until robot ``robot`` stands (four feet down, trunk slower than
        :data:`STANDING_SPEED`) and keeps standing for :data:`STAND_HOLD_S`; ``None`` if it never does (or falls)."""
        steps = len(series["speed_xy"])
        end = steps if self.fallen_at[robot] < 0 else self.fallen_at[robot]
        ok = series["all_feet_down"][:end, robot].astype(bool) & (series["speed_xy"][:end, robot] < STANDING_SPEED)
        switch, hold = round(command.switch_s / self.step_dt), round(STAND_HOLD_S / self.step_dt)
        for start in range(switch, end - hold + 1):
            if ok[start : start + hold].all():
                return (start - switch) * self.step_dt
        return None

    def _gait(self, contact: np.ndarray, slip: np.ndarray, mask: np.ndarray) -> dict:
        """Stride frequency (touch-downs per second per foot), duty factor (fraction of time each foot is down),
        feet in the air at once, and foot slip (horizontal speed of a foot while it is down)."""
        if not mask.any():
            return {"stride_hz": None, "duty_factor": None, "feet_in_air": None, "foot_slip": None}
        touchdowns = contact[1:] & ~contact[:-1] & mask[1:, :, None] & mask[:-1, :, None]  # [T-1, r, 4]
        both = (mask[1:] & mask[:-1]).sum()
        seconds = both * self.step_dt  # robot-seconds with both ends of a step counted
        down = contact[mask]  # [n, 4]
        slip_down = slip[mask][down]
        return {
            "stride_hz": float(touchdowns.sum() / (seconds * len(FEET))) if seconds > 0 else None,
            "duty_factor": [float(v) for v in down.mean(axis=0)],
            "feet_in_air": float((~down).sum(axis=1).mean()),
            "foot_slip": float(slip_down.mean()) if slip_down.size else 0.0,
        }


FIGURES = {
    "achieved": "mean trunk velocity in the trunk frame after settling, up robots only [m/s, m/s, rad/s]",
    "xy_error": "mean |v_xy - command_xy| [m/s]",
    "xy_error_rms": "root mean square of the same [m/s]",
    "yaw_error": "mean |w_z - command_wz| [rad/s]",
    "yaw_error_rms": "root mean square of the same [rad/s]",
    "heading_drift": "a straight command (moving, yaw rate 0): mean over its robots of |a robot's mean yaw rate|, its "
    "heading change per second; null for other commands [rad/s]",
    "fall_rate": "fraction of the command's robots that fell (the task's termination) at any time",
    "time_to_fall_s": "mean time of the falls from the episode start [s]",
    "height": "mean trunk height above the ground [m]",
    "tilt_deg": "mean angle between the trunk's z axis and the vertical [deg]",
    "torque_mean_abs": "mean |torque| over the 12 joints [N m]",
    "torque_max_abs": "largest |torque| seen [N m]",
    "power_w": "mean mechanical power, sum over joints of |torque x joint speed| [W]",
    "at_joint_limit": "fraction of joint-steps within 2 % of the range from a position limit",
    "torque_saturated": "fraction of joint-steps at 99 % of the effort limit or more",
    "stride_hz": "touch-downs per second per foot [1/s]",
    "duty_factor": "fraction of time each foot (FL, FR, RL, RR) is down",
    "feet_in_air": "mean number of feet off the ground at once",
    "foot_slip": "mean horizontal speed of feet that are down [m/s]",
    "all_feet_down": "fraction of time all four feet are down",
    "joint_speed": "mean |joint velocity| over the 12 joints [rad/s]",
    "time_to_stand_s": "a stop (moving, then told to stand): the slowest robot's time from the stop command until it "
    "stands (four feet down, trunk under 0.05 m/s) for 1 s without a break; null if one never does [s]",
    "stood_rate": "a stop: fraction of the command's robots standing within 1 s of the stop command",
}
"""Every per-command figure and its unit."""


def summarise(per_command: list[dict], num_robots: int) -> dict:
    """Whole-grid figures (:data:`SUMMARY`)."""

    def mean(values):
        values = [v for v in values if v is not None]
        return float(np.mean(values)) if values else None

    moving = [c for c in per_command if any(abs(v) > 0 for v in c["command"])]
    standing = [c for c in per_command if not any(abs(v) > 0 for v in c["command"])]
    falls = sum(round(c["fall_rate"] * c["robots"]) for c in per_command if c["fall_rate"] is not None)
    net = [
        math.hypot(c["achieved"]["vx"], c["achieved"]["vy"]) if c["achieved"]["vx"] is not None else None
        for c in standing
    ]
    stops = [c for c in standing if c.get("before") is not None]
    straight = [c.get("heading_drift") for c in moving]
    stop_times = [c["time_to_stand_s"] for c in stops]
    return {
        "xy_error_moving": mean(c["xy_error"] for c in moving),
        "yaw_error_moving": mean(c["yaw_error"] for c in moving),
        "heading_drift": mean(straight),
        "fall_rate": falls / num_robots if num_robots else None,
        "standing_drift": mean(c["xy_error"] for c in standing),
        "standing_net_velocity": mean(net),
        "standing_all_feet_down": mean(c.get("all_feet_down") for c in standing),
        "standing_joint_speed": mean(c.get("joint_speed") for c in standing),
        "stop_time_s": max(stop_times) if stop_times and None not in stop_times else None,
        "stop_stood_rate": mean(c["stood_rate"] for c in stops),
    }


SUMMARY = {
    "xy_error_moving": "mean xy error over the moving commands [m/s]",
    "yaw_error_moving": "mean yaw-rate error over the moving commands [rad/s]",
    "heading_drift": "mean heading drift over the straight commands (moving, yaw rate 0): heading change per second "
    "while told not to turn [rad/s]",
    "fall_rate": "fraction of all robots that fell",
    "standing_drift": "mean trunk xy speed while told to stand [m/s]",
    "standing_net_velocity": "|mean trunk xy velocity| while told to stand [m/s]",
    "standing_all_feet_down": "fraction of the standing time with all four feet down",
    "standing_joint_speed": "mean |joint velocity| while told to stand [rad/s]",
    "stop_time_s": "the slowest stop: seconds from the stop command until standing for 1 s; null if a robot never "
    "stood [s]",
    "stop_stood_rate": "fraction of the stop robots standing within 1 s of the stop command",
}
"""Every whole-grid figure and its unit."""


def rank_key(summary: dict) -> tuple[float, float]:
    """Sort key for choosing the best checkpoint: the grid's mean tracking error (xy + yaw over the moving
    commands, m/s and rad/s added as numbers), then fewer falls. Missing figures rank last."""
    xy, yaw, falls = summary.get("xy_error_moving"), summary.get("yaw_error_moving"), summary.get("fall_rate")
    error = math.inf if xy is None or yaw is None else xy + yaw
    return (error, math.inf if falls is None else falls)

"""What terrain a policy handles: robots walk forward from the centre of terrain cells (:mod:`go2_locomotion.tasks.
terrain_cells`), and each cell's success is the terrain curriculum's own criterion: the robot got at least half a
tile away from the centre without falling.

The same for every simulator: an adapter (Isaac Lab in :mod:`go2_locomotion.training.evaluate`, plain MuJoCo in
:mod:`go2_locomotion.sim2sim.terrain_grid`) calls :meth:`TerrainRecorder.record` once per policy step with
numpy arrays over its robots; :meth:`TerrainRecorder.report` gives per-cell figures. The report is
``evaluation.json`` with the cells under ``terrain`` (:mod:`.terrain_report`). Numpy only: a cell is anything with
``describe()`` (a :class:`~go2_locomotion.tasks.terrain_cells.TerrainCell`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import binomtest

FORWARD_SPEED = 1.0
"""The command every robot keeps by default [m/s, straight ahead]: the top of the task's forward range."""

WALKING_PACE = 0.5
"""The pace a person walks a Go2 up a building's stairs [m/s]: the terrain grid's other speed (``--terrain_speed``)."""


def check_speed(speed: float) -> float:
    """``speed`` [m/s] if a terrain grid can command it: above 0 (a robot told less does not leave its tile) and at
    most :data:`FORWARD_SPEED` (the top of the task's forward range: faster was never trained); else ``ValueError``
    naming the accepted range."""
    if not (0.0 < speed <= FORWARD_SPEED):
        raise ValueError(f"must be in (0, {FORWARD_SPEED:g}] m/s (the task's forward range), got {speed:g}")
    return float(speed)


def speed_folder(folder: str, speed: float) -> str:
    """A report folder name for a terrain grid at ``speed``: ``folder`` at :data:`FORWARD_SPEED`, else with the
    speed appended (``evaluation_terrain_0.5mps``), so the two speeds' reports sit side by side."""
    return folder if speed == FORWARD_SPEED else f"{folder}_{speed:g}mps"


ROBOTS_PER_CELL = 8
"""Default robots per terrain cell: 26 default cells x 8 = 208 (a stairs20 policy's 32 cells: 256)."""

CONFIDENCE = 0.95
"""Level of each cell's success interval [-]: Wilson's score interval, which keeps its level near 0 and 1, where a
cell of 64 robots often sits (a normal-approximation interval would collapse to a point there)."""

DURATION_S = 20.0
"""Default evaluation time [s]: the task's episode, the time the curriculum gives a robot to walk out of a tile."""

SETTLE_S = 1.0
"""Seconds after the start before the tracking error counts (the robot is dropped onto the terrain)."""


def level_zero_generator(base):
    """The task's terrain generator at its easiest level: every sub-terrain at difficulty 0, one column each (the
    command-grid evaluation of Go2-Rough runs here; random rough keeps its training noise, it has no levels)."""
    return base.replace(
        num_rows=1, num_cols=len(base.sub_terrains), curriculum=True, difficulty_range=(0.0, 0.0), seed=0
    )


@dataclass
class TerrainRecorder:
    """Per-robot outcomes on terrain cells: robot ``r`` walks cell ``assignment[r]`` under the command ``command``."""

    cells: Sequence
    """The cells, each with ``describe()`` (:class:`~go2_locomotion.tasks.terrain_cells.TerrainCell`)."""
    assignment: np.ndarray
    step_dt: float
    settle_s: float
    success_distance: float
    """Half a tile [m]: the curriculum promotes a robot that walked this far from the tile centre."""
    command: tuple[float, float, float] = (FORWARD_SPEED, 0.0, 0.0)
    steps: int = 0
    succeeded_at: np.ndarray = field(init=False)
    fell_at: np.ndarray = field(init=False)
    _error_sum: np.ndarray = field(init=False)
    _error_steps: np.ndarray = field(init=False)

    def __post_init__(self):
        self.assignment = np.asarray(self.assignment, dtype=int)
        robots = len(self.assignment)
        self.succeeded_at = np.full(robots, np.nan)
        self.fell_at = np.full(robots, np.nan)
        self._error_sum = np.zeros(robots)
        self._error_steps = np.zeros(robots, dtype=int)

    def record(self, distance: np.ndarray, lin_vel_b: np.ndarray, fell: np.ndarray) -> None:
        """One policy step: each robot's horizontal distance from its tile centre [m], trunk velocity in the trunk
        frame ``[R, 3]`` [m/s], and whether it fell on this step. A robot's outcome is its first event."""
        self.steps += 1
        time_s = self.steps * self.step_dt
        open_ = np.isnan(self.succeeded_at) & np.isnan(self.fell_at)
        falls = open_ & np.asarray(fell, dtype=bool)
        self.fell_at[falls] = time_s
        open_ &= ~falls
        arrived = open_ & (np.asarray(distance) >= self.success_distance)
        self.succeeded_at[arrived] = time_s
        counting = open_ & ~arrived & (time_s > self.settle_s)
        error = np.linalg.norm(np.asarray(lin_vel_b)[:, :2] - np.asarray(self.command[:2]), axis=1)
        self._error_sum[counting] += error[counting]
        self._error_steps[counting] += 1

    def report(self) -> dict:
        """Per cell: success and fall rates (fractions of its robots; success with its :func:`success_interval`),
        mean time to fall and to succeed [s], mean xy tracking error while walking [m/s]; and a per-terrain summary
        (success at each terrain's hardest size)."""
        cells = []
        for index, cell in enumerate(self.cells):
            mine = self.assignment == index
            fell, won = ~np.isnan(self.fell_at[mine]), ~np.isnan(self.succeeded_at[mine])
            steps = self._error_steps[mine].sum()
            cells.append(
                {
                    **cell.describe(),
                    "robots": int(mine.sum()),
                    "success_rate": float(won.mean()),
                    "success_interval": success_interval(int(won.sum()), int(mine.sum())),
                    "fall_rate": float(fell.mean()),
                    "time_to_fall_s": _mean(self.fell_at[mine][fell]),
                    "time_to_success_s": _mean(self.succeeded_at[mine][won]),
                    "xy_error": float(self._error_sum[mine].sum() / steps) if steps else None,
                }
            )
        return {"terrain": cells, "summary": summarise(cells)}


def success_interval(successes: int, robots: int) -> list[float] | None:
    """The :data:`CONFIDENCE` Wilson score interval of a cell's success rate ``[low, high]``; ``None`` without
    robots."""
    if robots == 0:
        return None
    interval = binomtest(successes, robots).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return [float(interval.low), float(interval.high)]


def summarise(cells: list[dict]) -> dict:
    """Mean success and fall rates over the cells, and per terrain (in the cells' order) the success at its largest
    evaluated size."""
    per_terrain = {}
    for name in dict.fromkeys(c["name"] for c in cells):
        top = max((c for c in cells if c["name"] == name), key=lambda c: c["difficulty"])
        per_terrain[name] = {key: top.get(key) for key in ("label", "success_rate", "success_interval")}
    return {
        "success_rate": _mean(np.array([c["success_rate"] for c in cells])),
        "fall_rate": _mean(np.array([c["fall_rate"] for c in cells])),
        "largest_size": per_terrain,
    }


def _mean(values: np.ndarray) -> float | None:
    return float(np.mean(values)) if len(values) else None

"""The Go2 tasks this package registers, as plain data: each training task's id, experiment name and what it has.
Every module that names a task reads it here (``tasks/__init__.py`` joins the config classes to it)."""

from __future__ import annotations

from dataclasses import dataclass

PLAY_SUFFIX = "-Play"
"""A training task's play variant is its id with this suffix."""


@dataclass(frozen=True)
class TaskInfo:
    """One training task."""

    id: str
    """Gymnasium id, e.g. ``Go2-Rough``."""
    experiment: str
    """RSL-RL PPO experiment name (``logs/rsl_rl/<experiment>``); also the folder of its shipped policy."""
    terrain: bool
    """Generated terrain with a curriculum and a height scan: terrain grids apply."""
    warm_start_from: str | None = None
    """The training task whose checkpoints this one can start from (``--warm_start``)."""

    @property
    def play_id(self) -> str:
        return self.id + PLAY_SUFFIX


GO2_ROUGH = TaskInfo("Go2-Rough", "go2_rough", terrain=True, warm_start_from="Go2-Flat")
GO2_FLAT = TaskInfo("Go2-Flat", "go2_flat", terrain=False)

TRAINING_TASKS = {task.id: task for task in (GO2_FLAT, GO2_ROUGH)}
"""Training task id -> its record; each also registers its play id."""

DEFAULT_TASK = GO2_FLAT
"""Whose shipped policy a command without ``--task`` uses (``sim2sim.py --bundle pretrained``)."""

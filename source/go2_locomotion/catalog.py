"""The Go2 tasks this package registers, as plain data: each training task's id, experiment name and what it has.
Every module that names a task reads it here (``tasks/__init__.py`` joins the config classes to it)."""

from __future__ import annotations

from dataclasses import dataclass

PLAY_SUFFIX = "-Play"
"""A training task's play variant is its id with this suffix."""

PPO_ENTRY_POINT = "rsl_rl_cfg_entry_point"
"""``--agent`` key of RSL-RL PPO, every task's default agent (Isaac Lab's ``train`` records the same)."""

FAST_SAC_ENTRY_POINT = "fast_sac_cfg_entry_point"
"""``--agent`` key of the FastSAC learner."""

DISTILLATION_ENTRY_POINT = "distillation_cfg_entry_point"
"""``--agent`` key of teacher-student distillation (the tasks with a ``teacher``)."""


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
    teacher: str | None = None
    """The training task whose policy teaches this one by distillation (its policy reads this task's ``teacher``
    observation group)."""

    @property
    def play_id(self) -> str:
        return self.id + PLAY_SUFFIX


GO2_ROUGH = TaskInfo("Go2-Rough", "go2_rough", terrain=True, warm_start_from="Go2-Flat")
GO2_FLAT = TaskInfo("Go2-Flat", "go2_flat", terrain=False)
GO2_ROUGH_BLIND = TaskInfo("Go2-Rough-Blind", "go2_rough_blind", terrain=True, teacher="Go2-Rough")

TRAINING_TASKS = {task.id: task for task in (GO2_FLAT, GO2_ROUGH, GO2_ROUGH_BLIND)}
"""Training task id -> its record; each also registers its play id."""

DEFAULT_TASK = GO2_FLAT
"""Whose shipped policy a command without ``--task`` uses (``sim2sim.py --bundle pretrained``)."""

"""Task ids: validation with close matches, and the training <-> play id mapping."""

from __future__ import annotations

import difflib

import gymnasium as gym

from ..catalog import PLAY_SUFFIX
from ..errors import UsageError


def check_task(task: str | None) -> str:
    """Return ``task`` if it is registered, else raise :class:`UsageError` naming the closest registered ids."""
    import go2_locomotion.tasks  # noqa: F401  (registers the Go2 tasks; imported here: Isaac Lab's configs, heavy)

    if not task:
        raise UsageError("--task is required, e.g. --task Go2-Flat")
    name = task.split(":")[-1]
    if name in gym.registry:
        return name
    known = [spec_id for spec_id, spec in gym.registry.items() if "env_cfg_entry_point" in spec.kwargs]
    close = difflib.get_close_matches(name, known, n=5, cutoff=0.5)
    hint = f"close matches: {', '.join(close)}" if close else f"Go2 tasks: {', '.join(go2_task_ids())}"
    raise UsageError(f"unknown task '{task}'; {hint}")


def go2_task_ids() -> list[str]:
    """The task ids this package registers."""
    from go2_locomotion.tasks import TASKS  # Isaac Lab's configs: heavy

    return list(TASKS)


def training_id(task: str) -> str:
    """The training task of a play id (``Go2-Flat-Play`` -> ``Go2-Flat``); other ids unchanged."""
    return task.removesuffix(PLAY_SUFFIX) if task.endswith(PLAY_SUFFIX) else task


def play_id(task: str) -> str:
    """The registered play variant of a task id (``Go2-Flat`` -> ``Go2-Flat-Play``), or the id itself."""
    candidate = task if task.endswith(PLAY_SUFFIX) else task + PLAY_SUFFIX
    return candidate if candidate in gym.registry else task

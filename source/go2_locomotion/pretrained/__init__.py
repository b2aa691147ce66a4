"""The pretrained policies shipped with the package, selected with ``--checkpoint pretrained`` (play, export,
evaluate) and ``--bundle pretrained`` (sim2sim).

Each lives in a folder named after its training task's experiment: the RSL-RL checkpoint ``model_<it>.pt``, its
deploy bundle in ``exported/``, its evaluation reports in ``evaluation/``, ``provenance.json`` (the exact command,
seed, commit, wall-clock and samples that produced it) and its run's resolved configs in ``params/`` (Isaac Lab's
``env.yaml`` and ``agent.yaml``: the terrain it trained on sets its default terrain grid, as for a run's
checkpoint). The folders are package data: read them, write elsewhere.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..catalog import DEFAULT_TASK, TRAINING_TASKS

KEYWORD = "pretrained"
"""The ``--checkpoint`` / ``--bundle`` value that selects a shipped policy."""

FOLDER = Path(__file__).parent
"""Where the shipped policies live (inside the installed package)."""

FOLDERS = {task.id: task.experiment for task in TRAINING_TASKS.values()}
"""Training task id -> the folder its shipped policy lives in (``ship`` writes there)."""

POLICIES = {task: name for task, name in FOLDERS.items() if (FOLDER / name / "provenance.json").is_file()}
"""Training task id -> folder of its shipped policy, for the tasks that have one."""

OUTPUT_ROOT = Path("logs") / KEYWORD
"""Where commands write what they derive from a shipped policy (exports, videos, evaluations), relative to the
working directory: never into the installed package."""


class NoPretrainedPolicy(LookupError):
    """The task has no shipped policy, or its files are missing from the installed package."""


def folder(task: str) -> Path:
    """The shipped policy's folder for a training task id."""
    if task not in POLICIES:
        raise NoPretrainedPolicy(f"no pretrained policy for task '{task}'; shipped: {', '.join(POLICIES)}")
    path = FOLDER / POLICIES[task]
    if not path.is_dir():
        raise NoPretrainedPolicy(f"the pretrained policy of '{task}' is missing from the installed package ({path})")
    return path


def checkpoint(task: str) -> Path:
    """The shipped RSL-RL checkpoint of a training task id."""
    found = sorted(folder(task).glob("model_*.pt"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
    if not found:
        raise NoPretrainedPolicy(f"the pretrained policy of '{task}' has no model_<iteration>.pt")
    return found[-1]


def bundle(task: str = DEFAULT_TASK.id) -> Path:
    """The shipped deploy bundle (``policy.onnx`` + ``deploy.yaml``) of a training task id."""
    path = folder(task) / "exported"
    if not (path / "deploy.yaml").is_file():
        raise NoPretrainedPolicy(f"the pretrained policy of '{task}' has no deploy bundle in {path}")
    return path


def is_shipped(path: Path) -> bool:
    """Whether ``path`` lies inside the shipped policies' folder."""
    return FOLDER in Path(path).absolute().parents


def output_dir(task: str) -> Path:
    """Where a command writes what it derives from the shipped policy of ``task``: ``logs/pretrained/<folder>``."""
    return (OUTPUT_ROOT / POLICIES[task]).absolute()


def recorded_path(path: Path) -> str:
    """How reports name ``path``: package-relative (``go2_locomotion/pretrained/...``) for a shipped file and
    relative to the working directory for a file under it (``logs/rsl_rl/...``), so reports name no machine's
    folders; as given otherwise."""
    path = Path(path)
    if is_shipped(path) or path.absolute() == FOLDER:
        return Path(FOLDER.parent.name, FOLDER.name, path.absolute().relative_to(FOLDER)).as_posix()
    if path.is_absolute() and Path.cwd() in path.parents:
        return path.relative_to(Path.cwd()).as_posix()
    return str(path)

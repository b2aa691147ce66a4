"""What a training run will do, decided before anything launches: :class:`RunPlan`, built by :func:`plan_run` from
plain values (no Isaac Lab import), so every resume decision is tested without a simulator.

The runner is a registry entry (:data:`RUNNERS`), chosen by the agent config's ``class_name`` as RSL-RL names its
runners; each learner's description (:mod:`.learners`) names its runner, so a learner plugs in there.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..errors import UsageError
from .checkpoints import AGENT_ENTRY_POINT, newest_loadable_checkpoint, read_checkpoint, resolve_checkpoint
from .learners import LEARNERS
from .preflight import DistillationGeometry, ReplayGeometry, RolloutGeometry

Geometry = RolloutGeometry | ReplayGeometry | DistillationGeometry
"""The shape of one iteration, whichever the learner (:mod:`.preflight.geometry`)."""

RESUME_AUTO = "auto"
"""``--resume auto``: re-enter the run folder named by ``--run_name`` and continue from its newest checkpoint."""

RESUME_CHECKPOINT = "checkpoint"
"""``--resume`` / ``--checkpoint``: continue from a checkpoint in a new run folder."""

RUNNERS = {learner.runner: learner.runner_class for learner in LEARNERS}
"""Agent config ``class_name`` -> the package's runner class (``module:Class``, imported when the run starts), from
the learners' descriptions (PPO and FastSAC share ``OnPolicyRunner``)."""


def check_runner(class_name: str) -> None:
    """Raises :class:`UsageError` when no runner is registered for an agent config's ``class_name``."""
    if class_name not in RUNNERS:
        raise UsageError(f"agent.class_name {class_name!r} has no runner in this package; accepted: {sorted(RUNNERS)}")


def runner_class(class_name: str) -> type:
    """The runner class registered for an agent config's ``class_name`` (checked by :func:`check_runner`)."""
    check_runner(class_name)
    module, name = RUNNERS[class_name].split(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class RunPlan:
    """One training attempt: where it logs, what it continues from, how long it runs, and which rank this is."""

    task: str
    """Registered training task id."""
    runner: str
    """Agent config ``class_name``, a key of :data:`RUNNERS`."""
    resume: str | None
    """``None`` (a new run), :data:`RESUME_CHECKPOINT` or :data:`RESUME_AUTO`."""
    log_dir: Path
    """The run folder."""
    iterations: int
    """Iterations this attempt runs (``max_iterations`` less those an earlier attempt finished, with auto)."""
    geometry: Geometry
    """The iteration's shape from the configuration."""
    rank: int | None = None
    """Global rank under torchrun; ``None`` when not distributed."""
    resume_from: Path | None = None
    """The checkpoint this attempt continues from."""
    checkpoint: dict | None = field(default=None, repr=False)
    """Its contents (read once, checked loadable)."""
    earlier_attempt: bool = False
    """With auto: the run folder exists but holds no checkpoint (an attempt died before its first save)."""

    @property
    def writes_files(self) -> bool:
        """Rank 0 (or the only process) writes the run folder's files."""
        return self.rank in (None, 0)

    @property
    def rank_dir(self) -> Path:
        """Where this rank's environment logs: the run folder, or ``rank_<r>`` below it for the other ranks."""
        return self.log_dir if self.writes_files else self.log_dir / f"rank_{self.rank}"

    @property
    def finished(self) -> bool:
        """An auto-resumed run whose folder already holds ``max_iterations``."""
        return self.iterations <= 0


def plan_run(
    task: str,
    *,
    runner: str,
    resume: str | None,
    root: Path,
    max_iterations: int,
    geometry: Geometry,
    run_name: str = "",
    checkpoint: str | None = None,
    timestamp: str | None = None,
    rank: int | None = None,
    agent: str = AGENT_ENTRY_POINT,
) -> RunPlan:
    """Decide the run folder and the starting point.

    Args:
        task: The training task id.
        runner: The agent config's ``class_name`` (checked against :data:`RUNNERS`).
        resume: ``None``, :data:`RESUME_CHECKPOINT` or :data:`RESUME_AUTO`.
        root: The experiment's log folder, ``logs/rsl_rl/<experiment>``.
        max_iterations: The run's iteration budget in total.
        geometry: The rollout shape.
        run_name: ``--run_name`` (with auto: the folder itself; otherwise a suffix of the timestamp).
        checkpoint: ``--checkpoint`` (a new run continues from it with ``--resume``, or when given at all; with
            auto, the folder starts from it while it holds no checkpoint of its own).
        timestamp: ``--run_timestamp`` (all ranks of a distributed run share one), default now.
        rank: The global rank under torchrun, ``None`` when not distributed.
        agent: The agent entry point (``--agent``): ``latest`` looks among that agent's runs.

    Raises:
        UsageError: The runner is unknown, or the checkpoint named cannot be found or loaded.
    """
    check_runner(runner)
    common = {"task": task, "runner": runner, "resume": resume, "geometry": geometry, "rank": rank}
    if resume == RESUME_AUTO:
        log_dir = root / run_name
        found = newest_loadable_checkpoint(log_dir) if log_dir.is_dir() else None
        if found is None and checkpoint:
            # a continuation's first attempt: its folder starts from --checkpoint (requeued attempts from the folder)
            start = resolve_checkpoint(checkpoint, root=root, task=task, agent=agent)
            found = start, read_checkpoint(start)
        if found is None:
            return RunPlan(log_dir=log_dir, iterations=max_iterations, earlier_attempt=log_dir.is_dir(), **common)
        path, data = found
        return RunPlan(
            log_dir=log_dir,
            iterations=max_iterations - (data["iter"] + 1),
            resume_from=path,
            checkpoint=data,
            **common,
        )
    resume_from = data = None
    if resume == RESUME_CHECKPOINT or checkpoint:
        resume_from = resolve_checkpoint(checkpoint or "latest", root=root, task=task, agent=agent)
        data = read_checkpoint(resume_from)
    folder = timestamp or datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
    if run_name:
        folder += f"_{run_name}"
    return RunPlan(log_dir=root / folder, iterations=max_iterations, resume_from=resume_from, checkpoint=data, **common)

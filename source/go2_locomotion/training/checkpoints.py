"""Finding, reading and checking RSL-RL checkpoints before a run writes anything.

``latest`` uses Isaac Lab 3.0's run manifests (``isaaclab_rl.entrypoints.common.resolve_checkpoint_selector``):
the newest training run of the task's experiment, then its highest ``model_<iteration>.pt`` in numeric order
(``model_10`` after ``model_9``). Runs started by ``scripts/train.py`` and by ``isaaclab train`` are both found.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import torch

from .. import pretrained
from ..catalog import PPO_ENTRY_POINT
from ..errors import UsageError
from .learners import Learner, checkpoint_keys_text, learner_of_checkpoint

CHECKPOINT_PATTERN = r"model_\d+\.pt"
"""File names RSL-RL's runner gives its checkpoints."""

AGENT_ENTRY_POINT = PPO_ENTRY_POINT
"""Agent key recorded in the run manifest; Isaac Lab's ``train`` records the same by default."""


def checkpoint_iteration(path: Path | str) -> int:
    """The iteration in a checkpoint's file name: ``model_10.pt`` -> 10."""
    return int(re.fullmatch(r"model_(\d+)\.pt", Path(path).name).group(1))


def list_checkpoints(folder: Path) -> list[Path]:
    """The ``model_<iteration>.pt`` files of a run folder, in iteration order."""
    models = [p for p in Path(folder).iterdir() if p.is_file() and re.fullmatch(CHECKPOINT_PATTERN, p.name)]
    return sorted(models, key=checkpoint_iteration)


def log_root(experiment_name: str, logs_dir: str | Path = "logs") -> Path:
    """``logs/rsl_rl/<experiment>``, the RSL-RL layout Isaac Lab uses, relative to the working directory."""
    return (Path(logs_dir) / "rsl_rl" / experiment_name).absolute()


def resolve_checkpoint(checkpoint: str, *, root: Path, task: str, agent: str = AGENT_ENTRY_POINT) -> Path:
    """Turn ``--checkpoint`` (``latest``, ``best``, ``pretrained``, a run folder or a file) into an existing
    checkpoint file.

    Args:
        checkpoint: The user's ``--checkpoint`` value.
        root: The experiment's log folder, ``logs/rsl_rl/<experiment>``.
        task: The training task id recorded in the run manifests.
        agent: The agent entry point recorded in the run manifests (``--agent``).

    Raises:
        UsageError: If no run or checkpoint is found; the message says where it looked.
    """
    from isaaclab_rl.entrypoints.common import CHECKPOINT_SELECTORS, resolve_checkpoint_selector  # Isaac Lab: heavy

    if checkpoint == pretrained.KEYWORD:
        if agent != AGENT_ENTRY_POINT:
            raise UsageError(
                f"--checkpoint pretrained: the shipped policies are PPO's ({AGENT_ENTRY_POINT}), not {agent}'s"
            )
        try:
            return pretrained.checkpoint(task)
        except pretrained.NoPretrainedPolicy as error:
            raise UsageError(f"--checkpoint pretrained: {error}") from None
    if checkpoint in CHECKPOINT_SELECTORS:
        try:
            found = resolve_checkpoint_selector(
                str(root),
                checkpoint,
                library="rsl_rl",
                task=task,
                checkpoint_pattern=CHECKPOINT_PATTERN,
                metadata={"agent": agent},
            )
        except ValueError:
            raise UsageError(
                f"--checkpoint {checkpoint}: no training run of task '{task}' with a model_<iteration>.pt was found "
                f"in {root}; train first, or pass --checkpoint PATH"
            ) from None
        return Path(found)
    path = Path(checkpoint).expanduser().absolute()
    if path.is_dir():
        models = list_checkpoints(path)
        if not models:
            raise UsageError(f"--checkpoint {checkpoint}: the folder has no model_<iteration>.pt")
        return models[-1]
    if not path.is_file():
        raise UsageError(f"--checkpoint {checkpoint}: no such file or folder")
    return path


def resolve_teacher_checkpoint(agent_cfg, task: str) -> None:
    """``agent.algorithm.teacher_checkpoint=pretrained`` (FastSAC's PPO teacher) becomes the path of ``task``'s
    shipped policy, the file ``--checkpoint pretrained`` plays, so that the run's ``params/agent.yaml`` names the
    file and a resume inside the teacher phase loads it again. Any other value is left as it is.

    Raises:
        UsageError: If ``task`` ships no policy.
    """
    algorithm = getattr(agent_cfg, "algorithm", None)
    if getattr(algorithm, "teacher_checkpoint", None) != pretrained.KEYWORD:
        return
    try:
        algorithm.teacher_checkpoint = str(pretrained.checkpoint(task))
    except pretrained.NoPretrainedPolicy as error:
        raise UsageError(f"agent.algorithm.teacher_checkpoint=pretrained: {error}") from None


def write_atomically(data: dict, path: Path | str) -> None:
    """``torch.save`` to a temporary file in the same folder, flush and fsync it, then rename it over ``path`` (and
    fsync the folder): a reader, or a resume after a kill at any moment, sees the old file or the complete new one.
    The temporary name does not match :data:`CHECKPOINT_PATTERN`, so a left-over one is never taken for a
    checkpoint."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as file:
            torch.save(data, file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def remove_partial_writes(folder: Path) -> list[Path]:
    """Delete the temporary files of checkpoint writes that a kill interrupted; returns them."""
    partial = [p for p in Path(folder).glob(".model_*.pt.*.tmp") if p.is_file()]
    for path in partial:
        path.unlink(missing_ok=True)
    return partial


def newest_loadable_checkpoint(folder: Path, warn=print) -> tuple[Path, dict] | None:
    """The newest ``model_<it>.pt`` of ``folder`` that loads, with its contents; ``None`` if there is none.

    A newer file that does not load (truncated by a crash of a writer that was not atomic, or damaged on disk) is
    skipped with a one-line warning naming it."""
    for path in reversed(list_checkpoints(folder)):
        try:
            return path, read_checkpoint(path)
        except UsageError as error:
            warn(f"warning: skipping {path.name}: {error}")
    return None


def read_checkpoint(path: Path) -> dict:
    """Load a checkpoint onto the CPU, refusing files that are truncated, corrupt or not RSL-RL checkpoints."""
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # noqa: BLE001  (torch raises many types for a damaged file)
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise UsageError(f"checkpoint {path} is truncated or corrupt and cannot be loaded ({detail})") from None
    if not isinstance(data, dict) or learner_of_checkpoint(data) is None:
        raise UsageError(f"checkpoint {path} is not an RSL-RL checkpoint (it has none of {checkpoint_keys_text()})")
    return data


def layer_widths(state_dict: dict[str, torch.Tensor]) -> list[int]:
    """Widths of an MLP from its state dict: ``[input, hidden..., output]``, e.g. ``[48, 128, 128, 128, 12]``."""
    layers = sorted(
        (int(match.group(1)), tensor)
        for key, tensor in state_dict.items()
        if (match := re.fullmatch(r"mlp\.(\d+)\.weight", key)) and tensor.ndim == 2
    )
    if not layers:
        return []
    return [layers[0][1].shape[1]] + [tensor.shape[0] for _, tensor in layers]


def check_compatible(checkpoint: dict, path: Path, policy: torch.nn.Module, task: str, learner: Learner | None = None):
    """Refuse a checkpoint whose policy does not fit the task's: saved by a learner whose policies ``learner`` (the
    run's) does not play, with other network shapes, or a FastSAC residual actor (:func:`refuse_residual_actor`).
    Without ``learner`` only the shapes and the residual are checked.

    Raises:
        UsageError: Naming the checkpoint's learner and the fix, its widths and the task's, or the residual setting.
    """
    saved_by = learner_of_checkpoint(checkpoint)
    refuse_residual_actor(checkpoint, path)
    if learner is not None and saved_by.name not in learner.plays:
        raise UsageError(
            f"checkpoint {path} was trained with {saved_by.name}, not the agent chosen ({learner.name}); "
            f"{saved_by.agent_flag}"
        )
    expected = policy.state_dict()
    saved = checkpoint[saved_by.policy_key]
    from ..fast_sac.distribution import BOX_BUFFERS  # torch and RSL-RL: loaded by play's runner anyway

    # a FastSAC actor's box travels in its checkpoint and loads into an actor built without one
    boxed = {key for key in saved if key.rpartition(".")[2] in BOX_BUFFERS and key not in expected}
    mismatched = set(expected) != set(saved) - boxed or any(saved[k].shape != expected[k].shape for k in expected)
    if mismatched:
        ours, theirs = layer_widths(expected), layer_widths(saved)
        raise UsageError(
            f"checkpoint {path} does not fit task '{task}': its {saved_by.policy} has layer widths {theirs} "
            f"(observation {theirs[0] if theirs else '?'}, action {theirs[-1] if theirs else '?'}), "
            f"the task's policy has {ours} (observation {ours[0] if ours else '?'}, action {ours[-1] if ours else '?'})"
        )


def refuse_residual_actor(checkpoint: dict, path: Path) -> None:
    """Refuse a FastSAC checkpoint trained with ``agent.algorithm.residual_on_teacher``: its actor is a correction to
    a PPO teacher's action that is not in the checkpoint, so play, evaluation and export would act without the
    teacher.

    Raises:
        UsageError: Naming the setting, the checkpoint and what is accepted.
    """
    from ..fast_sac.algorithm import RESIDUAL_KEY  # torch and RSL-RL: loaded by play's runner anyway

    residual = checkpoint.get(RESIDUAL_KEY)
    if residual:
        raise UsageError(
            f"checkpoint {path} was trained with agent.algorithm.{RESIDUAL_KEY}=True: its actor is a correction to the "
            f"teacher {residual.get('teacher_checkpoint')}, which play, evaluation and export do not add; they accept "
            "checkpoints trained without it"
        )


def check_resumable(checkpoint: dict, path: Path, learner: Learner) -> None:
    """Refuse to continue a run of ``learner`` from a checkpoint another learner saved (its training state is not
    this learner's); a PPO run can still start from a distilled student with ``--warm_start``.

    Raises:
        UsageError: Naming the checkpoint's learner and the fix.
    """
    saved_by = learner_of_checkpoint(checkpoint)
    if saved_by is learner:
        return
    fix = saved_by.agent_flag
    if saved_by.name in learner.warm_start_from and not learner.teacher:
        fix += f", or start a new {learner.name} run from it with --warm_start {path}"
    raise UsageError(
        f"checkpoint {path} was trained with {saved_by.name}, not the agent chosen ({learner.name}); {fix}"
    )


def policy_state(checkpoint: dict) -> dict[str, torch.Tensor]:
    """The state dict of the acting model of a checkpoint of any learner (:attr:`~.learners.Learner.policy`)."""
    return checkpoint[learner_of_checkpoint(checkpoint).policy_key]

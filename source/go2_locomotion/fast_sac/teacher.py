"""FastSAC's PPO teacher (``algorithm.teacher_*``): the task's PPO actor, read from its checkpoint, that acts for the
first iterations and labels replayed observations for behaviour cloning. Why: docs/training.md "A second learner:
FastSAC".
"""

from __future__ import annotations

from pathlib import Path

import torch
import torch.nn as nn
from rsl_rl.utils import resolve_class
from tensordict import TensorDict

from .. import pretrained
from ..errors import UsageError

FIELD = "agent.algorithm.teacher_checkpoint"
"""How messages name the setting."""


def teacher_network(model_cfg: dict, obs: TensorDict, groups: list[str], num_actions: int) -> nn.Module:
    """The teacher's network as ``model_cfg`` (``agent.teacher`` as RSL-RL gets it, a dict) describes it, reading
    ``groups`` (the FastSAC actor's), built on ``obs`` as RSL-RL's algorithms build their models; untrained."""
    model_class, kwargs = resolve_class(model_cfg)
    return model_class(obs, {"teacher": list(groups)}, "teacher", num_actions, **kwargs)


def load_teacher_state(model: nn.Module, path: str | Path) -> None:
    """Load the ``actor_state_dict`` of the PPO checkpoint at ``path`` into ``model`` (:func:`teacher_network`).

    Raises:
        UsageError: One line naming :data:`FIELD`, the path and what does not fit: no such file, a file that does not
            load, no ``actor_state_dict``, an actor reading another number of inputs than ``model`` (the FastSAC
            actor's observation), or other layer shapes than ``agent.teacher``'s.
    """
    if str(path) == pretrained.KEYWORD:
        raise UsageError(
            f"{FIELD}=pretrained names the task's shipped policy, which scripts/train.py resolves (it knows the task); "
            "elsewhere pass the checkpoint's path"
        )
    if not Path(path).is_file():
        raise UsageError(f"{FIELD} must be a PPO checkpoint file of the task or 'pretrained', got {str(path)!r}")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # noqa: BLE001  (torch raises many types for a damaged file)
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise UsageError(f"{FIELD} {path} cannot be loaded ({detail})") from None
    state = data.get("actor_state_dict") if isinstance(data, dict) else None
    if not isinstance(state, dict):
        keys = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise UsageError(f"{FIELD} {path} has no actor_state_dict (a PPO checkpoint's actor); it holds {keys}")
    expected = model.state_dict()
    first = state.get("mlp.0.weight")
    width = expected["mlp.0.weight"].shape[1]
    if first is None or first.dim() != 2 or first.shape[1] != width:
        reads = "no mlp.0.weight" if first is None or first.dim() != 2 else f"{first.shape[1]} inputs"
        raise UsageError(
            f"{FIELD} {path}: its actor reads {reads}, the FastSAC actor's observation "
            f"({', '.join(model.obs_groups)}) has {width}; a PPO checkpoint of the same task is accepted"
        )
    for key in sorted(expected.keys() | state.keys()):
        if key not in state or key not in expected or state[key].shape != expected[key].shape:
            theirs = tuple(state[key].shape) if key in state else "absent"
            ours = tuple(expected[key].shape) if key in expected else "absent"
            raise UsageError(
                f"{FIELD} {path}: its actor does not fit agent.teacher (the task's PPO actor): {key} is {theirs} "
                f"there, {ours} in agent.teacher"
            )
    model.load_state_dict(state, strict=True)


def build_teacher(
    model_cfg: dict | None,
    path,
    obs: TensorDict,
    groups: list[str],
    num_actions: int,
    device: str,
    uses: str = "teacher_iterations > 0",
) -> nn.Module:
    """The teacher: :func:`teacher_network` with the checkpoint's actor loaded (:func:`load_teacher_state`), frozen,
    in evaluation mode, on ``device``. ``uses``: the settings that need it, for the message.

    Raises:
        UsageError: No checkpoint or no ``agent.teacher``, or a checkpoint that does not fit.
    """
    if path is None:
        raise UsageError(f"{FIELD} must name a PPO checkpoint of the task when {uses}, got None")
    if model_cfg is None:
        raise UsageError("agent.teacher is missing: the network of the teacher checkpoint (the task's PPO actor)")
    model = teacher_network(model_cfg, obs, groups, num_actions)
    load_teacher_state(model, path)
    model.requires_grad_(False)
    return model.eval().to(device)

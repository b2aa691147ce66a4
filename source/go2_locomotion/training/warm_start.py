"""Warm start: a new run of one task that begins from another task's trained networks (``train.py --warm_start``).

Go2-Rough starts from a Go2-Flat checkpoint. The two share the proprioceptive observation terms; Go2-Rough adds
the height scan and has wider layers. The flat networks are embedded in the rough ones so that the rough networks
compute exactly what the flat ones do, whatever the height scan reads:

- the first layer's columns of the shared observation terms take the flat weights; the other inputs (the height
  scan) get zero weights into the embedded units: they start neutral and learn from the first update;
- each layer's first units are the flat layer's units; the extra units keep their fresh initialisation, and the
  next layer reads them with zero weights, so they change nothing until training moves those weights;
- the action noise (``distribution.std_param``) and any observation normaliser statistics of the shared inputs
  are copied; the optimiser and the iteration count start afresh (a new run, not a resume).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import torch

from ..catalog import TRAINING_TASKS
from ..errors import UsageError
from .preflight import config_observation_term_widths

SOURCES = {task.id: task.warm_start_from for task in TRAINING_TASKS.values() if task.warm_start_from}
"""Training task id -> the task whose checkpoints it can start from."""

RECORD_FILE = "warm_start.json"
"""Written into the run folder: which checkpoint the run started from (path, SHA-256, task)."""

_LAYER = re.compile(r"mlp\.(\d+)\.(weight|bias)")


def source_task(task: str) -> str:
    """The task whose checkpoints ``task`` warm-starts from.

    Raises:
        UsageError: If ``task`` has none.
    """
    if task not in SOURCES:
        offered = ", ".join(f"{t} (from {s})" for t, s in SOURCES.items())
        raise UsageError(f"--warm_start: task '{task}' has no warm-start source; offered: {offered}")
    return SOURCES[task]


def input_columns(source_terms: dict[str, int], target_terms: dict[str, int]) -> list[int]:
    """For each input of the source layout (observation terms in order, with widths), its column in the target.

    Raises:
        UsageError: If a source term is not in the target, or has another width there.
    """
    starts, column = {}, 0
    for name, width in target_terms.items():
        starts[name] = column
        column += width
    columns = []
    for name, width in source_terms.items():
        if name not in target_terms or target_terms[name] != width:
            raise UsageError(
                f"--warm_start: the checkpoint's observation term '{name}' ({width} inputs) is not an input of the "
                f"task (its terms: {', '.join(f'{n} ({w})' for n, w in target_terms.items())})"
            )
        columns.extend(range(starts[name], starts[name] + width))
    return columns


def _linear_layers(state_dict: dict[str, torch.Tensor]) -> list[int]:
    return sorted({int(m.group(1)) for key in state_dict if (m := _LAYER.fullmatch(key))})


def embed(source: dict[str, torch.Tensor], target: dict[str, torch.Tensor], columns: list[int]) -> dict:
    """``target`` (a freshly initialised state dict) with the ``source`` network embedded (see the module).

    ``columns[i]`` is the target input that source input ``i`` is. Tensors other than the MLP's: copied when the
    shapes agree; a per-input tensor (an observation normaliser's mean, variance) copied at ``columns``.

    Raises:
        UsageError: If the networks differ in depth or a source layer is wider than the target's.
    """
    layers_s, layers_t = _linear_layers(source), _linear_layers(target)
    if layers_s != layers_t:
        raise UsageError(
            f"--warm_start: the checkpoint's network has {len(layers_s)} layers, the task's {len(layers_t)}"
        )
    result = {key: value.clone() for key, value in target.items()}
    index = torch.tensor(columns, dtype=torch.long)
    for position, layer in enumerate(layers_s):
        w_s, b_s = source[f"mlp.{layer}.weight"], source[f"mlp.{layer}.bias"]
        w_t = result[f"mlp.{layer}.weight"]
        rows, inputs = w_s.shape
        last = position == len(layers_s) - 1
        if rows > w_t.shape[0] or inputs > w_t.shape[1] or (last and rows != w_t.shape[0]):
            raise UsageError(
                f"--warm_start: the checkpoint's layer mlp.{layer} is {tuple(w_s.shape)}, wider than the task's "
                f"{tuple(w_t.shape)} (or a different output)"
            )
        # the embedded units read the source's inputs only: zero weight from new inputs and from extra units below
        w_t[:rows] = 0.0
        if position == 0:
            w_t[:rows, index] = w_s
        else:
            w_t[:rows, :inputs] = w_s
        result[f"mlp.{layer}.bias"][:rows] = b_s
    for key, value in source.items():
        if _LAYER.fullmatch(key):
            continue
        if key not in result:
            raise UsageError(f"--warm_start: the checkpoint's '{key}' has no counterpart in the task's network")
        if value.shape == result[key].shape:
            result[key] = value.clone()
        elif value.shape[-1] == len(columns):
            result[key][..., index] = value
        else:
            raise UsageError(
                f"--warm_start: '{key}' is {tuple(value.shape)} in the checkpoint, "
                f"{tuple(result[key].shape)} in the task"
            )
    return result


def warm_state(checkpoint: dict, fresh: dict, columns: list[int]) -> dict:
    """The actor and critic state dicts for ``alg.load``: ``fresh`` (``alg.save()`` of the new run) with the
    checkpoint's networks embedded."""
    return {
        f"{net}_state_dict": embed(checkpoint[f"{net}_state_dict"], fresh[f"{net}_state_dict"], columns)
        for net in ("actor", "critic")
    }


def layouts(task: str) -> dict[str, dict[str, int]]:
    """The policy observation layout (term -> width, in order) of ``task`` and of its warm-start source."""
    # Isaac Lab and the task configs: heavy, and only a warm start needs them
    from isaaclab_tasks.utils.parse_cfg import load_cfg_from_registry

    from .. import tasks  # noqa: F401  (registers the tasks)

    return {
        name: config_observation_term_widths(load_cfg_from_registry(name, "env_cfg_entry_point"))["policy"]
        for name in (source_task(task), task)
    }


def source_layout(checkpoint: dict, path: Path, task: str) -> tuple[str, dict[str, int]]:
    """The task (and its observation layout) whose inputs the checkpoint's actor reads, told by its input width.

    Raises:
        UsageError: If the width fits neither the task nor its warm-start source.
    """
    width = checkpoint["actor_state_dict"]["mlp.0.weight"].shape[1]
    found = layouts(task)
    for name, layout in found.items():
        if sum(layout.values()) == width:
            return name, layout
    accepted = ", ".join(f"{name} ({sum(layout.values())})" for name, layout in found.items())
    raise UsageError(f"--warm_start {path}: its actor reads {width} inputs; accepted are checkpoints of {accepted}")


def apply(runner, checkpoint: dict, path: Path, source: tuple[str, dict[str, int]], target_layout: dict[str, int]):
    """Load the checkpoint's networks into ``runner``'s, embedded; returns the record for :data:`RECORD_FILE`.
    ``source`` is the checkpoint's task and observation layout (:func:`source_layout`)."""
    name, layout = source
    columns = input_columns(layout, target_layout)
    runner.alg.load(warm_state(checkpoint, runner.alg.save(), columns), {"actor": True, "critic": True}, True)
    return {
        "checkpoint": str(path),
        "sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest(),
        "source_task": name,
        "iteration": checkpoint.get("iter"),
        "inputs_from_source": len(columns),
        "inputs_new": sum(target_layout.values()) - len(columns),
    }


def write_record(log_dir: Path, record: dict) -> None:
    (Path(log_dir) / RECORD_FILE).write_text(json.dumps(record, indent=2) + "\n")

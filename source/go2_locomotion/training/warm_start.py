"""Warm start (``train.py --warm_start``): a new run that begins from trained networks, checked by :func:`prepare`
before the simulator starts. PPO from another task's PPO checkpoint (:data:`EMBED`: embedded so that the new networks
compute exactly what the old ones do), PPO from a distillation student (:data:`STUDENT`), distillation from a
teacher's PPO checkpoint (:data:`TEACHER`).

Why: docs/training.md, *Warm start: Go2-Rough from Go2-Flat*.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import torch

from .. import pretrained
from ..catalog import TRAINING_TASKS
from ..errors import UsageError
from .checkpoints import layer_widths, policy_state, read_checkpoint
from .learners import Learner, learner_of_algorithm, learner_of_checkpoint
from .preflight import config_observation_term_widths, config_observation_widths

SOURCES = {task.id: task.warm_start_from for task in TRAINING_TASKS.values() if task.warm_start_from}
"""Training task id -> the task whose checkpoints it can start from."""

EMBED, STUDENT, TEACHER = "embed", "student", "teacher"
"""What a warm start loads: another task's networks embedded, a distilled student as the actor, a teacher."""

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


def input_columns(
    source_terms: dict[str, int], target_terms: dict[str, int], dropped: Collection[str] = ()
) -> list[int | None]:
    """For each input of the source layout (observation terms in order, with widths), its column in the target;
    ``None`` for the inputs of a term in ``dropped`` the target does not have (the embedded network then reads it
    as zero: with a normaliser, as its mean).

    Raises:
        UsageError: If a source term is not in the target (and not in ``dropped``), or has another width there.
    """
    starts, column = {}, 0
    for name, width in target_terms.items():
        starts[name] = column
        column += width
    columns: list[int | None] = []
    for name, width in source_terms.items():
        if name in dropped and name not in target_terms:
            columns.extend([None] * width)
            continue
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

    ``columns[i]`` is the target input that source input ``i`` is (``None``: the target has no such input, and its
    weights are left out). Tensors other than the MLP's: copied when the shapes agree; a per-input tensor (an
    observation normaliser's mean, variance) copied at ``columns``.

    Raises:
        UsageError: If the networks differ in depth or a source layer is wider than the target's.
    """
    layers_s, layers_t = _linear_layers(source), _linear_layers(target)
    if layers_s != layers_t:
        raise UsageError(
            f"--warm_start: the checkpoint's network has {len(layers_s)} layers, the task's {len(layers_t)}"
        )
    result = {key: value.clone() for key, value in target.items()}
    kept = [i for i, column in enumerate(columns) if column is not None]
    source_index = torch.tensor(kept, dtype=torch.long)
    index = torch.tensor([columns[i] for i in kept], dtype=torch.long)
    for position, layer in enumerate(layers_s):
        w_s, b_s = source[f"mlp.{layer}.weight"], source[f"mlp.{layer}.bias"]
        w_t = result[f"mlp.{layer}.weight"]
        rows, inputs = w_s.shape
        inputs = len(kept) if position == 0 else inputs  # the inputs it keeps
        last = position == len(layers_s) - 1
        if rows > w_t.shape[0] or inputs > w_t.shape[1] or (last and rows != w_t.shape[0]):
            raise UsageError(
                f"--warm_start: the checkpoint's layer mlp.{layer} is {tuple(w_s.shape)}, wider than the task's "
                f"{tuple(w_t.shape)} (or a different output)"
            )
        # the embedded units read the source's inputs only: zero weight from new inputs and from extra units below
        w_t[:rows] = 0.0
        if position == 0:
            w_t[:rows, index] = w_s[:, source_index]
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
            result[key][..., index] = value[..., source_index]
        else:
            raise UsageError(
                f"--warm_start: '{key}' is {tuple(value.shape)} in the checkpoint, "
                f"{tuple(result[key].shape)} in the task"
            )
    return result


def warm_state(checkpoint: dict, fresh: dict, columns: dict[str, list[int | None]]) -> dict:
    """The actor and critic state dicts for ``alg.load``: ``fresh`` (``alg.save()`` of the new run) with the
    checkpoint's networks embedded, each at its own ``columns`` (``{"actor": ..., "critic": ...}``)."""
    return {
        f"{net}_state_dict": embed(checkpoint[f"{net}_state_dict"], fresh[f"{net}_state_dict"], columns[net])
        for net in ("actor", "critic")
    }


def layouts(task: str) -> dict[str, dict[str, int]]:
    """The policy observation layout (term -> width, in order) of ``task`` and of its warm-start source, if it has
    one."""
    # Isaac Lab and the task configs: heavy, and only a warm start needs them
    from isaaclab_tasks.utils.parse_cfg import load_cfg_from_registry

    from .. import tasks  # noqa: F401  (registers the tasks)

    names = [source_task(task), task] if task in SOURCES else [task]
    return {
        name: config_observation_term_widths(load_cfg_from_registry(name, "env_cfg_entry_point"))["policy"]
        for name in names
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


def apply(
    runner, checkpoint: dict, path: Path, source: tuple[str, dict[str, int]], target: dict[str, dict], task: str
) -> dict:
    """Load the checkpoint's networks into ``runner``'s, embedded; returns the record for :data:`RECORD_FILE`.
    ``source`` is the checkpoint's task and observation layout (:func:`source_layout`, what its actor and critic
    read); ``target`` the layout each of the run's networks reads (``{"actor": ..., "critic": ...}``). A checkpoint
    of the run's own ``task`` may lack terms the run adds and have terms the run takes out (``presets=no_lin_vel``):
    those are left out; from another task every input must carry over.

    Raises:
        UsageError: If the checkpoint's critic reads another layout than its actor (a privileged critic).
    """
    name, layout = source
    critic_width = checkpoint["critic_state_dict"]["mlp.0.weight"].shape[1]
    if critic_width != sum(layout.values()):
        raise UsageError(
            f"--warm_start {path}: its critic reads {critic_width} inputs, its actor {sum(layout.values())}: only a "
            "checkpoint whose critic reads the actor's observation can be embedded"
        )
    same_task = name == task
    columns = {
        net: input_columns(layout, target[net], dropped=layout if same_task else ()) for net in ("actor", "critic")
    }
    runner.alg.load(warm_state(checkpoint, runner.alg.save(), columns), {"actor": True, "critic": True}, True)
    actor = columns["actor"]
    return {
        **_record(checkpoint, path, name, EMBED),
        "inputs_from_source": sum(c is not None for c in actor),
        "inputs_new": sum(target["actor"].values()) - sum(c is not None for c in actor),
        "inputs_dropped": [term for term in layout if term not in target["actor"]],
    }


@dataclass(frozen=True)
class WarmStart:
    """What ``--warm_start`` loads into a new run, read and checked before the simulator starts."""

    kind: str
    """:data:`EMBED`, :data:`STUDENT` or :data:`TEACHER`."""
    path: Path
    """The checkpoint file."""
    checkpoint: dict = field(repr=False)
    """Its contents."""
    source_task: str
    """The task it was trained on."""
    layout: dict[str, int] | None = None
    """With :data:`EMBED`: the source task's policy observation layout (term -> width)."""


def teacher_task(task: str) -> str:
    """The catalog's teacher task of ``task``.

    Raises:
        UsageError: If ``task`` has none.
    """
    teacher = TRAINING_TASKS[task].teacher
    if teacher is None:
        offered = ", ".join(f"{t.id} (taught by {t.teacher})" for t in TRAINING_TASKS.values() if t.teacher)
        raise UsageError(f"task '{task}' has no teacher to distil; offered: {offered}")
    return teacher


def accepted_checkpoints(task: str, learner: Learner) -> str:
    """What ``--warm_start`` takes for ``learner`` on ``task``, for messages."""
    if learner.teacher:
        return f"a PPO checkpoint of {teacher_task(task)} (default: its shipped policy)"
    accepted = []
    if task in SOURCES:
        accepted.append(f"a PPO checkpoint of {SOURCES[task]} (default: its shipped policy)")
    if TRAINING_TASKS[task].teacher is not None:
        accepted.append(f"a distillation checkpoint of {task}")
    accepted.append(f"a PPO checkpoint of {task} (its observation terms embedded by name)")
    return " or ".join(accepted)


def prepare(value: str, task: str, learner: Learner, env_cfg, agent_cfg, action_width: int) -> WarmStart:
    """Read and check what ``--warm_start VALUE`` (a path, or ``pretrained``) gives ``learner`` on ``task`` (a
    learner whose :attr:`~.learners.Learner.warm_start_from` is not empty): the checkpoint's learner is one it
    starts from, and its policy fits the model it loads into (built from the config on zero observations of the
    config's widths).

    Raises:
        UsageError: One line naming the checkpoint and what is accepted.
    """
    accepted = accepted_checkpoints(task, learner)
    if value == pretrained.KEYWORD:
        if not learner.teacher and task not in SOURCES:
            if not TRAINING_TASKS[task].teacher:
                source_task(task)  # raises: no warm-start source, naming the tasks that have one
            raise UsageError(f"--warm_start: task '{task}' has no shipped policy to start from; accepted: {accepted}")
        shipped = teacher_task(task) if learner.teacher else SOURCES[task]
        try:
            path = pretrained.checkpoint(shipped)
        except pretrained.NoPretrainedPolicy as error:
            raise UsageError(f"--warm_start pretrained: {error}") from None
    else:
        path = Path(value)
        if not path.is_file():
            raise UsageError(f"--warm_start {value}: no such checkpoint file (or 'pretrained')")
    checkpoint = read_checkpoint(path)
    saved_by = learner_of_checkpoint(checkpoint)
    if saved_by.name not in learner.warm_start_from:
        raise UsageError(f"--warm_start {path}: a {saved_by.name} checkpoint; {learner.name} starts from {accepted}")
    state = checkpoint[saved_by.policy_key]
    widths = config_observation_widths(env_cfg)
    if learner.teacher:
        check_fits(state, agent_cfg.teacher, agent_cfg.obs_groups, "teacher", widths, action_width, path, task)
        return WarmStart(TEACHER, path, checkpoint, teacher_task(task))
    if saved_by.teacher:  # a distilled student: the actor of the same task
        check_fits(state, agent_cfg.actor, agent_cfg.obs_groups, "actor", widths, action_width, path, task)
        return WarmStart(STUDENT, path, checkpoint, task)
    name, layout = source_layout(checkpoint, path, task)
    return WarmStart(EMBED, path, checkpoint, name, layout)


def model_from_cfg(model_cfg, obs_groups: dict, role: str, widths: dict[str, int], num_actions: int):
    """The RSL-RL model an agent config's ``model_cfg`` (as the runner gets it: after Isaac Lab's
    ``handle_deprecated_rsl_rl_cfg``) describes for ``role``, built on zero observations of ``widths`` (no
    simulator), as RSL-RL's algorithms build theirs."""
    from isaaclab.utils import to_dict  # Isaac Lab's config to the dict RSL-RL reads (configs are loaded by now)
    from rsl_rl.utils import resolve_class  # RSL-RL: heavy
    from tensordict import TensorDict

    model_class, kwargs = resolve_class(model_cfg if isinstance(model_cfg, dict) else to_dict(model_cfg))
    obs = TensorDict({group: torch.zeros(1, widths[group]) for group in obs_groups[role]}, batch_size=[1])
    return model_class(obs, obs_groups, role, num_actions, **kwargs)


def check_fits(state: dict, model_cfg, obs_groups: dict, role: str, widths, num_actions: int, path, task) -> None:
    """Refuse a policy ``state`` that does not load into ``role``'s model of the config (keys and shapes, what
    ``load_state_dict(strict=True)`` demands); skipped when a group's width is known only to the live environment.

    Raises:
        UsageError: Naming both networks' layer widths.
    """
    obs_groups = {role: _groups(obs_groups, role, widths)}
    if any(widths.get(group) is None for group in obs_groups[role]):
        return
    expected = model_from_cfg(model_cfg, obs_groups, role, widths, num_actions).state_dict()
    if set(expected) != set(state) or any(state[key].shape != expected[key].shape for key in expected):
        groups = ", ".join(f"{group} ({widths[group]})" for group in obs_groups[role])
        raise UsageError(
            f"--warm_start {path}: its policy has layer widths {layer_widths(state)}, the {role} of {task} "
            f"(agent.{role}, reading {groups}) has {layer_widths(expected)}"
        )


def network_layouts(term_widths: dict[str, dict[str, int]], obs_groups: dict) -> dict[str, dict[str, int]]:
    """The observation layout (term -> width, in order) the actor and the critic read: their groups' terms
    concatenated (:func:`~.preflight.config_observation_term_widths` gives each group's)."""
    layouts = {}
    for role in ("actor", "critic"):
        layout = {}
        for group in _groups(obs_groups, role, term_widths):
            layout.update(term_widths[group])
        layouts[role] = layout
    return layouts


def _groups(obs_groups: dict, role: str, widths: dict) -> list[str]:
    """The observation groups ``role`` reads, by RSL-RL's rule where ``obs_groups`` leaves it out: the group of the
    role's name, else ``policy``."""
    if role in obs_groups:
        return list(obs_groups[role])
    return [role] if role in widths else ["policy"]


def apply_warm_start(runner, warm: WarmStart, target: dict[str, dict[str, int]], task: str) -> dict:
    """Load what :func:`prepare` checked into ``runner``'s learner (a new run of ``task``: its optimiser and iteration
    stay fresh), then the actor's noise std of ``agent.warm_start_noise_std`` when the run's agent has one set;
    returns the record for :data:`RECORD_FILE`. ``target``: the observation layout each network reads
    (:func:`network_layouts`)."""
    if warm.kind == EMBED:
        record = apply(runner, warm.checkpoint, warm.path, (warm.source_task, warm.layout), target, task)
    elif warm.kind == TEACHER:
        # RSL-RL's own load: the checkpoint's actor becomes the teacher (no student, optimiser or iteration)
        runner.alg.load(warm.checkpoint, {"teacher": True, "iteration": False}, True)
        record = _record(warm.checkpoint, warm.path, warm.source_task, warm.kind)
    else:
        learner = learner_of_algorithm(runner.alg)
        runner.alg.load({learner.policy_key: policy_state(warm.checkpoint)}, learner.policy_load_cfg, True)
        record = _record(warm.checkpoint, warm.path, warm.source_task, warm.kind)
    noise_std = runner.cfg.get(NOISE_STD_FIELD)
    if noise_std is not None and warm.kind != TEACHER:
        record["noise_std"] = {"checkpoint": set_noise_std(runner.alg.actor, float(noise_std)), "run": noise_std}
    return record


NOISE_STD_FIELD = "warm_start_noise_std"
"""The PPO runner config's field (``agent.warm_start_noise_std``) that sets the warm-started actor's noise std."""


def set_noise_std(actor, std: float) -> float:
    """Set every action's noise std of ``actor`` (an RSL-RL model with a state-independent Gaussian, its std
    stored as ``std_param`` or ``log_std_param``) to ``std``; returns the mean std it had.

    Why: a distilled student samples with the distillation's small std (0.1), too little for PPO to explore from
    (docs/learning.md, *A critic warm-up, then a learning rate the student can take*).

    Raises:
        TypeError: If the actor's std is not a parameter of its own (no distribution, or one that computes its std
            from the network's output).
    """
    distribution = getattr(actor, "distribution", None)
    scalar, log = getattr(distribution, "std_param", None), getattr(distribution, "log_std_param", None)
    if scalar is None and log is None:
        raise TypeError(f"agent.{NOISE_STD_FIELD}: the actor has no state-independent Gaussian noise to set")
    with torch.no_grad():
        if scalar is not None:
            before = float(scalar.mean())
            scalar.fill_(std)
        else:
            before = float(log.exp().mean())
            log.fill_(math.log(std))
    return before


def _record(checkpoint: dict, path: Path, source_task: str, kind: str) -> dict:
    return {
        "checkpoint": pretrained.recorded_path(path),
        "sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest(),
        "source_task": source_task,
        "iteration": checkpoint.get("iter"),
        "loads": kind,
    }


def write_record(log_dir: Path, record: dict) -> None:
    (Path(log_dir) / RECORD_FILE).write_text(json.dumps(record, indent=2) + "\n")

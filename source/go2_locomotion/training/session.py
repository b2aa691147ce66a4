"""What training, playback, export and evaluation share: the configs of a task from the command line, the wrapped
environment, the package's runner, and a checkpoint loaded into a play environment (:func:`loaded_policy`).

Built from Isaac Lab 3.0's RSL-RL entrypoint helpers (``isaaclab_rl.entrypoints.common``), in their order.
"""

from __future__ import annotations

# Imported inside functions: Isaac Lab, RSL-RL and the deploy manifest (it reads Isaac Lab's managers): heavy, and
# under Isaac Sim they must follow Kit's start, the launch.
import argparse
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .. import pretrained, run_params
from ..errors import UsageError, usage_errors_exit
from .checkpoints import check_compatible, log_root, policy_state, read_checkpoint, resolve_checkpoint
from .cli import resolve_configs
from .learners import learner_of, learner_of_algorithm
from .plan import runner_class
from .preflight import check_device
from .task_ids import check_task, play_id, training_id


def configs_from_cli(task: str, args: argparse.Namespace, overrides: list[str], *, play_mode: bool = False):
    """``(env_cfg, agent_cfg)`` of ``task`` with the Hydra ``overrides`` and the RSL-RL flags of ``args`` applied,
    migrated to the installed RSL-RL."""
    from isaaclab_rl.entrypoints.backends import cli_args_rsl_rl
    from isaaclab_rl.rsl_rl import check_rsl_rl_version, handle_deprecated_rsl_rl_cfg

    env_cfg, agent_cfg = resolve_configs(task, args.agent, play_mode=play_mode, overrides=overrides)
    agent_cfg = cli_args_rsl_rl.update_rsl_rl_cfg(agent_cfg, args)
    return env_cfg, handle_deprecated_rsl_rl_cfg(agent_cfg, check_rsl_rl_version())


def wrapped_env(task: str, env_cfg, args: argparse.Namespace, agent_cfg, cleanup: contextlib.ExitStack):
    """The Isaac Lab environment of ``task`` in RSL-RL's wrapper; closed when ``cleanup`` unwinds."""
    from isaaclab_rl.entrypoints.common import close_env, create_isaaclab_env
    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper

    env = create_isaaclab_env(task, env_cfg, args, convert_marl_to_single_agent=False)
    cleanup.callback(lambda: close_env(env))
    return RslRlVecEnvWrapper(env, clip_actions=agent_cfg.clip_actions)


def make_runner(env, agent_cfg, log_dir: Path | None = None):
    """The package's runner registered for ``agent_cfg.class_name`` (:data:`~.plan.RUNNERS`); ``log_dir`` ``None``
    for playback."""
    from isaaclab.utils import to_dict

    runner = runner_class(agent_cfg.class_name)
    train_cfg = without_idle_symmetry(to_dict(agent_cfg))
    return runner(env, train_cfg, log_dir=None if log_dir is None else str(log_dir), device=agent_cfg.device)


def without_idle_symmetry(train_cfg: dict) -> dict:
    """The runner config with a symmetry config whose two switches are off left out: RSL-RL would still mirror every
    mini-batch to log the mirror loss (+24 % PPO update time on Go2-Rough, docs/performance.md), and nothing would
    learn from it. To log it without learning from it: ``use_mirror_loss=true mirror_loss_coeff=0``."""
    symmetry = train_cfg.get("algorithm", {}).get("symmetry_cfg")
    if symmetry and not (symmetry.get("use_data_augmentation") or symmetry.get("use_mirror_loss")):
        train_cfg = {**train_cfg, "algorithm": {**train_cfg["algorithm"], "symmetry_cfg": None}}
    return train_cfg


@dataclass(frozen=True)
class PolicySession:
    """A checkpoint loaded into a live play environment: what play, export and evaluate act on."""

    env: object
    """The Isaac Lab environment in RSL-RL's wrapper."""
    runner: object
    """The package's runner, the checkpoint loaded."""
    agent_cfg: object
    """The resolved RSL-RL runner config."""
    checkpoint: Path
    """The checkpoint file."""
    task: str
    """The training task id."""
    work_dir: Path
    """Where outputs go: the checkpoint's folder, or ``logs/pretrained/<policy>`` for a shipped policy."""
    overrides: tuple[str, ...] = ()
    """The command line's Hydra overrides and presets: the export resolves the training config with them."""


def load_policy(runner, checkpoint: dict) -> None:
    """Load the acting model of a checkpoint already read (:func:`read_checkpoint`, checked by
    :func:`check_compatible`) into ``runner``'s: the runner's learner's ``policy_load_cfg`` (RSL-RL's ``load_cfg``:
    that model and its observation normaliser; the critic, teacher, optimiser and iteration are training state, so
    a run trained with other critic settings plays back under the config's defaults). A distilled student loads as
    a PPO actor and back; the weights move to the networks' device as they load."""
    learner = learner_of_algorithm(runner.alg)
    runner.alg.load({learner.policy_key: policy_state(checkpoint)}, learner.policy_load_cfg, True)


@contextlib.contextmanager
def loaded_policy(
    args: argparse.Namespace,
    overrides: list[str],
    *,
    video: bool = True,
    prepare: Callable[[object], None] | None = None,
):
    """Check the task and checkpoint, launch the simulation, build the play env and the runner, and load the
    checkpoint; yields a :class:`PolicySession`. ``prepare(env_cfg)`` runs before the launch (playback chooses its
    viewers there). Used by play, export and evaluate."""
    from isaaclab.app import launch_simulation
    from isaaclab_rl.entrypoints.common import apply_env_overrides, apply_video_recording, pre_launch_video_config

    requested = check_task(args.task)
    task = play_id(requested)
    env_cfg, agent_cfg = configs_from_cli(task, args, overrides, play_mode=not args.train_env_cfg)
    check_launch_args(args, env_cfg)
    learner = learner_of(agent_cfg)
    path = resolve_checkpoint(
        args.checkpoint or "latest",
        root=log_root(agent_cfg.experiment_name),
        task=training_id(requested),
        agent=args.agent,
    )
    checkpoint = read_checkpoint(path)
    print(f"[go2] loading {path} on {task}")
    # what play derives from a checkpoint goes next to it, or for the shipped policy under logs/pretrained/
    work_dir = pretrained.output_dir(training_id(requested)) if pretrained.is_shipped(path) else path.parent

    if prepare is not None:
        prepare(env_cfg)
    if video:
        pre_launch_video_config(env_cfg, args)
    with launch_simulation(env_cfg, args), usage_errors_exit(), contextlib.ExitStack() as cleanup:
        apply_env_overrides(args, env_cfg)
        agent_cfg.device = env_cfg.sim.device
        env_cfg.seed = agent_cfg.seed
        env_cfg.log_dir = str(work_dir)
        if video:
            apply_video_recording(env_cfg, str(work_dir), args, subdir="play", checkpoint_path=str(path))
        env = wrapped_env(task, env_cfg, args, agent_cfg, cleanup)
        runner = make_runner(env, agent_cfg)
        check_compatible(checkpoint, path, runner.alg.get_policy(), task, learner)
        load_policy(runner, checkpoint)
        yield PolicySession(env, runner, agent_cfg, path, training_id(requested), work_dir, tuple(overrides))


def check_launch_args(args: argparse.Namespace, env_cfg) -> None:
    """``--device`` (or the task's default device) exists on this machine and ``--num_envs`` is positive, checked
    before the simulator starts.

    Raises:
        UsageError: Naming the flag, the value and what is accepted.
    """
    device = args.device or env_cfg.sim.device
    if (problem := check_device(device)) is not None:
        flag = "--device" if args.device else "--device (default from the task)"
        raise UsageError(f"{flag} {problem}" + ("; pass --device cpu" if "visible: none" in problem else ""))
    if args.num_envs is not None and args.num_envs < 1:
        raise UsageError(f"--num_envs must be a positive integer, got {args.num_envs}")


def export_all(session: PolicySession, export_dir: Path, symmetrise: bool = False) -> dict[str, Path]:
    """Write the deploy bundle (``policy.pt``, ``policy.onnx``, ``deploy.yaml``) of ``session`` into ``export_dir``.

    Raises:
        UsageError: The environment uses a term the deploy manifest cannot describe.
    """
    from go2_locomotion.export.manifest import (
        ExportError,
        export_bundle,
        training_conditions,
        training_conditions_of_run,
    )

    run_params_file = session.checkpoint.parent / run_params.PARAMS_ENV
    if run_params_file.is_file():  # what the run trained against, its overrides included
        training = training_conditions_of_run(run_params.load(run_params_file))
    else:  # the environment's training config: the agent's overrides have no config to land in here
        env_overrides = [o for o in session.overrides if not o.lstrip("+~").startswith("agent.")]
        training = training_conditions(resolve_configs(session.task, None, play_mode=False, overrides=env_overrides)[0])
    try:
        files = export_bundle(
            session.env.unwrapped,
            session.runner,
            session.agent_cfg,
            export_dir,
            task=session.task,
            checkpoint=session.checkpoint.name,
            training=training,
            symmetrise=symmetrise,
        )
    except ExportError as error:
        raise UsageError(f"cannot write the deploy manifest: {error}") from None
    print(f"[go2] exported {', '.join(str(p) for p in files.values())}")
    return files

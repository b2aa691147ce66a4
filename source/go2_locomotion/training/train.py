"""``scripts/train.py``: RSL-RL PPO training of a Go2 task, headless or with a visualizer, resumable.

Built from Isaac Lab 3.0's RSL-RL training entrypoint helpers, in the same order, with these additions:
``--resume``; checkpoint checks (exists, loads, fits the task) before the run folder is created; ``--headless``;
and Ctrl-C or SIGTERM (a cluster's time limit) finishing the current iteration and saving ``model_<it>.pt``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import time
from datetime import datetime
from pathlib import Path

from ..assets.go2_description import JOINT_NAMES
from ..envs import physics_record
from ..errors import UsageError, exit_on_usage_error, usage_errors_exit
from . import preflight
from .checkpoints import check_compatible, log_root, read_checkpoint, resolve_checkpoint
from .cli import make_parser, parse_args
from .summary import RunRecorder
from .task_ids import check_task, training_id


def build_parser() -> argparse.ArgumentParser:
    """Isaac Lab's training flags (task, envs, seed, iterations, video, distributed, RSL-RL, launcher) + ours."""
    from isaaclab_rl.entrypoints.common import add_common_train_args

    def extra(parser):
        parser.add_argument(
            "--resume",
            action="store_true",
            help="Continue training from --checkpoint (default: latest, the newest run of this task's experiment).",
        )
        parser.add_argument(
            "--check",
            action="store_true",
            help="Check the merged configuration, print the rollout geometry and exit without starting the simulator.",
        )

    return make_parser("Train a Go2 locomotion policy with RSL-RL PPO.", add_common_train_args, extra)


def main(argv: list[str] | None = None) -> int:
    """Run training; returns the process exit code (2 for a usage error, 130 for a forced interrupt)."""
    try:
        return exit_on_usage_error(lambda: _train(argv))
    except KeyboardInterrupt:
        print("[go2] training interrupted")
        return 130


def _train(argv: list[str] | None) -> int:
    from isaaclab.app import launch_simulation
    from isaaclab_rl.entrypoints.backends import cli_args_rsl_rl
    from isaaclab_rl.entrypoints.common import (
        apply_env_overrides,
        apply_video_recording,
        close_env,
        create_isaaclab_env,
        dump_train_configs,
        pre_launch_video_config,
        validate_distributed_device,
        write_run_manifest,
    )
    from isaaclab_rl.rsl_rl import (
        RslRlVecEnvWrapper,
        check_rsl_rl_version,
        create_rsl_rl_runner,
        handle_deprecated_rsl_rl_cfg,
    )
    from isaaclab_tasks.utils import resolve_task_config

    args, overrides = parse_args(build_parser(), argv)
    task = check_task(args.task)
    check_distributed_args(args)
    env_cfg, agent_cfg = resolve_task_config(task, args.agent, overrides=overrides)
    agent_cfg = cli_args_rsl_rl.update_rsl_rl_cfg(agent_cfg, args)
    agent_cfg = handle_deprecated_rsl_rl_cfg(agent_cfg, check_rsl_rl_version())
    if args.max_iterations is not None:
        agent_cfg.max_iterations = args.max_iterations
    apply_env_overrides(args, env_cfg)
    # the policy learns where the simulation runs (a distributed rank's cuda:<local rank> is set at launch)
    agent_cfg.device = env_cfg.sim.device

    problems = preflight.validate(env_cfg, agent_cfg)
    if problems:
        raise UsageError(*problems)
    world_size = int(os.getenv("WORLD_SIZE", "1")) if args.distributed else 1
    # from the config alone: the Go2's 12 joints are the action
    widths = preflight.config_observation_widths(env_cfg)
    geometry = rollout_geometry(env_cfg, agent_cfg, widths, len(JOINT_NAMES), world_size)
    if args.check:
        print_geometry(geometry)
        print("[go2] configuration OK")
        return 0

    root = log_root(agent_cfg.experiment_name)
    resume_path = checkpoint = None
    if args.resume or args.checkpoint:
        resume_path = resolve_checkpoint(args.checkpoint or "latest", root=root, task=training_id(task))
        checkpoint = read_checkpoint(resume_path)

    pre_launch_video_config(env_cfg, args)
    with launch_simulation(env_cfg, args), usage_errors_exit(), contextlib.ExitStack() as cleanup:
        validate_distributed_device(args)
        rank = int(os.getenv("RANK", "0")) if args.distributed else None
        if rank is not None:
            agent_cfg.device = env_cfg.sim.device
            agent_cfg.seed += rank
        env_cfg.seed = agent_cfg.seed

        run_name = args.run_timestamp or datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
        if agent_cfg.run_name:
            run_name += f"_{agent_cfg.run_name}"
        log_dir = root / run_name
        rank_dir = log_dir if rank in (None, 0) else log_dir / f"rank_{rank}"
        env_cfg.log_dir = str(rank_dir)
        apply_video_recording(env_cfg, str(rank_dir), args)

        env = create_isaaclab_env(task, env_cfg, args, convert_marl_to_single_agent=False)
        cleanup.callback(lambda: close_env(env))
        env = RslRlVecEnvWrapper(env, clip_actions=agent_cfg.clip_actions)
        runner = create_rsl_rl_runner(env, agent_cfg, log_dir=str(log_dir))
        if checkpoint is not None:
            check_compatible(checkpoint, resume_path, runner.alg.get_policy(), task)
        # the live widths, now that the observation manager exists
        managers = env.unwrapped
        geometry = rollout_geometry(
            env_cfg,
            agent_cfg,
            managers.observation_manager.group_obs_dim,
            managers.action_manager.total_action_dim,
            world_size,
        )
        if rank in (None, 0):
            print_geometry(geometry)

        # From here on the run folder exists.
        if rank in (None, 0):
            write_run_manifest(str(log_dir), library="rsl_rl", task=task, metadata={"agent": args.agent})
        recorder = (
            RunRecorder(task, log_dir, geometry, env_cfg.sim.device, physics=physics_record(env))
            if rank in (None, 0)
            else None
        )
        try:
            runner.add_git_repo_to_log(__file__)
            if resume_path is not None:
                runner.load(str(resume_path), map_location=agent_cfg.device)
                # The checkpoint holds the weights after its iteration `iter`: continue with the next one (RSL-RL
                # alone would repeat index `iter`, and its checkpoint name).
                runner.current_learning_iteration = checkpoint["iter"] + 1
                print(f"[go2] resumed from {resume_path}; continuing at iteration {runner.current_learning_iteration}")
            dump_train_configs(str(rank_dir), env_cfg, agent_cfg)
            print(f"[go2] logging to {log_dir}")
            start = time.time()
            status = learn(
                runner,
                agent_cfg.max_iterations,
                agent_cfg.init_at_random_ep_len,
                on_iteration=recorder.on_iteration if recorder else None,
            )
            print(f"[go2] training {status} after {time.time() - start:.1f} s; checkpoints in {log_dir}")
        except KeyboardInterrupt:
            if recorder:
                recorder.write("interrupted (forced: second signal)")
            raise
        except BaseException as error:
            if recorder:
                recorder.write(f"error: {type(error).__name__}: {error}")
            raise
        if recorder:
            recorder.write(status)
    return 0


def print_geometry(geometry: preflight.RolloutGeometry) -> None:
    """The geometry report, then its warnings."""
    print(geometry.report())
    for warning in geometry.warnings():
        print(f"warning: {warning}")


def rollout_geometry(
    env_cfg, agent_cfg, observation_widths: dict, action_width: int, world_size: int
) -> preflight.RolloutGeometry:
    """The rollout shape; ``observation_widths`` maps group -> width (an int or a 1-tuple shape)."""
    widths = {name: (w[0] if isinstance(w, tuple) else w) for name, w in observation_widths.items()}
    return preflight.RolloutGeometry(
        num_envs=env_cfg.scene.num_envs,
        steps_per_env=agent_cfg.num_steps_per_env,
        mini_batches=agent_cfg.algorithm.num_mini_batches,
        epochs=agent_cfg.algorithm.num_learning_epochs,
        observation_widths={name: w for name, w in widths.items() if w is not None},
        action_width=action_width,
        world_size=world_size,
    )


def check_distributed_args(args: argparse.Namespace) -> None:
    """``--distributed`` (one process per GPU under torchrun) needs a GPU and one run folder for all ranks."""
    if not args.distributed:
        return
    if args.device and "cpu" in args.device:
        raise UsageError(f"--distributed runs one process per GPU; --device {args.device} is not a GPU")
    if int(os.getenv("WORLD_SIZE", "1")) > 1 and not args.run_timestamp:
        raise UsageError(
            "--distributed with several ranks needs --run_timestamp so that all ranks log into one run folder, "
            'e.g. --run_timestamp "$(date +%Y-%m-%d_%H-%M-%S)" on the torchrun command line'
        )


class _StopRequested(Exception):
    """Raised at the end of an iteration after Ctrl-C / SIGTERM."""


def learn(runner, num_iterations: int, init_at_random_ep_len: bool, on_iteration=None) -> str:
    """Run ``runner.learn``; a first SIGINT or SIGTERM stops after the current iteration with its checkpoint
    saved (a second one stops at once). ``on_iteration(runner, it, collect_time, learn_time)`` is called after
    each iteration. Returns ``"completed"`` or ``"interrupted"``."""
    import torch.distributed as dist

    requested: list[int] = []
    previous = {}

    def on_signal(signum, _frame):
        requested.append(signum)
        signal.signal(signum, previous[signum])
        print(f"\n[go2] {signal.Signals(signum).name}: saving after this iteration (send it again to stop now)")

    log_iteration = runner.logger.log

    def log_then_check(*args, **kwargs):
        log_iteration(*args, **kwargs)
        if on_iteration is not None:
            on_iteration(runner, kwargs["it"], kwargs["collect_time"], kwargs["learn_time"])
        stop = bool(requested)
        if dist.is_available() and dist.is_initialized():
            # every rank stops at the same iteration, or the next collective would hang
            import torch

            flag = torch.tensor([float(stop)], device=runner.device)
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
            stop = bool(flag.item())
        if stop:
            raise _StopRequested

    runner.logger.log = log_then_check
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, on_signal)
    try:
        runner.learn(num_learning_iterations=num_iterations, init_at_random_ep_len=init_at_random_ep_len)
        return "completed"
    except _StopRequested:
        if runner.logger.writer is not None:
            path = Path(runner.logger.log_dir) / f"model_{runner.current_learning_iteration}.pt"
            runner.save(str(path))
            runner.logger.stop_logging_writer()
            print(f"[go2] saved {path}")
        return "interrupted"
    finally:
        runner.logger.log = log_iteration
        for signum, handler in previous.items():
            signal.signal(signum, handler)

"""``scripts/play.py``: run a trained Go2 checkpoint deterministically and export it next to the checkpoint.

``--task`` may be a training id (``Go2-Flat``) or its play id (``Go2-Flat-Play``); both run the play MDP (the
config's ``play_mode()``, as ``isaaclab play`` applies it). The checkpoint is checked (exists, loads, fits the
task) before the simulator starts or anything is written.

Exports the deploy bundle, in ``<run>/exported/`` (``logs/pretrained/<policy>/exported/`` for
``--checkpoint pretrained``):

- ``policy.pt``: TorchScript, ``forward(obs [B, O]) -> actions [B, 12]``;
- ``policy.onnx``: ONNX opset 18, input ``obs`` ``[1, O]`` float32, output ``actions`` ``[1, 12]``;
- ``deploy.yaml``: rates, joint order and its Unitree SDK2 map, gains, scales, observation layout, command ranges
  and the ONNX hash (:mod:`go2_locomotion.deploy`).

Both contain the observation normaliser when the agent uses one, and output the action mean (no sampling).
"""

from __future__ import annotations

import argparse
import contextlib
import time
from pathlib import Path

from .. import pretrained
from ..errors import UsageError, exit_on_usage_error, usage_errors_exit
from .checkpoints import check_compatible, log_root, read_checkpoint, resolve_checkpoint
from .cli import make_parser, parse_args, resolve_configs
from .task_ids import check_task, play_id, training_id


def build_parser() -> argparse.ArgumentParser:
    """Isaac Lab's playback flags (task, envs, seed, real time, video, RSL-RL, launcher) + ``--num_steps``."""
    from isaaclab_rl.entrypoints.common import add_common_play_args

    def extra(parser):
        parser.add_argument("--num_steps", type=int, default=None, help="Stop after this many policy steps.")

    description = "Play a Go2 checkpoint (action mean) and export its deploy bundle (ONNX, TorchScript, deploy.yaml)."
    return make_parser(description, add_common_play_args, extra)


def main(argv: list[str] | None = None) -> int:
    """Play and export; returns the process exit code (2 for a usage error)."""
    return exit_on_usage_error(lambda: _play(argv))


@contextlib.contextmanager
def loaded_policy(args: argparse.Namespace, overrides: list[str], *, video: bool = True):
    """Check the task and checkpoint, launch the simulation, build the play env and the runner, and load the
    checkpoint; yields ``(env, runner, agent_cfg, checkpoint path, task id, work folder)``; the work folder is the
    checkpoint's, or ``logs/pretrained/<policy>`` for a shipped policy. Used by play, export and evaluate."""
    from isaaclab.app import launch_simulation
    from isaaclab_rl.entrypoints.backends import cli_args_rsl_rl
    from isaaclab_rl.entrypoints.common import (
        apply_env_overrides,
        apply_video_recording,
        close_env,
        create_isaaclab_env,
        pre_launch_video_config,
    )
    from isaaclab_rl.rsl_rl import (
        RslRlVecEnvWrapper,
        check_rsl_rl_version,
        create_rsl_rl_runner,
        handle_deprecated_rsl_rl_cfg,
    )

    requested = check_task(args.task)
    task = play_id(requested)
    env_cfg, agent_cfg = resolve_configs(task, args.agent, play_mode=not args.train_env_cfg, overrides=overrides)
    agent_cfg = cli_args_rsl_rl.update_rsl_rl_cfg(agent_cfg, args)
    agent_cfg = handle_deprecated_rsl_rl_cfg(agent_cfg, check_rsl_rl_version())
    path = resolve_checkpoint(
        args.checkpoint or "latest", root=log_root(agent_cfg.experiment_name), task=training_id(requested)
    )
    checkpoint = read_checkpoint(path)
    print(f"[go2] loading {path} on {task}")
    # what play derives from a checkpoint goes next to it, or for the shipped policy under logs/pretrained/
    work_dir = pretrained.output_dir(training_id(requested)) if pretrained.is_shipped(path) else path.parent

    if video:
        pre_launch_video_config(env_cfg, args)
    with launch_simulation(env_cfg, args), usage_errors_exit(), contextlib.ExitStack() as cleanup:
        apply_env_overrides(args, env_cfg)
        agent_cfg.device = env_cfg.sim.device
        env_cfg.seed = agent_cfg.seed
        env_cfg.log_dir = str(work_dir)
        if video:
            apply_video_recording(env_cfg, str(work_dir), args, subdir="play", checkpoint_path=str(path))
        env = create_isaaclab_env(task, env_cfg, args, convert_marl_to_single_agent=False)
        cleanup.callback(lambda: close_env(env))
        env = RslRlVecEnvWrapper(env, clip_actions=agent_cfg.clip_actions)
        runner = create_rsl_rl_runner(env, agent_cfg)
        check_compatible(checkpoint, path, runner.alg.get_policy(), task)
        runner.load(str(path), map_location=agent_cfg.device)
        yield env, runner, agent_cfg, path, training_id(requested), work_dir


def export_all(env, runner, agent_cfg, export_dir: Path, *, task: str, checkpoint: Path) -> dict[str, Path]:
    """Write the deploy bundle (``policy.pt``, ``policy.onnx``, ``deploy.yaml``) into ``export_dir``.

    Raises:
        UsageError: The environment uses a term the deploy manifest cannot describe.
    """
    from go2_locomotion.deploy.manifest import ExportError, export_bundle

    try:
        files = export_bundle(env.unwrapped, runner, agent_cfg, export_dir, task=task, checkpoint=checkpoint.name)
    except ExportError as error:
        raise UsageError(f"cannot write the deploy manifest: {error}") from None
    print(f"[go2] exported {', '.join(str(p) for p in files.values())}")
    return files


def _play(argv: list[str] | None) -> int:
    from isaaclab_rl.entrypoints.common import video_playback_steps

    args, overrides = parse_args(build_parser(), argv)
    if args.num_steps is not None and args.num_steps < 1:
        raise UsageError(f"--num_steps must be a positive integer, got {args.num_steps}")
    with loaded_policy(args, overrides) as (env, runner, agent_cfg, path, task, work_dir):
        export_all(env, runner, agent_cfg, work_dir / "exported", task=task, checkpoint=path)
        policy = runner.get_inference_policy(device=env.unwrapped.device)
        budgets = [n for n in (args.num_steps, video_playback_steps(args, env.unwrapped.cfg)) if n is not None]
        steps = run_policy(env, policy, max_steps=min(budgets, default=None), real_time=args.real_time)
        print(f"[go2] played {steps} steps")
    return 0


def run_policy(env, policy, *, max_steps: int | None, real_time: bool) -> int:
    """Step ``env`` with the deterministic ``policy`` until ``max_steps``, the viewer closes, or Ctrl-C."""
    import torch

    sim = env.unwrapped.sim
    dt = env.unwrapped.step_dt
    obs = env.get_observations()
    steps = 0
    with contextlib.suppress(KeyboardInterrupt):
        while (max_steps is None or steps < max_steps) and sim.is_running():
            start = time.time()
            with torch.inference_mode():
                obs, _, dones, _ = env.step(policy(obs))
                policy.reset(dones)
            steps += 1
            if real_time and (pause := dt - (time.time() - start)) > 0:
                time.sleep(pause)
    return steps

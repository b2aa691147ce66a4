"""``scripts/train.py``: training of a Go2 task with one of the package's learners (RSL-RL PPO by default, FastSAC,
teacher-student distillation; :mod:`.learners`), headless or with a visualizer, resumable.

Built from Isaac Lab 3.0's RSL-RL training entrypoint helpers, in the same order, with these additions:
``--resume`` and ``--resume auto`` (requeued cluster jobs); checkpoint checks (exists, loads, fits the task)
before the run folder is created; ``--headless``; several CPU ranks under torchrun; and, through the package's
runner (:mod:`.runner`), Ctrl-C, SIGTERM or SIGUSR1 finishing the current iteration and saving ``model_<it>.pt``, and
a run whose simulation step hangs exiting with code 75 (``agent.stall_timeout_s``) for ``--resume auto`` to continue.
"""

from __future__ import annotations

# Imported inside functions: Isaac Lab (heavy; under Isaac Sim it must follow Kit's start, the launch).
import argparse
import contextlib
import os
import time
from pathlib import Path

from .. import pretrained
from ..assets.go2_description import JOINT_NAMES
from ..envs import physics_record
from ..errors import UsageError, exit_on_usage_error, usage_errors_exit
from . import curriculum_state, preflight, warm_start
from .checkpoints import check_compatible, check_resumable, log_root, resolve_teacher_checkpoint
from .cli import make_parser, parse_args
from .learners import LEARNERS, Learner, learner_of
from .plan import RESUME_AUTO, RESUME_CHECKPOINT, RunPlan, plan_run
from .session import configs_from_cli, make_runner, wrapped_env
from .summary import RunRecorder, load_summary
from .task_ids import check_task, training_id


def build_parser() -> argparse.ArgumentParser:
    """Isaac Lab's training flags (task, envs, seed, iterations, video, distributed, RSL-RL, launcher) + ours."""
    from isaaclab_rl.entrypoints.common import add_common_train_args

    def extra(parser):
        parser.add_argument(
            "--resume",
            nargs="?",
            const=True,
            default=False,
            metavar="auto",
            help="Continue training from --checkpoint (default: latest, the newest run of this task's experiment) "
            "in a new run folder. '--resume auto' with --run_name NAME makes the command idempotent for requeued "
            "cluster jobs: the run folder is <experiment>/NAME; it continues from that folder's newest loadable "
            "checkpoint, or, while it has none, from --checkpoint if given (else from scratch), and trains until "
            "--max_iterations in total.",
        )
        parser.add_argument(
            "--warm_start",
            nargs="?",
            const=pretrained.KEYWORD,
            default=None,
            metavar="CHECKPOINT",
            help="Start a new run from trained networks (a path, or 'pretrained', the default: a shipped policy). "
            "PPO: Go2-Rough from a Go2-Flat checkpoint (default the shipped one; the shared inputs keep their "
            "weights, the height scan starts at zero weight, the wider layers embed the flat ones: at iteration 0 "
            "the rough policy acts as the flat one), or Go2-Rough-Blind from a distillation checkpoint (the student "
            "becomes the actor). Distillation (--agent distillation_cfg_entry_point): the teacher, a Go2-Rough PPO "
            "checkpoint (default the shipped one); required. A fresh optimiser, iteration 0, a new run folder; "
            "with --resume auto, only when the run folder holds no checkpoint yet.",
        )
        parser.add_argument(
            "--check",
            action="store_true",
            help="Check the merged configuration, print the rollout geometry and exit without starting the simulator.",
        )

    return make_parser("Train a Go2 locomotion policy (RSL-RL PPO by default).", add_common_train_args, extra)


def resume_mode(args: argparse.Namespace, overrides: list[str]) -> str | None:
    """``None`` (new run), ``"checkpoint"`` (``--resume``) or ``"auto"`` (``--resume auto``).

    A Hydra override right after a bare ``--resume`` was taken as its value by argparse: it goes back to the
    overrides."""
    value = args.resume
    if value is False:
        return None
    if value is True:
        return RESUME_CHECKPOINT
    if value == RESUME_AUTO:
        return RESUME_AUTO
    if "=" in value:
        overrides.insert(0, value)
        return RESUME_CHECKPOINT
    raise UsageError(f"--resume {value}: accepted are --resume (from --checkpoint) and --resume auto")


def main(argv: list[str] | None = None) -> int:
    """Run training; returns the process exit code (2 for a usage error, 130 for a forced interrupt)."""
    try:
        return exit_on_usage_error(lambda: _train(argv))
    except KeyboardInterrupt:
        print("[go2] training interrupted")
        return 130


def _train(argv: list[str] | None) -> int:
    """Plan (arguments, configs, preflight, run folder), then launch and train."""
    args, overrides = parse_args(build_parser(), argv)
    resume = resume_mode(args, overrides)
    task = check_task(args.task)
    cpu_ranks = check_distributed_args(args, resume)
    warm_arg = warm_start_argument(args, resume, overrides)
    env_cfg, agent_cfg, launch_args = _configs(task, args, overrides, cpu_ranks)
    resolve_teacher_checkpoint(agent_cfg, training_id(task))
    problems = preflight.validate(env_cfg, agent_cfg)
    if problems:
        raise UsageError(*problems)
    learner = learner_of(agent_cfg)
    check_learner_args(args, learner, warm_arg)
    check_warm_start_noise(agent_cfg, warm_arg)
    check_teacher(learner, args.agent, warm_arg, resume is not None or bool(args.checkpoint))
    # from the config alone: the Go2's 12 joints are the action
    actions = len(JOINT_NAMES)
    warm = (
        None
        if warm_arg is None
        else warm_start.prepare(warm_arg, training_id(task), learner, env_cfg, agent_cfg, actions)
    )
    world_size = int(os.getenv("WORLD_SIZE", "1")) if args.distributed else 1
    widths = preflight.config_observation_widths(env_cfg)
    geometry = rollout_geometry(env_cfg, agent_cfg, widths, actions, world_size)
    if args.check:
        print_geometry(geometry)
        print("[go2] configuration OK")
        return 0
    run = plan_run(
        training_id(task),
        runner=agent_cfg.class_name,
        resume=resume,
        root=log_root(agent_cfg.experiment_name),
        max_iterations=agent_cfg.max_iterations,
        geometry=geometry,
        run_name=agent_cfg.run_name,
        checkpoint=args.checkpoint,
        timestamp=args.run_timestamp,
        rank=int(os.getenv("RANK", "0")) if args.distributed else None,
        agent=args.agent,
    )
    if run.finished:
        print(f"[go2] {run.log_dir} already holds iteration {run.checkpoint['iter']}: max_iterations reached")
        return 0
    if run.checkpoint is not None:
        check_resumable(run.checkpoint, run.resume_from, learner)
    check_teacher(learner, args.agent, warm_arg, run.resume_from is not None)
    return _launch_and_train(run, task, args, launch_args, env_cfg, agent_cfg, learner, warm, cpu_ranks)


def _configs(task: str, args: argparse.Namespace, overrides: list[str], cpu_ranks: bool):
    """``(env_cfg, agent_cfg, launch_args)`` with the command line applied."""
    from isaaclab_rl.entrypoints.common import apply_env_overrides

    env_cfg, agent_cfg = configs_from_cli(task, args, overrides)
    if args.max_iterations is not None:
        agent_cfg.max_iterations = args.max_iterations
    # CPU ranks are this package's (gloo, in the runner): Isaac Lab's launcher would pin each rank to a GPU.
    launch_args = argparse.Namespace(**{**vars(args), "distributed": False}) if cpu_ranks else args
    apply_env_overrides(launch_args, env_cfg)
    # the policy learns where the simulation runs (a distributed rank's cuda:<local rank> is set at launch)
    agent_cfg.device = env_cfg.sim.device
    return env_cfg, agent_cfg, launch_args


def _launch_and_train(
    run: RunPlan, task, args, launch_args, env_cfg, agent_cfg, learner: Learner, warm, cpu_ranks: bool
) -> int:
    """Launch the simulation, build the environment and the runner, and learn; the run folder exists from here."""
    from isaaclab.app import launch_simulation
    from isaaclab_rl.entrypoints.common import (
        apply_video_recording,
        dump_train_configs,
        pre_launch_video_config,
        validate_distributed_device,
        write_run_manifest,
    )

    pre_launch_video_config(env_cfg, launch_args)
    with launch_simulation(env_cfg, launch_args), usage_errors_exit(), contextlib.ExitStack() as cleanup:
        if not cpu_ranks:
            validate_distributed_device(args)
        if run.rank is not None:
            agent_cfg.device = env_cfg.sim.device
            agent_cfg.seed += run.rank
        env_cfg.seed = agent_cfg.seed
        env_cfg.log_dir = str(run.rank_dir)
        apply_video_recording(env_cfg, str(run.rank_dir), launch_args)

        env = wrapped_env(task, env_cfg, launch_args, agent_cfg, cleanup)
        runner = make_runner(env, agent_cfg, run.log_dir)
        if run.checkpoint is not None:
            check_compatible(run.checkpoint, run.resume_from, runner.alg.get_policy(), task, learner)
        terrain = curriculum_state.curriculum_terrain(env)
        if terrain is not None:
            frontier = curriculum_state.frontier_memory(env)
            runner.add_checkpoint_state(
                lambda: curriculum_state.saved_levels(terrain, frontier),
                lambda infos: print(f"[go2] {curriculum_state.restore_levels(terrain, infos, frontier)}"),
            )
        terms = curriculum_state.stateful_terms(env)
        if terms:
            runner.add_checkpoint_state(
                lambda: curriculum_state.saved_term_states(terms),
                lambda infos: print(f"[go2] {curriculum_state.restore_term_states(terms, infos)}"),
            )
        warm_record = None
        if warm is not None and run.resume_from is None:
            widths = preflight.config_observation_term_widths(env_cfg)
            layouts = warm_start.network_layouts(widths, agent_cfg.obs_groups)
            warm_record = warm_start.apply_warm_start(runner, warm, layouts, training_id(task))
            if warm.kind == warm_start.STUDENT and terrain is not None:
                # the student's distillation ran this task's terrain: PPO goes on where its curriculum stood
                warm_record["curriculum"] = curriculum_state.restore_levels(
                    terrain, warm.checkpoint.get("infos"), frontier
                )
                print(f"[go2] warm start: {warm_record['curriculum']}")
        # the live widths, now that the observation manager exists
        managers = env.unwrapped
        geometry = rollout_geometry(
            env_cfg,
            agent_cfg,
            managers.observation_manager.group_obs_dim,
            managers.action_manager.total_action_dim,
            run.geometry.world_size,
        )
        recorder = None
        if run.writes_files:
            print_geometry(geometry)
            write_run_manifest(str(run.log_dir), library="rsl_rl", task=task, metadata={"agent": args.agent})
            if warm_record is not None:
                warm_start.write_record(run.log_dir, warm_record)
            previous = load_summary(run.log_dir) if run.resume == RESUME_AUTO else None
            recorder = RunRecorder(
                task, run.log_dir, geometry, env_cfg.sim.device, physics=physics_record(env), previous=previous
            )
            runner.add_iteration_callback(recorder.on_iteration)
            runner.add_stall_callback(lambda seconds: recorder.write(f"stalled: no iteration in {seconds:.0f} s"))
        try:
            runner.add_git_repo_to_log(__file__)
            if run.resume_from is not None:
                start_at = runner.resume(run.resume_from, run.checkpoint, same_folder=run.resume == RESUME_AUTO)
                print(f"[go2] resumed from {run.resume_from}; continuing at iteration {start_at}")
            elif run.earlier_attempt:
                # an earlier attempt died before its first checkpoint: start over in its folder
                runner.continue_in_folder_at(0)
            dump_train_configs(str(run.rank_dir), env_cfg, agent_cfg)
            print(f"[go2] logging to {run.log_dir}")
            start = time.time()
            status = runner.learn(run.iterations, agent_cfg.init_at_random_ep_len)
            runner.close_process_group()
            print(f"[go2] training {status} after {time.time() - start:.1f} s; checkpoints in {run.log_dir}")
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


def warm_start_argument(args: argparse.Namespace, resume: str | None, overrides: list[str]) -> str | None:
    """What ``--warm_start`` names (a path or ``pretrained``), or ``None``; read and checked once the learner is
    known (:func:`.warm_start.prepare`).

    A Hydra override right after a bare ``--warm_start`` was taken as its value by argparse: it goes back to the
    overrides."""
    if args.warm_start is None:
        return None
    if "=" in args.warm_start:
        overrides.insert(0, args.warm_start)
        args.warm_start = pretrained.KEYWORD
    if resume == RESUME_CHECKPOINT or args.checkpoint:
        raise UsageError(
            "--warm_start starts a new run; it cannot be combined with --resume or --checkpoint (with --resume auto "
            "it applies when the run folder holds no checkpoint yet)"
        )
    if args.warm_start != pretrained.KEYWORD and not Path(args.warm_start).is_file():
        raise UsageError(f"--warm_start {args.warm_start}: no such checkpoint file (or 'pretrained')")
    return args.warm_start


def print_geometry(geometry) -> None:
    """The geometry report, then its warnings."""
    print(geometry.report())
    for warning in geometry.warnings():
        print(f"warning: {warning}")


def rollout_geometry(env_cfg, agent_cfg, observation_widths: dict, action_width: int, world_size: int):
    """The shape of one iteration of the agent config's learner (:attr:`~.learners.Learner.geometry`);
    ``observation_widths`` maps group -> width (an int or a 1-tuple shape)."""
    widths = {name: (w[0] if isinstance(w, tuple) else w) for name, w in observation_widths.items()}
    return learner_of(agent_cfg).geometry(env_cfg, agent_cfg, widths, action_width, world_size)


def check_learner_args(args: argparse.Namespace, learner: Learner, warm_start_arg: str | None) -> None:
    """Refuse, by name, ``--distributed`` for a learner that runs in one process and ``--warm_start`` for one that
    starts from its own networks only (:class:`~.learners.Learner`)."""
    if args.distributed and not learner.supports_ranks:
        ranked = ", ".join(f"{other.name}'s" for other in LEARNERS if other.supports_ranks)
        raise UsageError(
            f"--distributed: {learner.name} (--agent {args.agent}) runs in one process; accepted: the agents of "
            f"{ranked}"
        )
    if warm_start_arg is not None and not learner.warm_start_from:
        starting = " and ".join(f"{other.name}'s" for other in LEARNERS if other.warm_start_from)
        raise UsageError(
            f"--warm_start loads trained networks into {starting} agents; it cannot start {learner.name} (--agent "
            f"{args.agent}), which starts from its own networks"
        )


def check_warm_start_noise(agent_cfg, warm_start_arg: str | None) -> None:
    """``agent.warm_start_noise_std`` sets the std of a warm-started actor: without ``--warm_start`` it would do
    nothing, so it is refused by name."""
    noise_std = getattr(agent_cfg, warm_start.NOISE_STD_FIELD, None)
    if noise_std is not None and warm_start_arg is None:
        raise UsageError(
            f"agent.{warm_start.NOISE_STD_FIELD}={noise_std} sets the actor's noise std after --warm_start; "
            "accepted without --warm_start: null (a new run starts at agent.actor.distribution_cfg.init_std)"
        )


def check_teacher(learner: Learner, agent: str, warm_start_arg: str | None, resumes: bool) -> None:
    """A new run of a learner that learns from a teacher needs one (``--warm_start``); a resumed run has its
    teacher in its checkpoint. Refused here, before the simulator starts (RSL-RL would refuse after building the
    environment)."""
    if learner.teacher and warm_start_arg is None and not resumes:
        raise UsageError(
            f"--agent {agent}: {learner.name} needs a teacher; pass --warm_start (the teacher task's shipped policy) "
            "or --warm_start CHECKPOINT (a PPO checkpoint of the teacher task), or --resume from a checkpoint of "
            "this learner"
        )


def check_distributed_args(args: argparse.Namespace, resume: str | None) -> bool:
    """Check ``--distributed`` (one process per GPU, or per CPU share, under torchrun); returns whether the ranks
    run on CPUs. All ranks must log into one run folder: ``--run_timestamp`` or ``--resume auto --run_name``."""
    if resume == RESUME_AUTO and not args.run_name:
        raise UsageError("--resume auto needs --run_name NAME: the run folder a requeued job re-enters")
    if not args.distributed:
        return False
    cpu = bool(args.device) and "cpu" in args.device
    if int(os.getenv("WORLD_SIZE", "1")) > 1 and not args.run_timestamp and resume != RESUME_AUTO:
        raise UsageError(
            "--distributed with several ranks needs --run_timestamp (or --resume auto --run_name NAME) so that all "
            'ranks log into one run folder, e.g. --run_timestamp "$(date +%Y-%m-%d_%H-%M-%S)" on the torchrun '
            "command line"
        )
    return cpu

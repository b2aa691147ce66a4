"""``scripts/evaluate.py``: how well a checkpoint walks, in Isaac Lab, on a fixed command grid.

The task's play MDP (no observation noise, no pushes) runs ``robots_per_command`` robots per grid command; each
robot keeps its command for the whole episode (no resampling, no heading control, no standing envs), and the
policy's action mean drives it. Robots that fall are counted, and their figures stop there
(:class:`~go2_locomotion.evaluation.metrics.GridRecorder`). Writes ``evaluation.json`` and ``evaluation.png``
(:mod:`go2_locomotion.evaluation.report`) and prints a table.

``--terrain default`` (Go2-Rough) evaluates terrain instead: robots walk forward from the centre of terrain cells
(each sub-terrain at several obstacle sizes, :mod:`go2_locomotion.tasks.terrain_cells`) and each cell's success is
the terrain curriculum's criterion (:mod:`go2_locomotion.evaluation.terrain`). Go2-Rough's command grid runs on
its level-0 terrain.

``--robustness CELLS`` runs the grid once per cell of :mod:`go2_locomotion.evaluation.robustness` (latency, gains,
payload, ...), each in an environment changed by that cell; with ``--terrain`` it runs the terrain cells once per
robustness cell instead (what a payload or a delay costs on stairs).

``--run RUN --every K`` evaluates every K-th checkpoint of a run (and its last) in one environment and names the
best by the grid summary (:func:`~go2_locomotion.evaluation.metrics.rank_key`); ``--compare A B`` prints two
reports side by side, from this script or from ``sim2sim.py --grid``.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import pretrained, run_params
from ..envs import physics_record
from ..errors import UsageError, check_writable, exit_on_usage_error
from ..evaluation import report as reports
from ..evaluation import robustness, terrain_report
from ..evaluation import terrain as terrain_eval
from ..evaluation.grid import GridCommand, check_timing, commands_at, default_grid, parse_grid, switches_at
from ..evaluation.metrics import FEET, GridRecorder, StepState, rank_key
from ..evaluation.robustness import parse_cells as robustness_cells
from ..export.manifest import actuator_figures
from ..tasks.terrain_cells import cells_generator, parse_cells
from ..tasks.velocity_env_cfg import VELOCITY_COMMAND
from ..versions import package_versions
from .checkpoints import check_compatible, list_checkpoints, log_root, read_checkpoint, resolve_checkpoint
from .cli import make_parser, parse_args, resolve_configs
from .session import load_policy, loaded_policy
from .stall_guard import STALL_FILE, GuardedSteps
from .task_ids import check_task, play_id, training_id

# Imported inside functions: Isaac Lab and torch (heavy; under Isaac Sim they follow Kit's start, the launch).

CONTACT_SENSOR = "contact_forces"
CONTACT_FORCE = 1.0
"""A foot is down when the contact sensor reads more than this [N] (the base-contact termination's threshold)."""
DURATION_S = 20.0
"""Default evaluation episode [s]: the tasks' episode length."""
SETTLE_S = 2.0
"""Default settling time [s]: the robot is dropped from 0.4 m and starts from rest."""
ROBOTS_PER_COMMAND = 4
"""Default robots per grid command: 13 commands x 4 = 52 (the grid sets the robot count)."""
RUN_REPORT = "evaluation_run.json"
STALL_TIMEOUT_S = 300.0
"""Default bound on one simulation step [s]: a step of the largest grid takes well under a second on a CPU; OvPhysX's
step has hung on rough terrain (docs/ovphysx_hang.md)."""


def build_parser() -> argparse.ArgumentParser:
    from isaaclab_rl.entrypoints.common import add_common_play_args

    def extra(parser):
        group = parser.add_argument_group("evaluation")
        group.add_argument(
            "--grid",
            default=None,
            help='Commands "name:vx,vy,wz name:vx,vy,wz@seconds:vx,vy,wz ..." (default: from the ranges).',
        )
        group.add_argument("--duration", type=float, default=DURATION_S, help="Episode length [s].")
        group.add_argument(
            "--settle",
            type=float,
            default=None,
            help=f"Seconds before figures count (default {SETTLE_S:g}; with --terrain {terrain_eval.SETTLE_S:g}).",
        )
        group.add_argument("--robots_per_command", type=int, default=ROBOTS_PER_COMMAND)
        group.add_argument(
            "--terrain",
            default=None,
            metavar="CELLS",
            help="Go2-Rough: evaluate terrain instead of commands: 'default' (every sub-terrain at 4-5 sizes up to "
            "its hardest) or cells like 'stairs_up:0.10 slopes_down:20' (metres; slopes in degrees).",
        )
        group.add_argument("--robots_per_cell", type=int, default=terrain_eval.ROBOTS_PER_CELL)
        group.add_argument(
            "--terrain_speed",
            type=float,
            default=None,
            help=f"With --terrain: the forward command [m/s] (default {terrain_eval.FORWARD_SPEED:g}; "
            f"{terrain_eval.WALKING_PACE:g} is a person's pace on stairs). Default report folder: evaluation_terrain, "
            "with the speed appended when it is not the default.",
        )
        group.add_argument(
            "--robustness",
            default=None,
            metavar="CELLS",
            help="The command grid (or --terrain's cells) once per cell, each changing one figure of the play robot "
            "or its world: 'default' "
            f"(latency 20 / 40 ms, gains x0.8 / x1.2, payload 3 / 6 kg, friction 0.3 / 0.2, pushes 0.8 / 1.2 m/s, "
            f"noise x2 / x4, joint model off / on) or cells like 'latency:40 payload:3' ({robustness.FORMS}).",
        )
        group.add_argument("--out", type=Path, default=None, help="Report folder (default: <run>/evaluation/...).")
        group.add_argument("--run", type=Path, default=None, help="Evaluate this run's checkpoints; name the best.")
        group.add_argument("--every", type=int, default=1, help="With --run: every K-th checkpoint (and the last).")
        group.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"), help="Print two reports side by side.")
        group.add_argument(
            "--quiet", action="store_true", help="No progress bar (there is none when stderr is not a terminal)."
        )
        group.add_argument(
            "--stall_timeout",
            type=float,
            default=STALL_TIMEOUT_S,
            help="Seconds one simulation step may take before the evaluation ends with exit code 75 and writes the "
            f"robots' state to <report>/{STALL_FILE} (0: wait forever).",
        )

    return make_parser("Evaluate a Go2 checkpoint on a fixed command grid (Isaac Lab).", add_common_play_args, extra)


def main(argv: list[str] | None = None) -> int:
    """Evaluate; returns the process exit code (2 for a usage error)."""
    return exit_on_usage_error(lambda: _main(argv))


def _check_arguments(args) -> None:
    if args.settle is None:
        args.settle = terrain_eval.SETTLE_S if args.terrain is not None else SETTLE_S
    try:
        check_timing(args.duration, args.settle)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.robots_per_command < 1:
        raise UsageError(f"--robots_per_command must be a positive integer, got {args.robots_per_command}")
    if args.robots_per_cell < 1:
        raise UsageError(f"--robots_per_cell must be a positive integer, got {args.robots_per_cell}")
    if args.terrain is not None and args.grid is not None:
        raise UsageError("--terrain and --grid exclude each other: a terrain evaluation commands straight ahead")
    if args.terrain_speed is not None:
        if args.terrain is None:
            raise UsageError(f"--terrain_speed {args.terrain_speed:g}: only with --terrain (a terrain evaluation)")
        try:
            terrain_eval.check_speed(args.terrain_speed)
        except ValueError as error:
            raise UsageError(f"--terrain_speed {error}") from None
    else:
        args.terrain_speed = terrain_eval.FORWARD_SPEED
    if args.robustness is not None and args.run is not None:
        raise UsageError("--robustness evaluates one checkpoint: not with --run")
    if not (np.isfinite(args.stall_timeout) and args.stall_timeout >= 0):
        raise UsageError(f"--stall_timeout must be a finite number of seconds >= 0 (0: off), got {args.stall_timeout}")
    if args.every < 1:
        raise UsageError(f"--every must be a positive integer, got {args.every}")
    if args.num_envs is not None:
        raise UsageError("--num_envs is set by the grid: use --robots_per_command (robots = commands x that)")
    if args.out is not None:
        check_writable(args.out, "--out")


def trained_terrain(args, agent_cfg, generator):
    """The terrain generator the checkpoint trained on, which sets the default terrain cells: its run's
    ``params/env.yaml`` beside it (a run's, or a shipped policy's: ``ship`` copies it), else (a copied checkpoint)
    the evaluated config's (``presets=stairs20`` selects stairs20's)."""
    if generator is None:
        return None
    checkpoint = resolve_checkpoint(
        args.checkpoint or "latest",
        root=log_root(agent_cfg.experiment_name),
        task=training_id(check_task(args.task)),
        agent=args.agent,
    )
    return run_params.trained_terrain(checkpoint.parent) or generator


def run_checkpoints(run: Path, every: int) -> list[Path]:
    """Every ``every``-th checkpoint of a run folder in iteration order, and always its last."""
    if not run.is_dir():
        raise UsageError(f"--run {run}: no such run folder")
    found = list_checkpoints(run)
    if not found:
        raise UsageError(f"--run {run}: no model_<iteration>.pt checkpoints in it")
    chosen = found[::every]
    return chosen if chosen[-1] == found[-1] else [*chosen, found[-1]]


def fixed_command_overrides(duration_s: float) -> list[str]:
    """Hydra overrides that keep each robot's command: never resampled, no heading control, no standing envs,
    and an episode long enough that no time-out ends the evaluation."""
    prefix = f"env.commands.{VELOCITY_COMMAND}"
    never = 10 * duration_s + 1000.0
    return [
        f"{prefix}.resampling_time_range=[{never},{never}]",
        f"{prefix}.heading_command=false",
        f"{prefix}.rel_heading_envs=0.0",
        f"{prefix}.rel_standing_envs=0.0",
        f"env.episode_length_s={duration_s + 1.0}",
    ]


def _main(argv: list[str] | None) -> int:
    args, overrides = parse_args(build_parser(), argv)
    if args.compare:
        print(compare_reports(*args.compare))
        return 0
    _check_arguments(args)
    plan = _plan(args, overrides)
    if plan.robustness:
        _robustness(args, plan)
        return 0
    with loaded_policy(args, plan.overrides, video=False, prepare=plan.prepare) as session:
        results = [
            _evaluate(args, plan, session, checkpoint) for checkpoint in plan.checkpoints or [session.checkpoint]
        ]
        if plan.checkpoints and not plan.cells:
            _write_run_report(results, args.out or args.run / "evaluation")
    return 0


@dataclass
class Plan:
    """What one evaluation runs: the checkpoints of ``--run`` (or ``None``: ``--checkpoint``'s), the command grid or
    the terrain cells, the robustness cells, and the overrides and terrain layout of its environment."""

    checkpoints: list[Path] | None
    grid: list[GridCommand]
    cells: list | None
    robustness: list | None
    overrides: list[str]
    generator: object

    def prepare(self, cfg) -> None:
        """The terrain: the cells in a row (--terrain), or the generator's level 0 (the command grid)."""
        base = cfg.scene.terrain.terrain_generator
        if base is not None:
            layout = cells_generator(self.cells, base=base) if self.cells else terrain_eval.level_zero_generator(base)
            cfg.scene.terrain.terrain_generator = layout


def _plan(args, overrides: list[str]) -> Plan:
    """Parse the grid, the terrain and robustness cells, and set ``args.num_envs`` and the checkpoint of ``--run``.

    Raises:
        UsageError: A malformed grid or cell, or terrain cells for a task without generated terrain.
    """
    checkpoints = run_checkpoints(args.run, args.every) if args.run else None
    if checkpoints:
        args.checkpoint = str(checkpoints[0])
    env_cfg, agent_cfg = resolve_configs(
        play_id(check_task(args.task)), args.agent, play_mode=True, overrides=overrides
    )
    generator = env_cfg.scene.terrain.terrain_generator
    if args.terrain is not None and generator is None:
        raise UsageError(f"--terrain: task {args.task} has no generated terrain; use it with Go2-Rough")
    ranges = getattr(env_cfg.commands, VELOCITY_COMMAND).ranges.to_dict()
    try:
        robustness = robustness_cells(args.robustness) if args.robustness else None
        cells = None
        if args.terrain is not None:
            parse_cells(args.terrain)  # the cells' spelling first: it needs no checkpoint
            cells = parse_cells(args.terrain, trained_terrain(args, agent_cfg, generator))
        grid = parse_grid(args.grid) if args.grid else default_grid(ranges)
    except ValueError as error:
        raise UsageError(f"--terrain {args.terrain}: {error}" if args.terrain else str(error)) from None
    args.num_envs = len(cells) * args.robots_per_cell if cells else len(grid) * args.robots_per_command
    return Plan(checkpoints, grid, cells, robustness, [*overrides, *fixed_command_overrides(args.duration)], generator)


def _evaluate(args, plan: Plan, session, checkpoint: Path, out: Path | None = None) -> tuple:
    """Evaluate ``checkpoint`` in the session's environment (loading it unless it is the session's), write its
    report to ``out`` (default :func:`_out_dir`) and print its table; returns ``(checkpoint, report, report
    path)``, a command-grid or a terrain report."""
    env, runner, agent_cfg = session.env, session.runner, session.agent_cfg
    if checkpoint != session.checkpoint:
        data = read_checkpoint(checkpoint)
        check_compatible(data, checkpoint, runner.alg.get_policy(), session.task)
        load_policy(runner, data)
    policy = runner.get_inference_policy(device=env.unwrapped.device)
    source = {
        "task": session.task,
        "checkpoint": pretrained.recorded_path(checkpoint),
        "checkpoint_sha256": reports.file_sha256(checkpoint),
        "physics": physics_record(env),
        "versions": package_versions("go2_locomotion", "isaaclab", "rsl-rl-lib", "torch"),
    }
    cells, grid = plan.cells, plan.grid
    folder = terrain_eval.speed_folder("evaluation_terrain", args.terrain_speed) if cells else "evaluation"
    out = out or _out_dir(args, checkpoint, session.work_dir, plan.checkpoints, folder)
    label = f"{checkpoint.stem}: {len(cells)} cells" if cells else f"{checkpoint.stem}: {len(grid)} commands"
    guard = GuardedSteps(
        env,
        args.stall_timeout,
        f"evaluate (--stall_timeout {args.stall_timeout:g})",
        out,
        progress=progress_bar(label, args.duration, env.unwrapped.step_dt, quiet=args.quiet),
    )
    settings = {
        "duration_s": args.duration,
        "settle_s": args.settle,
        "seed": agent_cfg.seed,
        "device": str(env.unwrapped.device),
    }
    if cells:
        with guard:
            figures = terrain_rollout(
                guard, policy, cells, args.robots_per_cell, args.duration, args.settle, speed=args.terrain_speed
            )
        settings.update(
            cells=[c.label() for c in cells],
            command=[args.terrain_speed, 0.0, 0.0],
            success_distance_m=figures["success_distance_m"],
            robots_per_cell=args.robots_per_cell,
            mdp="play mode (no observation noise, no pushes), a fixed forward command",
        )
        report = terrain_report.assemble(figures, simulator="isaaclab", settings=settings, source=source)
        json_path, png_path = terrain_report.write(report, out)
        print(terrain_report.table(report))
        print(f"[go2] wrote {json_path}, {png_path}")
        return checkpoint, report, json_path
    with guard:
        figures = rollout(guard, policy, grid, args.robots_per_command, args.duration, args.settle)
    settings.update(
        grid=[c.describe() for c in grid],
        robots_per_command=args.robots_per_command,
        mdp="play mode (no observation noise, no pushes), fixed commands",
    )
    if plan.generator is not None:
        settings["terrain"] = "level 0 of the task's generator (every sub-terrain at difficulty 0)"
    report = reports.assemble(figures, simulator="isaaclab", settings=settings, source=source)
    json_path, png_path = reports.write(report, out)
    print(reports.table(report))
    print(f"[go2] wrote {json_path}, {png_path}")
    return checkpoint, report, json_path


def _robustness(args, plan: Plan) -> Path:
    """The command grid (or with ``--terrain`` the terrain cells) once per robustness cell, each in an environment
    changed by the cell (:func:`go2_locomotion.tasks.robustness.apply_cell`); writes ``robustness.json`` and
    ``robustness.png`` beside the cells' reports and prints the grid."""
    from ..tasks.robustness import apply_cell

    rows, out, title = [], None, ""
    for cell in plan.robustness:
        print(f"[go2] robustness cell {cell.label()}: {cell.describe()}")

        def prepare(cfg, cell=cell) -> None:
            plan.prepare(cfg)
            apply_cell(cfg, cell)

        with loaded_policy(args, plan.overrides, video=False, prepare=prepare) as session:
            out = args.out or session.work_dir / "robustness" / session.checkpoint.stem
            _, report, _ = _evaluate(args, plan, session, session.checkpoint, out=out / robustness.folder(cell))
            row = robustness.terrain_summary if plan.cells else robustness.summary
            rows.append(row(cell, report, robustness.folder(cell)))
            title = f"{session.task} on {physics_record(session.env)['engine']}: {session.checkpoint.name}"
            if plan.cells:
                title += f", forward {args.terrain_speed:g} m/s"
    robots = args.robots_per_cell if plan.cells else args.robots_per_command
    json_path, png_path = robustness.write(rows, out, title, robots)
    print(robustness.table(rows))
    print(f"[go2] wrote {json_path}, {png_path}")
    return out


def progress_bar(label: str, duration_s: float, step_dt: float, quiet: bool = False, stream=None):
    """A bar of simulated seconds on stderr (done, rate, time left), or ``None`` with ``quiet`` or when the stream is
    not a terminal (a log file, CI)."""
    from tqdm import tqdm

    stream = sys.stderr if stream is None else stream
    if quiet or not stream.isatty():
        return None
    steps = round(duration_s / step_dt)
    return tqdm(total=steps, desc=label, unit=" sim s", unit_scale=step_dt, file=stream, dynamic_ncols=True)


def _out_dir(args, checkpoint: Path, work_dir: Path, checkpoints: list | None, folder: str) -> Path:
    """``--out``, or ``<checkpoint folder>/<folder>/<checkpoint>``; with --run, one folder per checkpoint."""
    if checkpoints:
        return (args.out or args.run / folder) / checkpoint.stem
    return args.out or work_dir / folder / checkpoint.stem


def compare_reports(path_a: Path, path_b: Path) -> str:
    """Two reports side by side: command grids, or terrain grids; not one of each."""
    a, b = reports.load(path_a), reports.load(path_b)
    labels = (str(path_a), str(path_b))
    kinds = {terrain_report.is_terrain_report(r) for r in (a, b)}
    if len(kinds) == 2:
        raise UsageError(f"--compare {path_a} {path_b}: one is a terrain report, the other a command-grid report")
    if kinds == {True}:
        return terrain_report.compare(a, b, labels=labels)
    return reports.compare(a, b, labels=labels)


def _write_run_report(results: list, out: Path) -> Path:
    best = min(results, key=lambda r: rank_key(r[1]["summary"]))
    payload = {
        "best": pretrained.recorded_path(best[0]),
        "rule": "lowest xy + yaw error over the moving commands, ties: fewer falls",
        "checkpoints": [
            {"checkpoint": pretrained.recorded_path(c), "summary": r["summary"], "report": pretrained.recorded_path(p)}
            for c, r, p in results
        ],
    }
    out.mkdir(parents=True, exist_ok=True)
    path = out / RUN_REPORT
    path.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"[go2] best checkpoint: {best[0]} ({path})")
    return path


def _fixed_commands(env):
    """Reset ``env`` with its velocity command under the caller's control (no heading control, no standing envs);
    returns ``give(commands)``: set every robot's command (``[N, 3]``, or one ``[3]`` for all) and return the
    observation the policy sees next, with it."""
    import torch
    from tensordict import TensorDict

    unwrapped = env.unwrapped
    env.reset()
    term = unwrapped.command_manager.get_term(VELOCITY_COMMAND)
    term.is_heading_env[:] = False
    term.is_standing_env[:] = False

    def give(commands) -> TensorDict:
        term.vel_command_b[:] = torch.tensor(commands, dtype=torch.float32, device=unwrapped.device)
        return TensorDict(unwrapped.observation_manager.compute(), batch_size=[unwrapped.num_envs])

    return give


def rollout(
    steps: GuardedSteps, policy, grid: list[GridCommand], robots_per_command: int, duration_s: float, settle_s: float
):
    """Run the grid once from a reset, stepping through ``steps``; returns :meth:`GridRecorder.report`. Robot ``i``
    keeps command ``i mod len(grid)``, so each command's robots spread over the scene."""
    import torch

    env = steps.env
    unwrapped = env.unwrapped
    num = unwrapped.num_envs
    assignment = np.arange(num) % len(grid)
    give = _fixed_commands(env)

    def command(time_s: float):
        """Give each robot its grid command at ``time_s``; the observation the policy sees next, with it."""
        return give(commands_at(grid, assignment, time_s))

    obs = command(0.0)

    robot = unwrapped.scene["robot"]
    sensor = unwrapped.scene.sensors[CONTACT_SENSOR]
    feet = [f"{leg}_foot" for leg in FEET]
    sensor_feet, _ = sensor.find_sensors(feet, preserve_order=True)
    robot_feet, _ = robot.find_bodies(feet, preserve_order=True)
    effort = np.array(actuator_figures(robot)["effort_limit"], dtype=float)
    recorder = GridRecorder(
        grid=grid,
        assignment=assignment,
        step_dt=unwrapped.step_dt,
        settle_s=settle_s,
        joint_limits=_np(robot.data.joint_pos_limits)[0],
        effort_limits=effort,
    )
    origins = _np(unwrapped.scene.env_origins)
    for step in range(round(duration_s / unwrapped.step_dt)):
        if step and switches_at(grid, step, unwrapped.step_dt):
            obs = command(step * unwrapped.step_dt)
        with torch.inference_mode():
            obs, _, _, _ = steps.step(policy(obs))
        data = robot.data
        forces = _np(sensor.data.net_forces_w)[:, sensor_feet]
        recorder.record(
            StepState(
                lin_vel_b=_np(data.root_lin_vel_b),
                ang_vel_b=_np(data.root_ang_vel_b),
                height=_np(data.root_pos_w)[:, 2] - origins[:, 2],
                projected_gravity=_np(data.projected_gravity_b),
                joint_pos=_np(data.joint_pos),
                joint_vel=_np(data.joint_vel),
                torque=_np(robot.actuators.applied_effort),
                foot_contact=np.linalg.norm(forces, axis=-1) > CONTACT_FORCE,
                foot_vel_xy=_np(data.body_lin_vel_w)[:, robot_feet, :2],
                fell=_np(unwrapped.termination_manager.terminated).astype(bool),
            )
        )
    return recorder.report()


def terrain_rollout(
    steps: GuardedSteps,
    policy,
    cells,
    robots_per_cell: int,
    duration_s: float,
    settle_s: float,
    speed: float = terrain_eval.FORWARD_SPEED,
) -> dict:
    """Stepping through ``steps``, every robot walks forward at ``speed`` [m/s] from its cell's centre (robot ``i``
    on cell ``i // robots_per_cell``, the layout of ``terrain_cells.cells_generator``); returns the terrain
    recorder's report (:meth:`~go2_locomotion.evaluation.terrain.TerrainRecorder.report`) and the success distance."""
    import torch

    env = steps.env
    unwrapped = env.unwrapped
    command = (speed, 0.0, 0.0)
    obs = _fixed_commands(env)(list(command))
    terrain = unwrapped.scene.terrain
    assignment = _np(terrain.terrain_types).astype(int)
    expected = np.arange(unwrapped.num_envs) // robots_per_cell
    if not np.array_equal(assignment, expected):
        raise RuntimeError(f"robots are not laid out one cell per {robots_per_cell} robots: {assignment.tolist()}")
    recorder = terrain_eval.TerrainRecorder(
        cells=cells,
        assignment=assignment,
        step_dt=unwrapped.step_dt,
        settle_s=settle_s,
        success_distance=terrain.cfg.terrain_generator.size[0] / 2,
        command=command,
    )
    origins = _np(terrain.env_origins)[:, :2]
    robot = unwrapped.scene["robot"]
    for _ in range(round(duration_s / unwrapped.step_dt)):
        with torch.inference_mode():
            obs, _, _, _ = steps.step(policy(obs))
        recorder.record(
            distance=np.linalg.norm(_np(robot.data.root_pos_w)[:, :2] - origins, axis=1),
            lin_vel_b=_np(robot.data.root_lin_vel_b),
            fell=_np(unwrapped.termination_manager.terminated).astype(bool),
        )
    return {**recorder.report(), "success_distance_m": recorder.success_distance}


def _np(x) -> np.ndarray:
    x = x.torch if hasattr(x, "torch") else x
    return x.detach().cpu().numpy().astype(np.float64)

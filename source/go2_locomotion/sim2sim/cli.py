"""``scripts/sim2sim.py``: a deploy bundle in plain MuJoCo over a command script (report, plot, optional GIF), on
the floor or on a Go2-Rough terrain cell (``--terrain CELL``), over the evaluation's command grid (``--grid``) or
its terrain grid (``--terrain default`` or several cells); the user's mistakes are one-line errors with exit code
2."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from .. import catalog, pretrained, run_params
from ..errors import USAGE_EXIT_CODE, UsageError, check_writable, exit_on_usage_error, prepare_output_file
from ..evaluation import report as reports
from ..evaluation import robustness, terrain_report
from ..evaluation import terrain as terrain_eval
from ..evaluation.grid import check_timing, parse_grid
from ..robot.bundle import BundleError, load_bundle
from . import command_grid, terrain_grid
from .gif import VideoUnavailable
from .loop import DEFAULT_SEGMENTS, TERRAIN_SEGMENTS, parse_segments, run
from .report import table, write_report
from .terrain import TerrainError, build_cell


def main(argv: list[str] | None = None) -> int:
    """``scripts/sim2sim.py``: run a bundle in MuJoCo, write the JSON report and the plot; exit 2 on a usage error."""
    parser = argparse.ArgumentParser(description="Run a Go2 deploy bundle in plain MuJoCo (CPU) over a command script.")
    parser.add_argument(
        "--bundle",
        required=True,
        help="Folder with deploy.yaml and policy.onnx, or 'pretrained' (the shipped policy of --task; reports then "
        "go to logs/pretrained/<policy>/, e.g. logs/pretrained/go2_flat/).",
    )
    parser.add_argument(
        "--task",
        default=None,
        help=f"With --bundle pretrained: whose shipped policy (default {DEFAULT_TASK}; shipped: "
        f"{', '.join(pretrained.POLICIES) or 'none'}). A bundle folder names its task in deploy.yaml; --task, if "
        "given, must agree.",
    )
    default, on_terrain = _segments_text(DEFAULT_SEGMENTS), _segments_text(TERRAIN_SEGMENTS)
    parser.add_argument(
        "--commands",
        default=None,
        help=f"Segments name:seconds:vx,vy,wz (default: {default}; with --terrain: {on_terrain}).",
    )
    parser.add_argument(
        "--terrain",
        default=None,
        help="Run on one Go2-Rough terrain cell instead of the floor, built by Isaac Lab's terrain generator: "
        "name:size with sizes in metres (slopes in degrees), e.g. stairs_up:0.10, stairs_down:0.10, boxes:0.05, "
        "random_rough:0.06, slopes_up:20, slopes_down:20 (go2_locomotion.tasks.terrain_cells). The robot starts at "
        "the tile's centre. Reports go to <bundle>/sim2sim/<name>_<size>/. 'default' or two or more cells (e.g. "
        "'stairs_up:0.10 slopes_down:20') run the terrain grid of scripts/evaluate.py --terrain instead: robots "
        "walk 1 m/s straight ahead from each cell's centre; writes evaluation.json/.png (default folder: "
        "<bundle>/evaluation_mujoco_terrain).",
    )
    parser.add_argument(
        "--robots_per_cell",
        type=int,
        default=None,
        help="With a terrain grid: robots per cell, robot k of N facing side k mod 4 of the tile turned a further "
        "90 k / N degrees "
        f"(default: {terrain_grid.ROBOTS_PER_CELL}, as in scripts/evaluate.py --terrain).",
    )
    parser.add_argument(
        "--terrain_speed",
        type=float,
        default=None,
        help=f"With a terrain grid: the forward command [m/s] (default {terrain_eval.FORWARD_SPEED:g}, as in "
        "scripts/evaluate.py --terrain_speed); the default report folder gets the speed appended when it is not the "
        "default.",
    )
    parser.add_argument(
        "--substeps",
        type=int,
        default=None,
        help="MuJoCo steps per physics step (default: the bundle's physics.substeps; 2 for the Go2 tasks' Newton "
        "preset).",
    )
    parser.add_argument(
        "--output", type=Path, default=None, help="Report folder (default: <bundle>/sim2sim, with --terrain below it)."
    )
    parser.add_argument("--video", type=Path, default=None, help="Also write an animated GIF (needs MUJOCO_GL).")
    parser.add_argument(
        "--grid",
        default=None,
        help='Instead of --commands: evaluate on a command grid like scripts/evaluate.py ("default", from the '
        'bundle\'s command ranges, or "name:vx,vy,wz name:vx,vy,wz@seconds:vx,vy,wz ..."); writes '
        "evaluation.json/.png (default folder: <bundle>/evaluation_mujoco).",
    )
    parser.add_argument(
        "--robustness",
        default=None,
        metavar="CELLS",
        help="With --grid: the grid once per cell, each changing one figure of the robot or its world, as "
        f"scripts/evaluate.py --robustness does in Isaac Lab: 'default' or cells like 'latency:40 payload:3' "
        f"({robustness.FORMS}); writes {robustness.REPORT_FILE} and one report folder a cell (default folder: "
        "<bundle>/robustness_mujoco).",
    )
    parser.add_argument(
        "--model",
        type=Path,
        default=None,
        help="With --grid or a terrain grid: an MJCF Go2 to simulate instead of this package's description, e.g. "
        "unitree_mujoco's go2.xml (its own rotor inertia and joint friction; joints and feet named as the "
        "description's, its trunk on a free joint; visual meshes that cannot be found are left out).",
    )
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        help=f"With --grid or a terrain grid: episode length [s] (default {GRID_DURATION_S:g}).",
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=None,
        help=f"With --grid: seconds before figures count (default {GRID_SETTLE_S:g}); with a terrain grid: before "
        "the tracking error counts (default 1).",
    )
    args = parser.parse_args(argv)
    if exit_on_usage_error(lambda: _check_arguments(args)) == USAGE_EXIT_CODE:
        return USAGE_EXIT_CODE
    if args.grid is not None:
        return exit_on_usage_error(lambda: _grid_main(args))
    if args.terrain_grid:
        return exit_on_usage_error(lambda: _terrain_grid_main(args))

    def _main() -> int:
        # only the user's mistakes become one-line errors; a failure inside the run keeps its traceback
        try:
            segments = parse_segments(args.commands or (on_terrain if args.terrain is not None else default))
        except ValueError as error:
            raise UsageError(str(error)) from None
        bundle = _load(args)
        terrain = _build_cells(args.cells)[0] if args.cells else None
        try:
            report = run(bundle, segments, substeps=args.substeps, video=args.video, terrain=terrain)
        except VideoUnavailable as error:
            raise UsageError(str(error)) from None
        folder = args.work_dir / "sim2sim" / (terrain.label.replace(":", "_") if terrain is not None else "")
        json_path, png_path = write_report(report, args.output or folder)
        print(table(report))
        print(f"[go2] wrote {json_path} and {png_path}" + (f" and {report['video']}" if report["video"] else ""))
        return 0

    return exit_on_usage_error(_main)


DEFAULT_TASK = catalog.DEFAULT_TASK.id
"""Whose shipped policy ``--bundle pretrained`` runs without ``--task``."""

GRID_DURATION_S = 20.0
"""``--grid``'s default episode [s]."""

GRID_SETTLE_S = 2.0
"""``--grid``'s default settling time [s]."""


def _segments_text(segments) -> str:
    return " ".join(f"{s.name}:{s.duration_s:g}:{','.join(f'{v:g}' for v in s.command)}" for s in segments)


def _build_cells(cells) -> list:
    """The cells' MuJoCo terrains, all built before anything runs (Isaac Lab's generator runs here: it is imported
    only now); a cell MuJoCo cannot reproduce is refused."""
    try:
        return [build_cell(cell) for cell in cells]
    except TerrainError as error:  # the message starts with the cell
        raise UsageError(f"--terrain {error}") from None


def _check_arguments(args) -> int:
    """Refuse what cannot run, before anything runs or is written; ``--bundle pretrained`` -> the shipped bundle of
    ``--task``. Sets ``args.cells`` (the ``--terrain`` cells, or ``None``; ``default``: those of the terrain the
    bundle's policy trained on, read from ``params/env.yaml`` in the bundle's parent folder when there),
    ``args.terrain_grid`` (``default`` or several cells: the terrain grid), the grids' ``--duration``/``--settle``
    defaults, ``args.pretrained`` and
    ``args.work_dir``, where reports go by default: next to the bundle, or ``logs/pretrained/<policy>/`` for a
    shipped one (never into the installed package)."""
    if args.substeps is not None and args.substeps < 1:
        raise UsageError(f"--substeps must be a positive integer, got {args.substeps}")
    if args.terrain is not None and args.grid is not None:
        raise UsageError("--terrain and --grid exclude each other: the command grid runs on the floor")
    if args.robustness is not None and args.grid is None:
        raise UsageError("--robustness runs with --grid (the command grid once per cell)")
    if args.robustness is not None:
        try:
            args.robustness = robustness.parse_cells(args.robustness)
        except ValueError as error:
            raise UsageError(str(error)) from None
    if args.model is not None and not args.model.is_file():
        raise UsageError(f"--model {args.model}: no such file")
    args.cells, args.terrain_grid = None, False
    if args.terrain is not None:
        from ..tasks.terrain_cells import parse_cells  # the task configs: Isaac Lab (heavy), only for a terrain

        try:
            args.cells = parse_cells(args.terrain)
        except ValueError as error:
            raise UsageError(f"--terrain {args.terrain}: {error}") from None
        args.terrain_grid = args.terrain.strip() == "default" or len(args.cells) > 1
    _check_grid_arguments(args)
    if args.model is not None and not (args.grid is not None or args.terrain_grid):
        raise UsageError(
            f"--model {args.model}: only with --grid or a terrain grid (--terrain default or two or more cells); "
            "sim_go2.py --model takes it too"
        )
    if args.output is not None:
        check_writable(args.output, "--output")
    if args.video is not None:
        args.video = prepare_output_file(args.video, "--video")
    args.work_dir, args.pretrained = Path(args.bundle), args.bundle == pretrained.KEYWORD
    if args.pretrained:
        task = args.task or DEFAULT_TASK
        try:
            args.bundle = pretrained.bundle(task)
        except pretrained.NoPretrainedPolicy as error:
            raise UsageError(f"--bundle pretrained --task {task}: {error}") from None
        args.work_dir = pretrained.output_dir(task)
    args.bundle = Path(args.bundle)
    if args.terrain is not None and args.terrain.strip() == "default":
        args.cells = bundle_cells(args.terrain, args.bundle)
    return 0


def bundle_cells(terrain: str, bundle: Path) -> list:
    """The ``--terrain`` cells for ``bundle``: ``default`` is the default grid of the terrain its policy trained on,
    read from its run's (or shipped folder's) ``params/env.yaml`` beside the bundle, as export and ship write it
    (Go2-Rough's grid without one); other cells as spelled."""
    from ..tasks.terrain_cells import parse_cells  # the task configs: Isaac Lab (heavy), only for a terrain

    trained = run_params.trained_terrain(Path(bundle).parent) if terrain.strip() == "default" else None
    return parse_cells(terrain, trained)


def _check_grid_arguments(args) -> None:
    """The flags that only a grid (``--grid``, or a terrain grid) takes, and its defaults."""
    for flag, value in (("--robots_per_cell", args.robots_per_cell), ("--terrain_speed", args.terrain_speed)):
        if value is not None and not args.terrain_grid:
            raise UsageError(
                f"{flag} {value:g}: only with a terrain grid (--terrain default or two or more cells); one cell runs "
                "the command script"
            )
    if not (args.terrain_grid or args.grid is not None):
        for flag, value in (("--duration", args.duration), ("--settle", args.settle)):
            if value is not None:
                raise UsageError(
                    f"{flag} {value:g}: only with --grid or a terrain grid (--terrain default or two or more cells); "
                    "a command script's segments set its time"
                )
        return
    if args.terrain_grid:
        if args.robots_per_cell is not None and args.robots_per_cell < 1:
            raise UsageError(f"--robots_per_cell must be a positive integer, got {args.robots_per_cell}")
        for flag, value in (("--commands", args.commands), ("--video", args.video)):
            if value is not None:
                raise UsageError(
                    f"{flag} {value}: a terrain grid commands one speed straight ahead on every cell "
                    "(--terrain_speed) and renders nothing; give one --terrain cell to run a command script"
                )
        args.robots_per_cell = args.robots_per_cell or terrain_grid.ROBOTS_PER_CELL
        try:
            args.terrain_speed = terrain_eval.check_speed(
                terrain_eval.FORWARD_SPEED if args.terrain_speed is None else args.terrain_speed
            )
        except ValueError as error:
            raise UsageError(f"--terrain_speed {error}") from None
        defaults = (terrain_eval.DURATION_S, terrain_eval.SETTLE_S)
    else:
        defaults = (GRID_DURATION_S, GRID_SETTLE_S)
    args.duration = defaults[0] if args.duration is None else args.duration
    args.settle = defaults[1] if args.settle is None else args.settle
    try:
        check_timing(args.duration, args.settle)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _load(args):
    """The bundle; a ``--task`` that is not the bundle's own is refused."""
    try:
        bundle = load_bundle(args.bundle)
    except (FileNotFoundError, BundleError, ValueError) as error:
        raise UsageError(str(error)) from None
    if not args.pretrained:
        check_bundle_task(bundle, args.bundle, args.task)
    return bundle


def check_bundle_task(bundle, shown, task: str | None) -> None:
    """Refuse a ``--task`` that is not the task of the bundle folder ``shown`` (its deploy.yaml) in one line."""
    own = bundle.manifest.get("task")
    if task is not None and own != task:
        raise UsageError(
            f"--task {task}: the bundle {shown} is a {own} bundle (its deploy.yaml); --task chooses the shipped "
            "policy with --bundle pretrained"
        )


def _grid_main(args) -> int:
    """``--grid``: the evaluation grid in MuJoCo, reported as ``scripts/evaluate.py`` reports Isaac Lab."""
    bundle = _load(args)
    try:
        grid = None if args.grid == "default" else parse_grid(args.grid)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.robustness is not None:
        return _robustness_main(args, bundle, grid)
    report = _run_grid(args, bundle, grid)
    folder = _model_folder("evaluation_mujoco", args.model)
    json_path, png_path = reports.write(report, args.output or args.work_dir / folder)
    print(reports.table(report))
    print(f"[go2] wrote {json_path} and {png_path}")
    return 0


def _run_grid(args, bundle, grid, cell=None) -> dict:
    with _model_file_errors(args.model):
        return command_grid.run_grid(
            bundle,
            grid,
            duration_s=args.duration,
            settle_s=args.settle,
            substeps=args.substeps,
            model_file=args.model,
            cell=cell,
        )


def _model_folder(base: str, model: Path | None, with_model: str | None = None) -> str:
    """A report folder's name: ``base`` for the description, ``<with_model or base>_<file stem>`` with ``--model``."""
    return base if model is None else f"{with_model or base}_{model.stem}"


@contextlib.contextmanager
def _model_file_errors(model: Path | None):
    """A ``--model`` file that cannot be loaded is the user's error, in its one line (``load_model_file``'s
    ``ValueError``); without ``--model`` a ``ValueError`` is a bug and keeps its traceback."""
    try:
        yield
    except ValueError as error:
        if model is None:
            raise
        raise UsageError(str(error)) from None


def _robustness_main(args, bundle, grid) -> int:
    """``--grid --robustness``: the grid once per cell (:mod:`.robustness`), written and printed as
    ``scripts/evaluate.py --robustness`` writes Isaac Lab's."""
    out = args.output or args.work_dir / _model_folder("robustness_mujoco", args.model, "robustness")
    rows = []
    for cell in args.robustness:
        print(f"[go2] robustness cell {cell.label()}: {cell.describe()}", flush=True)
        report = _run_grid(args, bundle, grid, cell)
        json_path, _ = reports.write(report, out / robustness.folder(cell))
        rows.append(robustness.summary(cell, report, robustness.folder(cell)))
    model = "the package's Go2" if args.model is None else args.model.name
    title = f"{bundle.field('task')} in MuJoCo ({model}): {bundle.field('checkpoint')}"
    json_path, png_path = robustness.write(rows, out, title, 1)
    print(robustness.table(rows))
    print(f"[go2] wrote {json_path} and {png_path}")
    return 0


def _terrain_grid_main(args) -> int:
    """``--terrain default`` (or several cells): the terrain grid in MuJoCo, reported as ``scripts/evaluate.py
    --terrain`` reports Isaac Lab (:mod:`.terrain_grid`)."""
    bundle = _load(args)
    geometries = _build_cells(args.cells)
    with _model_file_errors(args.model):
        report = terrain_grid.run_terrain(
            bundle,
            args.cells,
            robots_per_cell=args.robots_per_cell,
            duration_s=args.duration,
            settle_s=args.settle,
            substeps=args.substeps,
            geometries=geometries,
            progress=lambda line: print(line, flush=True),
            speed=args.terrain_speed,
            model_file=args.model,
        )
    folder = terrain_eval.speed_folder(_model_folder("evaluation_mujoco_terrain", args.model), args.terrain_speed)
    json_path, png_path = terrain_report.write(report, args.output or args.work_dir / folder)
    print(terrain_report.table(report))
    print(f"[go2] wrote {json_path} and {png_path}")
    return 0

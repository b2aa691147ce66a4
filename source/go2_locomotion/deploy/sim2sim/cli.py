"""``scripts/sim2sim.py``: a deploy bundle in plain MuJoCo over a command script (report, plot, optional GIF), on
the floor or on a Go2-Rough terrain cell (``--terrain``), or over the evaluation grid (``--grid``); the user's
mistakes are one-line errors with exit code 2."""

from __future__ import annotations

from pathlib import Path

from ... import pretrained
from ...errors import USAGE_EXIT_CODE, UsageError, check_writable, exit_on_usage_error, prepare_output_file
from ..bundle import BundleError, load_bundle
from .gif import VideoUnavailable
from .loop import DEFAULT_SEGMENTS, TERRAIN_SEGMENTS, parse_segments, run
from .report import table, write_report


def main(argv: list[str] | None = None) -> int:
    """``scripts/sim2sim.py``: run a bundle in MuJoCo, write the JSON report and the plot; exit 2 on a usage error."""
    import argparse

    parser = argparse.ArgumentParser(description="Run a Go2 deploy bundle in plain MuJoCo (CPU) over a command script.")
    parser.add_argument(
        "--bundle",
        required=True,
        help="Folder with deploy.yaml and policy.onnx, or 'pretrained' (the shipped Go2-Flat policy's bundle; reports "
        "then go to logs/pretrained/go2_flat/).",
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
        "the tile's centre. Reports go to <bundle>/sim2sim/<name>_<size>/.",
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
    parser.add_argument("--duration", type=float, default=20.0, help="With --grid: episode length [s].")
    parser.add_argument("--settle", type=float, default=2.0, help="With --grid: seconds before figures count.")
    args = parser.parse_args(argv)
    if exit_on_usage_error(lambda: _resolve_bundle(args)) == USAGE_EXIT_CODE:
        return USAGE_EXIT_CODE
    if args.grid is not None:
        return exit_on_usage_error(lambda: _grid_main(args))

    def _main() -> int:
        # only the user's mistakes become one-line errors; a failure inside the run keeps its traceback
        try:
            segments = parse_segments(args.commands or (on_terrain if args.terrain is not None else default))
            bundle = load_bundle(args.bundle)
        except (FileNotFoundError, BundleError, ValueError) as error:
            raise UsageError(str(error)) from None
        terrain = _terrain(args.terrain) if args.terrain is not None else None
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


def _segments_text(segments) -> str:
    return " ".join(f"{s.name}:{s.duration_s:g}:{','.join(f'{v:g}' for v in s.command)}" for s in segments)


def _terrain(text: str):
    """The ``--terrain`` cell's MuJoCo terrain (Isaac Lab's generator runs here: it is imported only now)."""
    from ...tasks.terrain_cells import parse_cell
    from .terrain import TerrainError, build_cell

    try:
        cell = parse_cell(text)
    except ValueError as error:
        raise UsageError(f"--terrain {text}: {error}") from None
    try:
        return build_cell(cell)
    except TerrainError as error:  # the message starts with the cell
        raise UsageError(f"--terrain {error}") from None


def _resolve_bundle(args) -> int:
    """``--bundle pretrained`` -> the shipped bundle; sets ``args.work_dir``, where reports go by default: next to
    the bundle, or ``logs/pretrained/<policy>/`` for the shipped one (never into the installed package). Refuses
    a ``--substeps`` below 1."""
    if args.substeps is not None and args.substeps < 1:
        raise UsageError(f"--substeps must be a positive integer, got {args.substeps}")
    if args.terrain is not None and args.grid is not None:
        raise UsageError("--terrain and --grid exclude each other: the command grid runs on the floor")
    if args.terrain is not None:
        from ...tasks.terrain_cells import parse_cell

        try:
            parse_cell(args.terrain)
        except ValueError as error:
            raise UsageError(f"--terrain {args.terrain}: {error}") from None
    if args.output is not None:
        check_writable(args.output, "--output")
    if args.video is not None:
        args.video = prepare_output_file(args.video, "--video")
    args.work_dir = Path(args.bundle)
    if args.bundle == pretrained.KEYWORD:
        try:
            args.bundle = pretrained.bundle()
        except pretrained.NoPretrainedPolicy as error:
            raise UsageError(f"--bundle pretrained: {error}") from None
        args.work_dir = pretrained.output_dir("Go2-Flat")
    args.bundle = Path(args.bundle)
    return 0


def _grid_main(args) -> int:
    """``--grid``: the evaluation grid in MuJoCo, reported as ``scripts/evaluate.py`` reports Isaac Lab."""
    from ...evaluation import mujoco as grid_eval
    from ...evaluation import report as reports
    from ...evaluation.grid import check_timing, parse_grid

    try:
        check_timing(args.duration, args.settle)
        bundle = load_bundle(args.bundle)
        grid = None if args.grid == "default" else parse_grid(args.grid)
    except (FileNotFoundError, BundleError, ValueError) as error:
        raise UsageError(str(error)) from None
    report = grid_eval.run_grid(bundle, grid, duration_s=args.duration, settle_s=args.settle, substeps=args.substeps)
    json_path, png_path = reports.write(report, args.output or args.work_dir / "evaluation_mujoco")
    print(reports.table(report))
    print(f"[go2] wrote {json_path} and {png_path}")
    return 0

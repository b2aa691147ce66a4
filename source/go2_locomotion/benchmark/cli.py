"""``scripts/benchmark.py``: throughput of Go2-Flat / Go2-Rough against Isaac Lab's own Go2 tasks (with local
assets), side by side (:mod:`.compare`); writes ``benchmark.json`` and ``benchmark.png``, or with ``--recipe cpu``
``training_throughput.json``, into ``--out``."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from ..errors import STALLED_EXIT_CODE, UsageError, check_writable
from .compare import (
    MEASUREMENT_TIMEOUT_S,
    PAIRS,
    compare,
    compare_training,
    cpu_recipe_setups,
    format_row,
    format_training,
    plot,
    stalled_measurements,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Throughput of Go2-Flat / Go2-Rough against Isaac Lab's own Go2 tasks (with local assets), side "
        "by side."
    )
    parser.add_argument("--pairs", nargs="+", choices=sorted(PAIRS), default=["flat", "rough"])
    parser.add_argument("--num_envs", nargs="+", type=int, default=[16, 64, 128])
    parser.add_argument("--num_steps", type=int, default=50, help="Measured env steps per runtime benchmark.")
    parser.add_argument("--training_envs", type=int, default=64, help="Envs for the training benchmark (0: skip).")
    parser.add_argument("--training_iterations", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1, help="Alternating repeats per figure; medians are kept.")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--out", default="benchmark_results", help="Output folder.")
    parser.add_argument(
        "--recipe",
        choices=["cpu"],
        help="Instead: training throughput of the CPU recipe (Go2-Flat, presets=cpu) against Go2-Flat's and "
        "upstream's defaults at --training_envs, over --training_iterations whole iterations.",
    )
    parser.add_argument(
        "--stall_timeout",
        type=float,
        default=MEASUREMENT_TIMEOUT_S,
        help="Seconds one measurement's process may run before it is killed as hung; the others go on and the "
        "benchmark exits with code 75 (0: no bound).",
    )
    parser.add_argument("presets", nargs="*", help="Preset selectors passed on, e.g. physics=newton_mjwarp.")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit code (2 for a usage error, reported by argparse)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    for flag in ("num_steps", "training_iterations", "repeats"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag} must be a positive integer, got {getattr(args, flag)}")
    if not (math.isfinite(args.stall_timeout) and args.stall_timeout >= 0):
        parser.error(f"--stall_timeout must be a finite number of seconds >= 0 (0: off), got {args.stall_timeout}")
    if min(args.num_envs) < 1 or args.training_envs < 0:
        parser.error(
            f"--num_envs must be positive integers and --training_envs >= 0, got {args.num_envs}, {args.training_envs}"
        )
    out = Path(args.out)
    try:
        check_writable(out, "--out")
    except UsageError as error:
        parser.exit(2, f"error: {error}\n")
    if args.recipe:
        setups = cpu_recipe_setups(baseline_envs=args.training_envs or 64)
        result = compare_training(
            setups, args.training_iterations, args.device, out, repeats=args.repeats, timeout_s=args.stall_timeout
        )
        (out / "training_throughput.json").write_text(json.dumps(result, indent=2) + "\n")
        print(format_training(result))
        print(f"written: {out / 'training_throughput.json'}")
        return _exit_code(result, args.stall_timeout)
    result = compare(
        args.pairs,
        args.num_envs,
        args.num_steps,
        args.training_envs,
        args.training_iterations,
        args.device,
        args.presets,
        out,
        repeats=args.repeats,
        timeout_s=args.stall_timeout,
    )
    (out / "benchmark.json").write_text(json.dumps(result, indent=2) + "\n")
    plot(result, out / "benchmark.png")
    print("\n".join(format_row(row) for row in result["rows"]))
    print(f"written: {out / 'benchmark.json'}, {out / 'benchmark.png'}")
    return _exit_code(result, args.stall_timeout)


def _exit_code(result: dict, timeout_s: float) -> int:
    """0, or :data:`STALLED_EXIT_CODE` with one line when a measurement hung (the simulation step, on OvPhysX)."""
    stalled = stalled_measurements(result)
    if not stalled:
        return 0
    print(
        f"[go2] benchmark: {stalled} measurement(s) stalled (no report in {timeout_s:g} s, killed): the physics "
        f"step hangs; exit {STALLED_EXIT_CODE}"
    )
    return STALLED_EXIT_CODE

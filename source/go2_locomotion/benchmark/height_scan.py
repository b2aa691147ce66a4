"""Go2-Rough's height scan from the height grid against Isaac Lab's ray cast, side by side: the CPU recipe
(``presets=cpu``, 512 environments) with each ``env.scene.height_scanner.height_source``, stepping throughput
(``isaaclab benchmark runtime``, random actions) and training throughput (``isaaclab benchmark training``), each
measurement a fresh process, the sources in rotating order.

    python -m go2_locomotion.benchmark.height_scan --out <folder> [--repeats 2] [--num_steps 60]

Writes ``height_scan_throughput.json`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from ..errors import STALLED_EXIT_CODE, UsageError, check_writable
from .compare import (
    MEASUREMENT_TIMEOUT_S,
    MeasurementStalled,
    TrainingSetup,
    compare_training,
    format_training,
    measure,
    median_figures,
    stalled_measurements,
)

# Imported inside functions: the task configs (Isaac Lab), which the benchmark driver itself does not need.

TASK = "Go2-Rough"


def height_scan_setups(num_envs: int | None = None) -> list[TrainingSetup]:
    """The CPU recipe on Go2-Rough once per height source, the task's default first."""
    from ..tasks.height_scanner import HEIGHT_SOURCES, HeightScannerCfg  # Isaac Lab's sensor config
    from ..tasks.velocity_env_cfg import CPU_RECIPE_NUM_ENVS

    default = HeightScannerCfg().height_source
    sources = [default, *(source for source in HEIGHT_SOURCES if source != default)]
    field = "env.scene.height_scanner.height_source"
    return [
        TrainingSetup(source, TASK, num_envs or CPU_RECIPE_NUM_ENVS, ("presets=cpu", f"{field}={source}"))
        for source in sources
    ]


def compare_runtime(
    setups: list[TrainingSetup], num_steps: int, device: str, out_dir: Path, repeats: int, timeout_s: float, log=print
) -> dict:
    """Stepping throughput of each setup (``isaaclab benchmark runtime``), the setups in rotating order at every
    repeat; medians and every sample."""
    out_dir.mkdir(parents=True, exist_ok=True)
    samples: dict[str, list] = {setup.name: [] for setup in setups}
    errors: dict[str, str] = {}
    stalled: list[str] = []
    for repeat in range(repeats):
        for setup in setups[repeat % len(setups) :] + setups[: repeat % len(setups)]:
            if setup.name in errors:
                continue
            args = ["--num_steps", str(num_steps), "--device", device, *setup.presets]
            try:
                samples[setup.name].append(
                    measure("runtime", setup.task, setup.num_envs, args, out_dir, log, timeout_s)
                )
            except RuntimeError as error:  # one failed measurement must not lose the others
                log(f"FAILED: {error}")
                errors[setup.name] = str(error)
                stalled += [setup.name] if isinstance(error, MeasurementStalled) else []
    return {
        "num_steps": num_steps,
        "medians": {name: median_figures(ms) for name, ms in samples.items() if ms},
        "samples": {name: [m.figures for m in ms] for name, ms in samples.items()},
        "errors": errors,
        "stalled": stalled,
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num_envs", type=int, default=None, help="Environments (default: the CPU recipe's 512).")
    parser.add_argument("--num_steps", type=int, default=60, help="Measured env steps per runtime process (0: skip).")
    parser.add_argument(
        "--training_iterations", type=int, default=4, help="Whole iterations per training process (0: skip)."
    )
    parser.add_argument("--repeats", type=int, default=2, help="Processes per source; medians are kept.")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--out", default="benchmark_height_scan", help="Output folder.")
    parser.add_argument(
        "--stall_timeout",
        type=float,
        default=MEASUREMENT_TIMEOUT_S,
        help="Seconds one measurement's process may run before it is killed as hung (0: no bound).",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; returns the exit code (2 for a usage error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be a positive integer, got {args.repeats}")
    for flag in ("num_steps", "training_iterations"):
        if getattr(args, flag) < 0:
            parser.error(f"--{flag} must be an integer >= 0 (0: skip), got {getattr(args, flag)}")
    if args.num_envs is not None and args.num_envs < 1:
        parser.error(f"--num_envs must be a positive integer, got {args.num_envs}")
    if not (math.isfinite(args.stall_timeout) and args.stall_timeout >= 0):
        parser.error(f"--stall_timeout must be a finite number of seconds >= 0 (0: off), got {args.stall_timeout}")
    out = Path(args.out)
    try:
        check_writable(out, "--out")
    except UsageError as error:
        parser.exit(2, f"error: {error}\n")
    setups = height_scan_setups(args.num_envs)
    result = {"setups": [vars(s) | {"presets": list(s.presets)} for s in setups]}
    if args.num_steps:
        result["runtime"] = compare_runtime(setups, args.num_steps, args.device, out, args.repeats, args.stall_timeout)
        for name, figures in result["runtime"]["medians"].items():
            print(f"runtime  {name:12s} {figures['env_steps_per_s']:.0f} env-steps/s (random actions)")
    if args.training_iterations:
        result["training"] = compare_training(
            setups, args.training_iterations, args.device, out, repeats=args.repeats, timeout_s=args.stall_timeout
        )
        print(format_training(result["training"]))
    (out / "height_scan_throughput.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"written: {out / 'height_scan_throughput.json'}")
    stalled = len(result.get("runtime", {}).get("stalled", [])) + stalled_measurements(result.get("training", {}))
    if stalled:
        print(
            f"[go2] benchmark: {stalled} measurement(s) stalled (killed at {args.stall_timeout:g} s): the physics "
            f"step hangs; exit {STALLED_EXIT_CODE}"
        )
        return STALLED_EXIT_CODE
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

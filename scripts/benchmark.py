"""Throughput of Go2-Flat / Go2-Rough against Isaac Lab's own Go2 tasks (with local assets), side by side.

    python scripts/benchmark.py                                   # CPU defaults: 16, 64, 128 envs, 50 steps
    python scripts/benchmark.py --device cuda --num_envs 1024 4096 --training_envs 4096   # GPU scale
    python scripts/benchmark.py --recipe cpu --repeats 2          # CPU recipe vs defaults: training throughput

Drives `isaaclab benchmark runtime` and `isaaclab benchmark training --rl_library rsl_rl`; writes
benchmark.json (every figure, machine, versions, ratios ours/upstream) and benchmark.png into --out.
"""

import _environment  # noqa: F401, I001 (first: names the environment to use when the package is missing)
import argparse
import json
from pathlib import Path

from go2_locomotion.errors import UsageError, check_writable
from go2_locomotion.benchmark.compare import (
    PAIRS,
    compare,
    compare_training,
    cpu_recipe_setups,
    format_row,
    format_training,
    plot,
)

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
    parser.add_argument("presets", nargs="*", help="Preset selectors passed on, e.g. physics=newton_mjwarp.")
    args = parser.parse_args()
    for flag in ("num_steps", "training_iterations", "repeats"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag} must be a positive integer, got {getattr(args, flag)}")
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
        result = compare_training(setups, args.training_iterations, args.device, out, repeats=args.repeats)
        (out / "training_throughput.json").write_text(json.dumps(result, indent=2) + "\n")
        print(format_training(result))
        print(f"written: {out / 'training_throughput.json'}")
        raise SystemExit(0)
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
    )
    (out / "benchmark.json").write_text(json.dumps(result, indent=2) + "\n")
    plot(result, out / "benchmark.png")
    print("\n".join(format_row(row) for row in result["rows"]))
    print(f"written: {out / 'benchmark.json'}, {out / 'benchmark.png'}")

"""Throughput of Go2-Flat / Go2-Rough against Isaac Lab's own Go2 tasks (with local assets), side by side.

    python scripts/benchmark.py                                   # CPU defaults: 16, 64, 128 envs, 50 steps
    python scripts/benchmark.py --device cuda --num_envs 1024 4096 --training_envs 4096   # GPU scale
    python scripts/benchmark.py --recipe cpu --repeats 2          # CPU recipe vs defaults: training throughput

Drives `isaaclab benchmark runtime` and `isaaclab benchmark training --rl_library rsl_rl`; writes
benchmark.json (every figure, machine, versions, ratios ours/upstream) and benchmark.png into --out.
"""

import _environment  # noqa: F401, I001 (first: names the environment to use when the package is missing)
import sys

from go2_locomotion.benchmark.cli import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

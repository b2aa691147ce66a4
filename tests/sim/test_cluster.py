"""scripts/train.py as a cluster job runs it: CPU ranks under a real torchrun (gloo), ``--resume auto`` re-entering
one run folder, a stop signal, and a requeue loop that re-runs the very same command until max_iterations."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path

import torch

from go2_locomotion import run_params
from go2_locomotion.training.checkpoints import list_checkpoints

ROOT = Path(__file__).parents[2]
TORCHRUN = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
# 4 environments per rank, Newton (the default physics)
JOB = [
    "--task",
    "Go2-Flat",
    "--num_envs",
    "4",
    "--device",
    "cpu",
    "--headless",
    "--run_name",
    "job",
    "--resume",
    "auto",
]


def _train(workdir: Path, *args: str, ranks: int = 0, stop_after: int | None = None) -> tuple[int, str]:
    """Run scripts/train.py (under torchrun with ``ranks`` ranks); with ``stop_after``, send SIGUSR1 to the
    training process(es) once that many iterations are logged."""
    launcher = [*TORCHRUN, f"--nproc_per_node={ranks}"] if ranks else [sys.executable]
    extra = ["--distributed"] if ranks else []
    process = subprocess.Popen(
        [*launcher, str(ROOT / "scripts" / "train.py"), *JOB, *extra, *args],
        cwd=workdir,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},  # each iteration's log line arrives as it is printed
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if stop_after is None:
        return process.wait(timeout=900), process.stdout.read()
    lines, logged = [], 0
    for line in process.stdout:
        lines.append(line)
        logged += "Learning iteration" in line
        if logged > stop_after:
            break
    targets = [process.pid]
    if ranks:
        found = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
        targets = [int(pid) for pid in found]
    for pid in targets:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGUSR1)
    rest = process.stdout.read()
    return process.wait(timeout=300), "".join(lines) + rest


def _run_folder(workdir: Path) -> Path:
    return workdir / "logs" / "rsl_rl" / "go2_flat" / "job"


def _tensorboard_steps(folder: Path) -> list[int]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(folder))
    events.Reload()
    return [event.step for event in events.Scalars("Loss/value")]


def test_two_cpu_ranks_train_then_resume_with_one_rank(tmp_path):
    started = time.time()
    status, output = _train(tmp_path, "--max_iterations", "2", ranks=2)
    assert status == 0, output[-4000:]
    run = _run_folder(tmp_path)
    assert [p.name for p in list_checkpoints(run)] == ["model_0.pt", "model_1.pt"]
    summary = json.loads((run / "run_summary.json").read_text())
    assert (summary["world_size"], summary["num_envs_global"], summary["samples"]) == (2, 8, 2 * 8 * 24)
    # rank 1 wrote its configs into its own folder and no checkpoint anywhere; the ranks' seeds differ
    assert not list((run / "rank_1").glob("model_*.pt"))
    # Isaac Lab dumps tuples with python tags
    seeds = [run_params.load(f / "params" / "agent.yaml")["seed"] for f in (run, run / "rank_1")]
    assert seeds[1] == seeds[0] + 1

    # the same command with one rank and a higher target continues the same run
    status, output = _train(tmp_path, "--max_iterations", "3")
    assert status == 0, output[-4000:]
    assert "continuing at iteration 2" in output
    assert [p.name for p in list_checkpoints(run)] == ["model_0.pt", "model_1.pt", "model_2.pt"]
    assert torch.load(run / "model_2.pt", weights_only=True)["iter"] == 2
    summary = json.loads((run / "run_summary.json").read_text())
    assert [a["world_size"] for a in summary["attempts"]] == [2, 1]
    assert summary["iterations_completed"] == 3 and summary["samples"] == 2 * 8 * 24 + 4 * 24
    assert summary["wall_clock_s"] <= time.time() - started
    # a run that has reached max_iterations does nothing
    status, output = _train(tmp_path, "--max_iterations", "3")
    assert status == 0 and "max_iterations reached" in output


def test_requeue_loop_reaches_max_iterations_with_one_continuous_curve(tmp_path):
    """Run, SIGUSR1 (the scheduler's pre-timeout signal), re-run the very same command: twice, then to the end."""
    # each attempt is stopped right after its first logged iteration: 2 + 2 + the rest, of 10
    command = ["--max_iterations", "10", "agent.save_interval=100"]
    attempts = []
    for _ in range(2):
        status, output = _train(tmp_path, *command, stop_after=0)
        assert status == 0, output[-4000:]
        assert "SIGUSR1: saving after this iteration" in output
        attempts.append(output)
    status, output = _train(tmp_path, *command)
    assert status == 0, output[-4000:]
    run = _run_folder(tmp_path)
    summary = json.loads((run / "run_summary.json").read_text())
    assert [a["exit_status"] for a in summary["attempts"]] == ["interrupted", "interrupted", "completed"]
    # iterations continue without gaps or repeats across the attempts
    spans = [(a["first_iteration"], a["last_iteration"]) for a in summary["attempts"]]
    assert spans[0][0] == 0 and spans[-1][1] == 9
    assert all(later[0] == earlier[1] + 1 for earlier, later in pairwise(spans))
    assert summary["iterations_completed"] == 10
    assert _tensorboard_steps(run) == list(range(10))

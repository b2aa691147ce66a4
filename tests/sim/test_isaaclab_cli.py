"""Isaac Lab 3.0's own CLI, the reference client, finds and runs the tasks through the isaaclab.tasks entry point."""

import subprocess
import sys

import pytest


def isaaclab(*args: str, cwd) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "isaaclab", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900)


def test_list_envs_shows_the_four_tasks(tmp_path):
    result = isaaclab("list_envs", "--keyword", "Go2-", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    for task in ("Go2-Rough", "Go2-Flat", "Go2-Rough-Play", "Go2-Flat-Play"):
        assert f"| {task} " in result.stdout, result.stdout
    # the benchmark's comparators are registered only inside the benchmark's processes
    assert "Go2-Upstream" not in result.stdout


@pytest.mark.parametrize("task", ["Go2-Flat", "Go2-Rough"])
def test_zero_agent_runs(task, tmp_path):
    small_terrain = ["env.scene.terrain.terrain_generator.num_rows=2"] if task == "Go2-Rough" else []
    args = ["--task", task, "--num_envs", "4", "--device", "cpu", "--max_steps", "20", *small_terrain]
    result = isaaclab("zero_agent", *args, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert "Zero agent is running" in result.stdout


FAST_SAC = [
    "--agent",
    "fast_sac_cfg_entry_point",
    # 8 envs x 8 steps = 64 transitions per iteration: the second iteration takes gradient steps
    "agent.algorithm.learning_starts=64",
    "agent.algorithm.batch_size=32",
    "agent.algorithm.gradient_steps=2",
]


@pytest.mark.parametrize(
    ("learner", "extra", "experiment", "iterations"),
    [("ppo", [], "go2_flat", 1), ("fast_sac", FAST_SAC, "go2_flat_fast_sac", 2)],
)
def test_isaaclab_train(learner, extra, experiment, iterations, tmp_path):
    flags = ["--task", "Go2-Flat", "--num_envs", "8", "--device", "cpu", "agent.device=cpu"]
    result = isaaclab("train", *flags, "--max_iterations", str(iterations), *extra, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    (run,) = (tmp_path / "logs" / "rsl_rl" / experiment).iterdir()
    assert (run / f"model_{iterations - 1}.pt").is_file()
    if learner == "fast_sac":  # the learner ran its gradient steps: its losses are in Isaac Lab's training log
        assert "Mean critic loss:" in result.stdout

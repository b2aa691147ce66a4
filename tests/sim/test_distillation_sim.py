"""Distillation through scripts/train.py on the CPU: Go2-Rough-Blind's blind student taught for two iterations by
the shipped Go2-Rough policy logs a finite behaviour loss each iteration, and PPO fine-tuning starts from its
checkpoint (the student as the actor, its terrain curriculum where the distillation left it) and runs an
iteration; without a teacher the run is refused before the simulator starts."""

import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from go2_locomotion import pretrained
from go2_locomotion.training.checkpoints import list_checkpoints
from go2_locomotion.training.curves import read_scalars

pytestmark = pytest.mark.sim

ROOT = Path(__file__).parents[2]
COMMON = ["--task", "Go2-Rough-Blind", "--num_envs", "8", "--device", "cpu", "--headless", "presets=cpu"]
DISTILLATION = ["--agent", "distillation_cfg_entry_point"]
# 8 steps per environment, 2 epochs: 16 rollout steps, a gradient step every 8 (none left over)
SHORT = ["agent.num_steps_per_env=8", "agent.algorithm.gradient_length=8"]


def _train(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "scripts" / "train.py"), *COMMON, *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=1800)


def _only_run(root: Path) -> Path:
    (run,) = root.iterdir()
    return run


def test_distillation_without_a_teacher_is_refused_before_the_simulator(tmp_path):
    result = _train(tmp_path, *DISTILLATION, "--max_iterations", "2", *SHORT)
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr[-3000:]
    assert "Distillation needs a teacher; pass --warm_start" in result.stderr
    assert not (tmp_path / "logs").exists()


def test_distillation_from_the_shipped_teacher_then_ppo_from_its_student(tmp_path):
    result = _train(tmp_path, *DISTILLATION, "--warm_start", "--max_iterations", "2", *SHORT)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    run = _only_run(tmp_path / "logs" / "rsl_rl" / "go2_rough_blind_distillation")
    assert json.loads((run / "run.json").read_text())["metadata"] == {"agent": "distillation_cfg_entry_point"}
    record = json.loads((run / "warm_start.json").read_text())
    shipped = pretrained.checkpoint("Go2-Rough")
    assert (record["loads"], record["source_task"]) == ("teacher", "Go2-Rough")
    assert record["sha256"] == hashlib.sha256(shipped.read_bytes()).hexdigest()
    behavior = read_scalars(run)["Loss/behavior"]
    assert sorted(behavior) == [0, 1]
    assert all(math.isfinite(value) and value > 0 for value in behavior.values()), behavior
    distilled = list_checkpoints(run)[-1]

    # PPO (the task's default agent) fine-tunes the student with the privileged critic
    result = _train(tmp_path, "--warm_start", str(distilled), "--max_iterations", "1", "agent.num_steps_per_env=8")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    run = _only_run(tmp_path / "logs" / "rsl_rl" / "go2_rough_blind")
    record = json.loads((run / "warm_start.json").read_text())
    assert (record["loads"], record["source_task"], record["checkpoint"]) == (
        "student",
        "Go2-Rough-Blind",
        distilled.relative_to(tmp_path).as_posix(),  # named relative to the working directory, as typed
    )
    assert [path.name for path in list_checkpoints(run)] == ["model_0.pt"]
    # and its curriculum goes on where the distillation's stood
    levels = torch.load(distilled, weights_only=False)["infos"]["terrain_levels"]
    assert (
        record["curriculum"]
        == f"terrain curriculum restored from the checkpoint (mean level {levels.float().mean():.2f})"
    )
    assert f"[go2] warm start: {record['curriculum']}" in result.stdout

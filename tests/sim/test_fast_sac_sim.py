"""FastSAC through scripts/train.py on the CPU: the PPO contract (run folder, run_summary.json, --resume auto with
the weights carried, checkpoint selection by agent) and the refusals a FastSAC user can meet, each one line,
exit code 2, nothing written."""

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml
from usage_errors import expect_usage_error

from go2_locomotion.playback import play as play_module
from go2_locomotion.training import train as train_module

ROOT = Path(__file__).parents[2]
AGENT = ["--agent", "fast_sac_cfg_entry_point"]
# 8 envs x 8 steps = 64 transitions per iteration; 2-step returns hold each environment's newest step back, so 56
# reach the buffer in an attempt's first iteration: every iteration's collection reaches learning_starts
SMALL = ["agent.algorithm.learning_starts=56", "agent.algorithm.batch_size=32", "agent.algorithm.gradient_steps=3"]
SMALL += ["agent.algorithm.n_step=2"]
# a distributional critic, and the actor's box at the Go2's joint limits: play, evaluation and export of the run load
# its policy without these overrides
SMALL += ["agent.critic.num_atoms=11", "agent.algorithm.action_bounds=joint_limits"]
# the rewards for an off-policy learner from scratch: the penalty curriculum's factor travels in the checkpoint
SMALL += ["presets=sac_rewards"]
GO2_BOX = {"L_hip": (-4.59, 3.79), "R_hip": (-3.79, 4.59), "F_thigh": (-9.48, 10.76), "R_thigh": (-6.09, 14.15),
           "calf": (-4.89, 2.65)}  # fmt: skip
"""The joint-limit box by hand [action units]: (range - standing pose) / 0.25 from the Go2's joint ranges (hip +-1.0472,
front thigh -1.5708..3.4907, rear thigh -0.5236..4.5379, calf -2.7227..-0.83776 rad) and standing pose (hips +-0.1,
thighs 0.8 front / 1.0 rear, calves -1.5 rad)."""
FLAT = ["--task", "Go2-Flat", "--num_envs", "8", "--device", "cpu", "--headless", *AGENT]


def _box_kind(joint: str) -> str:
    """``FR_hip_joint`` -> ``R_hip`` (hips by side), ``RL_thigh_joint`` -> ``R_thigh`` (thighs by end), calves alike."""
    leg, part = joint.split("_")[:2]
    return {"hip": f"{leg[1]}_hip", "thigh": f"{leg[0]}_thigh"}.get(part, "calf")


def run_script(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "scripts" / script), *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("fast_sac")


@pytest.fixture(scope="module")
def sac_run(workdir):
    """Two iterations, then the same command with --max_iterations 3 (a requeued job)."""
    args = [*FLAT, "--run_name", "sac", "--resume", "auto", *SMALL]
    first = run_script("train.py", *args, "--max_iterations", "2", cwd=workdir)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-3000:]
    run = workdir / "logs" / "rsl_rl" / "go2_flat_fast_sac" / "sac"
    after_first = torch.load(run / "model_1.pt", weights_only=False)
    second = run_script("train.py", *args, "--max_iterations", "3", cwd=workdir)
    assert second.returncode == 0, second.stdout[-2000:] + second.stderr[-3000:]
    return run, after_first, first.stdout, second.stdout


def test_run_folder_summary_and_geometry(sac_run):
    run, _, first, _ = sac_run
    assert "update-to-data 1.50" in first  # 3 x 32 replayed per 64 collected
    assert "Mean critic loss:" in first
    assert json.loads((run / "run.json").read_text())["metadata"] == {"agent": "fast_sac_cfg_entry_point"}
    summary = json.loads((run / "run_summary.json").read_text())
    assert summary["exit_status"] == "completed"
    assert [a["samples"] for a in summary["attempts"]] == [2 * 64, 64]
    assert summary["geometry"]["replayed"] == 96 and summary["geometry"]["storage_bytes"] > 0
    assert summary["last_iteration"] == 2


def test_resume_auto_carries_the_learner_state(sac_run):
    run, after_first, _, second = sac_run
    assert "continuing at iteration 2" in second
    final = torch.load(run / "model_2.pt", weights_only=False)
    assert final["iter"] == 2
    # the update count carries over: each iteration's collection stores >= 56 transitions = learning_starts, so every
    # iteration takes its 3 gradient steps, the resumed one too (on its refilled buffer)
    assert after_first["updates"] == 6 and final["updates"] == 9
    assert set(final) >= {"actor_state_dict", "critic_state_dict", "target_critic_state_dict", "log_alpha"}
    # presets=sac_rewards: the penalty factor starts at 0.1 and moves x 1.002 per episode ending late (RSL-RL starts
    # the episodes at random lengths, so time-outs come within the 24 steps), x 0.998 per early one: 0.1 x 1.002^k
    # for a whole k, saved in every checkpoint and restored on the resume
    assert "curriculum terms restored from the checkpoint: penalties" in second
    factors = [float(c["infos"]["curriculum_terms"]["penalties"]) for c in (after_first, final)]
    steps = [math.log(f / 0.1) / math.log(1.002) for f in factors]
    assert all(abs(k - round(k)) < 1e-2 and -24 <= k <= 24 for k in steps), factors


def test_latest_finds_the_agent_s_own_runs(sac_run, workdir):
    result = run_script("export.py", *FLAT, "--checkpoint", "latest", cwd=workdir)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    run = sac_run[0]
    assert f"loading {run / 'model_2.pt'}" in result.stdout
    assert (run / "exported" / "policy.onnx").is_file() and (run / "exported" / "deploy.yaml").is_file()
    # the box was read from the live robot, in the action term's joint order (the bundle's)
    names = yaml.safe_load((run / "exported" / "deploy.yaml").read_text())["joints"]["names"]
    actor = torch.load(run / "model_2.pt", weights_only=False)["actor_state_dict"]
    box = list(zip(actor["distribution.action_low"].tolist(), actor["distribution.action_high"].tolist(), strict=True))
    assert len(box) == 12 and box == [pytest.approx(GO2_BOX[_box_kind(name)], abs=0.01) for name in names]


def test_refusals(sac_run, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sac_model = shutil.copy(sac_run[0] / "model_2.pt", tmp_path / "model_2.pt")
    before = set(tmp_path.rglob("*"))
    expect_usage_error(capsys, train_module.main, [*FLAT, "--distributed"], "--distributed", "one process")
    rough = ["--task", "Go2-Rough", *FLAT[2:]]
    expect_usage_error(capsys, train_module.main, [*rough, "--warm_start"], "--warm_start", "PPO")
    expect_usage_error(
        capsys, train_module.main, [*FLAT, "agent.algorithm.tau=0"], "agent.algorithm.tau", "(0, 1]", "got 0"
    )
    expect_usage_error(capsys, play_module.main, [*FLAT, "--checkpoint", "pretrained"], "PPO's")
    # a FastSAC checkpoint without --agent, and the PPO policy with it
    ppo_flat = [a for a in FLAT if a not in AGENT]
    expect_usage_error(capsys, play_module.main, [*ppo_flat, "--checkpoint", str(sac_model)], "FastSAC", "--agent")
    from go2_locomotion import pretrained

    ppo_model = str(pretrained.checkpoint("Go2-Flat"))
    expect_usage_error(capsys, play_module.main, [*FLAT, "--checkpoint", ppo_model], "PPO", "leave out --agent")
    assert set(tmp_path.rglob("*")) == before

"""``train.py --warm_start``: a Go2-Rough run that starts from the shipped Go2-Flat policy acts, at iteration 0,
exactly as the flat policy does on the shared inputs, whatever its height scan reads."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from rsl_rl.models.mlp_model import MLPModel
from tensordict import TensorDict

from go2_locomotion import pretrained

pytestmark = pytest.mark.sim

ROOT = Path(__file__).parents[2]


def _actor(state: dict) -> MLPModel:
    widths = [state["mlp.0.weight"].shape[1]] + [state[f"mlp.{i}.weight"].shape[0] for i in (0, 2, 4)]
    obs = TensorDict({"policy": torch.zeros(1, widths[0])}, batch_size=[1])
    model = MLPModel(
        obs, {"actor": ["policy"]}, "actor", 12, widths[1:], "elu", False, {"class_name": "GaussianDistribution"}
    )
    model.load_state_dict(state)
    return model


def test_a_warm_started_rough_run_begins_as_the_flat_policy(tmp_path):
    command = [sys.executable, str(ROOT / "scripts" / "train.py"), "--task", "Go2-Rough", "--device", "cpu"]
    command += ["--headless", "--num_envs", "4", "--max_iterations", "0", "--warm_start", "physics=physx"]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    (run,) = (tmp_path / "logs" / "rsl_rl" / "go2_rough").iterdir()
    record = json.loads((run / "warm_start.json").read_text())
    shipped = pretrained.checkpoint("Go2-Flat")
    assert record["sha256"] == hashlib.sha256(shipped.read_bytes()).hexdigest()
    assert (record["source_task"], record["inputs_from_source"], record["inputs_new"]) == ("Go2-Flat", 50, 187)

    saved = torch.load(run / "model_0.pt", weights_only=True)
    flat = _actor(torch.load(shipped, weights_only=True)["actor_state_dict"])
    rough = _actor(saved["actor_state_dict"])
    proprio = torch.randn(256, 50)
    for scan in (torch.zeros(256, 187), torch.rand(256, 187) * 2 - 1):
        x = torch.cat([proprio, scan], dim=1)
        torch.testing.assert_close(
            rough(TensorDict({"policy": x}, batch_size=[256])),
            flat(TensorDict({"policy": proprio}, batch_size=[256])),
            atol=1e-5,
            rtol=0,
        )

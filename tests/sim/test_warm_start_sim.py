"""``train.py --warm_start``: a Go2-Rough policy started from the shipped Go2-Flat policy acts, before any update,
exactly as the flat policy does on the live environment's observations, whatever its height scan reads."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from isaac_env import make_env
from tensordict import TensorDict

from go2_locomotion import pretrained
from go2_locomotion.training import preflight, warm_start
from go2_locomotion.training.checkpoints import read_checkpoint

pytestmark = pytest.mark.sim

ROOT = Path(__file__).parents[2]


def _runner(gym_env, task):
    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper, check_rsl_rl_version, handle_deprecated_rsl_rl_cfg
    from isaaclab_tasks.utils.parse_cfg import load_cfg_from_registry

    from go2_locomotion.training.session import make_runner

    agent_cfg = handle_deprecated_rsl_rl_cfg(
        load_cfg_from_registry(task, "rsl_rl_cfg_entry_point"), check_rsl_rl_version()
    )
    agent_cfg.device = "cpu"
    return make_runner(RslRlVecEnvWrapper(gym_env), agent_cfg)


def test_the_warm_started_rough_policy_acts_as_the_flat_one_on_live_observations():
    shipped = pretrained.checkpoint("Go2-Flat")
    with make_env("Go2-Flat", num_envs=1) as flat_env:
        flat = _runner(flat_env, "Go2-Flat")
        flat.load(str(shipped), map_location="cpu")
        flat_policy = flat.get_inference_policy(device="cpu")
    with make_env("Go2-Rough", num_envs=6, overrides=["physics=physx"]) as rough_env:
        rough = _runner(rough_env, "Go2-Rough")
        layout = preflight.config_observation_term_widths(rough_env.unwrapped.cfg)["policy"]
        checkpoint = read_checkpoint(shipped)
        source = warm_start.source_layout(checkpoint, shipped, "Go2-Rough")
        record = warm_start.apply(rough, checkpoint, shipped, source, {"actor": layout, "critic": layout}, "Go2-Rough")
        assert (record["source_task"], record["inputs_from_source"], record["inputs_new"]) == ("Go2-Flat", 50, 187)
        policy = rough.get_inference_policy(device="cpu")
        obs, _ = rough_env.reset(seed=0)
        for _ in range(20):
            live = obs["policy"]
            assert live.shape[1] == 237 and live[:, 50:].abs().sum() > 0  # a real height scan
            with torch.inference_mode():
                action = policy(TensorDict({"policy": live}, batch_size=[6]))
                expected = flat_policy(TensorDict({"policy": live[:, :50]}, batch_size=[6]))
                scrambled = policy(TensorDict({"policy": torch.cat([live[:, :50], -live[:, 50:]], 1)}, [6]))
            torch.testing.assert_close(action, expected, atol=1e-5, rtol=0)
            torch.testing.assert_close(scrambled, expected, atol=1e-5, rtol=0)
            obs, *_ = rough_env.step(action)


def test_train_records_where_a_warm_start_began(tmp_path):
    command = [sys.executable, str(ROOT / "scripts" / "train.py"), "--task", "Go2-Rough", "--device", "cpu"]
    command += ["--headless", "--num_envs", "4", "--max_iterations", "1", "--warm_start", "physics=physx"]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    (run,) = (tmp_path / "logs" / "rsl_rl" / "go2_rough").iterdir()
    record = json.loads((run / "warm_start.json").read_text())
    shipped = pretrained.checkpoint("Go2-Flat")
    assert record["sha256"] == hashlib.sha256(shipped.read_bytes()).hexdigest()
    # physics=physx after a bare --warm_start is an override, not the flag's value
    assert "ovphysx" in (run / "params" / "env.yaml").read_text()

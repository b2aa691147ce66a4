"""Task registration and the ``isaaclab.tasks`` entry point Isaac Lab's CLI uses to find the tasks."""

import importlib
import importlib.metadata

import gymnasium as gym
import pytest

import go2_locomotion.tasks as tasks
from go2_locomotion.agents.distillation_cfg import Go2RoughBlindDistillationRunnerCfg
from go2_locomotion.agents.fast_sac_cfg import Go2FlatFastSacRunnerCfg, Go2RoughFastSacRunnerCfg
from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2FlatPPORunnerCfg, Go2RoughBlindPPORunnerCfg, Go2RoughPPORunnerCfg
from go2_locomotion.catalog import TRAINING_TASKS
from go2_locomotion.tasks.blind_env_cfg import Go2RoughBlindEnvCfg
from go2_locomotion.tasks.flat_env_cfg import Go2FlatEnvCfg
from go2_locomotion.tasks.velocity_env_cfg import Go2RoughEnvCfg

ROUGH = (Go2RoughEnvCfg, Go2RoughPPORunnerCfg, {tasks.FAST_SAC_ENTRY_POINT: Go2RoughFastSacRunnerCfg})
FLAT = (Go2FlatEnvCfg, Go2FlatPPORunnerCfg, {tasks.FAST_SAC_ENTRY_POINT: Go2FlatFastSacRunnerCfg})
BLIND = (
    Go2RoughBlindEnvCfg,
    Go2RoughBlindPPORunnerCfg,
    {tasks.DISTILLATION_ENTRY_POINT: Go2RoughBlindDistillationRunnerCfg},
)
EXPECTED = {
    "Go2-Rough": ROUGH,
    "Go2-Flat": FLAT,
    "Go2-Rough-Blind": BLIND,
    "Go2-Rough-Play": ROUGH,
    "Go2-Flat-Play": FLAT,
    "Go2-Rough-Blind-Play": BLIND,
}
"""Task id -> (env cfg, PPO runner cfg, the other learners' runner cfgs by ``--agent`` key)."""


def test_entry_point_resolves_to_the_tasks_module():
    (entry,) = [e for e in importlib.metadata.entry_points(group="isaaclab.tasks") if e.name == "go2_locomotion"]
    assert entry.load() is tasks


@pytest.mark.parametrize("task_id", sorted(EXPECTED))
def test_registered_with_config_entry_points(task_id):
    from isaaclab_tasks.utils.parse_cfg import load_cfg_from_registry

    spec = gym.spec(task_id)
    assert spec.entry_point == "isaaclab.envs:ManagerBasedRLEnv"
    env_cls, agent_cls, others = EXPECTED[task_id]
    env_cfg = load_cfg_from_registry(task_id, "env_cfg_entry_point")
    agent_cfg = load_cfg_from_registry(task_id, "rsl_rl_cfg_entry_point")
    assert type(env_cfg) is env_cls
    assert type(agent_cfg) is agent_cls
    # the other learners, chosen with --agent KEY (the -Play ids share their task's)
    for key, cls in others.items():
        assert type(load_cfg_from_registry(task_id, key)) is cls


def test_play_ids_are_the_training_config_in_play_mode():
    from isaaclab_tasks.utils.parse_cfg import load_cfg_from_registry

    for train_id in TRAINING_TASKS:
        expected = load_cfg_from_registry(train_id, "env_cfg_entry_point")
        expected.play_mode()
        play = load_cfg_from_registry(f"{train_id}-Play", "env_cfg_entry_point")
        assert play.to_dict() == expected.to_dict()
        # play_mode is idempotent, so `isaaclab play --task Go2-Flat-Play` (which applies it again) is the same MDP
        play.play_mode()
        assert play.to_dict() == expected.to_dict()


def test_duplicate_registration_is_refused():
    with pytest.raises(ValueError, match="Task 'Go2-Rough' is already registered"):
        importlib.reload(tasks)


def test_loading_configs_imports_no_usd_or_kit_module():
    """Inside Isaac Sim, USD (pxr) and Kit modules (omni, carb, isaacsim) must not load before SimulationApp starts.
    In a fresh interpreter: every ``isaaclab.tasks`` entry point (what Isaac Lab's CLI loads), the four tasks'
    configs resolved with each physics selector, and the modules every script starts from."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import importlib, importlib.metadata, sys
        for entry in importlib.metadata.entry_points(group="isaaclab.tasks"):
            if entry.value.startswith("go2_locomotion"):
                entry.load()
        from isaaclab_tasks.utils import resolve_task_config
        for task in ("Go2-Rough", "Go2-Flat", "Go2-Rough-Play", "Go2-Flat-Play"):
            for selector in ([], ["physics=physx"], ["presets=cpu"], ["physics=isaacsim_physx"]):
                resolve_task_config(task, "rsl_rl_cfg_entry_point", overrides=selector)
        for name in ("training.train", "playback.play", "training.export", "training.curves", "benchmark.cli",
                     "export.manifest", "sim2sim", "training.evaluate", "compat.launcher"):
            importlib.import_module("go2_locomotion." + name)
        print("LOADED", sorted(m for m in sys.modules if m.split(".")[0] in ("pxr", "omni", "carb", "isaacsim")))
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "LOADED []" in result.stdout, result.stdout[-2000:]

"""Gymnasium registrations of the Go2 tasks (loaded by Isaac Lab's ``isaaclab.tasks`` entry point).

Each -Play id is its training task's config with :meth:`~Go2RoughEnvCfg.play_mode` applied, the same overrides
Isaac Lab 3.0's play and export entrypoints apply to the training id, and shares the training agent config.
"""

import gymnasium as gym

from .flat_env_cfg import Go2FlatEnvCfg
from .velocity_env_cfg import Go2RoughEnvCfg

_AGENTS = "go2_locomotion.agents.rsl_rl_ppo_cfg"

TASKS = {
    # id: (env cfg entry point, RSL-RL runner cfg entry point)
    "Go2-Rough": (f"{__name__}.velocity_env_cfg:Go2RoughEnvCfg", f"{_AGENTS}:Go2RoughPPORunnerCfg"),
    "Go2-Flat": (f"{__name__}.flat_env_cfg:Go2FlatEnvCfg", f"{_AGENTS}:Go2FlatPPORunnerCfg"),
    "Go2-Rough-Play": (f"{__name__}:go2_rough_play_env_cfg", f"{_AGENTS}:Go2RoughPPORunnerCfg"),
    "Go2-Flat-Play": (f"{__name__}:go2_flat_play_env_cfg", f"{_AGENTS}:Go2FlatPPORunnerCfg"),
}
"""The registered task ids."""


def go2_rough_play_env_cfg() -> Go2RoughEnvCfg:
    """Go2-Rough-Play: the Go2-Rough config in play mode."""
    cfg = Go2RoughEnvCfg()
    cfg.play_mode()
    return cfg


def go2_flat_play_env_cfg() -> Go2FlatEnvCfg:
    """Go2-Flat-Play: the Go2-Flat config in play mode."""
    cfg = Go2FlatEnvCfg()
    cfg.play_mode()
    return cfg


for _task_id, (_env_cfg, _agent_cfg) in TASKS.items():
    if _task_id in gym.registry:
        raise ValueError(f"Task '{_task_id}' is already registered (by {gym.registry[_task_id].entry_point}).")
    gym.register(
        id=_task_id,
        entry_point="isaaclab.envs:ManagerBasedRLEnv",
        disable_env_checker=True,
        kwargs={"env_cfg_entry_point": _env_cfg, "rsl_rl_cfg_entry_point": _agent_cfg, "default_agent": "rsl_rl"},
    )

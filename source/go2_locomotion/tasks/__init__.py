"""Gymnasium registrations of the Go2 tasks (loaded by Isaac Lab's ``isaaclab.tasks`` entry point).

Each -Play id is its training task's config with :meth:`~Go2RoughEnvCfg.play_mode` applied, the same overrides
Isaac Lab 3.0's play and export entrypoints apply to the training id, and shares the training agent config.
"""

import functools

from .flat_env_cfg import Go2FlatEnvCfg
from .registry import register_tasks
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

FAST_SAC_ENTRY_POINT = "fast_sac_cfg_entry_point"
"""``--agent`` key of the FastSAC learner (:mod:`go2_locomotion.agents.fast_sac_cfg`)."""

_FAST_SAC = "go2_locomotion.agents.fast_sac_cfg"

AGENTS = {
    task: {FAST_SAC_ENTRY_POINT: f"{_FAST_SAC}:{'Go2Rough' if 'Rough' in task else 'Go2Flat'}FastSacRunnerCfg"}
    for task in TASKS
}
"""Agent entry points beside RSL-RL PPO's, per task id (the -Play ids share their training task's)."""


def play_env_cfg(env_cfg_class: type[Go2RoughEnvCfg]) -> Go2RoughEnvCfg:
    """A training task's config in play mode: what its -Play id loads."""
    cfg = env_cfg_class()
    cfg.play_mode()
    return cfg


go2_rough_play_env_cfg = functools.partial(play_env_cfg, Go2RoughEnvCfg)
"""Go2-Rough-Play's config entry point."""

go2_flat_play_env_cfg = functools.partial(play_env_cfg, Go2FlatEnvCfg)
"""Go2-Flat-Play's config entry point."""


register_tasks(TASKS, AGENTS)

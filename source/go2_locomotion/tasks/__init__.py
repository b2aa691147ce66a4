"""Gymnasium registrations of the Go2 tasks (loaded by Isaac Lab's ``isaaclab.tasks`` entry point).

Each -Play id is its training task's config with :meth:`~Go2RoughEnvCfg.play_mode` applied, the same overrides
Isaac Lab 3.0's play and export entrypoints apply to the training id, and shares the training agent config.
"""

import functools

from ..catalog import (
    DISTILLATION_ENTRY_POINT,
    FAST_SAC_ENTRY_POINT,
    GO2_FLAT,
    GO2_ROUGH,
    GO2_ROUGH_BLIND,
    TRAINING_TASKS,
)
from .blind_env_cfg import Go2RoughBlindEnvCfg
from .flat_env_cfg import Go2FlatEnvCfg
from .registry import register_tasks
from .velocity_env_cfg import Go2RoughEnvCfg

_PPO = "go2_locomotion.agents.rsl_rl_ppo_cfg"
_FAST_SAC = "go2_locomotion.agents.fast_sac_cfg"
_DISTILLATION = "go2_locomotion.agents.distillation_cfg"

CONFIGS = {
    # training task id: (env cfg, play env cfg, PPO runner cfg, {--agent key: the other learners' runner cfgs})
    GO2_ROUGH.id: (
        f"{__name__}.velocity_env_cfg:Go2RoughEnvCfg",
        f"{__name__}:go2_rough_play_env_cfg",
        f"{_PPO}:Go2RoughPPORunnerCfg",
        {FAST_SAC_ENTRY_POINT: f"{_FAST_SAC}:Go2RoughFastSacRunnerCfg"},
    ),
    GO2_FLAT.id: (
        f"{__name__}.flat_env_cfg:Go2FlatEnvCfg",
        f"{__name__}:go2_flat_play_env_cfg",
        f"{_PPO}:Go2FlatPPORunnerCfg",
        {FAST_SAC_ENTRY_POINT: f"{_FAST_SAC}:Go2FlatFastSacRunnerCfg"},
    ),
    GO2_ROUGH_BLIND.id: (
        f"{__name__}.blind_env_cfg:Go2RoughBlindEnvCfg",
        f"{__name__}:go2_rough_blind_play_env_cfg",
        f"{_PPO}:Go2RoughBlindPPORunnerCfg",
        {DISTILLATION_ENTRY_POINT: f"{_DISTILLATION}:Go2RoughBlindDistillationRunnerCfg"},
    ),
}
"""The configs of each training task of :data:`go2_locomotion.catalog.TRAINING_TASKS`."""

TASKS = {
    id_: (env, ppo)
    for task, (env, play, ppo, _) in CONFIGS.items()
    for id_, env in ((task, env), (TRAINING_TASKS[task].play_id, play))
}
"""The registered task ids: id -> (env cfg entry point, RSL-RL runner cfg entry point)."""

AGENTS = {id_: agents for task, (*_, agents) in CONFIGS.items() for id_ in (task, TRAINING_TASKS[task].play_id)}
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

go2_rough_blind_play_env_cfg = functools.partial(play_env_cfg, Go2RoughBlindEnvCfg)
"""Go2-Rough-Blind-Play's config entry point."""


register_tasks(TASKS, AGENTS)

"""Gymnasium registration of manager-based tasks from a table, refusing ids that are already taken."""

import gymnasium as gym


def register_tasks(tasks: dict[str, tuple[str, str]], agents: dict[str, dict[str, str]] | None = None) -> None:
    """Register ``{id: (env cfg entry point, RSL-RL agent cfg entry point)}`` as Isaac Lab manager-based tasks;
    ``agents`` adds further agent entry points per id (``{id: {entry point key: agent cfg entry point}}``), chosen
    with ``--agent KEY``.

    Raises:
        ValueError: If an id is already registered; a silent replacement would hide a clash.
    """
    for task_id, (env_cfg, agent_cfg) in tasks.items():
        if task_id in gym.registry:
            raise ValueError(f"Task '{task_id}' is already registered (by {gym.registry[task_id].entry_point}).")
        gym.register(
            id=task_id,
            entry_point="isaaclab.envs:ManagerBasedRLEnv",
            disable_env_checker=True,
            kwargs={
                "env_cfg_entry_point": env_cfg,
                "rsl_rl_cfg_entry_point": agent_cfg,
                "default_agent": "rsl_rl",
                **(agents or {}).get(task_id, {}),
            },
        )

"""Build a registered Go2 task's environment in the test's process, the way Isaac Lab 3.0's own CLI does
(:func:`make_env`), for the simulator tests. The scripts go through Isaac Lab's RL entrypoints instead, and the
benchmark runs Isaac Lab's own ``isaaclab benchmark`` command in subprocesses."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

import gymnasium as gym


@contextlib.contextmanager
def make_env(
    task: str,
    *,
    num_envs: int | None = None,
    device: str = "cpu",
    overrides: Sequence[str] = (),
    play_mode: bool = False,
    edit: Callable[[object], None] | None = None,
) -> Iterator[gym.Env]:
    """Resolve the task's config (presets, Hydra-style ``env.…=value`` overrides), launch the simulation runtime
    and yield the environment; it is closed on exit.

    Args:
        task: A registered task id, e.g. ``"Go2-Flat"``.
        num_envs: Number of environments; ``None`` keeps the config's value.
        device: ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
        overrides: Command-line style overrides, e.g. ``["env.episode_length_s=1.0", "physics=newton_mjwarp"]``.
        play_mode: Apply the config's ``play_mode()`` as Isaac Lab's play entrypoint does.
        edit: Called with the resolved env config (after the overrides and ``play_mode``) to change what an
            override cannot express, e.g. a terrain generator made of chosen sub-terrains.
    """
    from isaaclab.app import launch_simulation
    from isaaclab_tasks.utils import resolve_task_config

    import go2_locomotion.tasks  # noqa: F401  (registers the tasks)

    env_cfg, _ = resolve_task_config(task, None, play_mode=play_mode, overrides=list(overrides))
    if num_envs is not None:
        env_cfg.scene.num_envs = num_envs
    if edit is not None:
        edit(env_cfg)
    env_cfg.sim.device = device
    with launch_simulation(env_cfg, {"headless": True, "device": device}):
        env = gym.make(task, cfg=env_cfg)
        try:
            yield env
        finally:
            env.close()

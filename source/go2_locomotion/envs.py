"""Build a registered Go2 task's environment in this process, the way Isaac Lab 3.0's own CLI does
(:func:`make_env`), and describe the physics that runs an environment (:func:`physics_record`).

:func:`make_env` is used by the simulator tests. The training, playback and evaluation scripts go through Isaac
Lab's RL entrypoints, and the benchmark runs Isaac Lab's own ``isaaclab benchmark`` command in subprocesses;
:func:`physics_record` goes into run summaries, evaluation reports and deploy manifests.
"""

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


BACKENDS = {"newton": "Newton / MuJoCo-Warp", "ovphysx": "PhysX (OvPhysX, no Isaac Sim)", "physx": "PhysX (Isaac Sim)"}
"""Physics backend key -> what it is. The keys are Isaac Lab's own backend names (its asset factories use them)."""


def physics_record(env) -> dict[str, str]:
    """The physics that actually runs ``env`` (a ``ManagerBasedRLEnv``, wrapped or not), after Isaac Lab resolved
    the preset (``physics=physx`` is OvPhysX headless and Isaac Sim's PhysX with Kit): backend key, its name,
    the physics manager and the config class."""
    sim = env.unwrapped.sim
    manager = sim.physics_manager.__name__
    lowered = manager.lower()
    backend = next((key for key in ("newton", "ovphysx", "physx") if lowered.startswith(key)), lowered)
    return {
        "backend": backend,
        "engine": BACKENDS.get(backend, manager),
        "manager": manager,
        "config": type(env.unwrapped.cfg.sim.physics).__name__,
    }

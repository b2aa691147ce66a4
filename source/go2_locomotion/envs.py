"""Describe the physics that runs an environment (:func:`physics_record`): what run summaries, evaluation reports
and deploy manifests record. It reads a live environment and imports nothing.
"""

from __future__ import annotations

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

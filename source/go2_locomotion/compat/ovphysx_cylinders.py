"""Workaround: on the CPU, an OvPhysX step can hang forever when a Go2 cylinder collider (a PhysX convex-core
cylinder) meets the rough terrain. :func:`use_convex_mesh_cylinders`, run when the Go2 is spawned, switches OvPhysX on
a CPU to cooked convex-mesh cylinders; Newton, Isaac Sim's PhysX and GPUs are left alone.
``tests/sim/test_ovphysx_hang.py`` says when this module can go.

Why: docs/ovphysx_hang.md, *The workaround*.
"""

from __future__ import annotations

from . import written_for

# Imported inside functions: Isaac Lab's OvPhysX backend and ovphysx (optional, heavy; only on that backend).

UPSTREAM_TEST = "tests/sim/test_ovphysx_hang.py::test_the_saved_state_hangs_with_convex_core_cylinders"


def use_convex_mesh_cylinders(sim) -> bool:
    """On OvPhysX on a CPU, make cylinder colliders cooked convex meshes before the stage is attached; returns
    whether the switch is in force. ``sim`` is Isaac Lab's ``SimulationContext``. Idempotent."""
    if sim is None or sim.device != "cpu":
        return False
    from isaaclab.utils.string import string_to_callable

    try:
        from isaaclab_ov.physics.ovphysx_manager import OvPhysxManager
    except ImportError:  # Isaac Lab without its ovphysx extra (e.g. inside Isaac Sim): not this backend
        return False

    manager = sim.physics_manager  # the config's class_type: a class, or still its "module:Class" name
    if (string_to_callable(manager) if isinstance(manager, str) else manager) is not OvPhysxManager:
        return False
    from isaaclab_ov.physics.ovphysx_manager_cfg import OvPhysxBackendCfg
    from ovphysx.types import ConfigBool

    written_for("ovphysx", "compat/ovphysx_cylinders.py", UPSTREAM_TEST)
    # the configuration OvPhysxManager registers its runtime under: an equal one returns the same runtime
    backend = sim.get_or_create_backend(
        OvPhysxBackendCfg(device=sim.device, cooked_collider_cache_dir=sim.cfg.physics.cooked_collider_cache_dir)
    )
    if backend.stage is not None:
        return not backend.physx.get_config_bool(ConfigBool.COLLISION_CYLINDER_CUSTOM_GEOMETRY)
    backend.physx.set_config_bool(ConfigBool.COLLISION_CYLINDER_CUSTOM_GEOMETRY, False)
    return True

"""Workaround: on the CPU, an OvPhysX step can hang forever when a Go2 cylinder collider meets the rough terrain.

Upstream bug (ovphysx 0.6.4, CPU): a USD ``Cylinder`` collider becomes a PhysX convex-core cylinder
(``PxConvexCoreGeometry``), and for some poses of one against a triangle mesh a PhysX worker thread loops forever
inside the step while the main thread waits in ``ovphysx_step_sync`` (the Go2's calf cylinders on a stair riser;
docs/ovphysx_hang.md has the reproduction, the native stacks and the report). The same runtime's other cylinder
representation, a cooked convex mesh (``ConfigBool.COLLISION_CYLINDER_CUSTOM_GEOMETRY = False``), steps the same
state at once.

Isaac Lab 3.0.0 creates the OvPhysX runtime itself and offers no setting for that switch, which must be set before
the stage is attached. :func:`use_convex_mesh_cylinders` runs when the Go2 is spawned (before the simulation
starts): on OvPhysX on a CPU it creates the runtime through Isaac Lab's own backend registry
(``SimulationContext.get_or_create_backend`` with the configuration the physics manager asks for later, so the
manager finds and uses this runtime) and sets the switch through ovphysx's public ``set_config_bool``. Newton,
Isaac Sim's PhysX and GPUs are left alone.

``tests/sim/test_ovphysx_hang.py`` steps the saved hanging state with and without the switch: when the default
representation stops hanging, ovphysx has fixed the bug and this module can go.
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

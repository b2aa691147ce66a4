"""Workaround: Isaac Lab 3.0.0's ray caster keeps reading the first terrain built at a prim path in the process.

Upstream bug (isaaclab 3.0.0, ``BaseRayCaster.meshes``): the ray caster caches the Warp mesh it reads from the
stage in a class-level dict keyed by (prim path, device) alone, and empties it only when the last scanner is
garbage-collected, which a closed environment's scanner need not be yet; so a second environment built in the same
process with another terrain at the same path (``/World/ground``) casts its rays on the first environment's
terrain. Measured: the sim tests' second terrain read heights 0.70 m off. :func:`forget_cached_meshes` drops the
entries of a new scanner's paths when it is made (the tasks' height scanner factory,
:func:`.ovphysx_ray_caster.height_scanner_class`), so it reads its own stage.

Whether the bug is there is probed without a simulator (:func:`defect_present`): the workaround applies while the
probe shows the cache reused (or cannot tell). The canary :data:`UPSTREAM_TEST` asserts the fixed behaviour as a
strict expected failure, and ``tests/sim/test_height_scan.py`` checks that a second environment scans its own
terrain: when the canary XPASSes, upstream has changed the cache and this module may go.
"""

from __future__ import annotations

import functools

from . import private_api, written_for

# Imported inside functions: Isaac Lab's sensor classes, which load USD (pxr): used when a scanner is made, after the
# launch.

UPSTREAM_TEST = "tests/unit/test_compat_ray_caster.py::test_upstream_ray_caster_reads_the_stage_not_a_cached_mesh"


@functools.cache
def defect_present() -> bool | None:
    """Whether the installed ray caster takes a class-level mesh cached under (prim path, device) without looking at
    the stage; ``None`` when the probe (:func:`.private_api.ray_caster_reuses_cached_mesh`) cannot tell."""
    from isaaclab.sensors.ray_caster.base_ray_caster import BaseRayCaster

    return private_api.ray_caster_reuses_cached_mesh(BaseRayCaster)


def forget_cached_meshes(mesh_prim_paths: list[str]) -> int:
    """Drop Isaac Lab's cached ray-cast meshes of these prim paths, unless the probe shows the cache is no longer
    reused; returns how many were dropped."""
    from isaaclab.sensors.ray_caster.base_ray_caster import BaseRayCaster

    written_for("isaaclab", "compat/ray_caster_meshes.py", UPSTREAM_TEST)
    if defect_present() is False:
        return 0
    stale = [key for key in BaseRayCaster.meshes if key[0] in set(mesh_prim_paths)]
    for key in stale:
        del BaseRayCaster.meshes[key]
    return len(stale)

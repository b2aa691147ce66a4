"""Workaround: Isaac Lab 3.0.0's ray caster keeps reading the first terrain built at a prim path in the process.

Upstream bug (isaaclab 3.0.0, ``BaseRayCaster.meshes``): the ray caster caches the Warp mesh it reads from the
stage in a class-level dict keyed by (prim path, device) alone, and empties it only when the last scanner is
garbage-collected, which a closed environment's scanner need not be yet; so a second environment built in the same
process with another terrain at the same path (``/World/ground``) casts its rays on the first environment's
terrain. Measured: the sim tests' second terrain read heights 0.70 m off. :func:`forget_cached_meshes` drops the
entries of a new scanner's paths when it is made (the tasks' height scanner factory,
:func:`.ovphysx_ray_caster.height_scanner_class`), so it reads its own stage.

``tests/unit/test_compat_ray_caster.py::test_upstream_mesh_cache_still_process_wide`` checks that the cache is still
keyed by path and device alone (:func:`defect_present`), and ``tests/sim/test_height_scan.py`` that a second
environment scans its own terrain: when the first fails, upstream has changed the cache and this module may go.
"""

from __future__ import annotations

from . import private_api, written_for

# Imported inside functions: Isaac Lab's sensor classes, which load USD (pxr): used when a scanner is made, after the
# launch.

UPSTREAM_TEST = "tests/unit/test_compat_ray_caster.py::test_upstream_mesh_cache_still_process_wide"


def defect_present() -> bool:
    """Whether the installed ray caster still reuses a class-level mesh keyed by (prim path, device) alone."""
    from isaaclab.sensors.ray_caster.base_ray_caster import BaseRayCaster

    loading = private_api.ray_caster_mesh_loading(BaseRayCaster)
    keyed_by_path = "mesh_key = (mesh_prim_path, self._device)" in loading
    return (
        isinstance(vars(BaseRayCaster).get("meshes"), dict) and keyed_by_path and "in BaseRayCaster.meshes" in loading
    )


def forget_cached_meshes(mesh_prim_paths: list[str]) -> int:
    """Drop Isaac Lab's cached ray-cast meshes of these prim paths; returns how many were dropped."""
    from isaaclab.sensors.ray_caster.base_ray_caster import BaseRayCaster

    written_for("isaaclab", "3.0.0", UPSTREAM_TEST)
    stale = [key for key in BaseRayCaster.meshes if key[0] in set(mesh_prim_paths)]
    for key in stale:
        del BaseRayCaster.meshes[key]
    return len(stale)

"""Workaround: on OvPhysX, Isaac Lab 3.0.0's ray caster reads environment ``i``'s scan from another robot (its
body-pose rows come in lexicographic path order, ``env_0, env_1, env_10, ...``). :func:`height_scanner_class` gives
the tasks' height scanner :class:`EnvOrderedOvPhysxRayCaster` there, rows in environment order; the canary
:data:`UPSTREAM_TEST` says when this module can go.

Why: docs/design.md, *Physics backends and the CPU recipe*.
"""

from __future__ import annotations

import functools
import re

import torch

from . import private_api, ray_caster_meshes, written_for

# Imported inside functions: Isaac Lab's sensor classes, which load USD (pxr) and so come after the launch (the task
# configs that name this factory stay free of pxr), and OvPhysX's (an optional backend) with Warp.

UPSTREAM_TEST = "tests/sim/test_height_scan.py::test_upstream_ovphysx_scanner_rows_are_in_environment_order"

ENV_INDEX = re.compile(r"/env_(\d+)/")
"""The environment number in a cloned prim path (Isaac Lab's ``/World/envs/env_<i>/...``)."""


def env_rows(prim_paths: list[str]) -> list[int] | None:
    """For environments 0..N-1 in order, the row of each in a binding whose rows are ``prim_paths``; ``None`` when
    the rows already are in environment order.

    Raises:
        ValueError: If the paths are not one per environment 0..N-1.
    """
    numbers = []
    for path in prim_paths:
        match = ENV_INDEX.search(path)
        if match is None:
            raise ValueError(f"ray-caster body {path!r} is not inside a cloned environment (/env_<i>/)")
        numbers.append(int(match.group(1)))
    if sorted(numbers) != list(range(len(numbers))):
        raise ValueError(f"ray-caster bodies are not one per environment 0..{len(numbers) - 1}: {numbers}")
    rows = sorted(range(len(numbers)), key=numbers.__getitem__)
    return None if rows == list(range(len(rows))) else rows


@functools.cache
def _ovphysx_class():
    import warp as wp
    from isaaclab_ov.sensors.ray_caster import RayCaster as OvPhysxRayCaster

    written_for("isaaclab", "compat/ovphysx_ray_caster.py", UPSTREAM_TEST)
    private_api.check_ovphysx_ray_caster(OvPhysxRayCaster)

    class EnvOrderedOvPhysxRayCaster(OvPhysxRayCaster):
        """Isaac Lab's OvPhysX ray caster with its tracked bodies in environment order."""

        def _initialize_pose_tracking(self) -> None:
            super()._initialize_pose_tracking()
            rows = None if self._ovphysx_body_view is None else env_rows(private_api.ovphysx_ray_caster_rows(self))
            self._go2_env_rows = None if rows is None else torch.tensor(rows, dtype=torch.long)
            if rows is not None:
                self._go2_ordered = torch.zeros((len(rows), 7), dtype=torch.float32, device=self._device)
                self._go2_ordered_wp = wp.from_torch(self._go2_ordered).view(wp.transformf)

        def _get_view_transforms_wp(self):
            transforms = super()._get_view_transforms_wp()
            if self._go2_env_rows is None:
                return transforms
            self._go2_ordered.copy_(wp.to_torch(transforms).reshape(-1, 7)[self._go2_env_rows])
            return self._go2_ordered_wp

    return EnvOrderedOvPhysxRayCaster


def height_scanner_class(cfg) -> type:
    """The ray-caster class for ``cfg`` on the active physics backend, in environment order on every backend; a
    scanner made next reads the terrain of its own stage (:func:`.ray_caster_meshes.forget_cached_meshes`)."""
    from isaaclab.sensors import RayCaster

    ray_caster_meshes.forget_cached_meshes(list(cfg.mesh_prim_paths))
    backend_class = RayCaster.resolve_class(cfg)
    if backend_class.__module__.startswith("isaaclab_ov."):
        return _ovphysx_class()
    return backend_class

"""Workaround: OvPhysX assets in Isaac Lab 3.0.0 cannot be created on a machine without CUDA.

Upstream bug (isaaclab 3.0.0, ``isaaclab_ov``): ``Articulation._create_buffers`` and ``RigidObject._create_buffers``
allocate page-locked ("pinned") host memory unconditionally (``wp.zeros(..., device="cpu", pinned=True)``). Warp
pins host memory through the CUDA driver, so on a machine without one every PhysX environment creation stops with
``RuntimeError: Failed to allocate 16 bytes on device 'cpu'`` (Warp CUDA error 35 in ``wp_alloc_pinned``). The same
package's ``ArticulationData`` already avoids it (``pinned = device != "cpu"``).

Pinning only speeds up copies to and from a GPU; without a CUDA device there is no such copy, so ordinary host
memory is equivalent. :func:`apply_if_needed` makes Warp's CPU device hand out ordinary host memory for pinned
requests, and does so only when Warp sees no CUDA device; with a GPU nothing changes. Installed files are not
touched. It is installed at the simulation's launch (:mod:`.launcher`), before any asset allocates its buffers.

The canary :data:`UPSTREAM_TEST` builds a PhysX environment without this workaround and asserts that it is
created, a strict expected failure while the upstream allocation fails: when it XPASSes, Isaac Lab has fixed the
bug and this module (and its call in :func:`.launcher.install_patches`) can go.
"""

from __future__ import annotations

import logging

import warp as wp

from . import written_for

logger = logging.getLogger(__name__)

UPSTREAM_TEST = "tests/sim/test_physx.py::test_upstream_creates_a_physx_env_without_cuda"


def apply_if_needed() -> bool:
    """Serve pinned host allocations from ordinary host memory when Warp sees no CUDA device.

    Returns whether the workaround is in force. Idempotent; with a CUDA device it does nothing.
    """
    wp.init()
    if wp.get_cuda_device_count() > 0:
        return False
    written_for("isaaclab", "compat/ovphysx_pinned_memory.py", UPSTREAM_TEST)
    cpu = wp.get_device("cpu")
    if cpu.pinned_allocator is not cpu.default_allocator:
        cpu.pinned_allocator = cpu.default_allocator
        logger.info("no CUDA device: pinned host memory requests use ordinary host memory (isaaclab 3.0.0 OvPhysX)")
    return True

"""Workarounds for bugs in the libraries this package runs on, one module each, each naming its upstream bug, the
release it was written against (checked by :func:`written_for`) and the test that fails once upstream fixes it:

- :mod:`.ovphysx_pinned_memory` (OvPhysX without CUDA): a process-wide patch, installed at the simulation's launch
  (:mod:`.launcher`, named by the tasks' OvPhysX config);
- :mod:`.ovphysx_cylinders` (OvPhysX's CPU step hanging on a convex-core cylinder against the terrain): the runtime's
  cylinders become convex meshes, set when the Go2 is spawned;
- :mod:`.ovphysx_ray_caster` (OvPhysX scan rows out of environment order) and :mod:`.ray_caster_meshes` (a stale
  process-wide mesh cache): the tasks' height scanner (its ``class_type``) applies both when it is made;
- :mod:`.viser_viewer` (Isaac Lab's viser viewer on newton 1.6.1): repaired on the package's own viewer when it
  starts.

:mod:`.private_api` is the one adapter for other libraries' private names.
"""

from __future__ import annotations

import functools
import logging

from ..versions import package_version

logger = logging.getLogger(__name__)

PATCH_LAUNCHER = "go2_locomotion.compat.launcher:PatchLauncher"
"""The ``launcher_type`` (Isaac Lab's launch hook) that installs the process-wide patches when a simulation starts."""


def written_for(distribution: str, version: str, test: str) -> bool:
    """Whether the installed ``distribution`` is the ``version`` a workaround was written against. Otherwise one
    warning per process names ``test``, which tells whether the workaround is still needed; it is applied either
    way (each does nothing where its bug does not show)."""
    installed = package_version(distribution)
    if installed != version:
        _warn_once(distribution, version, installed, test)
    return installed == version


@functools.cache
def _warn_once(distribution: str, version: str, installed: str | None, test: str) -> None:
    logger.warning(
        "go2_locomotion: a workaround written for %s %s runs on %s %s; %s tells whether it is still needed",
        distribution,
        version,
        distribution,
        installed or "(not installed)",
        test,
    )

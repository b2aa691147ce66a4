"""Workarounds for bugs in the libraries this package runs on, one module each, each naming its upstream bug, the
release it was written against (:data:`~go2_locomotion.versions.UPSTREAM_PINS`, checked by :func:`written_for`)
and its canary: a strict expected-failure test asserting the fixed behaviour, which fails the suite (XPASS) once
upstream fixes the bug. Where a cheap probe without a simulator shows whether the bug is there, the probe decides
whether the workaround applies. The workarounds:

- :mod:`.ovphysx_pinned_memory` (OvPhysX without CUDA): a process-wide patch, installed at the simulation's launch
  (:mod:`.launcher`, named by the tasks' OvPhysX config);
- :mod:`.ovphysx_cylinders` (OvPhysX's CPU step hanging on a convex-core cylinder against the terrain): the runtime's
  cylinders become convex meshes, set when the Go2 is spawned;
- :mod:`.ovphysx_ray_caster` (OvPhysX scan rows out of environment order) and :mod:`.ray_caster_meshes` (a stale
  process-wide mesh cache): the tasks' height scanner (its ``class_type``) applies both when it is made;
- :mod:`.viser_viewer` (Isaac Lab's viser viewer on newton 1.6.1): repaired on the package's own viewer when it
  starts.

:mod:`.private_api` is the one adapter for other libraries' private names. Nothing here reads upstream source
text: names are checked with ``hasattr`` / ``inspect.signature`` (and, for instance attributes, the names the
compiled code assigns), behaviour by probes, and the rest by the installed version.
"""

from __future__ import annotations

import functools
import logging

from ..versions import UPSTREAM_PINS, package_version

logger = logging.getLogger(__name__)

PATCH_LAUNCHER = "go2_locomotion.compat.launcher:PatchLauncher"
"""The ``launcher_type`` (Isaac Lab's launch hook) that installs the process-wide patches when a simulation starts."""


def written_for(distribution: str, what: str, test: str = "") -> bool:
    """Whether the installed ``distribution`` is the release ``what`` (a workaround, or code reaching private names)
    was written against (:data:`~go2_locomotion.versions.UPSTREAM_PINS`). Otherwise one warning per process names
    ``what`` and ``test`` (the canary that tells whether a workaround is still needed); the caller carries on
    either way: a workaround stays applied where its bug shows, and a missing private name still stops the run."""
    installed, pinned = package_version(distribution), UPSTREAM_PINS[distribution]
    if installed != pinned:
        _warn_once(distribution, installed, what, test)
    return installed == pinned


@functools.cache
def _warn_once(distribution: str, installed: str | None, what: str, test: str) -> None:
    logger.warning(
        "go2_locomotion: %s was written against %s %s, installed is %s%s",
        what,
        distribution,
        UPSTREAM_PINS[distribution],
        installed or "(none)",
        f"; {test} XPASSes once it is no longer needed" if test else "",
    )

"""The moment the process-wide patches of :mod:`go2_locomotion.compat` are installed: the simulation's launch.

Isaac Lab's ``launch_simulation`` starts the launcher that each resolved physics config names in its
``launcher_type``, before the environment is built. The Go2 tasks' OvPhysX config (and the benchmark's upstream
comparators') names :class:`PatchLauncher` (:data:`~go2_locomotion.compat.PATCH_LAUNCHER`), so every path that
launches them -- the scripts, Isaac Lab's own CLI, the tests -- installs :func:`install_patches` there, before any
asset allocates its buffers. Newton and Isaac Sim's PhysX need none of them and do not name it.
"""

from __future__ import annotations

from isaaclab.app.sim_launcher import SimulationLauncher

from . import ovphysx_pinned_memory


def install_patches() -> None:
    """Every process-wide patch; each is idempotent and does nothing where its bug does not show."""
    ovphysx_pinned_memory.apply_if_needed()


class PatchLauncher(SimulationLauncher):
    """Installs :func:`install_patches` when a simulation whose physics config names it is launched; it starts
    no runtime and keeps the config's device."""

    def __init__(self, launcher_args=None):
        super().__init__(launcher_args)
        install_patches()

"""The physics selectors resolve as docs/setup.md and docs/design.md say, through Isaac Lab's own launch scan (no
simulator is started): `physx` is OvPhysX without Kit and Isaac Sim's PhysX with it; an OvPhysX launch starts the
package's patch launcher."""

import pytest
from isaaclab.app.sim_launcher import SimulationLauncher, scan
from isaaclab.utils.string import string_to_callable
from isaaclab_tasks.utils import resolve_task_config

import go2_locomotion.tasks  # noqa: F401  (registers the tasks)
from go2_locomotion.compat import PATCH_LAUNCHER, launcher

HEADLESS = {"headless": True}
KIT_VIEWER = {"visualizer": ["kit"]}  # `--viz kit`: Kit runs, so Isaac Lab picks Isaac Sim's PhysX

CASES = [
    ([], HEADLESS, "NewtonCfg"),
    (["physics=newton_mjwarp"], KIT_VIEWER, "NewtonCfg"),
    (["physics=physx"], HEADLESS, "OvPhysxCfg"),
    (["physics=physx"], KIT_VIEWER, "PhysxCfg"),
    (["physics=isaacsim_physx"], HEADLESS, "PhysxCfg"),
    (["physics=ovphysx"], HEADLESS, "OvPhysxCfg"),
    (["presets=cpu"], HEADLESS, "OvPhysxCfg"),
    (["presets=cpu"], KIT_VIEWER, "PhysxCfg"),
]


@pytest.mark.parametrize("task", ["Go2-Flat", "Go2-Rough"])
@pytest.mark.parametrize("selectors, launch, engine", CASES)
def test_selector_resolves_to(task, selectors, launch, engine):
    env_cfg, _ = resolve_task_config(task, None, overrides=selectors)
    launch_scan = scan(env_cfg, dict(launch))
    assert type(launch_scan.resolved_physics_cfg).__name__ == engine
    assert type(env_cfg.sim.physics).__name__ == engine  # the config the simulation will be built from
    # the launch installs the package's patches exactly where OvPhysX runs
    assert (PATCH_LAUNCHER in launch_scan.launcher_types) == (engine == "OvPhysxCfg")


def test_the_patch_launcher_installs_the_patches(monkeypatch):
    installed = []
    monkeypatch.setattr(launcher, "install_patches", lambda: installed.append(True))
    assert string_to_callable(PATCH_LAUNCHER) is launcher.PatchLauncher
    assert issubclass(launcher.PatchLauncher, SimulationLauncher)
    assert launcher.PatchLauncher({}).device is None  # keeps the config's device
    assert installed == [True]

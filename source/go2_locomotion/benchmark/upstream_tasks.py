"""Isaac Lab 3.0's own Go2 tasks, registered as benchmark comparators with their downloads replaced.

``Go2-Upstream-Flat-Offline`` and ``Go2-Upstream-Rough-Offline`` are ``Isaac-Velocity-Flat-UnitreeGo2`` and
``Isaac-Velocity-Rough-UnitreeGo2`` with this package's offline Go2 model and ground substituted for the files
they download (robot USD, ground plane, sky texture, terrain material), and their OvPhysX config naming the
package's launch patches (:mod:`go2_locomotion.compat.launcher`) as the Go2 tasks' does; every other setting is
upstream's, so a side-by-side measurement compares the MDPs, not the assets.
"""

from isaaclab.utils import configclass
from isaaclab_tasks.core.velocity.config.go2.flat_env_cfg import UnitreeGo2FlatEnvCfg
from isaaclab_tasks.core.velocity.config.go2.rough_env_cfg import UnitreeGo2RoughEnvCfg

from ..assets import go2_usd
from ..assets.go2 import GROUND_USD, Go2UsdFileCfg
from ..compat import PATCH_LAUNCHER
from ..tasks.registry import register_tasks

UPSTREAM_AGENTS = "isaaclab_tasks.core.velocity.config.go2.agents.rsl_rl_ppo_cfg"


def use_offline_assets(cfg) -> None:
    """Swap the downloaded files of an upstream velocity config for local ones; its OvPhysX launch installs the
    package's patches (OvPhysX on a machine without CUDA)."""
    spawn = cfg.scene.robot.spawn
    cfg.scene.robot.spawn = Go2UsdFileCfg(
        usd_path=go2_usd.OFFLINE_USD,
        activate_contact_sensors=spawn.activate_contact_sensors,
        rigid_props=spawn.rigid_props,
        articulation_props=spawn.articulation_props,
    )
    cfg.scene.sky_light.spawn.texture_file = None
    terrain = cfg.scene.terrain
    terrain.visual_material = None
    if terrain.terrain_type == "plane":
        terrain.terrain_type = "usd"
        terrain.usd_path = GROUND_USD
    physics = cfg.sim.physics
    for ovphysx in (physics.ovphysx, physics.physx.ovphysx):
        ovphysx.launcher_type = PATCH_LAUNCHER


@configclass
class UpstreamGo2FlatOfflineEnvCfg(UnitreeGo2FlatEnvCfg):
    """Isaac Lab's Go2 flat task with local assets."""

    def __post_init__(self):
        super().__post_init__()
        use_offline_assets(self)


@configclass
class UpstreamGo2RoughOfflineEnvCfg(UnitreeGo2RoughEnvCfg):
    """Isaac Lab's Go2 rough task with local assets."""

    def __post_init__(self):
        super().__post_init__()
        use_offline_assets(self)


COMPARATORS = {
    "Go2-Upstream-Flat-Offline": (
        f"{__name__}:UpstreamGo2FlatOfflineEnvCfg",
        f"{UPSTREAM_AGENTS}:UnitreeGo2FlatPPORunnerCfg",
    ),
    "Go2-Upstream-Rough-Offline": (
        f"{__name__}:UpstreamGo2RoughOfflineEnvCfg",
        f"{UPSTREAM_AGENTS}:UnitreeGo2RoughPPORunnerCfg",
    ),
}
"""Comparator id -> (env cfg, RSL-RL agent cfg)."""

register_tasks(COMPARATORS)

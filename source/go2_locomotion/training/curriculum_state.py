"""The terrain curriculum's state travels with the checkpoint.

Isaac Lab draws every robot's terrain level afresh when the environment is made (``TerrainImporter``: levels up to
``max_init_terrain_level``), and RSL-RL's checkpoint holds the networks only, so a resumed Go2-Rough run (Ctrl-C,
a requeued job, a run restarted after a hung step) started its curriculum over: measured, the mean level fell back
from up to 4.1 to 3.58 at every resume (docs/learning.md). The levels are saved in the checkpoint's ``infos`` and
put back on resume; each robot's spawn origin follows its level, as Isaac Lab's own curriculum update does.
"""

from __future__ import annotations

INFOS_KEY = "terrain_levels"
"""Key of the per-robot terrain levels in a checkpoint's ``infos``."""


def curriculum_terrain(env):
    """The environment's terrain importer when it runs a level curriculum (``terrain_levels`` set), else ``None``."""
    scene = getattr(env.unwrapped, "scene", None)
    terrain = getattr(scene, "terrain", None)
    return terrain if getattr(terrain, "terrain_levels", None) is not None else None


def saved_levels(terrain) -> dict:
    """What goes into the checkpoint's ``infos``."""
    return {INFOS_KEY: terrain.terrain_levels.detach().cpu().clone()}


def restore_levels(terrain, infos: dict | None) -> str:
    """Put a checkpoint's levels back (and each robot's origin with them); returns a line saying what was done.

    A checkpoint without levels (an older one, or one from a task without a curriculum) or with another number of
    robots leaves the fresh draw in place."""
    levels = (infos or {}).get(INFOS_KEY)
    if levels is None:
        return "the checkpoint holds no terrain levels: the curriculum starts from Isaac Lab's initial draw"
    if tuple(levels.shape) != tuple(terrain.terrain_levels.shape):
        return (
            f"the checkpoint's terrain levels are for {levels.shape[0]} robots, this run has "
            f"{terrain.terrain_levels.shape[0]}: the curriculum starts from Isaac Lab's initial draw"
        )
    terrain.terrain_levels[:] = levels.to(terrain.terrain_levels.device, terrain.terrain_levels.dtype)
    terrain.env_origins[:] = terrain.terrain_origins[terrain.terrain_levels, terrain.terrain_types]
    mean = float(terrain.terrain_levels.float().mean())
    return f"terrain curriculum restored from the checkpoint (mean level {mean:.2f})"

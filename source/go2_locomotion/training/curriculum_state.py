"""The terrain curriculum's state travels with the checkpoint.

Isaac Lab draws every robot's terrain level afresh when the environment is made (``TerrainImporter``: levels up to
``max_init_terrain_level``), and RSL-RL's checkpoint holds the networks only, so a resumed Go2-Rough run (Ctrl-C,
a requeued job, a run restarted after a hung step) started its curriculum over: measured, the mean level fell back
from up to 4.1 to 3.58 at every resume (docs/learning.md). The levels are saved in the checkpoint's ``infos`` and
put back on resume; each robot's spawn origin follows its level, as Isaac Lab's own curriculum update does. With
``presets=frontier`` the curriculum's success memory per sub-terrain and level travels with them: on the CPU recipe a
level gathers a decided episode only every ~15 iterations, so a memory started over would leave the frontier draws
to Isaac Lab's step for ~60 iterations after each resume. Any other curriculum term with state (``get_state`` and
``set_state``, the convention of Isaac Lab's ``DifficultyScheduler``; ``presets=sac_rewards``' penalty factor) travels
the same way.
"""

from __future__ import annotations

INFOS_KEY = "terrain_levels"
"""Key of the per-robot terrain levels in a checkpoint's ``infos``."""

FRONTIER_KEY = "terrain_frontier"
"""Key of the frontier curriculum's memory (``success`` and ``trials`` per level and sub-terrain) in ``infos``."""

TERMS_KEY = "curriculum_terms"
"""Key of the stateful curriculum terms' states (``{term name: get_state()}``) in ``infos``."""


def curriculum_terrain(env):
    """The environment's terrain importer when it runs a level curriculum (``terrain_levels`` set), else ``None``."""
    scene = getattr(env.unwrapped, "scene", None)
    terrain = getattr(scene, "terrain", None)
    return terrain if getattr(terrain, "terrain_levels", None) is not None else None


def frontier_memory(env):
    """The frontier curriculum term (``presets=frontier``) of the environment, else ``None``: Isaac Lab's curriculum
    manager keeps a class term's instance in its own config copy (``cfg.<term>.func``)."""
    manager = getattr(env.unwrapped, "curriculum_manager", None)
    term = getattr(getattr(getattr(manager, "cfg", None), INFOS_KEY, None), "func", None)
    return term if hasattr(term, "success") and hasattr(term, "trials") else None


def saved_levels(terrain, frontier=None) -> dict:
    """What goes into the checkpoint's ``infos``: the levels, and the frontier term's memory when there is one."""
    infos = {INFOS_KEY: terrain.terrain_levels.detach().cpu().clone()}
    if frontier is not None:
        infos[FRONTIER_KEY] = {k: getattr(frontier, k).detach().cpu().clone() for k in ("success", "trials")}
    return infos


def restore_levels(terrain, infos: dict | None, frontier=None) -> str:
    """Put a checkpoint's levels back (and each robot's origin with them), and the frontier term's memory when both
    have one of the same shape; returns a line saying what was done.

    A checkpoint without levels (an older one, or one from a task without a curriculum), with another number of
    robots or with levels this terrain does not have leaves the fresh draw in place."""
    levels = (infos or {}).get(INFOS_KEY)
    if levels is None:
        return "the checkpoint holds no terrain levels: the curriculum starts from Isaac Lab's initial draw"
    if tuple(levels.shape) != tuple(terrain.terrain_levels.shape):
        return (
            f"the checkpoint's terrain levels are for {levels.shape[0]} robots, this run has "
            f"{terrain.terrain_levels.shape[0]}: the curriculum starts from Isaac Lab's initial draw"
        )
    highest, rows = int(levels.max()), terrain.terrain_origins.shape[0]
    if highest >= rows:
        return (
            f"the checkpoint's terrain levels reach level {highest}, this terrain has {rows}: "
            "the curriculum starts from Isaac Lab's initial draw"
        )
    terrain.terrain_levels[:] = levels.to(terrain.terrain_levels.device, terrain.terrain_levels.dtype)
    terrain.env_origins[:] = terrain.terrain_origins[terrain.terrain_levels, terrain.terrain_types]
    mean = float(terrain.terrain_levels.float().mean())
    line = f"terrain curriculum restored from the checkpoint (mean level {mean:.2f})"
    memory = (infos or {}).get(FRONTIER_KEY)
    if frontier is None:
        return line
    if memory is None or tuple(memory["trials"].shape) != tuple(frontier.trials.shape):
        return line + "; the frontier memory starts empty (the checkpoint holds none for this terrain)"
    for key in ("success", "trials"):
        getattr(frontier, key)[:] = memory[key].to(getattr(frontier, key).device)
    return line + f"; frontier memory of {int(frontier.trials.sum())} episodes"


def stateful_terms(env) -> dict:
    """The environment's curriculum class terms that keep state (``get_state`` and ``set_state``), by term name."""
    manager = getattr(env.unwrapped, "curriculum_manager", None)
    if manager is None:
        return {}
    terms = {name: getattr(getattr(manager.cfg, name, None), "func", None) for name in manager.active_terms}
    return {name: t for name, t in terms.items() if callable(getattr(t, "get_state", None)) and hasattr(t, "set_state")}


def saved_term_states(terms: dict) -> dict:
    """What goes into the checkpoint's ``infos`` for :func:`stateful_terms`."""
    return {TERMS_KEY: {name: term.get_state().detach().cpu().clone() for name, term in terms.items()}}


def restore_term_states(terms: dict, infos: dict | None) -> str:
    """Put a checkpoint's curriculum term states back, each where the checkpoint holds one; returns a line saying
    what was done (a term the checkpoint lacks keeps its fresh state)."""
    saved = (infos or {}).get(TERMS_KEY) or {}
    restored = [name for name in terms if name in saved]
    for name in restored:
        terms[name].set_state(saved[name])
    fresh = [name for name in terms if name not in saved]
    line = f"curriculum terms restored from the checkpoint: {', '.join(restored) or 'none'}"
    return line + (f"; starting fresh: {', '.join(fresh)}" if fresh else "")

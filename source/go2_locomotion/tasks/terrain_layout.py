"""Where Isaac Lab's terrain generator puts each sub-terrain: the columns of a curriculum grid. Imports no task
config, so the MDP terms (the frontier curriculum) and the evaluation's terrain cells both read it."""

from __future__ import annotations

import numpy as np


def config_field(config, name: str):
    """A field of a config, or of its dict (a run's ``params/env.yaml``)."""
    return config[name] if isinstance(config, dict) else getattr(config, name)


def column_terrains(generator) -> list[str]:
    """The sub-terrain key of each curriculum column, by Isaac Lab's rule (``TerrainGenerator``): column ``c`` takes
    the first sub-terrain whose cumulative share exceeds ``c / num_cols + 0.001``."""
    sub_terrains = config_field(generator, "sub_terrains")
    names = list(sub_terrains)
    shares = np.array([config_field(sub_terrains[n], "proportion") for n in names], dtype=float)
    cumulative = np.cumsum(shares / shares.sum())
    columns = config_field(generator, "num_cols")
    return [names[int(np.min(np.where(c / columns + 0.001 < cumulative)[0]))] for c in range(columns)]

"""Terrain cells: one of Go2-Rough's sub-terrains with its obstacle at one size, for evaluations in Isaac Lab and
in MuJoCo alike.

A cell is named ``<terrain>:<size>``, e.g. ``stairs_up:0.10`` (10 cm steps) or ``slopes_up:20`` (20 degrees). Its
sub-terrain config is the task's own generator entry (:data:`~.velocity_env_cfg.GO2_ROUGH_TERRAINS`) with the
difficulty-driven range collapsed to that size, so Isaac Lab's generator builds it whatever difficulty it draws; the
difficulty the cell stands for in training is the size's place in the training range (above 1 beyond it).

The robot starts at the tile's centre and walks outwards: Isaac Lab's pyramid stairs and slopes rise towards the
centre (walking out goes down), the inverted ones sink towards it (walking out goes up).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import torch
from isaaclab.utils import to_dict
from isaaclab.utils.dict import dict_to_md5_hash

from .velocity_env_cfg import GO2_ROUGH_TERRAINS

TERRAIN_SEED = 0
"""Seed of the cells' generator, in Isaac Lab's terrain evaluation and in MuJoCo alike."""


@dataclass(frozen=True)
class Terrain:
    """An evaluated terrain: which generator entry, which of its fields the difficulty drives, and its units."""

    key: str
    """Key of the sub-terrain in the task's generator."""
    field: str
    """The ``(low, high)`` range the generator interpolates with the difficulty (the obstacle's size)."""
    unit: str
    """How sizes are written: ``"m"`` (heights; shown in cm) or ``"deg"`` (slopes; the generator takes rise/run)."""
    what: str
    """What the size measures."""
    by_difficulty: bool = True
    """Whether the generator interpolates the range by difficulty (random rough draws over the whole range)."""


TERRAINS = {
    "stairs_up": Terrain("pyramid_stairs_inv", "step_height_range", "m", "step height"),
    "stairs_down": Terrain("pyramid_stairs", "step_height_range", "m", "step height"),
    "boxes": Terrain("boxes", "grid_height_range", "m", "box height (+-)"),
    "random_rough": Terrain("random_rough", "noise_range", "m", "noise up to", by_difficulty=False),
    "slopes_up": Terrain("hf_pyramid_slope_inv", "slope_range", "deg", "slope"),
    "slopes_down": Terrain("hf_pyramid_slope", "slope_range", "deg", "slope"),
}
"""The evaluated terrains, by the name a cell uses."""


@dataclass(frozen=True)
class TerrainCell:
    """One sub-terrain at one obstacle size."""

    name: str
    """A key of :data:`TERRAINS`."""
    size: float
    """The obstacle's size in the terrain's unit: metres (heights) or degrees (slopes)."""

    @property
    def terrain(self) -> Terrain:
        return TERRAINS[self.name]

    @property
    def generator_value(self) -> float:
        """The size as the generator's field takes it (slopes as rise/run)."""
        return math.tan(math.radians(self.size)) if self.terrain.unit == "deg" else self.size

    @property
    def difficulty(self) -> float:
        """Where the size lies in the training range: 0 at its low end, 1 at its high end (above 1 beyond it)."""
        low, high = training_range(self.name)
        return (self.generator_value - low) / (high - low)

    def label(self) -> str:
        """``stairs_up:0.10`` style: the name the command line takes."""
        size = f"{self.size:g}" if self.terrain.unit == "deg" else f"{self.size:.3f}".rstrip("0").rstrip(".")
        return f"{self.name}:{size}"

    def describe(self) -> dict:
        """The cell for a report: name, sizes with units, difficulty."""
        record = {"name": self.name, "label": self.label(), "what": self.terrain.what}
        if self.terrain.unit == "deg":
            record["slope_deg"] = round(self.size, 3)
        else:
            record["height_cm"] = round(100 * self.size, 3)
        record["difficulty"] = round(self.difficulty, 4)
        return record

    def sub_terrain_cfg(self):
        """The task's generator entry with its range collapsed to this size (proportion 1)."""
        base = GO2_ROUGH_TERRAINS.sub_terrains[self.terrain.key]
        value = self.generator_value
        low = training_range(self.name)[0] if not self.terrain.by_difficulty else value
        return base.replace(proportion=1.0, **{self.terrain.field: (low, value)})


def training_range(name: str) -> tuple[float, float]:
    """The ``(low, high)`` of the terrain's size field in training, as the generator takes it."""
    terrain = TERRAINS[name]
    return tuple(getattr(GO2_ROUGH_TERRAINS.sub_terrains[terrain.key], terrain.field))


def hardest(name: str) -> float:
    """The hardest size in training, in the terrain's unit (metres or degrees)."""
    high = training_range(name)[1]
    return math.degrees(math.atan(high)) if TERRAINS[name].unit == "deg" else high


def parse_cell(text: str) -> TerrainCell:
    """``name:size`` (metres for heights, degrees for slopes), e.g. ``stairs_up:0.10``, ``slopes_down:20``.

    Raises:
        ValueError: One line naming the text and what is accepted.
    """
    name, _, size = text.partition(":")
    if name not in TERRAINS:
        raise ValueError(f"terrain cell {text!r}: unknown terrain {name!r}; accepted: {', '.join(TERRAINS)}")
    try:
        value = float(size)
    except ValueError:
        unit = "degrees" if TERRAINS[name].unit == "deg" else "metres"
        raise ValueError(
            f"terrain cell {text!r}: expected {name}:<size in {unit}>, e.g. {name}:{hardest(name):.2f}"
        ) from None
    if not math.isfinite(value) or value <= 0 or (TERRAINS[name].unit == "deg" and value >= 60):
        raise ValueError(f"terrain cell {text!r}: the size must be positive (and a slope below 60 degrees)")
    return TerrainCell(name, value)


DEFAULT_SIZES = {
    "stairs_up": (0.05, 0.075, 0.10, 0.12),
    "stairs_down": (0.05, 0.075, 0.10, 0.12),
    "boxes": (0.025, 0.05, 0.075, 0.10),
    "random_rough": (0.02, 0.04, 0.06, 0.07),
    "slopes_up": (5.0, 10.0, 15.0, 20.0, hardest("slopes_up")),
    "slopes_down": (5.0, 10.0, 15.0, 20.0, hardest("slopes_down")),
}
"""The default grid's sizes: each terrain at four or more sizes up to its hardest in training (12 cm steps, 10 cm
boxes, 6 cm noise, 21.8 degree slopes), through the goal sizes (10 cm steps, 20 degrees); random rough one size
beyond (7 cm: at 8 cm Isaac Lab's generator makes some faces vertical, which MuJoCo's height field cannot
reproduce)."""


def default_cells() -> list[TerrainCell]:
    """The default terrain grid (``--terrain default``)."""
    return [TerrainCell(name, size) for name, sizes in DEFAULT_SIZES.items() for size in sizes]


def parse_cells(text: str) -> list[TerrainCell]:
    """``default`` or space/comma-separated cells."""
    if text.strip() == "default":
        return default_cells()
    cells = [parse_cell(part) for part in text.replace(",", " ").split()]
    if not cells:
        raise ValueError("terrain cells: expected 'default' or cells like stairs_up:0.10")
    return cells


def reproducible(sub_terrain_cfg):
    """The sub-terrain config with its function drawing from a seed of its own (see the module): the tile's
    config, difficulty and the generator's seed, hashed as Isaac Lab's terrain cache hashes them."""
    return sub_terrain_cfg.replace(function=_seeded(sub_terrain_cfg.function))


def _seeded(function):
    @functools.wraps(function)  # keeps the name Isaac Lab records and hashes
    def seeded_function(difficulty, cfg):
        seed = int(dict_to_md5_hash(to_dict(cfg))[:8], 16)
        state = np.random.get_state()
        with torch.random.fork_rng():
            np.random.seed(seed)
            torch.manual_seed(seed)
            try:
                return function(difficulty, cfg)
            finally:
                np.random.set_state(state)

    return seeded_function


def cells_generator(cells: list[TerrainCell], *, base=GO2_ROUGH_TERRAINS, seed: int = TERRAIN_SEED):
    """A terrain generator config (``base``: the task's) laid out as one row of ``cells``, tile ``c`` in column
    ``c``, each sub-terrain :func:`reproducible` and at difficulty 1 (its range is collapsed to the cell's size
    anyway), with the base's border, tile size and scales. Isaac Lab's curriculum layout puts environment ``i`` of
    ``N`` in column ``i // (N / columns)``; MuJoCo's sim-to-sim builds tile ``c`` alike, alone."""
    return base.replace(
        sub_terrains={f"{k:02d}_{cell.label()}": reproducible(cell.sub_terrain_cfg()) for k, cell in enumerate(cells)},
        num_rows=1,
        num_cols=len(cells),
        curriculum=True,
        difficulty_range=(1.0, 1.0),
        seed=seed,
    )

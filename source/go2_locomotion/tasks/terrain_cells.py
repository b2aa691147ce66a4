"""Terrain cells: one of Go2-Rough's sub-terrains with its obstacle at one size, for evaluations in Isaac Lab and
in MuJoCo alike.

A cell is named ``<terrain>:<size>``, e.g. ``stairs_up:0.10`` (10 cm steps) or ``slopes_up:20`` (20 degrees). Its
sub-terrain config is the task's own generator entry (:data:`~.velocity_env_cfg.GO2_ROUGH_TERRAINS`) with the
difficulty-driven range collapsed to that size, so Isaac Lab's generator builds it whatever difficulty it draws; the
difficulty the cell stands for in training is the size's place in Go2-Rough's training range (above 1 beyond it).
The stairs20 terrain (``presets=stairs20``) changes only the stairs' range and the shares, so its cells are the
same tiles; the default grid of a policy trained on it adds the taller steps (:func:`default_cells`).

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

from .terrain_layout import column_terrains as column_terrains  # its home before terrain_layout
from .terrain_layout import config_field as _field
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


def training_range(name: str, generator=GO2_ROUGH_TERRAINS) -> tuple[float, float]:
    """The ``(low, high)`` of the terrain's size field in training, as the generator takes it; ``generator`` is a
    ``TerrainGeneratorCfg`` or its dict (a run's ``params/env.yaml``), Go2-Rough's by default."""
    terrain = TERRAINS[name]
    return tuple(_field(_field(generator, "sub_terrains")[terrain.key], terrain.field))


def hardest(name: str, generator=GO2_ROUGH_TERRAINS) -> float:
    """The hardest size in training (on ``generator``, Go2-Rough's by default), in the terrain's unit (metres or
    degrees)."""
    high = training_range(name, generator)[1]
    return _in_unit(name, high)


def level_sizes(name: str, generator=GO2_ROUGH_TERRAINS) -> list[tuple[float, float]]:
    """Per curriculum level (row ``r`` of ``R``, from 0), the ``[low, high)`` sizes its tiles draw, in the terrain's
    unit: Isaac Lab's curriculum gives each tile of row ``r`` a difficulty drawn uniformly from ``[r / R, (r + 1) /
    R)`` (mapped into the generator's ``difficulty_range``) and the sub-terrain interpolates its range linearly in
    it. Random rough draws over its whole range at every level (one entry per level, all the range)."""
    low, high = training_range(name, generator)
    rows, (first, last) = _field(generator, "num_rows"), _field(generator, "difficulty_range")
    if not TERRAINS[name].by_difficulty:
        return [(_in_unit(name, low), _in_unit(name, high))] * rows
    sizes = []
    for row in range(rows):
        difficulties = (first + (last - first) * row / rows, first + (last - first) * (row + 1) / rows)
        sizes.append(tuple(_in_unit(name, low + d * (high - low)) for d in difficulties))
    return sizes


def robots_by_level(levels, generator=GO2_ROUGH_TERRAINS) -> dict[str, list[int]]:
    """Per evaluated terrain (a key of :data:`TERRAINS`), how many robots stand on each curriculum level: ``levels``
    are the robots' levels in environment order (a checkpoint's ``infos["terrain_levels"]``), robot ``i`` of ``N``
    on column ``floor(i / (N / num_cols))`` (Isaac Lab's ``TerrainImporter``)."""
    levels = np.asarray(levels, dtype=int)
    rows, columns = _field(generator, "num_rows"), column_terrains(generator)
    column_of = (np.arange(len(levels)) // (len(levels) / len(columns))).astype(int)
    counts = {}
    for name, terrain in TERRAINS.items():
        on = np.array([columns[c] == terrain.key for c in column_of], dtype=bool)
        counts[name] = np.bincount(levels[on], minlength=rows).tolist()
    return counts


def first_level_with(name: str, size: float, generator=GO2_ROUGH_TERRAINS) -> int | None:
    """The lowest curriculum level whose tiles reach ``size`` (in the terrain's unit; a level's top is the limit of
    its draws); ``None`` beyond the range."""
    return next((row for row, (_, top) in enumerate(level_sizes(name, generator)) if top >= size - 1e-9), None)


def _in_unit(name: str, value: float) -> float:
    """A size as the generator takes it, in the terrain's unit (slopes: rise/run to degrees)."""
    return math.degrees(math.atan(value)) if TERRAINS[name].unit == "deg" else value


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


TALLER_SIZES = {"stairs_up": (0.15, 0.18, 0.20), "stairs_down": (0.15, 0.18, 0.20)}
"""Sizes the default grid adds, up to the trained terrain's hardest, for a policy trained beyond Go2-Rough's
ranges: household risers of 15, 18 and 20 cm (the stairs20 terrain's goal sizes and its top)."""


def default_cells(trained=None) -> list[TerrainCell]:
    """The default terrain grid (``--terrain default``) of a policy trained on the terrain generator ``trained`` (a
    ``TerrainGeneratorCfg``, or its dict as a run's ``params/env.yaml`` holds it; ``None``: Go2-Rough's):
    :data:`DEFAULT_SIZES`, then each of :data:`TALLER_SIZES` above Go2-Rough's hardest size and at most the trained
    terrain's. So stairs20 adds stairs up and down at 15, 18 and 20 cm, and Go2-Rough's grid is the default one."""
    cells = []
    for name, sizes in DEFAULT_SIZES.items():
        top = hardest(name, trained) if trained is not None else hardest(name)
        taller = [size for size in TALLER_SIZES.get(name, ()) if hardest(name) < size <= top + 1e-9]
        cells += [TerrainCell(name, size) for size in (*sizes, *taller)]
    return cells


def parse_cells(text: str, trained=None) -> list[TerrainCell]:
    """``default`` (:func:`default_cells` of a policy trained on ``trained``) or space/comma-separated cells."""
    if text.strip() == "default":
        return default_cells(trained)
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

"""Go2-Rough's terrain cells in plain MuJoCo, built from Isaac Lab's terrain generator output (nothing retyped).

:func:`terrain_from_meshes` turns its meshes into MuJoCo geoms with the same heights: box terrains into one box
column per upward rectangle, height fields into an ``hfield`` of the very samples; anything else is refused
(:class:`TerrainError`).

Why: docs/deploy.md, *Terrain cells and the height scan in MuJoCo*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import mujoco
import numpy as np

if TYPE_CHECKING:  # the task configs import Isaac Lab; the flat sim-to-sim path does without
    from ..tasks.terrain_cells import TerrainCell

BOX_DEPTH = 0.5
"""How far below the terrain's lowest vertex every box reaches [m] (only the tops are seen or touched)."""

_TOLERANCE = 1e-6
"""Geometry comparisons [m]: the generator's vertices are float32 (about 2e-6 m at 24 m from the origin)."""


class TerrainError(ValueError):
    """A terrain MuJoCo cannot reproduce exactly; the message names the cell and why."""


HFIELD_COLLIDER = mujoco.mjtDisableBit.mjDSBL_NATIVECCD
"""The flag a model with a height field sets: MuJoCo's native GJK/EPA (its default convex collider) off, libccd
instead. A height field collides as one convex prism per triangle through that collider; with the native one the
Go2 sinks into it (MuJoCo issue #2883: small spheres "sucked into" an hfield). Measured with the pretrained
Go2-Rough on a *flat* hfield (MuJoCo 3.12): a calf capsule 2.1-2.3 cm deep with two opposed horizontal contacts of
~1.4 kN, the trunk tilting to 27 deg, all 4 robots down within 3.6 s, where on a plane they walk with at most 8 deg
of tilt; with libccd they walk on the flat hfield as on the plane (max tilt 8 deg), and on 5 deg slopes (the
shipped MuJoCo grid had 2 of 4 down). Pairs with colliders of their own (the plane; spheres, capsules and boxes
among themselves) do not use it; a model without a height field keeps MuJoCo's default."""


@dataclass(frozen=True)
class HeightField:
    """A regular grid of ground heights, triangulated as Isaac Lab's ``convert_height_field_to_mesh`` does."""

    corner: tuple[float, float]
    """World x, y of sample ``[0, 0]`` [m]."""
    spacing: float
    """Distance between neighbouring samples along x and y [m]."""
    heights: np.ndarray
    """``[nx, ny]`` world z of the samples [m]; sample ``[i, j]`` lies at ``corner + (i, j) x spacing``."""

    def surface(self, x: float, y: float) -> float:
        """The ground height at ``(x, y)`` on Isaac Lab's triangles [m] (NaN outside the grid)."""
        u, v = (x - self.corner[0]) / self.spacing, (y - self.corner[1]) / self.spacing
        nx, ny = self.heights.shape
        if not (0 <= u <= nx - 1 and 0 <= v <= ny - 1):
            return float("nan")
        i, j = min(int(u), nx - 2), min(int(v), ny - 2)
        u, v = u - i, v - j
        z = self.heights
        if u >= v:  # triangle (i, j), (i + 1, j), (i + 1, j + 1)
            return float(z[i, j] + u * (z[i + 1, j] - z[i, j]) + v * (z[i + 1, j + 1] - z[i + 1, j]))
        return float(z[i, j] + v * (z[i, j + 1] - z[i, j]) + u * (z[i + 1, j + 1] - z[i, j + 1]))


@dataclass(frozen=True)
class TerrainGeometry:
    """A terrain as MuJoCo geoms: boxes and height fields, in the world frame."""

    label: str
    """What it is, e.g. ``stairs_up:0.1`` (a cell's label)."""
    boxes: np.ndarray
    """``[B, 6]`` axis-aligned boxes: lower corner x, y, z and upper corner x, y, z [m]."""
    height_fields: tuple[HeightField, ...]
    """Height-field parts."""
    origin: np.ndarray
    """``[3]`` where a robot starts: the tile's centre at the ground height there (Isaac Lab's terrain origin) [m]."""

    def surface(self, x: float, y: float) -> float:
        """The ground height at ``(x, y)`` from these parts, without MuJoCo: the highest box top or height-field
        surface over the point [m] (``-inf`` where there is none). A point on a box's edge counts as on the box."""
        b = self.boxes
        over = (b[:, 0] <= x) & (x <= b[:, 3]) & (b[:, 1] <= y) & (y <= b[:, 4])
        heights = [*b[over, 5], *(f.surface(x, y) for f in self.height_fields)]
        heights = [h for h in heights if not np.isnan(h)]
        return max(heights) if heights else float("-inf")

    def add_to(self, spec, *, friction: float, group: int, rgba=(0.55, 0.57, 0.6, 1.0)) -> list[str]:
        """Add the parts to ``spec``'s world body as static geoms in geom ``group`` with sliding ``friction``;
        returns their names (``terrain_box_<k>``, ``terrain_hfield_<k>``). With height fields, ``spec`` collides
        convex shapes through libccd (:data:`HFIELD_COLLIDER`)."""
        names = []
        if self.height_fields:
            spec.option.disableflags |= HFIELD_COLLIDER
        top = self.boxes[:, 5]
        span = max(float(np.ptp(top)), 1e-9) if len(top) else 1.0
        for k, box in enumerate(self.boxes):
            shade = 0.75 + 0.25 * (box[5] - top.min()) / span  # higher boxes lighter: steps stand out on video
            names.append(f"terrain_box_{k}")
            spec.worldbody.add_geom(
                name=names[-1],
                type=mujoco.mjtGeom.mjGEOM_BOX,
                pos=(box[:3] + box[3:]) / 2,
                size=(box[3:] - box[:3]) / 2,
                friction=[friction, 0.005, 1e-4],
                group=group,
                rgba=[shade * c for c in rgba[:3]] + [rgba[3]],
            )
        for k, field in enumerate(self.height_fields):
            nx, ny = field.heights.shape
            half = ((nx - 1) * field.spacing / 2, (ny - 1) * field.spacing / 2)
            low, high = float(field.heights.min()), float(field.heights.max())
            rise = max(high - low, 1e-6)
            # MuJoCo's rows run along y and its columns along x; it normalises the data to [0, 1] of the rise
            spec.add_hfield(
                name=f"terrain_hfield_{k}",
                nrow=ny,
                ncol=nx,
                size=[half[0], half[1], rise, BOX_DEPTH],
                userdata=((field.heights.T - low) / rise).ravel().tolist(),
            )
            names.append(f"terrain_hfield_{k}")
            spec.worldbody.add_geom(
                name=names[-1],
                type=mujoco.mjtGeom.mjGEOM_HFIELD,
                hfieldname=f"terrain_hfield_{k}",
                pos=[field.corner[0] + half[0], field.corner[1] + half[1], low],
                friction=[friction, 0.005, 1e-4],
                group=group,
                rgba=list(rgba),
            )
        return names


def terrain_from_meshes(
    meshes: list[tuple[np.ndarray, np.ndarray]], origin: np.ndarray, label: str = "terrain"
) -> TerrainGeometry:
    """MuJoCo parts for triangle meshes ``(vertices [V, 3], faces [F, 3])``: a regular height-field grid becomes a
    :class:`HeightField`, anything else must be a union of axis-aligned boxes (see the module).

    Raises:
        TerrainError: A mesh is neither (sloped faces off a regular grid, upward faces that are not rectangles).
    """
    lowest = min(float(np.asarray(v)[:, 2].min()) for v, _ in meshes)
    fields, tops = [], []
    for index, (vertices, faces) in enumerate(meshes):
        vertices, faces = np.asarray(vertices, dtype=np.float64), np.asarray(faces, dtype=np.int64)
        field = height_field(vertices, faces)
        if field is not None:
            fields.append(field)
            continue
        try:
            tops.append(box_tops(vertices, faces))
        except TerrainError as error:
            raise TerrainError(f"{label}: mesh {index} {error}") from None
    rects = np.concatenate(tops) if tops else np.zeros((0, 5))
    bottom = lowest - BOX_DEPTH
    boxes = np.column_stack([rects[:, 0], rects[:, 1], np.full(len(rects), bottom), rects[:, 2:5]])
    return TerrainGeometry(label, boxes, tuple(fields), np.asarray(origin, dtype=np.float64))


def height_field(vertices: np.ndarray, faces: np.ndarray) -> HeightField | None:
    """The :class:`HeightField` of a mesh laid out as Isaac Lab's ``convert_height_field_to_mesh`` lays one out
    (vertex ``i x ny + j`` at ``corner + (i, j) x spacing``, two triangles a cell, split from ``(i, j)`` to
    ``(i + 1, j + 1)``); ``None`` when the vertices are not such a grid.

    Raises:
        TerrainError: The vertices form a grid but the triangles split its cells otherwise.
    """
    n = len(vertices)
    changes = np.flatnonzero(np.abs(vertices[:, 0] - vertices[0, 0]) > _TOLERANCE)
    if n < 4 or len(changes) == 0 or n % changes[0] or changes[0] < 2:
        return None
    ny = int(changes[0])
    nx = n // ny
    grid = vertices.reshape(nx, ny, 3)
    spacing = float(grid[1, 0, 0] - grid[0, 0, 0])
    i, j = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    on_grid = np.allclose(grid[..., 0], grid[0, 0, 0] + i * spacing, atol=_TOLERANCE * 10) and np.allclose(
        grid[..., 1], grid[0, 0, 1] + j * spacing, atol=_TOLERANCE * 10
    )
    if spacing <= 0 or not on_grid:
        return None
    fi, fj = faces // ny, faces % ny
    ci, cj = fi.min(axis=1), fj.min(axis=1)
    di, dj = fi - ci[:, None], fj - cj[:, None]

    def has(a: int, b: int) -> np.ndarray:
        return np.any((di == a) & (dj == b), axis=1)

    # the two halves of a cell split along (0, 0)-(1, 1): {(0,0), (1,0), (1,1)} and {(0,0), (0,1), (1,1)}
    lower, upper = has(0, 0) & has(1, 1) & has(1, 0), has(0, 0) & has(1, 1) & has(0, 1)
    halves = {(int(a), int(b), bool(c)) for a, b, c in zip(ci, cj, lower, strict=True)}
    if not np.all(lower ^ upper) or len(faces) != 2 * (nx - 1) * (ny - 1) or len(halves) != len(faces):
        raise TerrainError(
            f"height-field grid {nx} x {ny}: its triangles do not split each cell from (i, j) to (i + 1, j + 1) "
            "as MuJoCo's hfield does"
        )
    corner = (float(grid[0, 0, 0]), float(grid[0, 0, 1]))
    return HeightField(corner, spacing, grid[..., 2].copy())


def box_tops(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """``[K, 5]`` upward-facing axis-aligned rectangles of a union of axis-aligned boxes: x low, y low, x high,
    y high, z [m]; each is two horizontal triangles sharing their longest edge.

    Raises:
        TerrainError: A face is neither horizontal nor vertical, or an upward face is not half of a rectangle.
    """
    triangles = vertices[faces]  # [F, 3 vertices, 3]
    normals = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    length = np.linalg.norm(normals, axis=1)
    flat = np.ptp(triangles[:, :, 2], axis=1) <= _TOLERANCE
    upright = np.abs(normals[:, 2]) <= _TOLERANCE * length
    if not np.all(flat | upright):
        k = int(np.flatnonzero(~(flat | upright))[0])
        raise TerrainError(f"has a sloped face off a regular height-field grid: {triangles[k].round(4).tolist()}")
    up = triangles[flat & (normals[:, 2] > 0)]
    # pair the halves of each rectangle by their shared diagonal (the longest edge of a right triangle)
    pairs: dict[tuple, list[np.ndarray]] = {}
    for tri in up:
        a, b = max(((0, 1), (1, 2), (2, 0)), key=lambda e: np.linalg.norm(tri[e[0]] - tri[e[1]]))
        ends = sorted((tuple(np.round(tri[a], 6)), tuple(np.round(tri[b], 6))))
        pairs.setdefault(tuple(ends), []).append(tri)
    rects = set()
    for halves in pairs.values():
        corners = np.concatenate(halves)
        low, high = corners.min(axis=0), corners.max(axis=0)
        area = sum(0.5 * abs(np.cross(t[1] - t[0], t[2] - t[0])[2]) for t in halves)
        at_corners = np.all(
            (np.abs(corners[:, :2] - low[:2]) <= _TOLERANCE) | (np.abs(corners[:, :2] - high[:2]) <= _TOLERANCE)
        )
        rect_area = (high[0] - low[0]) * (high[1] - low[1])
        distinct = len({tuple(np.round(c[:2], 6)) for c in corners})
        whole = len(halves) % 2 == 0 and abs(area - rect_area * len(halves) / 2) <= _TOLERANCE * max(1.0, rect_area)
        if not (at_corners and whole and distinct == 4):
            raise TerrainError(f"has an upward face that is not a rectangle: {corners.round(4).tolist()}")
        rects.add((low[0], low[1], high[0], high[1], high[2]))
    return np.array(sorted(rects), dtype=np.float64).reshape(-1, 5)


def generated_meshes(generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """An Isaac Lab ``TerrainGenerator``'s meshes (the tiles, then the border) in its world frame: the generator
    shifts only its combined ``terrain_mesh`` to centre the layout; the same shift is applied to each part.

    Raises:
        TerrainError: The parts, shifted, are not the combined mesh (the generator changed how it combines them).
    """
    parts = generator.terrain_meshes
    combined = np.asarray(generator.terrain_mesh.vertices)
    shift = combined[0] - np.asarray(parts[0].vertices)[0]
    stacked = np.concatenate([np.asarray(p.vertices) for p in parts]) + shift
    if stacked.shape != combined.shape or not np.allclose(stacked, combined, atol=_TOLERANCE):
        raise TerrainError("the terrain generator's parts, shifted as its combined mesh, do not make that mesh")
    return [(np.asarray(p.vertices) + shift, np.asarray(p.faces)) for p in parts]


def build_cell(cell: TerrainCell, seed: int | None = None) -> TerrainGeometry:
    """The cell's tile and the generator's border from Isaac Lab's terrain generator, as MuJoCo parts.

    Raises:
        TerrainError: The cell cannot be reproduced exactly (a height field with vertical-face corrections).
    """
    # Isaac Lab's terrain generator and the task configs (heavy): only a terrain cell needs them
    from isaaclab.terrains import TerrainGenerator
    from isaaclab.terrains.height_field import HfTerrainBaseCfg

    from ..tasks.terrain_cells import TERRAIN_SEED, cells_generator

    cfg = cells_generator([cell], seed=TERRAIN_SEED if seed is None else seed)
    generator = TerrainGenerator(cfg, device="cpu")
    try:
        return terrain_from_meshes(generated_meshes(generator), generator.terrain_origins[0, 0], label=cell.label())
    except TerrainError:
        if not isinstance(cell.sub_terrain_cfg(), HfTerrainBaseCfg):
            raise
        threshold, step = cfg.slope_threshold, cfg.slope_threshold * cfg.horizontal_scale
        raise TerrainError(
            f"{cell.label()}: Isaac Lab's generator makes faces steeper than its slope_threshold of {threshold:g} "
            "vertical by moving height-field samples sideways, which a MuJoCo hfield cannot reproduce; accepted: "
            f"slopes up to {math.degrees(math.atan(threshold)):.1f} degrees, random rough whose neighbouring "
            f"samples differ by at most {100 * step:.1f} cm"
        ) from None


FLAT = "flat"
"""The ground that is no cell: the floor plane (``scripts/sim_go2.py --terrain flat``, its default)."""

STAIRCASE = "staircase"
"""A building's straight staircase, ``staircase:RISER`` [m] (:class:`Staircase`): not a training cell."""


@dataclass(frozen=True)
class Staircase:
    """A straight staircase as a building has one: a run-up, ``risers`` steps up, a landing, ``risers`` steps down
    and the floor again, ``width`` wide, on a floor wider than it (a robot that veers steps off its side). The robot
    starts on the floor at x = y = 0 facing +x, towards the first riser.

    Why: issue 56's check on the robot's side (a person walks a Go2 up, across and down), where the terrain cells
    are pyramids the policy can leave in any direction.
    """

    riser: float
    """Step height [m]; homes and offices: 0.15-0.18."""
    risers: int = 6
    """Risers up, and again down (the landing is the top of the last one up)."""
    tread: float = 0.28
    """Step depth [m]: 11 in, the International Building Code's least for a 7 in (17.8 cm) riser."""
    landing: float = 2.0
    """Length of the landing at the top [m]."""
    width: float = 3.0
    """Width of the flight [m]."""
    run_up: float = 1.0
    """Floor from the start to the first riser [m]."""
    floor_width: float = 7.0
    """Width of the floor around the flight [m]."""
    run_out: float = 10.0
    """Floor beyond the last riser down [m]: more than a crossing script walks past it at full pace (0.5 m/s for
    25 s from the start is 12.5 m, 6.7 m past an 18 cm staircase's last riser), so no robot walks off its end."""

    def __post_init__(self):
        if not (math.isfinite(self.riser) and 0.0 < self.riser <= 0.3):
            raise ValueError(f"{STAIRCASE}:{self.riser:g}: the riser must be in (0, 0.3] m, e.g. {STAIRCASE}:0.18")

    @property
    def landing_start(self) -> float:
        """x of the landing's near edge: the last riser up [m]."""
        return self.run_up + (self.risers - 1) * self.tread

    @property
    def end(self) -> float:
        """x of the last riser down, where the floor begins again [m]."""
        return self.landing_start + self.landing + (self.risers - 1) * self.tread

    def tops(self) -> list[tuple[float, float, float]]:
        """``(x low, x high, height)`` of every tread and the landing, in walking order [m]."""
        n, t, h = self.risers, self.tread, self.riser
        up = [(self.run_up + i * t, self.run_up + (i + 1) * t, (i + 1) * h) for i in range(n - 1)]
        landing = [(self.landing_start, self.landing_start + self.landing, n * h)]
        start = self.landing_start + self.landing
        down = [(start + j * t, start + (j + 1) * t, (n - 1 - j) * h) for j in range(n - 1)]
        return up + landing + down

    def geometry(self) -> TerrainGeometry:
        """The floor and the steps as boxes reaching :data:`BOX_DEPTH` below the floor."""
        half, bottom = self.width / 2, -BOX_DEPTH
        floor = [-2.0, -self.floor_width / 2, bottom, self.end + self.run_out, self.floor_width / 2, 0.0]
        steps = [[x0, -half, bottom, x1, half, z] for x0, x1, z in self.tops()]
        return TerrainGeometry(f"{STAIRCASE}:{self.riser:g}", np.array([floor, *steps]), (), np.zeros(3))


def parse_staircase(text: str) -> Staircase:
    """``staircase:RISER`` (metres, e.g. ``staircase:0.18``).

    Raises:
        ValueError: Not that form, or a riser out of range; one line naming the text and what is accepted.
    """
    name, _, value = text.strip().partition(":")
    try:
        if name != STAIRCASE:
            raise ValueError
        riser = float(value)
    except ValueError:
        raise ValueError(
            f"{text}: a staircase is {STAIRCASE}:RISER, the riser in metres, e.g. {STAIRCASE}:0.18"
        ) from None
    return Staircase(riser)


def build_ground(text: str) -> TerrainGeometry | None:
    """One cell named as ``scripts/sim2sim.py --terrain`` names one (``stairs_up:0.10``, ``slopes_down:20``:
    :func:`~go2_locomotion.tasks.terrain_cells.parse_cell`), built by :func:`build_cell`; a building's staircase
    (``staircase:0.18``, :class:`Staircase`); ``None`` for :data:`FLAT`, the floor plane.

    Raises:
        ValueError: Not one cell, or a cell MuJoCo cannot reproduce (:class:`TerrainError`); one line that starts
            with the text or the cell.
    """
    if text.strip() == FLAT:
        return None
    if text.strip().startswith(f"{STAIRCASE}:"):
        return parse_staircase(text).geometry()
    if text.strip() == "default" or len(text.replace(",", " ").split()) != 1:
        raise ValueError(
            f"{text}: one cell (e.g. stairs_up:0.10) or {FLAT}; the terrain grid of several cells runs in "
            "scripts/sim2sim.py --terrain"
        )
    # the task configs import Isaac Lab (heavy): only a terrain cell needs them
    from ..tasks.terrain_cells import parse_cell

    try:
        cell = parse_cell(text.strip())
    except ValueError as error:
        raise ValueError(f"{text}: {error} (or {FLAT}: the floor)") from None
    return build_cell(cell)

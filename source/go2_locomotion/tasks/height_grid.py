"""A height grid of a static terrain mesh, built once by casting one ray straight down per node, from which the
ground height below a ray start is read by interpolation instead of a ray cast.

Invariant: :data:`scan_kernel` equals Isaac Lab's straight-down ray cast at every ray. Nodes lie on multiples of the
resolution in world coordinates, and a cell is read as two triangles split along its (0, 0)-(1, 1) diagonal, the
triangulation of Isaac Lab's height-field terrains (``convert_height_field_to_mesh``); so with a resolution that
divides the generator's horizontal scale every height-field triangle is reproduced exactly, as is every flat or
planar patch covering a whole cell. What interpolation cannot reproduce, a step edge inside a cell, is marked:
:attr:`HeightGrid.walls` flags each cell a wall (a triangle steeper than :data:`WALL_NORMAL_Z`) touches, and the
rays that land there are cast at the mesh as Isaac Lab's kernel casts them.

The reads are Warp kernels, serial loops on a CPU like Isaac Lab's ray cast: no thread pool to wait on while the
physics engine's threads run.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import warp as wp

# Imported inside functions: Isaac Lab's ray-cast kernel, needed only when a grid is built from a mesh.

WALL_NORMAL_Z = 0.5
"""A triangle whose unit normal has ``|z|`` below this is a wall [-] (steeper than 60 degrees): Go2-Rough's steepest
walkable surface is a 0.4 slope (22 degrees, normal z 0.93), its random-rough height field tilts at most 0.71
(normal z 0.82), and the risers of its stairs and boxes are vertical (normal z 0)."""

WALL_TOLERANCE = 1e-4
"""Margin added around a wall's footprint when its cells are marked [m]: a riser on a node line marks the cells on
both sides (the node's own ray may hit either step)."""

MAX_NODES = 2**27
"""Most nodes a grid may have [-]: 134 M nodes, 0.67 GB of heights and wall flags; Go2-Rough's terrain at 5 cm has
9.6 M. Isaac Lab's stand-in for a ground plane, a 2,000 km square, would need 1.6e18."""


class GridTooLarge(ValueError):
    """The mesh spans more nodes at the resolution than :data:`MAX_NODES`."""


ROWS_PER_LAUNCH = 256
"""Grid rows cast per kernel launch while building [-]: bounds the ray buffers (3 arrays of 12 bytes per node) at
~37 MB for Go2-Rough's 4,001 nodes per row at 5 cm."""


@wp.struct
class GridArrays:
    """A :class:`HeightGrid` as the kernels read it."""

    heights: wp.array2d(dtype=wp.float32)
    walls: wp.array2d(dtype=wp.bool)
    x0: float
    y0: float
    resolution: float


@wp.func
def locate(grid: GridArrays, x: float, y: float) -> wp.vec4f:
    """``(i, j, fu, fv)``: the cell whose lowest node is ``(i, j)`` and the point's place in it (``0..1``);
    ``i = -1`` outside the grid (or for a NaN)."""
    nx = grid.heights.shape[0]
    ny = grid.heights.shape[1]
    u = (x - grid.x0) / grid.resolution
    v = (y - grid.y0) / grid.resolution
    if not (u >= 0.0 and u <= float(nx - 1) and v >= 0.0 and v <= float(ny - 1)):
        return wp.vec4f(-1.0, -1.0, 0.0, 0.0)
    i = wp.min(wp.floor(u), float(nx - 2))
    j = wp.min(wp.floor(v), float(ny - 2))
    return wp.vec4f(i, j, u - i, v - j)


@wp.func
def interpolate(grid: GridArrays, cell: wp.vec4f) -> float:
    """The height at ``cell`` (:func:`locate`) on the cell's triangle, ``inf`` beside a node whose ray missed."""
    i = int(cell[0])
    j = int(cell[1])
    fu = cell[2]
    fv = cell[3]
    # the two triangles share the diagonal (0, 0)-(1, 1); the third corner is (1, 0) where fu >= fv, else (0, 1)
    h00 = grid.heights[i, j]
    h11 = grid.heights[i + 1, j + 1]
    third = grid.heights[i, j + 1]
    if fu >= fv:
        third = grid.heights[i + 1, j]
    z = h00 + wp.max(fu, fv) * (third - h00) + wp.min(fu, fv) * (h11 - third)
    if wp.isnan(z):
        return wp.inf
    return z


@wp.kernel(enable_backward=False)
def sample_kernel(
    grid: GridArrays, points: wp.array(dtype=wp.vec2f), z: wp.array(dtype=wp.float32), wall: wp.array(dtype=wp.bool)
):
    """Interpolated height and wall flag at each point (launch over the points)."""
    k = wp.tid()
    cell = locate(grid, points[k][0], points[k][1])
    z[k] = wp.inf
    wall[k] = False
    if cell[0] >= 0.0:
        z[k] = interpolate(grid, cell)
        wall[k] = grid.walls[int(cell[0]), int(cell[1])]


@wp.kernel(enable_backward=False)
def scan_kernel(
    grid: GridArrays,
    mesh: wp.uint64,
    env_mask: wp.array(dtype=wp.bool),
    ray_starts: wp.array2d(dtype=wp.vec3f),
    ray_directions: wp.array2d(dtype=wp.vec3f),
    max_dist: float,
    ray_cast_drift: wp.array(dtype=wp.vec3f),
    ray_hits: wp.array2d(dtype=wp.vec3f),
    ray_distances: wp.array2d(dtype=wp.float32),
    write_distances: int,
):
    """What Isaac Lab's ray caster writes for straight-down rays (launch over environments x rays): each hit point,
    ``inf`` for a miss, its z moved by the environment's ray-cast drift; the distance where asked. Rays in wall cells
    are cast at ``mesh`` as Isaac Lab's ``raycast_mesh_masked_kernel`` casts them; the others read the grid."""
    env, ray = wp.tid()
    if not env_mask[env]:
        return
    start = ray_starts[env, ray]
    cell = locate(grid, start[0], start[1])
    distance = float(wp.inf)
    hit = wp.vec3f(wp.inf, wp.inf, wp.inf)
    if cell[0] >= 0.0:
        if grid.walls[int(cell[0]), int(cell[1])]:
            direction = ray_directions[env, ray]
            # outputs of the query: variables, not constants (as in Isaac Lab's kernel)
            t = wp.float32(0.0)
            u = wp.float32(0.0)
            v = wp.float32(0.0)
            sign = wp.float32(0.0)
            n = wp.vec3f()
            f = wp.int32(0)
            if wp.mesh_query_ray(mesh, start, direction, max_dist, t, u, v, sign, n, f):
                distance = t
                hit = start + t * direction
        else:
            z = interpolate(grid, cell)
            if start[2] - z <= max_dist:
                distance = start[2] - z
                hit = wp.vec3f(start[0], start[1], z)
    ray_hits[env, ray] = wp.vec3f(hit[0], hit[1], hit[2] + ray_cast_drift[env][2])
    if write_distances == 1:
        ray_distances[env, ray] = distance


class HeightGrid:
    """Ground heights on a regular grid in the world's x-y plane and the cells that hold a wall."""

    def __init__(self, origin: tuple[float, float], resolution: float, heights: torch.Tensor, walls: torch.Tensor):
        wp.init()
        self.origin = (float(origin[0]), float(origin[1]))
        """World x, y of node ``(0, 0)`` [m]."""
        self.resolution = float(resolution)
        """Node spacing in x and y [m]."""
        self.heights = heights.to(torch.float32).contiguous()
        """``[nx, ny]`` ground height at each node [m]; NaN where the node's ray hit nothing."""
        self.walls = walls.to(torch.bool).contiguous()
        """``[nx, ny]`` True at the lowest node of each cell a wall touches (interpolation is not the surface
        there); the last row and column, which start no cell, are False."""
        self.arrays = GridArrays()
        """The grid as :data:`sample_kernel` and :data:`scan_kernel` read it (views of the tensors)."""
        self.arrays.heights = wp.from_torch(self.heights)
        self.arrays.walls = wp.from_torch(self.walls, dtype=wp.bool)
        self.arrays.x0, self.arrays.y0, self.arrays.resolution = self.origin[0], self.origin[1], self.resolution

    @property
    def nbytes(self) -> int:
        """Memory of the heights and the wall flags [bytes]."""
        return self.heights.element_size() * self.heights.numel() + self.walls.element_size() * self.walls.numel()

    def sample(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The interpolated ground height below each point and whether the point lies in a wall cell.

        Args:
            x, y: World coordinates [m], any shape (the same for both).

        Returns:
            ``(z, wall)`` of the same shape, on the grid's device: the height [m] on the cell's triangle, ``inf``
            outside the grid or beside a node whose ray hit nothing (as a ray that misses); True in a wall cell.
        """
        points = torch.stack((x, y), dim=-1).to(self.heights.device, torch.float32).reshape(-1, 2).contiguous()
        z = torch.empty(points.shape[0], device=self.heights.device)
        wall = torch.empty(points.shape[0], dtype=torch.bool, device=self.heights.device)
        wp.launch(
            sample_kernel,
            dim=points.shape[0],
            inputs=[self.arrays, wp.from_torch(points, dtype=wp.vec2f)],
            outputs=[wp.from_torch(z), wp.from_torch(wall, dtype=wp.bool)],
            device=self.arrays.heights.device,
        )
        return z.reshape(x.shape), wall.reshape(x.shape)


def node_range(low: float, high: float, resolution: float) -> tuple[float, int]:
    """The first node (a multiple of ``resolution`` at or below ``low``) and the node count that reaches ``high``."""
    first = math.floor(low / resolution + 1e-9) * resolution
    return first, math.ceil((high - first) / resolution - 1e-9) + 1


def wall_cells(
    points: np.ndarray, faces: np.ndarray, origin: tuple[float, float], resolution: float, cells: tuple[int, int]
) -> np.ndarray:
    """``[nx, ny]`` bool: True at the lowest node of each grid cell that the x-y footprint of a wall triangle
    touches (the last row and column False).

    Args:
        points: ``[V, 3]`` mesh vertices [m].
        faces: ``[F, 3]`` vertex indices of the triangles.
        origin: World x, y of node ``(0, 0)`` [m].
        resolution: Node spacing [m].
        cells: ``(nx - 1, ny - 1)``, the grid's cell counts.
    """
    corners = points[faces].astype(np.float64)  # [F, 3, 3]
    normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    length = np.linalg.norm(normal, axis=1)
    steep = (length > 0) & (np.abs(normal[:, 2]) < WALL_NORMAL_Z * length)
    xy = corners[steep, :, :2]
    low = np.floor((xy.min(axis=1) - WALL_TOLERANCE - origin) / resolution).astype(np.int64)
    high = np.floor((xy.max(axis=1) + WALL_TOLERANCE - origin) / resolution).astype(np.int64)
    low = np.clip(low, 0, np.array(cells) - 1)
    high = np.clip(high, 0, np.array(cells) - 1)
    # each footprint's rectangle of cells, summed through a 2-D difference array
    marks = np.zeros((cells[0] + 1, cells[1] + 1), dtype=np.int32)
    np.add.at(marks, (low[:, 0], low[:, 1]), 1)
    np.add.at(marks, (high[:, 0] + 1, low[:, 1]), -1)
    np.add.at(marks, (low[:, 0], high[:, 1] + 1), -1)
    np.add.at(marks, (high[:, 0] + 1, high[:, 1] + 1), 1)
    return marks.cumsum(axis=0, dtype=np.int32).cumsum(axis=1, dtype=np.int32) > 0


def rasterise(mesh, resolution: float) -> HeightGrid:
    """The height grid of a Warp mesh: one ray straight down per node, cast from 1 m above the mesh's top with
    Isaac Lab's ray-cast kernel (the one its ray caster uses), over the mesh's x-y bounds.

    Args:
        mesh: A ``warp.Mesh`` (static, world coordinates).
        resolution: Node spacing [m].

    Raises:
        GridTooLarge: For more than :data:`MAX_NODES` nodes.
    """
    from isaaclab.utils.warp.kernels import raycast_mesh_masked_kernel  # Isaac Lab's own kernel: after the launch

    points = mesh.points.numpy()
    device = str(mesh.points.device)
    (x0, nx), (y0, ny) = (node_range(points[:, k].min(), points[:, k].max(), resolution) for k in (0, 1))
    if nx * ny > MAX_NODES:
        raise GridTooLarge(
            f"the mesh spans {np.ptp(points[:, 0]):.4g} m x {np.ptp(points[:, 1]):.4g} m: {nx * ny:.3g} nodes at "
            f"{resolution:g} m, over {MAX_NODES:,}"
        )
    top, depth = float(points[:, 2].max()) + 1.0, float(np.ptp(points[:, 2])) + 2.0
    heights = torch.empty((nx, ny), dtype=torch.float32)
    rows = min(ROWS_PER_LAUNCH, nx)
    starts = torch.empty((rows, ny, 3), dtype=torch.float32)
    starts[..., 1] = torch.as_tensor(y0 + resolution * np.arange(ny), dtype=torch.float32)
    starts[..., 2] = top
    directions = torch.zeros((rows, ny, 3), dtype=torch.float32)
    directions[..., 2] = -1.0
    dummy_distance = wp.empty((1, 1), dtype=wp.float32, device=device)
    dummy_normal = wp.empty((1, 1), dtype=wp.vec3f, device=device)
    for first in range(0, nx, rows):
        count = min(rows, nx - first)
        xs = x0 + resolution * np.arange(first, first + count)
        starts[:count, :, 0] = torch.as_tensor(xs, dtype=torch.float32)[:, None]
        hits = torch.full((count, ny, 3), math.inf, device=device)
        wp.launch(
            raycast_mesh_masked_kernel,
            dim=(count, ny),
            inputs=[
                mesh.id,
                wp.ones(count, dtype=wp.bool, device=device),
                wp.from_torch(starts[:count].to(device), dtype=wp.vec3f),
                wp.from_torch(directions[:count].to(device), dtype=wp.vec3f),
                depth,
                0,
                0,
                wp.from_torch(hits, dtype=wp.vec3f),
                dummy_distance,
                dummy_normal,
            ],
            device=device,
        )
        z = hits[..., 2].cpu()
        heights[first : first + count] = torch.where(z.isinf(), math.nan, z)
    faces = mesh.indices.numpy().reshape(-1, 3)
    walls = wall_cells(points, faces, (x0, y0), resolution, (nx - 1, ny - 1))
    return HeightGrid((x0, y0), resolution, heights.to(device), torch.as_tensor(walls, device=device))

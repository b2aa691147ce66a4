"""A height grid of a static terrain mesh, built once by casting one ray straight down per node, from which the
ground height below any point is read by interpolation instead of a ray cast.

Invariant: where the grid reads the surface it equals Isaac Lab's straight-down ray cast. Nodes lie on multiples of
the resolution in world coordinates, and each cell is read as two triangles split along its (0, 0)-(1, 1) diagonal,
the triangulation Isaac Lab's height-field terrains use (``convert_height_field_to_mesh``); so with a resolution that
divides the generator's horizontal scale every height-field triangle is reproduced exactly, as is every flat or
planar patch that covers a whole cell. What interpolation cannot reproduce, a step edge inside a cell, is marked:
:attr:`HeightGrid.walls` flags every cell that a wall (a triangle steeper than :data:`WALL_NORMAL_Z`) touches, and
the scanner casts the rays that land there (:mod:`.height_scanner`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

# Imported inside functions: Warp and Isaac Lab's ray-cast kernel, needed only when a grid is built from a mesh.

WALL_NORMAL_Z = 0.5
"""A triangle whose unit normal has ``|z|`` below this is a wall [-] (steeper than 60 degrees): Go2-Rough's steepest
walkable surface is a 0.4 slope (22 degrees, normal z 0.93), its random-rough height field tilts at most 0.71
(normal z 0.82), and the risers of its stairs and boxes are vertical (normal z 0)."""

WALL_TOLERANCE = 1e-4
"""Margin added around a wall's footprint when its cells are marked [m]: a riser on a node line marks the cells on
both sides (the node's own ray may hit either step)."""

ROWS_PER_LAUNCH = 256
"""Grid rows cast per kernel launch while building [-]: bounds the ray buffers (3 arrays of 12 bytes per node) at
~37 MB for Go2-Rough's 4,001 nodes per row at 5 cm."""


@dataclass(frozen=True)
class HeightGrid:
    """Ground heights on a regular grid in the world's x-y plane and the cells that hold a wall."""

    origin: tuple[float, float]
    """World x, y of node ``(0, 0)`` [m]."""
    resolution: float
    """Node spacing in x and y [m]."""
    heights: torch.Tensor
    """``[nx, ny]`` ground height at each node [m] (float32); NaN where the node's ray hit nothing."""
    walls: torch.Tensor
    """``[nx, ny]`` True for the cell whose lowest corner is the node when a wall touches the cell (interpolation
    is not the surface there); the last row and column, which start no cell, are False."""

    @property
    def nbytes(self) -> int:
        """Memory of the heights and the wall flags [bytes]."""
        return self.heights.element_size() * self.heights.numel() + self.walls.element_size() * self.walls.numel()

    def sample(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The ground height below each point and whether the point lies in a wall cell.

        Args:
            x, y: World coordinates [m], any shape (the same for both), on the grid's device.

        Returns:
            ``(z, wall)``: the height [m] by linear interpolation on the cell's triangle, ``inf`` outside the grid
            or where a corner's ray hit nothing (as a ray that misses); ``wall`` True where the cell holds a wall.
        """
        nx, ny = self.heights.shape
        u = (x - self.origin[0]) / self.resolution
        v = (y - self.origin[1]) / self.resolution
        inside_u, inside_v = u.clamp(0, nx - 1), v.clamp(0, ny - 1)
        inside = (inside_u == u) & (inside_v == v)  # False for NaN too
        i, j = inside_u.nan_to_num(0).floor().clamp(max=nx - 2), inside_v.nan_to_num(0).floor().clamp(max=ny - 2)
        fu, fv = inside_u - i, inside_v - j
        node = (i * ny + j).long()
        # the cell's two triangles share the diagonal (0, 0)-(1, 1); the third corner is (1, 0) where fu >= fv, else
        # (0, 1): z = h00 + max(fu, fv) (h_third - h00) + min(fu, fv) (h11 - h_third)
        below = fu >= fv
        flat = self.heights.reshape(-1)
        h00, h11 = flat[node], flat[node + (ny + 1)]
        third = flat[node + torch.where(below, ny, 1)]
        z = h00 + torch.maximum(fu, fv) * (third - h00) + torch.minimum(fu, fv) * (h11 - third)
        z.masked_fill_(~inside | z.isnan(), math.inf)
        return z, self.walls.reshape(-1)[node] & inside


def node_range(low: float, high: float, resolution: float) -> tuple[float, int]:
    """The first node (a multiple of ``resolution`` at or below ``low``) and the node count that reaches ``high``."""
    first = math.floor(low / resolution + 1e-9) * resolution
    return first, math.ceil((high - first) / resolution - 1e-9) + 1


def wall_cells(
    points: np.ndarray, faces: np.ndarray, origin: tuple[float, float], resolution: float, cells: tuple[int, int]
) -> np.ndarray:
    """``[nx, ny]`` bool: True at the lowest corner of each grid cell that the x-y footprint of a wall triangle
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
    """
    import warp as wp  # Warp and Isaac Lab: heavy, and only a build needs them
    from isaaclab.utils.warp.kernels import raycast_mesh_masked_kernel

    points = mesh.points.numpy()
    device = str(mesh.points.device)
    (x0, nx), (y0, ny) = (node_range(points[:, k].min(), points[:, k].max(), resolution) for k in (0, 1))
    top, depth = float(points[:, 2].max()) + 1.0, float(np.ptp(points[:, 2])) + 2.0
    ys = torch.as_tensor(y0 + resolution * np.arange(ny), dtype=torch.float32)
    heights = torch.empty((nx, ny), dtype=torch.float32)
    rows = min(ROWS_PER_LAUNCH, nx)
    starts = torch.empty((rows, ny, 3), dtype=torch.float32)
    starts[..., 1], starts[..., 2] = ys, top
    directions = torch.zeros((rows, ny, 3), dtype=torch.float32)
    directions[..., 2] = -1.0
    dummy_distance = wp.empty((1, 1), dtype=wp.float32, device=device)
    dummy_normal = wp.empty((1, 1), dtype=wp.vec3f, device=device)
    for first in range(0, nx, rows):
        count = min(rows, nx - first)
        xs = x0 + resolution * np.arange(first, first + count)
        starts[:count, :, 0] = torch.as_tensor(xs, dtype=torch.float32)[:, None]
        hits = torch.full((count, ny, 3), math.inf)
        hits_wp = wp.from_torch(hits.to(device), dtype=wp.vec3f)
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
                hits_wp,
                dummy_distance,
                dummy_normal,
            ],
            device=device,
        )
        z = wp.to_torch(hits_wp)[..., 2].cpu()
        heights[first : first + count] = torch.where(z.isinf(), math.nan, z)
    faces = mesh.indices.numpy().reshape(-1, 3)
    walls = wall_cells(points, faces, (x0, y0), resolution, (nx - 1, ny - 1))
    return HeightGrid((x0, y0), resolution, heights.to(device), torch.as_tensor(walls, device=device))

"""The height grid against heights worked out by hand: its interpolation on a grid written by hand, and grids
rasterised from small meshes (a plane, a slope, a step, a height-field quad folded along its diagonal); the
scanner config's named refusals."""

import math

import numpy as np
import pytest
import torch

from go2_locomotion.tasks.height_grid import GridTooLarge, HeightGrid, node_range, rasterise, wall_cells
from go2_locomotion.tasks.height_scanner import config_problems
from go2_locomotion.tasks.velocity_env_cfg import Go2RoughEnvCfg


def _mesh(points, faces):
    import warp as wp

    return wp.Mesh(
        points=wp.array(np.asarray(points, dtype=np.float32), dtype=wp.vec3, device="cpu"),
        indices=wp.array(np.asarray(faces, dtype=np.int32).flatten(), dtype=wp.int32, device="cpu"),
    )


def _quad(x0, x1, y0, y1, z0, z1=None):
    """Two triangles of a rectangle in x-y (z from z0 at x0 to z1 at x1), or of a vertical wall when x0 == x1."""
    z1 = z0 if z1 is None else z1
    if x0 == x1:  # a riser at x = x0 from z0 up to z1
        return [(x0, y0, z0), (x0, y1, z0), (x0, y1, z1), (x0, y0, z1)]
    return [(x0, y0, z0), (x1, y0, z1), (x1, y1, z1), (x0, y1, z0)]


def _quads_mesh(quads):
    points = [p for quad in quads for p in quad]
    faces = [(4 * k + a, 4 * k + b, 4 * k + c) for k in range(len(quads)) for a, b, c in ((0, 1, 2), (0, 2, 3))]
    return _mesh(points, faces)


def _at(grid, *xy):
    z, wall = grid.sample(torch.tensor([p[0] for p in xy]), torch.tensor([p[1] for p in xy]))
    return z.tolist(), wall.tolist()


def test_a_cell_is_read_as_two_triangles_split_along_its_diagonal():
    # nodes: h(0,0) = 0, h(0,1) = 1, h(1,0) = 2, h(1,1) = 3 (x first), 1 m apart
    grid = HeightGrid((0.0, 0.0), 1.0, torch.tensor([[0.0, 1.0], [2.0, 3.0]]), torch.zeros(2, 2, dtype=torch.bool))
    z, wall = _at(grid, (0.5, 0.25), (0.25, 0.5), (0.5, 0.5), (1.0, 1.0), (0.0, 0.0))
    # below the diagonal (x >= y): 0 + 0.5 (2 - 0) + 0.25 (3 - 2) = 1.25; above it: 0 + 0.5 (1 - 0) + 0.25 (3 - 1) = 1.0
    assert z == pytest.approx([1.25, 1.0, 1.5, 3.0, 0.0])
    assert wall == [False] * 5


def test_outside_the_grid_or_beside_a_node_that_missed_reads_as_a_miss():
    heights = torch.tensor([[0.0, 0.0, math.nan], [0.0, 0.0, 0.0]])
    grid = HeightGrid((10.0, 20.0), 0.5, heights, torch.zeros(2, 3, dtype=torch.bool))
    z, _ = _at(grid, (9.9, 20.2), (10.2, 21.01), (10.2, 20.2), (10.1, 20.9), (math.nan, 20.2), (math.inf, 20.2))
    assert z == [math.inf, math.inf, 0.0, math.inf, math.inf, math.inf]


def test_nodes_lie_on_multiples_of_the_resolution():
    assert node_range(-60.0, 60.0, 0.05) == (-60.0, 2401)
    assert node_range(0.12, 0.31, 0.1) == (pytest.approx(0.1), 4)  # nodes 0.1, 0.2, 0.3 and 0.4, which reaches 0.31
    assert node_range(-0.05, 0.0, 0.05) == (-0.05, 2)


def test_a_plane_and_a_slope_read_their_heights():
    plane = rasterise(_quads_mesh([_quad(0.0, 1.0, 0.0, 1.0, 0.3)]), 0.25)
    assert plane.heights.shape == (5, 5)
    z, wall = _at(plane, (0.4, 0.7), (0.0, 0.0), (1.2, 0.5))
    assert z == pytest.approx([0.3, 0.3, math.inf])
    assert wall == [False, False, False]
    # z = 0.05 + 0.2 x over x 0..2 (rising 0.4 m): at x = 1.3, 0.05 + 0.26 = 0.31; at x = 0.1, 0.07
    slope = rasterise(_quads_mesh([_quad(0.0, 2.0, 0.0, 1.0, 0.05, 0.45)]), 0.25)
    z, wall = _at(slope, (1.3, 0.45), (0.1, 0.9), (1.99, 0.01))
    assert z == pytest.approx([0.31, 0.07, 0.448], abs=1e-6)
    assert not any(wall)


def test_a_mesh_too_large_for_a_grid_is_refused_before_it_is_cast():
    # Isaac Lab's ground plane is a 2,000 km square: at 1 m, 2,000,001^2 = 4.0e12 nodes, over 2^27
    with pytest.raises(GridTooLarge, match=r"spans 2e\+06 m x 2e\+06 m: 4e\+12 nodes at 1 m, over 134,217,728"):
        rasterise(_quads_mesh([_quad(-1e6, 1e6, -1e6, 1e6, 0.0)]), 1.0)


@pytest.mark.parametrize(("edge", "wall_columns"), [(1.0, [3, 4]), (1.1, [4])])
def test_a_step_marks_the_cells_its_riser_touches(edge, wall_columns):
    """Floor at 0 up to ``edge``, a vertical riser, a 0.1 m step beyond: 0.25 m cells. A riser on a node line (x =
    1.0) marks the cells on both sides, one inside a cell (x = 1.1) that cell only."""
    step = [_quad(0.0, edge, 0.0, 1.0, 0.0), _quad(edge, edge, 0.0, 1.0, 0.0, 0.1), _quad(edge, 2.0, 0.0, 1.0, 0.1)]
    grid = rasterise(_quads_mesh(step), 0.25)
    assert grid.walls.shape == (9, 5)
    assert grid.walls.any(dim=1).nonzero().flatten().tolist() == wall_columns
    assert grid.walls[wall_columns[0], :4].all() and not grid.walls[:, 4].any()
    z, wall = _at(grid, (0.6, 0.5), (1.4, 0.5), (1.05, 0.5))
    assert z[:2] == pytest.approx([0.0, 0.1], abs=1e-6)
    assert wall == [False, False, True]


def test_a_height_field_quad_is_reproduced_on_both_triangles():
    """Isaac Lab's height-field triangulation: corners (0, 0) 0 m, (0.1, 0) 0.04 m, (0, 0.1) 0.02 m,
    (0.1, 0.1) 0.01 m, folded along (0, 0)-(0.1, 0.1). Below the diagonal the plane through the first, second and
    last corner, z = 0.4 x - 0.3 y; above it the one through the first, third and last, z = 0.2 y - 0.1 x. A 5 cm
    grid reads both, in cells on the fold too."""
    from isaaclab.terrains.height_field.utils import convert_height_field_to_mesh

    points, faces = convert_height_field_to_mesh(np.array([[0, 4], [8, 2]]), 0.1, 0.005)
    grid = rasterise(_mesh(points, faces), 0.05)
    z, wall = _at(grid, (0.075, 0.025), (0.03, 0.01), (0.025, 0.075), (0.07, 0.09))
    assert z == pytest.approx([0.0225, 0.009, 0.0125, 0.011], abs=1e-6)
    assert not any(wall)


def test_wall_cells_cover_a_footprint_and_leave_flat_triangles_alone():
    # 0.3 m cells; a vertical triangle over x 0.35..0.7 at y = 0.45: cells x 1..2 (0.3..0.9), y 1 (0.3..0.6); one
    # over x 0.3..0.5 at y = 0.6 starts on a node line: cells x 0..1 and y 1..2; a flat triangle marks nothing
    points = [[0.35, 0.45, 0], [0.7, 0.45, 0], [0.5, 0.45, 1], [0.3, 0.6, 0], [0.5, 0.6, 0], [0.4, 0.6, 1]]
    points += [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    walls = wall_cells(np.array(points), np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]]), (0.0, 0.0), 0.3, (3, 3))
    assert walls.shape == (4, 4)
    assert sorted(map(tuple, np.argwhere(walls).tolist())) == [(0, 1), (0, 2), (1, 1), (1, 2), (2, 1)]


def test_the_scanner_config_names_a_field_out_of_its_domain():
    scanner = Go2RoughEnvCfg().scene.height_scanner.replace(height_source="height_grid")
    assert config_problems(scanner) == []
    assert config_problems(scanner.replace(height_source="bogus")) == [
        "env.scene.height_scanner.height_source must be one of ['height_grid', 'ray_cast'], got 'bogus'"
    ]
    assert config_problems(scanner.replace(grid_resolution=0.0)) == [
        "env.scene.height_scanner.grid_resolution must be a finite number > 0 [m], got 0.0"
    ]
    (tilted,) = config_problems(scanner.replace(ray_alignment="base"))
    assert tilted.startswith("env.scene.height_scanner.height_source 'height_grid' reads the ground below")
    assert config_problems(scanner.replace(ray_alignment="base", height_source="ray_cast")) == []


def test_training_refuses_a_height_source_by_name_before_the_simulator_starts():
    from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2RoughPPORunnerCfg
    from go2_locomotion.training.preflight import validate

    env = Go2RoughEnvCfg()
    env.sim.device = "cpu"
    env.scene.height_scanner.height_source = "raycast"
    assert validate(env, Go2RoughPPORunnerCfg()) == [
        "env.scene.height_scanner.height_source must be one of ['height_grid', 'ray_cast'], got 'raycast'"
    ]

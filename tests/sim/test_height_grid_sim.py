"""The height grid reads what Isaac Lab's ray cast reads, on both engines and every Go2-Rough sub-terrain: the task's
scanner (``height_source=height_grid``) beside a second scanner that casts (``ray_cast``) on the same robots, placed
at random over all six sub-terrains and ten levels."""

import math

import numpy as np
import pytest
import torch
from isaac_env import make_env

pytestmark = pytest.mark.sim

NUM_ENVS = 12
"""Two robots per sub-terrain and placement."""

PLACEMENTS = 4
"""Random placements of every robot: 12 x 4 x 187 = 8,976 rays, ~1,500 per sub-terrain."""

NUM_COLS = 10
"""Terrain columns: Isaac Lab's curriculum gives columns by proportion, so 10 hold all six sub-terrains (2 stairs up,
2 stairs down, 2 boxes, 2 random rough, 1 slope up, 1 slope down) at ten levels; the task's 20 only repeat them."""

TILE = 8.0
"""Go2-Rough's tile size [m]."""

INNER = 3.0
"""Robots stand within this of a tile's centre [m]: the 1.6 m x 1.0 m scan, turned any way, stays on the tile."""

EQUAL = 1e-4
"""Largest |grid - ray cast| height accepted at any ray [m]: rounding of float32 heights 20 m below the ray starts;
the issue asks 5 mm away from step edges."""


def _sub_terrain_of_columns(generator) -> list[str]:
    """The sub-terrain of each column, by Isaac Lab's curriculum rule (``_generate_curriculum_terrains``)."""
    names = list(generator.sub_terrains)
    shares = np.cumsum([generator.sub_terrains[name].proportion for name in names])
    shares /= shares[-1]
    return [names[int(np.argmax(col / generator.num_cols + 0.001 < shares))] for col in range(generator.num_cols)]


@pytest.mark.parametrize("physics", ["newton_mjwarp", "physx"])
def test_the_height_grid_reads_what_the_ray_cast_reads(physics):
    def with_a_ray_cast_beside(cfg):
        cfg.scene.terrain.terrain_generator.num_cols = NUM_COLS
        cfg.scene.height_scanner.height_source = "height_grid"
        cfg.scene.ray_cast = cfg.scene.height_scanner.replace(height_source="ray_cast")

    with make_env("Go2-Rough", num_envs=NUM_ENVS, overrides=[f"physics={physics}"], edit=with_a_ray_cast_beside) as env:
        env.reset(seed=0)
        scene = env.unwrapped.scene
        grid_scanner, ray_cast, robot = scene["height_scanner"], scene["ray_cast"], scene["robot"]
        assert type(grid_scanner).__name__.startswith("HeightGrid") and not hasattr(ray_cast, "height_grid")
        generator = scene.terrain.cfg.terrain_generator
        columns = _sub_terrain_of_columns(generator)
        kinds = sorted(set(columns))
        assert len(kinds) == 6
        rng = torch.Generator().manual_seed(0)
        errors = {kind: [] for kind in kinds}
        kind_of_robot = [kinds[k % len(kinds)] for k in range(NUM_ENVS)]
        columns_of_robot = [[c for c, name in enumerate(columns) if name == kind] for kind in kind_of_robot]
        for _ in range(PLACEMENTS):
            # robot k on sub-terrain k % 6, a random level, a random spot and heading, dropped from above it all
            col = torch.tensor([c[int(torch.randint(len(c), (1,), generator=rng))] for c in columns_of_robot])
            row = torch.randint(generator.num_rows, (NUM_ENVS,), generator=rng)
            centre = torch.stack((row - generator.num_rows / 2 + 0.5, col - generator.num_cols / 2 + 0.5), 1) * TILE
            yaw = torch.rand(NUM_ENVS, generator=rng) * 2 * math.pi
            pose = torch.zeros(NUM_ENVS, 7)
            pose[:, :2] = centre + (torch.rand(NUM_ENVS, 2, generator=rng) * 2 - 1) * INNER
            pose[:, 2] = 1.5
            pose[:, 5], pose[:, 6] = torch.sin(yaw / 2), torch.cos(yaw / 2)
            robot.write_root_pose_to_sim_index(root_pose=pose)
            robot.write_root_velocity_to_sim_index(root_velocity=torch.zeros(NUM_ENVS, 6))
            env.step(torch.zeros(NUM_ENVS, 12))

            grid_hits, cast_hits = grid_scanner.data.ray_hits_w.torch, ray_cast.data.ray_hits_w.torch
            torch.testing.assert_close(grid_scanner.data.pos_w.torch, ray_cast.data.pos_w.torch, atol=0, rtol=0)
            assert torch.isfinite(cast_hits).all() and torch.isfinite(grid_hits).all()
            torch.testing.assert_close(grid_hits[..., :2], cast_hits[..., :2], atol=1e-5, rtol=0)
            # the placements held: each scan lies around its robot's drawn spot
            assert (torch.linalg.norm(grid_hits[..., :2].mean(dim=1) - pose[:, :2], dim=1) < 0.05).all()
            _, wall = grid_scanner.height_grid.sample(grid_hits[..., 0], grid_hits[..., 1])
            error = (grid_hits[..., 2] - cast_hits[..., 2]).abs()
            for k, kind in enumerate(kind_of_robot):
                errors[kind].append(torch.stack((error[k], wall[k].float()), dim=1))

        print(f"\n{physics}: |grid - ray cast| [m] per sub-terrain: interpolated rays (max, count) / wall cells, cast")
        for kind in kinds:
            error, wall = torch.cat(errors[kind]).unbind(1)
            off, on = error[wall == 0], error[wall == 1]
            print(f"  {kind:22s} {off.max():.2e} ({off.numel()}) / {on.max() if on.numel() else 0:.2e} ({on.numel()})")
            assert off.numel() > 500, kind  # most rays of every sub-terrain are interpolated
            assert error.max() < EQUAL, (kind, float(error.max()))
        stairs_and_boxes = ("pyramid_stairs", "pyramid_stairs_inv", "boxes")
        assert all((torch.cat(errors[kind])[:, 1] == 1).any() for kind in stairs_and_boxes)  # their walls were cast

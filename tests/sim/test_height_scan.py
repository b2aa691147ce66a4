"""The height scan sits under its own robot on both Isaac Lab engines (OvPhysX needs the package's reorder), and
the canary of the upstream ordering bug the reorder works around."""

import pytest
import torch
from canary_fixtures import upstream_canary
from isaac_env import make_env

from go2_locomotion.compat.ovphysx_ray_caster import env_rows
from go2_locomotion.compat.private_api import ovphysx_ray_caster_rows

pytestmark = pytest.mark.sim

NUM_ENVS = 12
"""From 11 environments on, lexicographic order (env_10 before env_2) differs from environment order."""


@pytest.mark.parametrize("physics", ["newton_mjwarp", "physx"])
def test_each_robot_reads_the_ground_under_itself(physics):
    with make_env("Go2-Rough", num_envs=NUM_ENVS, overrides=[f"physics={physics}"]) as env:
        env.reset(seed=0)
        for _ in range(3):
            env.step(torch.zeros(NUM_ENVS, 12))
        scene = env.unwrapped.scene
        sensor, robot = scene["height_scanner"], scene["robot"].data.root_pos_w.torch
        # the sensor frame is the trunk's (the rays start 20 m above it, in a yaw-aligned pattern)
        torch.testing.assert_close(sensor.data.pos_w.torch, robot, atol=1e-4, rtol=0)
        # each robot spawned on its own terrain tile: the scan's hits lie within the tile around the robot
        hits = sensor.data.ray_hits_w.torch
        assert torch.isfinite(hits).all()
        assert (torch.linalg.norm(hits[..., :2].mean(dim=1) - robot[:, :2], dim=1) < 0.05).all()


@upstream_canary(
    "isaaclab 3.0.0's OvPhysX ray caster binds its bodies in lexicographic path order (env_10 before env_2)",
    "compat/ovphysx_ray_caster.py",
)
def test_upstream_ovphysx_scanner_rows_are_in_environment_order():
    """The canary of compat/ovphysx_ray_caster.py: the upstream pose binding under the reorder lists the robots in
    environment order."""
    with make_env("Go2-Rough", num_envs=NUM_ENVS, overrides=["physics=physx"]) as env:
        env.reset(seed=0)
        rows = env_rows(ovphysx_ray_caster_rows(env.unwrapped.scene["height_scanner"]))
    assert rows is None, f"binding rows of environments 0..{NUM_ENVS - 1}: {rows}"


def test_a_second_environment_in_the_process_scans_its_own_terrain():
    """Isaac Lab caches the ray-cast mesh per prim path for the process; the scanner drops it when made, so an
    environment built after another one reads its own ground: after the default terrain, a robot at the bottom of
    10 cm stairs up (an inverted pyramid, its centre the lowest platform) sees the pit floor under it."""
    from go2_locomotion.tasks.terrain_cells import cells_generator, parse_cell

    def one_cell(cfg):
        cfg.scene.terrain.terrain_generator = cells_generator([parse_cell("stairs_up:0.10")])

    with make_env("Go2-Rough", num_envs=1, overrides=["physics=physx"]) as env:
        env.reset(seed=0)
        assert torch.isfinite(env.unwrapped.scene["height_scanner"].data.ray_hits_w.torch).all()
    with make_env("Go2-Rough", num_envs=1, overrides=["physics=physx"], play_mode=True, edit=one_cell) as env:
        env.reset(seed=0)
        scene = env.unwrapped.scene
        floor = float(scene.terrain.terrain_origins.reshape(-1, 3)[0, 2])
        hits = scene["height_scanner"].data.ray_hits_w.torch[0, :, 2]
        assert floor < -0.3  # the pit of 10 cm steps lies well below the border
        assert abs(float(hits[len(hits) // 2]) - floor) < 1e-3, (float(hits[len(hits) // 2]), floor)

"""The height scan of a Go2-Rough terrain cell is the same in Isaac Lab (Newton and PhysX) and in plain MuJoCo.

One environment per engine holds one robot per cell, on a row of the cells' tiles (``cells_generator``, each
tile drawn from its own seed); MuJoCo builds each cell alone (``build_cell``, the sim-to-sim path). Each robot's
trunk is put at the same poses relative to its tile's origin in both: level and tilted, yawed, with rays over
step and box edges. MuJoCo casts from the pose Isaac Lab's sensor reports (its own ``pos_w`` / ``quat_w``).

Edges: a ray exactly over a step's vertical face can hit either side, in both engines. A ray counts as on an edge
when the ground within 0.1 mm of it differs by more than 1 mm; there both engines must give the height of one of
the two sides; everywhere else they agree within 1e-3 m (measured: float32 rounding, ~1e-6 m). The "edges" pose
keeps every ray 5 mm or more from the stairs' edges while spanning six steps; the "on edges" pose puts rays on
them on purpose.

The reference controller, given MuJoCo's scan and Isaac Lab's robot state, rebuilds Isaac Lab's policy
observation (237 values, the scan included) to 1e-5, at every pose without an edge ray.
"""

import math

import numpy as np
import pytest
import torch
from isaac_env import make_env

from go2_locomotion.export.manifest import export_bundle
from go2_locomotion.robot.bundle import SDK2_JOINT_ORDER, load_bundle
from go2_locomotion.robot.controller import ReferenceController, RobotState
from go2_locomotion.sim2sim import Go2Plant
from go2_locomotion.sim2sim.height_scan import scan_points_world
from go2_locomotion.sim2sim.terrain import build_cell
from go2_locomotion.tasks.terrain_cells import cells_generator, parse_cell

pytestmark = pytest.mark.sim

CELLS = ["stairs_up:0.10", "stairs_down:0.12", "boxes:0.10", "random_rough:0.06", "slopes_up:20", "slopes_down:21.8"]
"""Every sub-terrain of Go2-Rough, at or near its hardest training size."""

POSES = {  # x, y above the tile origin [m]; z above the origin's ground [m]; yaw, roll, pitch [rad]
    "centre": (0.0, 0.0, 0.35, 0.0, 0.0, 0.0),
    "edges": (-2.05, 0.03, 0.45, 0.0, 0.0, 0.0),
    "yawed and tilted": (1.93, -2.37, 0.5, 0.6, 0.25, -0.2),
    "on edges": (-2.1, 0.0, 0.45, 0.0, 0.0, 0.0),
    "corner": (2.9, 2.95, 0.4, math.pi / 4, -0.1, 0.1),
}
EDGE_RADIUS = 1e-4
"""A ray within this distance [m] of a height jump counts as on an edge."""

FIGURES: dict[tuple[str, str], tuple[float, int, int]] = {}
"""By engine and cell: the largest scan difference [m] off edges, the rays on edges, and how many of those both
engines read on the same side (printed)."""


def _quat_xyzw(yaw: float, roll: float, pitch: float) -> torch.Tensor:
    """Isaac Lab's (x, y, z, w) quaternion of z-y-x Euler angles."""
    cy, sy, cp, sp, cr, sr = (f(a / 2) for a in (yaw, pitch, roll) for f in (math.cos, math.sin))
    w, x = cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy
    y, z = cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy
    return torch.tensor([x, y, z, w], dtype=torch.float32)


def _np(x) -> np.ndarray:
    x = x.torch if hasattr(x, "torch") else x
    return x.detach().cpu().numpy().astype(np.float64)


def _sides(geometry, x: float, y: float) -> np.ndarray:
    """The ground heights around ``(x, y)`` within :data:`EDGE_RADIUS` (one value away from an edge)."""
    offsets = [(0, 0), (EDGE_RADIUS, 0), (-EDGE_RADIUS, 0), (0, EDGE_RADIUS), (0, -EDGE_RADIUS)]
    return np.array([geometry.surface(x + dx, y + dy) for dx, dy in offsets])


def _runner(gym_env):
    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper, check_rsl_rl_version, handle_deprecated_rsl_rl_cfg
    from isaaclab_tasks.utils.parse_cfg import load_cfg_from_registry

    from go2_locomotion.training.session import make_runner

    agent_cfg = handle_deprecated_rsl_rl_cfg(
        load_cfg_from_registry("Go2-Rough", "rsl_rl_cfg_entry_point"), check_rsl_rl_version()
    )
    agent_cfg.device = "cpu"
    return make_runner(RslRlVecEnvWrapper(gym_env), agent_cfg), agent_cfg


@pytest.mark.parametrize("physics", ["newton_mjwarp", "physx"])
def test_height_scan_matches_isaac_lab(physics, tmp_path):
    cells = [parse_cell(text) for text in CELLS]

    def one_tile_per_cell(cfg):
        cfg.scene.terrain.terrain_generator = cells_generator(cells)

    geometries = [build_cell(cell) for cell in cells]
    with make_env(
        "Go2-Rough", num_envs=len(cells), overrides=[f"physics={physics}"], play_mode=True, edit=one_tile_per_cell
    ) as gym_env:
        env = gym_env.unwrapped
        runner, agent_cfg = _runner(gym_env)
        export_bundle(env, runner, agent_cfg, tmp_path, task="Go2-Rough", checkpoint=None)
        bundle = load_bundle(tmp_path)
        controller = ReferenceController(bundle)
        plants = [Go2Plant(bundle, terrain=geometry) for geometry in geometries]
        robot, sensor = env.scene["robot"], env.scene["height_scanner"]
        tiles = _np(env.scene.terrain.terrain_origins)[0]  # [cells, 3]
        names = list(robot.joint_names)
        to_sdk2 = [names.index(n) for n in SDK2_JOINT_ORDER]
        worst, edge_rays, same_side, compared = (
            np.zeros(len(cells)),
            np.zeros(len(cells), int),
            np.zeros(len(cells), int),
            0,
        )
        for pose_name, (x, y, z, yaw, roll, pitch) in POSES.items():
            pose = torch.zeros(len(cells), 7)
            pose[:, :3] = torch.as_tensor(tiles + [x, y, z], dtype=torch.float32)
            pose[:, 3:7] = _quat_xyzw(yaw, roll, pitch)
            robot.write_root_pose_to_sim_index(root_pose=pose)
            robot.write_root_velocity_to_sim_index(root_velocity=torch.zeros(len(cells), 6))
            env.scene.update(dt=0.0)
            position, quat_xyzw = _np(sensor.data.pos_w), _np(sensor.data.quat_w)
            np.testing.assert_allclose(position, _np(pose[:, :3]), atol=1e-6, err_msg=f"{pose_name}: pose not written")
            isaac = position[:, 2:3] - _np(sensor.data.ray_hits_w)[..., 2]  # [cells, 187]
            observation = _np(env.observation_manager.compute()["policy"])
            for c, (cell, plant, geometry) in enumerate(zip(cells, plants, geometries, strict=True)):
                where = f"{physics}, {cell.label()}, pose {pose_name!r}"
                plant.data.qpos[0:3] = position[c] - tiles[c] + geometry.origin
                plant.data.qpos[3:7] = quat_xyzw[c, [3, 0, 1, 2]]
                mujoco_scan = plant.height_scan()
                rays = plant.ground.pattern.points_xy  # read from the exported bundle
                assert rays.shape == (187, 2)
                world = scan_points_world(rays, plant.data.qpos[0:3], plant.data.qpos[3:7])
                sides = np.array([_sides(geometry, x, y) for x, y in world])
                on_edge = np.ptp(sides, axis=1) > 1e-3
                trunk = plant.data.qpos[2]
                for scan in (isaac[c], mujoco_scan):  # on an edge: either side's height, in both engines
                    near = np.abs((trunk - sides[on_edge]) - scan[on_edge, None]).min(axis=1, initial=np.inf)
                    assert np.all(near <= 1e-3), f"{where}: an edge ray hit neither side"
                difference = np.abs(isaac[c] - mujoco_scan)[~on_edge]
                assert difference.max() <= 1e-3, f"{where}: scans differ by {difference.max():.2e} m"
                worst[c] = max(worst[c], difference.max())
                edge_rays[c] += on_edge.sum()
                same_side[c] += (np.abs(isaac[c] - mujoco_scan)[on_edge] <= 1e-3).sum()
                if pose_name == "edges" and cell.name.startswith("stairs"):
                    assert not on_edge.any() and len(np.unique(np.round(mujoco_scan, 4))) >= 6, where
                if pose_name == "on edges" and cell.name.startswith("stairs"):
                    assert on_edge.sum() >= 5 * 11, f"{where}: the pose should put rays on five step edges"
                if on_edge.any():
                    continue
                state = RobotState(
                    joint_pos=_np(robot.data.joint_pos)[c, to_sdk2],
                    joint_vel=_np(robot.data.joint_vel)[c, to_sdk2],
                    base_ang_vel=_np(robot.data.root_ang_vel_b)[c],
                    base_lin_vel=_np(robot.data.root_lin_vel_b)[c],
                    base_quat=quat_xyzw[c, [3, 0, 1, 2]],
                    command=_np(env.command_manager.get_command("base_velocity"))[c],
                    last_action=_np(env.action_manager.action)[c, to_sdk2],
                    steps_since_start=int(env.episode_length_buf[c]),
                    height_scan=mujoco_scan,
                )
                np.testing.assert_allclose(
                    controller.observation(state), observation[c], atol=1e-5, err_msg=f"{where}: observation"
                )
                compared += 1
    assert compared >= len(cells) * len(POSES) - 4  # all but the stairs' poses with rays on edges
    for c, cell in enumerate(cells):
        FIGURES[(physics, cell.label())] = (float(worst[c]), int(edge_rays[c]), int(same_side[c]))
    print("\nengine         cell               largest difference off edges [m]  rays on edges  same side")
    for (engine, label), (value, rays, same) in sorted(FIGURES.items()):
        print(f"{engine:<14} {label:<18} {value:.2e}{'':>24}{rays:>13}  {same:>9}")

"""Go2-Rough's terrain cells in MuJoCo (``sim2sim/terrain.py``) and the height scan from MuJoCo ray casts
(``sim2sim/height_scan.py``), without a simulator: Isaac Lab's terrain generator runs on its own here.

Each cell's MuJoCo ground is checked against the generator's own mesh (ray casts on it with trimesh) and against
heights worked out by hand from the generator's parameters; the hfield's triangles against Isaac Lab's, for rays
and for contacts; the scan against a hand computation over known steps, in the pattern's order."""

import json
import math
import subprocess
import sys

import mujoco
import numpy as np
import pytest
import torch
from deploy_fixtures import make_bundle, rough_bundle, scanner_cfg, task_scan_points

from go2_locomotion import pretrained
from go2_locomotion.robot.bundle import load_bundle
from go2_locomotion.robot.controller import ReferenceController
from go2_locomotion.robot.heading import yaw_of
from go2_locomotion.sim2sim import Go2Plant, Segment, run
from go2_locomotion.sim2sim.height_scan import RAY_START_HEIGHT, MujocoHeightScan, ScanPattern
from go2_locomotion.sim2sim.plant import GROUND_GROUP
from go2_locomotion.sim2sim.terrain import (
    BOX_DEPTH,
    HeightField,
    TerrainError,
    TerrainGeometry,
    box_tops,
    build_cell,
    generated_meshes,
    height_field,
    terrain_from_meshes,
)
from go2_locomotion.tasks.terrain_cells import cells_generator, parse_cell

CELLS = ["stairs_up:0.10", "stairs_down:0.12", "boxes:0.10", "random_rough:0.06", "slopes_up:20", "slopes_down:21.8"]


def _ground_model(geometry):
    spec = mujoco.MjSpec()
    geometry.add_to(spec, friction=1.0, group=GROUND_GROUP)
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


def _mesh_heights(mesh, xy: np.ndarray) -> np.ndarray:
    """The highest point of ``mesh`` straight under each ``(x, y)`` (trimesh's own ray casts)."""
    origins = np.column_stack([xy, np.full(len(xy), 50.0)])
    hits, rays, _ = mesh.ray.intersects_location(origins, np.tile([0.0, 0.0, -1.0], (len(xy), 1)), multiple_hits=True)
    top = np.full(len(xy), -np.inf)
    np.maximum.at(top, rays, hits[:, 2])
    return top


@pytest.mark.parametrize("text", CELLS)
def test_mujoco_ground_is_the_generators_mesh(text):
    from isaaclab.terrains import TerrainGenerator

    cell = parse_cell(text)
    generator = TerrainGenerator(cells_generator([cell]), device="cpu")
    geometry = terrain_from_meshes(generated_meshes(generator), generator.terrain_origins[0, 0], text)
    model, data = _ground_model(geometry)
    ground = MujocoHeightScan(model, data, ScanPattern(np.zeros((0, 2))), GROUND_GROUP)
    xy = np.random.default_rng(0).uniform(-6.0, 6.0, size=(3000, 2))  # the tile (+-4 m) and the border around it
    expected = _mesh_heights(generator.terrain_mesh, xy)
    assert np.isfinite(expected).all()
    mujoco_heights = np.array([ground.ground_height(x, y, 50.0) for x, y in xy])
    np.testing.assert_allclose(mujoco_heights, expected, atol=1e-6, rtol=0)
    np.testing.assert_allclose([geometry.surface(x, y) for x, y in xy], expected, atol=1e-6, rtol=0)
    np.testing.assert_allclose(geometry.origin, generator.terrain_origins[0, 0])


def test_mesh_conversion_by_hand():
    import trimesh
    from isaaclab.terrains.height_field.utils import convert_height_field_to_mesh

    # two boxes, one standing on the other's corner: two columns, down to 0.5 m below the lowest vertex
    low = trimesh.creation.box((2.0, 1.0, 0.2), trimesh.transformations.translation_matrix((0.0, 0.0, -0.1)))
    high = trimesh.creation.box((0.5, 0.5, 0.3), trimesh.transformations.translation_matrix((0.5, 0.0, 0.15)))
    mesh = trimesh.util.concatenate([low, high])
    np.testing.assert_allclose(
        box_tops(mesh.vertices, mesh.faces), [[-1, -0.5, 1, 0.5, 0], [0.25, -0.25, 0.75, 0.25, 0.3]]
    )
    geometry = terrain_from_meshes([(mesh.vertices, mesh.faces)], np.zeros(3))
    np.testing.assert_allclose(geometry.boxes[:, 2], -0.2 - BOX_DEPTH)
    assert geometry.surface(0.5, 0.0) == 0.3 and geometry.surface(-0.5, 0.0) == 0.0
    # a box turned about z has upward faces that are not axis-aligned rectangles; a ramp has a sloped face
    turned = trimesh.creation.box((1.0, 1.0, 1.0), trimesh.transformations.rotation_matrix(0.3, (0, 0, 1)))
    with pytest.raises(TerrainError, match="an upward face that is not a rectangle"):
        box_tops(turned.vertices, turned.faces)
    tilted = trimesh.creation.box((1.0, 1.0, 1.0), trimesh.transformations.rotation_matrix(0.3, (0, 1, 0)))
    with pytest.raises(TerrainError, match="a sloped face off a regular height-field grid"):
        box_tops(tilted.vertices, tilted.faces)
    # Isaac Lab's height-field mesh of a 3 x 2 grid (x by y; 5 mm units) is read back exactly, and its triangles
    # split each cell from (i, j) to (i + 1, j + 1)
    vertices, faces = convert_height_field_to_mesh(np.array([[0, 2], [4, 6], [8, 20]]), 0.1, 0.005)
    field = height_field(vertices.astype(np.float64), faces.astype(np.int64))
    assert field.spacing == pytest.approx(0.1) and field.corner == (0.0, 0.0)
    np.testing.assert_allclose(field.heights, [[0.0, 0.01], [0.02, 0.03], [0.04, 0.1]], atol=1e-8)
    assert field.surface(0.15, 0.02) == pytest.approx(0.02 + 0.5 * 0.02 + 0.2 * (0.1 - 0.04))
    flipped = faces.astype(np.int64).copy()
    flipped[0] = [0, 1, 2]  # first cell split along the other diagonal
    with pytest.raises(TerrainError, match="do not split each cell from"):
        height_field(vertices.astype(np.float64), flipped)


def test_stairs_by_hand():
    # 8 m tile, 1 m border, 3 m platform, 0.3 m steps: (8 - 2 - 3) // 0.6 + 1 = 6 rings of 4 boxes, a 2.4 m wide
    # centre box, the tile's 4 border boxes and the generator's 4 outer border boxes
    up, down = build_cell(parse_cell("stairs_up:0.10")), build_cell(parse_cell("stairs_down:0.10"))
    assert len(up.boxes) == len(down.boxes) == 6 * 4 + 1 + 4 + 4 and not up.height_fields
    np.testing.assert_allclose(up.origin, [0.0, 0.0, -0.7], atol=1e-12)  # 7 steps of 0.1 m down to the centre
    np.testing.assert_allclose(down.origin, [0.0, 0.0, 0.7], atol=1e-12)
    for x in (-4.5, -3.05, -2.95, -2.65, -1.85, -1.25, -1.15, 0.0, 2.95, 3.5):
        ring = math.floor((3.0 - abs(x)) / 0.3)  # ring k spans 3 - 0.3 k > |x| > 2.7 - 0.3 k
        steps = 0 if abs(x) > 3.0 else 7 if abs(x) < 1.2 else ring + 1
        for geometry, sign in ((up, -1.0), (down, 1.0)):
            assert geometry.surface(x, 0.0) == pytest.approx(sign * 0.1 * steps, abs=1e-12), (geometry.label, x)
            assert geometry.surface(0.3, x) == pytest.approx(sign * 0.1 * steps, abs=1e-12)


def test_boxes_and_slopes_by_hand():
    boxes = build_cell(parse_cell("boxes:0.10"))
    # 17 x 17 boxes of 0.45 m in the 8 m tile, the 2 m platform, 4 + 4 border boxes
    assert len(boxes.boxes) == 17 * 17 + 1 + 4 + 4
    assert boxes.origin[2] == pytest.approx(0.10) and boxes.surface(0.9, -0.9) == pytest.approx(0.10)
    grid = boxes.boxes[np.isclose(boxes.boxes[:, 3] - boxes.boxes[:, 0], 0.45)]
    assert len(grid) == 17 * 17 and np.all(np.abs(grid[:, 5]) <= 0.10) and np.ptp(grid[:, 5]) > 0.15

    up, down = build_cell(parse_cell("slopes_up:20")), build_cell(parse_cell("slopes_down:20"))
    assert len(up.height_fields) == 1 and up.height_fields[0].heights.shape == (81, 81)  # 8 m at 0.1 m
    rise = math.tan(math.radians(20.0))
    for geometry, sign in ((up, 1.0), (down, -1.0)):
        assert geometry.surface(0.0, 0.0) == pytest.approx(geometry.origin[2], abs=1e-6)  # the centre platform
        slope = (geometry.surface(-3.0, 0.0) - geometry.surface(-2.0, 0.0)) / 1.0  # outwards, along x
        assert slope == pytest.approx(sign * rise, abs=0.01)  # heights are whole 5 mm steps
        assert geometry.surface(-4.5, 0.0) == 0.0  # the generator's border


@pytest.mark.parametrize("text", ["random_rough:0.1", "slopes_up:40"])
def test_cells_with_vertical_face_corrections_are_refused(text):
    # the generator's slope_threshold (0.75 rise/run) over its 0.1 m samples
    accepted = "accepted: slopes up to 36.9 degrees, random rough whose neighbouring samples differ by at most 7.5 cm"
    with pytest.raises(TerrainError, match=f"{text}: Isaac Lab's generator makes faces steeper .* {accepted}"):
        build_cell(parse_cell(text))
    with pytest.raises(TerrainError, match="mesh 0 has a sloped face off a regular height-field grid"):
        from isaaclab.terrains import TerrainGenerator

        generator = TerrainGenerator(cells_generator([parse_cell(text)]), device="cpu")
        terrain_from_meshes(generated_meshes(generator), generator.terrain_origins[0, 0])


def test_hfield_contacts_follow_isaac_labs_triangles():
    """A 5 mm sphere pressed 1 mm into Isaac Lab's triangle plane, at points well inside the triangles of the
    random-rough grid: MuJoCo's deepest contact is 1 mm deep, so its hfield collides on the same triangles."""
    terrain = build_cell(parse_cell("random_rough:0.06"))
    field = terrain.height_fields[0]
    spec = mujoco.MjSpec()
    terrain.add_to(spec, friction=1.0, group=GROUND_GROUP)
    ball = spec.worldbody.add_body(name="ball")
    ball.add_freejoint()
    ball.add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[0.005, 0, 0])
    model = spec.compile()
    data = mujoco.MjData(model)
    rng = np.random.default_rng(1)
    checked = 0
    while checked < 300:
        x, y = rng.uniform(-3.5, 3.5, size=2)
        u, v = (x - field.corner[0]) / field.spacing % 1, (y - field.corner[1]) / field.spacing % 1
        if min(u, v, 1 - u, 1 - v, abs(u - v)) < 0.25:  # stay 2.5 cm inside the triangle
            continue
        # the plane of the triangle under (x, y), from three points of it
        corners = np.array([[x + dx, y + dy] for dx, dy in ((0, 0), (0.005, 0.0), (0.0, 0.005))])
        points = np.array([[px, py, field.surface(px, py)] for px, py in corners])
        normal = np.cross(points[1] - points[0], points[2] - points[0])
        normal /= np.linalg.norm(normal)
        data.qpos[:3] = points[0] + normal * (0.005 - 0.001)
        mujoco.mj_forward(model, data)
        depths = [data.contact[k].dist for k in range(data.ncon)]
        assert min(depths) == pytest.approx(-0.001, abs=1e-6), (x, y)
        checked += 1


def _flat_hfield(size_m: float = 12.0, spacing: float = 0.1) -> TerrainGeometry:
    """A level height field at z = 0, ``size_m`` across, centred on the origin (no boxes)."""
    n = round(size_m / spacing) + 1
    field = HeightField(corner=(-size_m / 2, -size_m / 2), spacing=spacing, heights=np.zeros((n, n)))
    return TerrainGeometry(label="flat hfield", boxes=np.zeros((0, 6)), height_fields=(field,), origin=np.zeros(3))


def test_the_rough_policy_walks_on_a_flat_hfield_as_on_a_plane():
    """The pretrained Go2-Rough, 5 s forward at 0.8 m/s on a level height field and on a plane: it stays up on
    both and covers the same distance within 5 %."""
    segments = [Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("forward", 5.0, (0.8, 0.0, 0.0))]
    bundle = load_bundle(pretrained.bundle("Go2-Rough"))
    plane = run(bundle, segments)
    hfield = run(bundle, segments, terrain=_flat_hfield())
    assert not plane["fell"] and not hfield["fell"]
    assert max(hfield["series"]["height"]) < 0.45 and min(hfield["series"]["height"]) > 0.2

    def walked(report) -> float:
        x, y = report["series"]["x"], report["series"]["y"]
        return float(np.hypot(x[-1] - x[0], y[-1] - y[0]))

    assert walked(plane) > 3.0  # 5 s at 0.8 m/s asked
    assert walked(hfield) == pytest.approx(walked(plane), rel=0.05)


def test_a_tile_is_the_same_in_any_layout_and_leaves_the_global_generators_alone():
    from isaaclab.terrains import TerrainGenerator

    cells = [parse_cell(t) for t in ("stairs_up:0.10", "boxes:0.05", "random_rough:0.04")]
    numpy_state, torch_state = np.random.get_state()[1].copy(), torch.get_rng_state().clone()
    alone = [build_cell(cell) for cell in cells]
    assert np.array_equal(np.random.get_state()[1], numpy_state) and torch.equal(torch.get_rng_state(), torch_state)
    row = TerrainGenerator(cells_generator(cells), device="cpu")
    tiles = row.terrain_origins[0]  # tile c's origin; the one-tile layout puts it at (0, 0)
    for c, geometry in enumerate(alone):
        xy = np.random.default_rng(c).uniform(-3.9, 3.9, size=(500, 2))
        expected = _mesh_heights(row.terrain_mesh, xy + tiles[c][:2])
        np.testing.assert_allclose([geometry.surface(x, y) for x, y in xy], expected, atol=1e-6, rtol=0)
        np.testing.assert_allclose(geometry.origin[2], tiles[c][2])
    again = build_cell(cells[1])
    np.testing.assert_array_equal(again.boxes, alone[1].boxes)


def test_scan_pattern_is_the_task_config():
    scanner = scanner_cfg()
    assert scanner.offset.pos[2] == RAY_START_HEIGHT and scanner.ray_alignment == "yaw"
    points = task_scan_points()
    # 17 x 11 points at 0.1 m, x fastest (back to front), then y (right to left): index 17 j + i
    assert points.shape == (187, 2)
    corners = [[-0.8, -0.5], [-0.7, -0.5], [0.8, -0.5], [-0.8, -0.4], [0.8, 0.5]]
    np.testing.assert_allclose(points[[0, 1, 16, 17, 186]], corners, atol=1e-6)
    i, j = np.meshgrid(np.arange(17), np.arange(11))
    np.testing.assert_allclose(points, np.column_stack([-0.8 + 0.1 * i.ravel(), -0.5 + 0.1 * j.ravel()]), atol=1e-6)


def test_scan_pattern_from_bundles(tmp_path):
    bundle = load_bundle(rough_bundle(tmp_path / "rough"))
    np.testing.assert_array_equal(ScanPattern.from_bundle(bundle).points_xy, task_scan_points())
    assert ScanPattern.from_bundle(load_bundle(make_bundle(tmp_path / "flat"))) is None
    bundle.manifest["observation"]["terms"][-1]["params"]["ray_alignment"] = "base"
    with pytest.raises(ValueError, match="ray_alignment 'base' is not reproduced; accepted: 'yaw'"):
        ScanPattern.from_bundle(bundle)


def _quat(yaw: float, roll: float = 0.0, pitch: float = 0.0) -> np.ndarray:
    """``(w, x, y, z)`` of z-y-x Euler angles."""
    cy, sy, cp, sp, cr, sr = (f(a / 2) for a in (yaw, pitch, roll) for f in (math.cos, math.sin))
    return np.array(
        [
            cr * cp * cy + sr * sp * sy,
            sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
        ]
    )


def test_height_scan_over_known_steps(tmp_path):
    """The trunk at z = 0.25 m, 2.05 m behind the centre of 10 cm stairs going down towards the centre: the rays at
    x = -2.85 ... -1.25 lie 5 cm inside the 0.3 m steps (edges at -3.0, -2.7, ..., -1.2), on six steps."""
    bundle = load_bundle(rough_bundle(tmp_path))
    plant = Go2Plant(bundle, terrain=build_cell(parse_cell("stairs_up:0.10")))

    def ground(x: float) -> float:  # the steps, by hand (see test_stairs_by_hand)
        return -0.7 if abs(x) < 1.2 else -0.1 * (math.floor((3.0 - abs(x)) / 0.3) + 1)

    trunk = np.array([-2.05, 0.03, 0.25])
    expected = np.array([trunk[2] - ground(trunk[0] - 0.8 + 0.1 * i) for _ in range(11) for i in range(17)])
    assert sorted(set(np.round(expected, 6))) == [0.35, 0.45, 0.55, 0.65, 0.75, 0.85]
    for yaw, roll, pitch in ((0.0, 0.0, 0.0), (0.0, 0.3, -0.2)):  # roll and pitch do not move the rays
        np.testing.assert_allclose(plant.ground.heights(trunk, _quat(yaw, roll, pitch)), expected, atol=1e-12)
    # turned left by 90 deg at the mirror position: the pattern's x runs along world +y over the same steps
    turned = plant.ground.heights(np.array([-0.03, -2.05, 0.25]), _quat(math.pi / 2, 0.1, 0.2))
    np.testing.assert_allclose(turned, expected, atol=1e-12)
    assert yaw_of(_quat(math.pi / 2, 0.1, 0.2)) == pytest.approx(math.pi / 2)
    # through the reference controller: clip(height - 0.5, -1, 1) after the 48 flat values
    state = plant.state(np.zeros(3))
    plant.data.qpos[0:3], plant.data.qpos[3:7] = trunk, _quat(0.0)
    state.height_scan = plant.height_scan()
    observation = ReferenceController(bundle).observation(state)
    np.testing.assert_allclose(observation[48:], np.clip(expected - 0.5, -1.0, 1.0), atol=1e-6)
    # no ground under a ray: Isaac Lab's hit is at +inf, its scan reads -inf, the observation's clip -1
    assert plant.ground.heights(np.array([500.0, 0.0, 0.3]), _quat(0.0)).tolist() == [-math.inf] * 187


def test_robot_starts_on_the_cells_origin(tmp_path):
    bundle = load_bundle(rough_bundle(tmp_path))
    plant = Go2Plant(bundle, terrain=build_cell(parse_cell("stairs_up:0.10")))
    model, data = plant.model, plant.data
    np.testing.assert_allclose(data.qpos[0:2], [0.0, 0.0])
    feet = [data.xpos[model.body(f"{leg}_foot").id][2] for leg in ("FL", "FR", "RL", "RR")]
    assert min(feet) == pytest.approx(-0.7 + 0.022 + 0.002, abs=1e-9)  # 2 mm above the platform
    # the 1.6 m x 1.0 m scan lies on the 2.4 m platform: every ray reads the trunk's height above it
    np.testing.assert_allclose(plant.height_scan(), np.full(187, data.qpos[2] + 0.7), atol=1e-12)
    assert plant.base_height() == pytest.approx(data.qpos[2] + 0.7) and not plant.is_down()
    assert plant.state(np.zeros(3)).height_scan.shape == (187,)
    data.qpos[2] = -0.7 + 0.12  # level, 0.12 m above the platform (but 0.58 m above z = 0)
    mujoco.mj_forward(model, data)
    assert plant.is_down()


def test_any_height_source_plugs_in(tmp_path):
    class ElevationMap:  # a robot's own map, here of flat ground at z = 0.1 m
        def heights(self, position, quat_wxyz):
            return np.full(187, position[2] - 0.1)

    bundle = load_bundle(rough_bundle(tmp_path))
    plant = Go2Plant(bundle)
    assert isinstance(plant.height_source, MujocoHeightScan)
    plant.height_source = ElevationMap()
    state = plant.state(np.zeros(3))
    np.testing.assert_allclose(state.height_scan, plant.data.qpos[2] - 0.1)
    observation = ReferenceController(bundle).observation(state)
    np.testing.assert_allclose(observation[48:], plant.data.qpos[2] - 0.1 - 0.5, atol=1e-6)


def test_flat_and_rough_bundles_walk_a_cell(tmp_path):
    """A flat policy (no height scan in its observation) runs on a cell; so does a rough one (pass-through)."""
    segments = [Segment("stand", 0.5, (0.0, 0.0, 0.0)), Segment("forward", 0.5, (1.0, 0.0, 0.0))]
    terrain = build_cell(parse_cell("stairs_down:0.05"))
    flat = run(pretrained.bundle(), segments, terrain=terrain)
    assert flat["terrain"]["label"] == "stairs_down:0.05" and flat["height_scan"] is False and not flat["fell"]
    assert flat["terrain"]["origin"] == pytest.approx([0.0, 0.0, 0.35]) and flat["terrain"]["max_distance_m"] > 0.1
    assert 0.25 < flat["segments"][0]["base_height_mean"] < 0.4  # above the platform, not above z = 0
    rough = run(rough_bundle(tmp_path), segments, terrain=terrain)
    assert rough["height_scan"] is True and len(rough["series"]["time"]) == 50


def test_sim2sim_script_on_a_terrain_cell(tmp_path):
    """The rough test bundle on a boxes cell, rendered off-screen (OSMesa on a CPU machine)."""
    import os

    from PIL import Image

    folder = rough_bundle(tmp_path / "bundle")
    gif = tmp_path / "boxes.gif"
    command = [sys.executable, "scripts/sim2sim.py", "--bundle", str(folder), "--terrain", "boxes:0.05"]
    env = {k: v for k, v in os.environ.items() if k not in ("MUJOCO_GL", "PYOPENGL_PLATFORM", "DISPLAY")}
    result = subprocess.run(
        [*command, "--commands", "stand:0.3:0,0,0", "--video", str(gif)], capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads((folder / "sim2sim" / "boxes_0.05" / "sim2sim.json").read_text())
    assert report["terrain"]["label"] == "boxes:0.05" and report["height_scan"] is True
    assert [s["name"] for s in report["segments"]] == ["stand"] and len(report["series"]["time"]) == 15
    with Image.open(gif) as image:  # a frame every 3rd policy step, drawn
        assert image.n_frames == 5
        assert len(np.unique(np.asarray(image.convert("RGB")).reshape(-1, 3), axis=0)) > 8

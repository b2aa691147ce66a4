"""The terrain grid in plain MuJoCo (``sim2sim/terrain_grid.py``, ``sim2sim.py --terrain default|CELLS``), with
policies whose outcome is known: a zero action stands (no success, no fall, the whole forward command missed), a
constant bend of the calves tips the robot onto its trunk, and the shipped Go2-Flat policy walks out of gentle
cells. Isaac Lab's terrain generator builds the cells; no simulator runs."""

import json
import math

import numpy as np
import pytest
from deploy_fixtures import make_bundle, rough_bundle

from go2_locomotion import pretrained, sim2sim
from go2_locomotion.evaluation import terrain_report
from go2_locomotion.robot.bundle import load_bundle
from go2_locomotion.robot.heading import yaw_of
from go2_locomotion.sim2sim.terrain_grid import ROBOTS_PER_CELL, headings, run_terrain, start_plants
from go2_locomotion.tasks.terrain_cells import parse_cell, parse_cells

CELLS = "stairs_up:0.10 slopes_down:20"
CALVES = [8, 9, 10, 11]
"""The calves in the fixture's (PhysX) joint order: hips, thighs, calves, legs FL, FR, RL, RR."""


@pytest.fixture(scope="module")
def standing(tmp_path_factory):
    """A Go2-Rough bundle (237 inputs, the height scan) with a zero action: it holds the standing pose."""
    return load_bundle(rough_bundle(tmp_path_factory.mktemp("zero"), weight=np.zeros((12, 235)), task="Go2-Rough"))


def test_robots_start_at_the_tile_centre_one_heading_each(standing):
    # robot k: side k mod 4 (90 deg each) plus 90 k / N deg
    np.testing.assert_allclose(np.degrees(headings(4)), [0.0, 90 + 22.5, 180 + 45, 270 + 67.5])
    assert ROBOTS_PER_CELL == 8  # Isaac Lab's terrain evaluation's count, so the two grids compare robot for robot
    eight = np.degrees(headings(ROBOTS_PER_CELL))
    np.testing.assert_allclose(eight, [0, 101.25, 202.5, 303.75, 45, 146.25, 247.5, 348.75])
    # no two a quarter turn apart (the pyramids' four sides are alike), every side a quarter of the robots
    for n in (4, 8, 32):
        yaws = np.degrees(headings(n))
        assert len(np.unique(np.round(yaws % 90, 9))) == n
        assert np.bincount((yaws // 90).astype(int), minlength=4).tolist() == [n // 4] * 4
    geometry = sim2sim.build_cell(parse_cell("stairs_up:0.10"))
    plants = start_plants(standing, geometry, ROBOTS_PER_CELL)
    for plant, heading in zip(plants, headings(ROBOTS_PER_CELL), strict=True):
        data, model = plant.data, plant.model
        np.testing.assert_allclose(data.qpos[0:2], [0.0, 0.0], atol=1e-12)  # the tile's origin
        assert math.remainder(yaw_of(data.qpos[3:7]) - heading, 2 * math.pi) == pytest.approx(0.0, abs=1e-12)
        feet = [data.xpos[model.body(f"{leg}_foot").id][2] for leg in ("FL", "FR", "RL", "RR")]
        assert min(feet) == pytest.approx(-0.7 + 0.022 + 0.002, abs=1e-9)  # 2 mm above the 7-step-deep platform
        assert not plant.is_down()
        # the robot's own yaw frame: its x axis (the forward command's direction) points along the heading
        np.testing.assert_allclose(plant.rotation()[:2, 0], [math.cos(heading), math.sin(heading)], atol=1e-12)


def test_a_standing_robot_neither_succeeds_nor_falls(standing):
    """2 s, 1 s settling: each robot stays at the centre, so its horizontal error is the whole 1 m/s command."""
    cells = parse_cells(CELLS)
    lines = []
    report = run_terrain(standing, cells, robots_per_cell=2, duration_s=2.0, settle_s=1.0, progress=lines.append)
    assert report["format"] == terrain_report.FORMAT and report["simulator"] == "mujoco"
    assert report["task"] == "Go2-Rough" and terrain_report.is_terrain_report(report)
    assert [c["label"] for c in report["terrain"]] == [c.label() for c in cells] == ["stairs_up:0.1", "slopes_down:20"]
    for cell in report["terrain"]:
        assert cell["robots"] == 2 and cell["success_rate"] == 0.0 and cell["fall_rate"] == 0.0
        assert cell["time_to_fall_s"] is None and cell["time_to_success_s"] is None
        assert cell["xy_error"] == pytest.approx(1.0, abs=0.02)
    assert report["summary"]["success_rate"] == 0.0 and report["summary"]["fall_rate"] == 0.0
    settings = report["settings"]
    assert settings["headings_deg"] == [0.0, 135.0] and settings["robots_per_cell"] == 2
    assert settings["fall_force_n"] == 1.0  # the task's trunk-contact termination
    assert settings["command"] == [1.0, 0.0, 0.0] and settings["success_distance_m"] == 4.0  # half the 8 m tile
    assert lines == [
        "[go2] stairs_up:0.1: success 0.00, falls 0.00 (2 robots, 2.0 s)",
        "[go2] slopes_down:20: success 0.00, falls 0.00 (2 robots, 2.0 s)",
    ]


def test_a_fallen_robot_counts_once_and_its_cell_stops(tmp_path):
    """+3 on every calf (0.75 rad past the standing pose) tips the robot onto its trunk within a second, in every
    heading; once both robots have fallen the cell ends, long before its 5 s."""
    bundle = make_bundle(tmp_path, weight=np.zeros((12, 48)), bias=np.isin(np.arange(12), CALVES) * 3.0)
    lines = []
    report = run_terrain(
        bundle, [parse_cell("boxes:0.05")], robots_per_cell=2, duration_s=5.0, settle_s=1.0, progress=lines.append
    )
    (cell,) = report["terrain"]
    assert cell["fall_rate"] == 1.0 and cell["success_rate"] == 0.0 and 0.1 < cell["time_to_fall_s"] < 1.0
    assert cell["xy_error"] is None  # both fell before the 1 s settling ended
    stopped = float(lines[0].split(", ")[-1].removesuffix(" s)"))
    assert stopped < 1.0 and stopped == pytest.approx(cell["time_to_fall_s"], abs=0.5)


def test_the_shipped_flat_policy_walks_out_of_gentle_cells():
    """5 degree slopes up, 5 cm steps down: every heading (the sides and the corners) gets 4 m out at about 1 m/s,
    so in 4-6 s."""
    report = run_terrain(pretrained.bundle(), parse_cells("slopes_up:5 stairs_down:0.05"), duration_s=8.0)
    for cell in report["terrain"]:
        assert cell["robots"] == 8 and cell["success_rate"] == 1.0 and cell["fall_rate"] == 0.0, cell
        assert 3.5 < cell["time_to_success_s"] < 6.0 and cell["xy_error"] < 0.3, cell
    assert report["bundle"] == "go2_locomotion/pretrained/go2_flat/exported" and report["task"] == "Go2-Flat"


def test_sim2sim_terrain_grid_writes_the_terrain_report(standing, tmp_path, capsys):
    """``--terrain`` with two cells: the terrain grid, its report in <bundle>/evaluation_mujoco_terrain/."""
    argv = ["--bundle", str(standing.directory), "--terrain", CELLS, "--robots_per_cell", "1", "--duration", "1.5"]
    assert sim2sim.main(argv) == 0
    folder = standing.directory / "evaluation_mujoco_terrain"
    report = json.loads((folder / "evaluation.json").read_text())
    assert (folder / "evaluation.png").stat().st_size > 10_000
    # the terrain evaluation's settling (1 s), not the command grid's (2 s)
    assert report["settings"]["duration_s"] == 1.5 and report["settings"]["settle_s"] == 1.0
    assert [c["robots"] for c in report["terrain"]] == [1, 1]
    assert all(c["xy_error"] == pytest.approx(1.0, abs=0.02) for c in report["terrain"])
    printed = capsys.readouterr().out
    assert "stairs_up" in printed and "slopes_down" in printed and "summary: success 0.000, falls 0.000" in printed


def test_the_terrain_grid_at_a_walking_pace(standing):
    """``--terrain_speed 0.5``: the standing robots' error is the 0.5 m/s command; the report records the speed
    and sits beside the 1 m/s one (evaluation_mujoco_terrain_0.5mps)."""
    argv = ["--bundle", str(standing.directory), "--terrain", CELLS, "--robots_per_cell", "1", "--duration", "1.5"]
    assert sim2sim.main([*argv, "--terrain_speed", "0.5"]) == 0
    report = json.loads((standing.directory / "evaluation_mujoco_terrain_0.5mps" / "evaluation.json").read_text())
    assert report["settings"]["command"] == [0.5, 0.0, 0.0]
    assert all(c["xy_error"] == pytest.approx(0.5, abs=0.02) for c in report["terrain"])


def test_pretrained_takes_the_task(capsys, monkeypatch):
    """A task whose policy is not shipped (here: Go2-Rough's taken out of the shipped list) is named."""
    monkeypatch.setattr(pretrained, "POLICIES", {"Go2-Flat": pretrained.POLICIES["Go2-Flat"]})
    assert sim2sim.main(["--bundle", "pretrained", "--task", "Go2-Rough", "--terrain", "default"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "error: --bundle pretrained --task Go2-Rough: no pretrained policy for task 'Go2-Rough'; shipped: "
        + ", ".join(pretrained.POLICIES)
    )


def test_the_terrain_grid_on_a_model_file(standing, tmp_path, capsys):
    """``sim2sim.py --terrain CELLS --model FILE``: the grid on an MJCF Go2 from a file. Here the description written
    out with a trunk 30 times as heavy (207 kg): the zero-action robots that stand on the description (above) sink
    onto their trunks on it, so the file's own bodies are the ones simulated; the report and its folder name the
    file; one cell (a command script) with --model is refused."""
    from go2_locomotion.assets import go2_description

    spec = go2_description.build_spec(spawn_height=0.0)
    spec.body("base").mass *= 30
    model_file = tmp_path / "go2_heavy.xml"
    model_file.write_text(spec.to_xml())
    report = run_terrain(
        standing, parse_cells(CELLS), robots_per_cell=1, duration_s=2.0, settle_s=1.0, model_file=model_file
    )
    assert report["settings"]["model"] == str(model_file)
    assert [c["fall_rate"] for c in report["terrain"]] == [1.0, 1.0]
    argv = ["--bundle", str(standing.directory), "--terrain", CELLS, "--robots_per_cell", "1", "--duration", "1.5"]
    assert sim2sim.main([*argv, "--model", str(model_file)]) == 0
    written = json.loads((standing.directory / "evaluation_mujoco_terrain_go2_heavy" / "evaluation.json").read_text())
    assert written["settings"]["model"] == str(model_file) and written["summary"]["fall_rate"] == 1.0
    capsys.readouterr()
    one = ["--bundle", str(standing.directory), "--terrain", "stairs_up:0.10", "--model", str(model_file)]
    assert sim2sim.main(one) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: --model {model_file}: only with --grid or a terrain grid (--terrain default or two or more cells); "
        "sim_go2.py --model takes it too"
    )

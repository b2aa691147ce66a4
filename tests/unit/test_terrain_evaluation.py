"""Terrain cells and the terrain evaluation's figures, computed by hand on made-up robot tracks (no simulator)."""

import math

import numpy as np
import pytest

from go2_locomotion.evaluation import terrain, terrain_report
from go2_locomotion.tasks import terrain_cells
from go2_locomotion.tasks.terrain_cells import TerrainCell, parse_cell
from go2_locomotion.tasks.velocity_env_cfg import GO2_ROUGH_TERRAINS


def test_a_cell_is_the_task_generator_entry_at_one_size():
    cell = parse_cell("stairs_up:0.10")
    cfg = cell.sub_terrain_cfg()
    training = GO2_ROUGH_TERRAINS.sub_terrains["pyramid_stairs_inv"]
    assert type(cfg) is type(training) and cfg.step_height_range == (0.10, 0.10)
    assert (cfg.step_width, cfg.platform_width, cfg.border_width) == (
        training.step_width,
        training.platform_width,
        training.border_width,
    )
    low, high = training.step_height_range
    assert cell.difficulty == pytest.approx((0.10 - low) / (high - low))
    assert cell.describe()["height_cm"] == pytest.approx(10.0)
    # walking out of the tile centre: up the inverted pyramid, down the pyramid
    assert terrain_cells.TERRAINS["stairs_down"].key == "pyramid_stairs"


def test_slopes_are_given_in_degrees_and_built_as_rise_over_run():
    cell = parse_cell("slopes_down:20")
    assert cell.sub_terrain_cfg().slope_range == pytest.approx((math.tan(math.radians(20)),) * 2)
    assert terrain_cells.hardest("slopes_up") == pytest.approx(math.degrees(math.atan(0.4)))
    assert TerrainCell("slopes_up", terrain_cells.hardest("slopes_up")).difficulty == pytest.approx(1.0)


def test_random_rough_keeps_its_lowest_noise_and_raises_the_highest():
    cfg = parse_cell("random_rough:0.08").sub_terrain_cfg()
    assert cfg.noise_range == (GO2_ROUGH_TERRAINS.sub_terrains["random_rough"].noise_range[0], 0.08)


def test_the_default_grid_reaches_every_terrain_hardest_size_and_the_goal_sizes():
    cells = terrain_cells.default_cells()
    labels = {c.label() for c in cells}
    assert {"stairs_up:0.1", "stairs_down:0.1", "slopes_up:20", "slopes_down:20"} <= labels
    for name in terrain_cells.TERRAINS:
        mine = [c for c in cells if c.name == name]
        assert len(mine) >= 4
        assert max(c.difficulty for c in mine) >= 1.0 - 1e-9, name


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("stairs:0.1", "unknown terrain 'stairs'; accepted: stairs_up"),
        ("stairs_up:high", r"expected stairs_up:<size in metres>"),
        ("slopes_up:75", "below 60 degrees"),
        ("boxes:-0.1", "must be positive"),
    ],
)
def test_bad_cells_are_refused_by_name(text, message):
    with pytest.raises(ValueError, match=message):
        parse_cell(text)


def test_cells_are_laid_out_one_column_each_at_their_size():
    cells = [parse_cell("stairs_up:0.05"), parse_cell("boxes:0.1")]
    cfg = terrain_cells.cells_generator(cells)
    assert (cfg.num_rows, cfg.num_cols, cfg.curriculum) == (1, 2, True)
    assert [type(c) for c in cfg.sub_terrains.values()] == [type(c.sub_terrain_cfg()) for c in cells]
    assert list(cfg.sub_terrains.values())[1].grid_height_range == (0.1, 0.1)
    level0 = terrain.level_zero_generator(GO2_ROUGH_TERRAINS)
    assert level0.difficulty_range == (0.0, 0.0) and level0.num_cols == len(GO2_ROUGH_TERRAINS.sub_terrains)


def _recorder(cells=2, robots=2):
    return terrain.TerrainRecorder(
        cells=[parse_cell("stairs_up:0.05"), parse_cell("slopes_up:10")][:cells],
        assignment=np.repeat(np.arange(cells), robots),
        step_dt=0.5,
        settle_s=0.5,
        success_distance=4.0,
    )


def test_outcomes_are_each_robots_first_event():
    rec = _recorder()
    forward = np.array([[1.0, 0.0, 0.0]] * 4)
    # robot 0 walks out at t = 1.0; robot 1 falls at t = 0.5 then (reset) is far away; robot 2 never arrives;
    # robot 3 arrives at t = 1.0 and falls later
    rec.record(distance=np.array([2.0, 1.0, 0.5, 3.0]), lin_vel_b=forward, fell=np.array([0, 1, 0, 0]))
    rec.record(distance=np.array([4.0, 5.0, 1.0, 4.5]), lin_vel_b=forward * 0.5, fell=np.array([0, 0, 0, 0]))
    rec.record(distance=np.array([4.0, 5.0, 1.5, 0.0]), lin_vel_b=forward * 0.5, fell=np.array([0, 0, 0, 1]))
    cells = rec.report()["terrain"]
    assert cells[0]["success_rate"] == 0.5 and cells[0]["fall_rate"] == 0.5
    assert cells[0]["time_to_fall_s"] == 0.5 and cells[0]["time_to_success_s"] == 1.0
    assert cells[1]["success_rate"] == 0.5 and cells[1]["fall_rate"] == 0.0
    # the error counts after settling (t > 0.5) while a robot is still walking: robot 2 at t = 1.0 and 1.5,
    # |0.5 - 1.0| each; robot 3 arrived at t = 1.0, before any counted step
    assert cells[1]["xy_error"] == pytest.approx(0.5)
    assert cells[0]["xy_error"] is None  # robot 0 arrived at its first counted step, robot 1 had fallen
    summary = rec.report()["summary"]
    assert summary["success_rate"] == 0.5 and summary["fall_rate"] == 0.25
    assert summary["largest_size"]["slopes_up"] == {
        "label": "slopes_up:10",
        "success_rate": 0.5,
        "success_interval": cells[1]["success_interval"],
    }


def _wilson(successes: int, robots: int, z: float = 1.959963985) -> tuple[float, float]:
    """Wilson's score interval, written out: centre (p + z^2 / 2n) / (1 + z^2 / n), half-width
    z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2)."""
    p, n = successes / robots, robots
    scale = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / scale
    half = z / scale * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_each_cell_success_has_its_95_percent_wilson_interval():
    # 1 of 2 robots: centre 0.5, half-width 0.405 by the formula
    rec = _recorder()
    rec.record(distance=np.array([5.0, 0.0, 0.0, 0.0]), lin_vel_b=np.zeros((4, 3)), fell=np.zeros(4))
    cells = rec.report()["terrain"]
    assert cells[0]["success_interval"] == pytest.approx([0.0945, 0.9055], abs=1e-4)
    assert cells[1]["success_interval"] == pytest.approx([0.0, _wilson(0, 2)[1]], abs=1e-9)
    # 54 of 64 (0.84) reaches 0.74-0.91; 64 of 64 cannot show more than 0.943
    assert terrain.success_interval(54, 64) == pytest.approx(_wilson(54, 64), abs=1e-9)
    assert terrain.success_interval(54, 64) == pytest.approx([0.7357, 0.9129], abs=1e-4)
    assert terrain.success_interval(64, 64) == pytest.approx([0.9434, 1.0], abs=1e-4)
    assert terrain.success_interval(0, 0) is None


def test_a_report_has_the_cells_with_units_and_compares(tmp_path):
    rec = _recorder(cells=1)
    rec.record(np.array([5.0, 0.0]), np.zeros((2, 3)), np.array([0, 1]))
    settings = {"command": [1.0, 0.0, 0.0]}
    report = terrain_report.assemble(rec.report(), simulator="isaaclab", settings=settings, source={"task": "T"})
    cell = report["terrain"][0]
    assert {"name", "difficulty", "success_rate", "fall_rate", "height_cm"} <= cell.keys()
    assert report["units"]["height_cm"].startswith("cm")
    json_path, png_path = terrain_report.write(report, tmp_path)
    assert png_path.stat().st_size > 0
    from go2_locomotion.evaluation import report as reports

    loaded = reports.load(json_path)
    other = {**loaded, "simulator": "mujoco", "terrain": [{**cell, "success_rate": 0.0}]}
    text = terrain_report.compare(loaded, other)
    assert "stairs_up:0.05" in text and "-0.50" in text
    table = terrain_report.table(loaded)
    assert "stairs_up" in table and "0.09-0.91" in table  # 1 of 2 robots
    assert "0.09-0.91" in text

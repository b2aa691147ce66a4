"""The stairs20 terrain (``presets=stairs20``) and Go2-Rough's default terrain, without a simulator: the preset as
the command line selects it, the riser each curriculum level draws (by hand, and from Isaac Lab's own generator),
the evaluation's default cells of a policy trained on it, and its tallest cells in MuJoCo.

By hand: Go2-Rough's stairs rise 2.5-12 cm over 10 levels (0.95 cm a level), stairs20's 2.5-20 cm (1.75 cm a
level); Isaac Lab gives the tiles of level ``r`` a difficulty in ``[r / 10, (r + 1) / 10)``. A tile (8 m, 1 m border,
3 m platform, 0.3 m treads) has ``(8 - 2 - 3) // 0.6 + 1 = 6`` rings of steps, so 7 risers between the border and
the centre platform.
"""

from pathlib import Path

import pytest
import yaml
from isaaclab.utils import to_dict
from isaaclab_tasks.utils import resolve_presets, resolve_task_config

import go2_locomotion.tasks  # noqa: F401  (registers the tasks)
from go2_locomotion import run_params
from go2_locomotion.tasks import terrain_cells
from go2_locomotion.tasks.terrain_cells import default_cells, first_level_with, level_sizes, parse_cell, parse_cells
from go2_locomotion.tasks.velocity_env_cfg import GO2_ROUGH_TERRAINS, Go2RoughEnvCfg, terrain_generators

STAIRS = ("pyramid_stairs", "pyramid_stairs_inv")
OTHERS = ("boxes", "random_rough", "hf_pyramid_slope", "hf_pyramid_slope_inv")
RANGES = {
    "boxes": "grid_height_range",
    "random_rough": "noise_range",
    "hf_pyramid_slope": "slope_range",
    "hf_pyramid_slope_inv": "slope_range",
}


def _generator(*selectors: str, task: str = "Go2-Rough"):
    env_cfg, _ = resolve_task_config(task, None, overrides=list(selectors))
    return env_cfg.scene.terrain.terrain_generator


@pytest.fixture(scope="module")
def stairs20():
    return _generator("presets=stairs20")


@pytest.fixture(scope="module")
def default():
    return _generator()


def test_the_default_terrain_is_isaac_labs_go2_terrain(default):
    from isaaclab_tasks.core.velocity.config.go2.rough_env_cfg import UnitreeGo2RoughEnvCfg

    theirs = UnitreeGo2RoughEnvCfg().scene.terrain.terrain_generator
    for key in STAIRS:
        assert default.sub_terrains[key].step_height_range == theirs.sub_terrains[key].step_height_range
    assert to_dict(default) == to_dict(theirs)


def test_stairs20_is_a_preset_of_the_command_line(stairs20):
    with_cpu = _generator("presets=cpu,stairs20")
    by_path = _generator("env.scene.terrain.terrain_generator=stairs20")
    assert to_dict(with_cpu) == to_dict(by_path) == to_dict(stairs20)
    for key in STAIRS:
        assert stairs20.sub_terrains[key].step_height_range == pytest.approx((0.025, 0.20))
    # the CPU recipe's physics is the same with or without the terrain preset
    cpu, _ = resolve_task_config("Go2-Rough", None, overrides=["presets=cpu"])
    both, _ = resolve_task_config("Go2-Rough", None, overrides=["presets=cpu,stairs20"])
    assert to_dict(both.sim.physics) == to_dict(cpu.sim.physics)
    # Go2-Flat has no generated terrain: the preset is refused by name
    with pytest.raises(ValueError, match="Unknown preset.*stairs20"):
        _generator("presets=stairs20", task="Go2-Flat")


def test_stairs20_puts_60_percent_of_the_columns_on_stairs_and_keeps_the_rest(stairs20, default):
    shares = {key: cfg.proportion for key, cfg in stairs20.sub_terrains.items()}
    assert sum(shares.values()) == pytest.approx(1.0)
    assert shares["pyramid_stairs"] + shares["pyramid_stairs_inv"] == pytest.approx(0.6)
    # Isaac Lab's curriculum rule: column c takes the first sub-terrain whose cumulative share exceeds c / 20 + 0.001
    names = list(shares)
    columns = terrain_cells.column_terrains(stairs20)
    assert (
        columns
        == ["pyramid_stairs"] * 6
        + ["pyramid_stairs_inv"] * 6
        + ["boxes"] * 2
        + ["random_rough"] * 2
        + ["hf_pyramid_slope"] * 2
        + ["hf_pyramid_slope_inv"] * 2
    )
    assert {name: columns.count(name) for name in names} == {
        "pyramid_stairs": 6,
        "pyramid_stairs_inv": 6,
        "boxes": 2,
        "random_rough": 2,
        "hf_pyramid_slope": 2,
        "hf_pyramid_slope_inv": 2,
    }
    for key in OTHERS:
        assert getattr(stairs20.sub_terrains[key], RANGES[key]) == getattr(default.sub_terrains[key], RANGES[key])
    for key in STAIRS:
        ours, theirs = stairs20.sub_terrains[key], default.sub_terrains[key]
        assert ours.step_height_range[0] == theirs.step_height_range[0]
        assert (ours.step_width, ours.platform_width, ours.border_width) == (
            theirs.step_width,
            theirs.platform_width,
            theirs.border_width,
        )
    assert (stairs20.num_rows, stairs20.num_cols, stairs20.size) == (default.num_rows, default.num_cols, default.size)


def test_the_riser_of_each_level_by_hand(stairs20, default):
    for name in ("stairs_up", "stairs_down"):
        levels = level_sizes(name, stairs20)
        assert len(levels) == 10
        assert levels[0] == pytest.approx((0.025, 0.0425))
        assert levels[7] == pytest.approx((0.1475, 0.165))
        assert levels[8] == pytest.approx((0.165, 0.1825))
        assert levels[9] == pytest.approx((0.1825, 0.20))
        assert [first_level_with(name, h, stairs20) for h in (0.10, 0.15, 0.18, 0.20, 0.21)] == [4, 7, 8, 9, None]
        # Go2-Rough: 0.95 cm a level, 10 cm at level 7 (9.15-10.1 cm), 12 cm at the top of level 9
        assert level_sizes(name, default)[7] == pytest.approx((0.0915, 0.101))
        assert [first_level_with(name, h, default) for h in (0.10, 0.12, 0.15)] == [7, 9, None]
    # random rough draws its whole range at every level
    assert set(level_sizes("random_rough", stairs20)) == {(0.01, 0.06)}


def test_isaac_labs_generator_builds_those_risers(stairs20):
    from isaaclab.terrains import TerrainGenerator

    cfg = stairs20.replace(
        sub_terrains={"up": stairs20.sub_terrains["pyramid_stairs_inv"].replace(proportion=1.0)}, num_cols=1, seed=0
    )
    generator = TerrainGenerator(cfg, device="cpu")
    depth = -generator.terrain_origins[:, 0, 2]  # the centre platform, 7 risers below the border
    risers = depth / 7
    for level, (low, high) in enumerate(level_sizes("stairs_up", stairs20)):
        assert low - 1e-6 <= risers[level] < high + 1e-6, level


def test_play_mode_shrinks_every_terrain_before_and_after_the_presets_resolve():
    cfg = Go2RoughEnvCfg()
    cfg.play_mode()
    generators = terrain_generators(cfg.scene.terrain.terrain_generator)
    assert len(generators) == 2
    assert all((g.num_rows, g.num_cols, g.curriculum) == (5, 5, False) for g in generators)
    played = _generator("presets=stairs20", task="Go2-Rough-Play")
    assert (played.num_rows, played.num_cols, played.curriculum) == (5, 5, False)
    assert played.sub_terrains["pyramid_stairs"].step_height_range == pytest.approx((0.025, 0.20))
    # the module's generator, read by the terrain cells, is a template: never changed in place
    assert (GO2_ROUGH_TERRAINS.num_rows, GO2_ROUGH_TERRAINS.num_cols) == (10, 20)
    trained = resolve_presets(Go2RoughEnvCfg()).scene.terrain.terrain_generator
    assert (trained.num_rows, trained.num_cols, trained.curriculum) == (10, 20, True)


def _labels(cells) -> list[str]:
    return [cell.label() for cell in cells]


def test_the_default_cells_follow_the_trained_terrain(stairs20, default):
    ordinary = _labels(default_cells())
    assert len(ordinary) == 26
    assert not any(label.endswith(("0.15", "0.18", "0.2")) for label in ordinary if label.startswith("stairs"))
    assert _labels(default_cells(default)) == ordinary
    tall = _labels(default_cells(stairs20))
    added = [label for label in tall if label not in ordinary]
    assert added == [
        "stairs_up:0.15",
        "stairs_up:0.18",
        "stairs_up:0.2",
        "stairs_down:0.15",
        "stairs_down:0.18",
        "stairs_down:0.2",
    ]
    assert [label for label in tall if label in ordinary] == ordinary
    # each terrain's cells stay together, the taller steps after its own
    assert tall.index("stairs_up:0.2") < tall.index("stairs_down:0.05")
    assert _labels(parse_cells("default", stairs20)) == tall
    # the run's params/env.yaml holds the generator as a dict with tuples: the same grid
    dumped = run_params.load_text(yaml.dump(to_dict(stairs20)))
    assert _labels(default_cells(dumped)) == tall
    assert _labels(default_cells(run_params.load_text(yaml.dump(to_dict(default))))) == ordinary


def test_a_tall_cell_is_the_stairs20_tile(stairs20):
    for name, key in (("stairs_up", "pyramid_stairs_inv"), ("stairs_down", "pyramid_stairs")):
        cell = parse_cell(f"{name}:0.18")
        expected = stairs20.sub_terrains[key].replace(proportion=1.0, step_height_range=(0.18, 0.18))
        assert to_dict(cell.sub_terrain_cfg()) == to_dict(expected)
        # its difficulty is its place in Go2-Rough's range, above 1 beyond it
        assert cell.difficulty == pytest.approx((0.18 - 0.025) / (0.12 - 0.025))
    assert terrain_cells.hardest("stairs_up", stairs20) == pytest.approx(0.20)


@pytest.mark.parametrize("height", [0.15, 0.18, 0.20])
def test_mujoco_builds_the_tall_stairs_cells(height):
    from go2_locomotion.sim2sim.terrain import build_cell

    up, down = build_cell(parse_cell(f"stairs_up:{height}")), build_cell(parse_cell(f"stairs_down:{height}"))
    for geometry, sign in ((up, -1.0), (down, 1.0)):
        assert len(geometry.boxes) == 6 * 4 + 1 + 4 + 4 and not geometry.height_fields
        assert geometry.origin[2] == pytest.approx(sign * 7 * height, abs=1e-9)
        # on the border, then on ring k from the edge of the 6 m stairs: k + 1 risers
        assert geometry.surface(3.5, 0.0) == pytest.approx(0.0, abs=1e-9)
        for k in range(6):
            x = 3.0 - 0.3 * k - 0.15
            assert geometry.surface(x, 0.0) == pytest.approx(sign * (k + 1) * height, abs=1e-9), (geometry.label, x)
        assert geometry.surface(0.0, 0.0) == pytest.approx(sign * 7 * height, abs=1e-9)


def _run_folder(path, generator):
    """A run folder as Isaac Lab's train entrypoint leaves it: params/env.yaml with the terrain generator and the
    machine's log_dir, params/agent.yaml."""
    (path / "params").mkdir(parents=True)
    env = {"scene": {"terrain": {"terrain_generator": to_dict(generator) if generator else None}}}
    ground = Path(go2_locomotion.__file__).parent / "assets" / "data" / "ground_plane.usda"  # a path of this machine
    (path / "params" / "env.yaml").write_text(yaml.dump(env) + f"log_dir: {path}\nusd_path: {ground}\n")
    (path / "params" / "agent.yaml").write_text("seed: 42\n")
    return path


def test_a_shipped_policy_and_its_bundle_keep_the_terrain_they_trained_on(tmp_path, stairs20):
    from go2_locomotion.sim2sim import cli
    from go2_locomotion.training.ship import copy_params

    run = _run_folder(tmp_path / "run", stairs20)
    shipped = tmp_path / "pretrained" / "go2_rough"
    (shipped / "params").mkdir(parents=True)
    (shipped / "params" / "stale.yaml").write_text("from: the previous policy\n")
    copy_params(run, shipped)
    assert sorted(p.name for p in (shipped / "params").iterdir()) == ["agent.yaml", "env.yaml"]
    env_text = (shipped / "params" / "env.yaml").read_text()
    assert "log_dir" not in env_text and str(run) not in env_text  # no path of the training machine
    assert "usd_path: go2_locomotion/assets/data/ground_plane.usda\n" in env_text  # package-relative
    assert (shipped / "params" / "agent.yaml").read_text() == "seed: 42\n"
    tall = _labels(default_cells(stairs20))
    assert _labels(default_cells(run_params.trained_terrain(shipped))) == tall
    # a flat run, and a folder without params: Go2-Rough's grid
    assert run_params.trained_terrain(_run_folder(tmp_path / "flat", None)) is None
    assert run_params.trained_terrain(tmp_path) is None
    # a run without params leaves none behind
    copy_params(tmp_path / "flat" / "nothing", shipped)
    assert not (shipped / "params").exists()
    copy_params(run, shipped)

    # sim2sim --terrain default of the bundle beside it: the trained terrain's cells
    assert _labels(cli.bundle_cells("default", shipped / "exported")) == tall and len(tall) == 32
    assert _labels(cli.bundle_cells("default", tmp_path / "elsewhere" / "exported")) == _labels(default_cells())
    assert _labels(cli.bundle_cells("stairs_up:0.18", shipped / "exported")) == ["stairs_up:0.18"]


def test_robots_by_level_follow_isaac_labs_columns(stairs20, default):
    """40 robots on 20 columns: two per column, robot i on column i // 2. Stairs20's columns 0-5 are stairs down,
    6-11 stairs up, then two each of boxes, random rough, slopes down and slopes up: robots 0-11 down, 12-23 up,
    24-27 boxes, 28-31 random rough, 32-35 slopes down, 36-39 slopes up."""
    levels = [r % 10 for r in range(40)]  # robot r on level r mod 10
    counts = terrain_cells.robots_by_level(levels, stairs20)
    assert counts["stairs_down"] == [2, 2, 1, 1, 1, 1, 1, 1, 1, 1]  # robots 0-11: levels 0-9, 0, 1
    assert counts["stairs_up"] == [1, 1, 2, 2, 1, 1, 1, 1, 1, 1]  # robots 12-23: levels 2-9, 0-3
    assert counts["boxes"] == [0, 0, 0, 0, 1, 1, 1, 1, 0, 0]  # robots 24-27: levels 4-7
    assert counts["slopes_up"] == [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]  # robots 36-39
    assert sum(sum(c) for c in counts.values()) == 40
    # Go2-Rough's terrain: 20 % stairs each way, 4 columns each
    assert terrain_cells.robots_by_level([0] * 40, default)["stairs_up"][0] == 8

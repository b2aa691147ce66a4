"""The robustness grid's cells: their spelling, and what each changes in a resolved task config (no simulator)."""

import pytest

import go2_locomotion.tasks  # noqa: F401  (registers the tasks)
from go2_locomotion.assets import go2
from go2_locomotion.evaluation.robustness import DEFAULT, Cell, parse_cells, summary, table, terrain_summary, write
from go2_locomotion.tasks.robustness import apply_cell


def _play_cfg(presets=go2.REAL_GO2):
    from isaaclab_tasks.utils import resolve_task_config

    return resolve_task_config("Go2-Flat-Play", None, play_mode=True, overrides=[f"presets={presets}"])[0]


def test_cells_parse_and_the_default_grid_is_the_issues():
    assert parse_cells("latency:40 payload:3 joint_model:off nominal armature:0.5") == [
        Cell("latency", 40.0),
        Cell("payload", 3.0),
        Cell("joint_model", "off"),
        Cell("nominal"),
        Cell("armature", 0.5),
    ]
    assert Cell("armature", 0.5).describe() == (
        "rotor inertia of every joint times this (Unitree's go2.xml: x0.5 at the calf): x0.5"
    )
    assert [c.label() for c in parse_cells("default")] == [c.label() for c in DEFAULT]
    assert len(DEFAULT) == 15 and Cell("latency", 40.0) in DEFAULT and Cell("noise", 4.0) in DEFAULT
    for bad in ("latency", "latency:-5", "gains:0", "joint_model:maybe", "nominal:1", "weight:3", "latency:nan"):
        with pytest.raises(ValueError, match="is not one of"):
            parse_cells(bad)
    with pytest.raises(ValueError, match="appears twice"):
        parse_cells("payload:3 payload:3.0")


def test_each_cell_changes_its_figure():
    nominal = _play_cfg()
    cfg = _play_cfg()
    apply_cell(cfg, Cell("latency", 40.0))  # 40 ms of 5 ms physics steps, Isaac Lab running the motors
    assert (cfg.actions.joint_pos.min_delay, cfg.actions.joint_pos.max_delay) == (8, 8)
    assert cfg.sim.use_newton_actuators is False
    cfg = _play_cfg()
    apply_cell(cfg, Cell("gains", 0.8))
    assert cfg.events.actuator_gains.params["stiffness_distribution_params"] == (0.8, 0.8)
    cfg = _play_cfg()
    apply_cell(cfg, Cell("payload", 6.0))
    assert cfg.events.add_base_mass.params["mass_distribution_params"] == (6.0, 6.0)
    cfg = _play_cfg()
    apply_cell(cfg, Cell("friction", 0.2))
    assert cfg.events.physics_material.params["dynamic_friction_range"] == (0.2, 0.2)
    cfg = _play_cfg()
    apply_cell(cfg, Cell("push", 1.2))
    assert cfg.events.push_robot.params["velocity_range"]["y"] == (-1.2, 1.2)
    cfg = _play_cfg()
    apply_cell(cfg, Cell("noise", 4.0))
    assert cfg.observations.policy.enable_corruption
    assert cfg.observations.policy.joint_vel.noise.n_max == pytest.approx(4 * 1.5)
    assert nominal.observations.policy.joint_vel.noise.n_max == pytest.approx(1.5)  # no shared noise object changed
    cfg = _play_cfg()
    apply_cell(cfg, Cell("joint_model", "off"))
    legs = cfg.scene.robot.actuators["legs"]
    assert legs.armature == legs.friction == legs.viscous_friction == 0.0
    cfg = _play_cfg("default")
    apply_cell(cfg, Cell("joint_model", "on"))
    assert cfg.scene.robot.actuators["legs"].armature == go2.ARMATURE
    cfg = _play_cfg()
    apply_cell(cfg, Cell("armature", 0.5))  # the play robot's own figures halved; its friction left nominal
    params = cfg.events.joint_parameters.params
    assert params["armature_distribution_params"] == (0.5, 0.5) and params["operation"] == "scale"
    assert params.get("friction_distribution_params") is None
    cfg = _play_cfg()
    apply_cell(cfg, Cell("nominal"))
    assert cfg.to_dict() == nominal.to_dict()


def test_summary_counts_the_cells_falls():
    report = {
        "summary": {"xy_error_moving": 0.1, "yaw_error_moving": 0.05, "heading_drift": 0.01},
        "commands": [
            {"robots": 4, "fall_rate": 0.25},
            {"robots": 4, "fall_rate": 0.0},
            {"robots": 4, "fall_rate": None},
        ],
    }
    row = summary(Cell("latency", 40.0), report, "latency_40")
    assert (row["robots"], row["falls"], row["cell"]) == (12, 1, "latency:40")
    assert "latency:40" in table([row]) and " 1 of 12" in table([row])


def test_terrain_rows_carry_each_cells_success_and_interval(tmp_path):
    """Over terrain cells a row keeps each terrain cell's success with its interval and falls; the table prints one
    column per terrain cell; the JSON records robots per terrain cell and the plot is written."""

    def cell(label, success, interval, falls):
        return {
            "label": label,
            "robots": 64,
            "success_rate": success,
            "success_interval": interval,
            "fall_rate": falls,
            "xy_error": 0.3,
        }

    report = {"terrain": [cell("stairs_up:0.15", 0.75, [0.63, 0.84], 0.1), cell("stairs_up:0.18", 0.25, None, 0.5)]}
    rows = [terrain_summary(Cell("nominal"), report, "nominal"), terrain_summary(Cell("payload", 6.0), report, "p")]
    assert rows[1]["cell"] == "payload:6" and [c["label"] for c in rows[1]["terrain"]] == [
        "stairs_up:0.15",
        "stairs_up:0.18",
    ]
    assert rows[0]["terrain"][1] == {
        "label": "stairs_up:0.18",
        "robots": 64,
        "success_rate": 0.25,
        "success_interval": None,
        "fall_rate": 0.5,
    }
    printed = table(rows).splitlines()
    assert "stairs_up:0.15" in printed[0] and "stairs_up:0.18" in printed[0]
    assert printed[2].startswith("payload:6") and "0.75 (0.63-0.84)" in printed[2] and printed[2].endswith("0.25")
    json_path, png_path = write(rows, tmp_path, "t", 64)
    import json

    payload = json.loads(json_path.read_text())
    assert payload["robots_per_cell"] == 64 and "robots_per_command" not in payload and png_path.is_file()

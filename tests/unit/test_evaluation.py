"""The evaluation's command grid and figures on synthetic robots whose figures are known by hand."""

import json
import math

import numpy as np
import pytest

from go2_locomotion.evaluation.grid import GridCommand, default_grid, parse_grid
from go2_locomotion.evaluation.metrics import GridRecorder, StepState, rank_key, summarise

RANGES = {"lin_vel_x": (-0.5, 1.0), "lin_vel_y": (-1.0, 1.0), "ang_vel_z": (-2.0, 2.0)}


def test_default_grid_follows_the_command_ranges():
    grid = {c.name: c.command for c in default_grid(RANGES)}
    assert len(grid) == 13 and grid["stand"] == (0.0, 0.0, 0.0)
    assert grid["forward_slow"] == (0.25, 0.0, 0.0) and grid["forward_fast"] == (1.0, 0.0, 0.0)
    assert grid["backward"] == (-0.25, 0.0, 0.0) and grid["backward_fast"] == (-0.5, 0.0, 0.0)  # x range ends at -0.5
    assert grid["left"] == (0.0, 0.5, 0.0) and grid["right"] == (0.0, -0.5, 0.0)
    assert grid["turn_left_fast"] == (0.0, 0.0, 2.0) and grid["turn_right"] == (0.0, 0.0, -1.0)
    assert grid["forward_turn"] == (0.5, 0.0, 1.0)
    # standing still, and a stop: the full forward speed, then told to stand at 6 s
    assert [c.name for c in default_grid(RANGES) if not c.moving] == ["stand", "stop"]
    stop = default_grid(RANGES)[-1]
    assert (stop.before, stop.command, stop.switch_s) == ((1.0, 0.0, 0.0), (0.0, 0.0, 0.0), 6.0)
    assert stop.at(5.98) == (1.0, 0.0, 0.0) and stop.at(6.0) == (0.0, 0.0, 0.0)
    assert stop.counts_from(2.0) == 7.0 and default_grid(RANGES)[0].counts_from(2.0) == 2.0
    assert all(math.copysign(1, v) == 1 for v in grid["stand"])  # no -0.0 in a report


def test_parse_grid_and_its_errors():
    assert parse_grid("walk:0.5,0,0 spin:0,0,-1") == [
        GridCommand("walk", (0.5, 0.0, 0.0)),
        GridCommand("spin", (0.0, 0.0, -1.0)),
    ]
    stop = GridCommand("stop", (0.0, 0.0, 0.0), before=(1.0, 0.0, 0.0), switch_s=6.0)
    assert parse_grid("stop:1,0,0@6:0,0,0") == [stop]
    for bad, fragment in [
        ("stop:1,0,0@-1:0,0,0", "not name:vx,vy,wz"),
        ("stop:1,0,0@x:0,0,0", "not name:vx,vy,wz"),
        ("stop:1,0,0@6:0,0", "not name:vx,vy,wz"),
        ("stop:1,0,0@6", "not name:vx,vy,wz"),
        ("walk:0.5,0", "not name:vx,vy,wz"),
        ("walk:a,b,c", "not name:vx,vy,wz"),
        (":0,0,0", "not name:vx,vy,wz"),
        ("walk:nan,0,0", "not name:vx,vy,wz"),
        ("a:0,0,0 a:1,0,0", "appears twice"),
        ("", "no command given"),
    ]:
        with pytest.raises(ValueError, match=fragment):
            parse_grid(bad)


def _state(robots, vx, vy, wz, fell=(), contact=None, torque=2.0, joint_pos=0.0):
    n = len(robots)
    lin = np.zeros((n, 3))
    lin[:, 0], lin[:, 1] = vx, vy
    ang = np.zeros((n, 3))
    ang[:, 2] = wz
    gravity = np.tile([0.0, 0.0, -1.0], (n, 1))
    gravity[0] = [math.sin(math.radians(10)), 0.0, -math.cos(math.radians(10))]  # robot 0 leans 10 degrees
    joints = np.full((n, 12), joint_pos)
    torques = np.full((n, 12), torque)
    return StepState(
        lin_vel_b=lin,
        ang_vel_b=ang,
        height=np.full(n, 0.3),
        projected_gravity=gravity,
        joint_pos=joints,
        joint_vel=np.ones((n, 12)),
        torque=torques,
        foot_contact=np.ones((n, 4), dtype=bool) if contact is None else contact,
        foot_vel_xy=np.zeros((n, 4, 2)),
        fell=np.isin(np.arange(n), fell),
    )


def _recorder(grid, assignment, settle_s=0.04):
    return GridRecorder(
        grid=grid,
        assignment=np.array(assignment),
        step_dt=0.02,
        settle_s=settle_s,
        joint_limits=np.tile([-1.0, 1.0], (12, 1)),
        effort_limits=np.full(12, 23.7),
    )


def test_figures_by_hand():
    """Robots 0, 1 stand (drifting 0.1 m/s forward), robots 2, 3 are told 0.5 m/s forward and do (0.4, 0.3):
    xy error |(-0.1, 0.3)| = 0.3162. Robot 3 falls at step 4 of 6; settling takes 2 steps (0.04 s)."""
    grid = [GridCommand("stand", (0.0, 0.0, 0.0)), GridCommand("forward", (0.5, 0.0, 0.0))]
    recorder = _recorder(grid, [0, 0, 1, 1])
    vx = np.array([0.1, 0.1, 0.4, 0.4])
    vy = np.array([0.0, 0.0, 0.3, 0.3])
    for step in range(6):
        recorder.record(_state(range(4), vx, vy, 0.05, fell=[3] if step == 4 else []))
    report = recorder.report()
    stand, forward = report["commands"]
    # stand: steps 2-5 of robots 0 and 1 = 8 samples
    assert stand["samples"] == 8 and stand["fall_rate"] == 0.0 and stand["time_to_fall_s"] is None
    assert stand["achieved"] == pytest.approx({"vx": 0.1, "vy": 0.0, "wz": 0.05})
    assert stand["xy_error"] == pytest.approx(0.1) and stand["yaw_error"] == pytest.approx(0.05)
    assert stand["tilt_deg"] == pytest.approx(5.0)  # robot 0 at 10 degrees, robot 1 level
    assert stand["power_w"] == pytest.approx(24.0)  # 12 joints x 2 N m x 1 rad/s
    assert stand["torque_mean_abs"] == 2.0 and stand["torque_saturated"] == 0.0 and stand["at_joint_limit"] == 0.0
    assert stand["duty_factor"] == [1.0] * 4 and stand["feet_in_air"] == 0.0 and stand["stride_hz"] == 0.0
    # forward: robot 2 steps 2-5, robot 3 steps 2-3 (it fell at step 4) = 6 samples
    assert forward["samples"] == 6 and forward["fall_rate"] == 0.5
    assert forward["time_to_fall_s"] == pytest.approx(4 * 0.02)
    assert forward["xy_error"] == pytest.approx(math.hypot(0.1, 0.3))
    assert forward["xy_error_rms"] == pytest.approx(math.hypot(0.1, 0.3))
    summary = report["summary"]
    assert summary["xy_error_moving"] == pytest.approx(math.hypot(0.1, 0.3))
    assert summary["yaw_error_moving"] == pytest.approx(0.05)
    assert summary["fall_rate"] == 0.25
    assert summary["standing_drift"] == pytest.approx(0.1)


def test_gait_saturation_and_limits_by_hand():
    """One robot trotting: FL and RR down on even steps, FR and RL on odd ones, over 8 steps of 0.02 s after no
    settling; one joint at 99 % of its effort limit, one joint 0.97 rad from centre (limits +-1, 2 % margin =
    0.04 rad), feet sliding at 0.1 m/s while down."""
    grid = [GridCommand("walk", (0.5, 0.0, 0.0))]
    recorder = _recorder(grid, [0], settle_s=0.0)
    for step in range(8):
        even = step % 2 == 0
        contact = np.array([[even, not even, not even, even]])
        state = _state([0], 0.5, 0.0, 0.0, contact=contact)
        state.torque[0, 2] = 0.99 * 23.7
        state.joint_pos[0, 5] = 0.97
        state.foot_vel_xy[:] = [0.1, 0.0]
        recorder.record(state)
    (walk,) = recorder.report()["commands"]
    assert walk["duty_factor"] == [0.5] * 4
    assert walk["feet_in_air"] == 2.0
    # touch-downs: each foot lands every other step: 4 per foot in 7 transitions (FR/RL 4, FL/RR 3) = 14 over
    # 7 x 0.02 s x 4 feet
    assert walk["stride_hz"] == pytest.approx(14 / (7 * 0.02 * 4))
    assert walk["torque_saturated"] == pytest.approx(1 / 12) and walk["at_joint_limit"] == pytest.approx(1 / 12)
    assert walk["foot_slip"] == pytest.approx(0.1)
    assert walk["torque_max_abs"] == pytest.approx(0.99 * 23.7)


def test_a_robot_down_from_the_start_gives_no_figures_but_a_fall():
    grid = [GridCommand("stand", (0.0, 0.0, 0.0))]
    recorder = _recorder(grid, [0])
    for _ in range(3):
        recorder.record(_state([0], 0.0, 0.0, 0.0, fell=[0]))
    (stand,) = recorder.report()["commands"]
    assert stand["fall_rate"] == 1.0 and stand["time_to_fall_s"] == 0.0
    assert stand["samples"] == 0 and stand["xy_error"] is None and stand["stride_hz"] is None


def test_best_checkpoint_ranks_by_error_then_falls():
    good = {"xy_error_moving": 0.1, "yaw_error_moving": 0.1, "fall_rate": 0.2}
    same_error_fewer_falls = {"xy_error_moving": 0.15, "yaw_error_moving": 0.05, "fall_rate": 0.0}
    bad = {"xy_error_moving": 0.8, "yaw_error_moving": 0.5, "fall_rate": 0.0}
    missing = {"xy_error_moving": None, "yaw_error_moving": 0.0, "fall_rate": 0.0}
    ranked = sorted([bad, good, missing, same_error_fewer_falls], key=rank_key)
    assert ranked == [same_error_fewer_falls, good, bad, missing]


def test_summary_counts_falls_over_all_robots():
    commands = [
        {"command": [0, 0, 0], "robots": 2, "fall_rate": 0.5, "xy_error": 0.02, "achieved": {"vx": 0.0, "vy": 0.02}},
        {"command": [1, 0, 0], "robots": 4, "fall_rate": 0.25, "xy_error": 0.3, "yaw_error": 0.1, "achieved": {}},
    ]
    summary = summarise(commands, 6)
    assert summary["fall_rate"] == pytest.approx(2 / 6)
    assert summary["standing_net_velocity"] == pytest.approx(0.02) and summary["xy_error_moving"] == 0.3


def test_mujoco_grid_on_a_zero_action_bundle(tmp_path):
    """The MuJoCo side of the evaluation: a hand-built bundle whose policy outputs zeros holds the standing pose,
    so every command's xy and yaw errors equal its magnitudes and nobody falls; the report has every figure."""
    from deploy_fixtures import NEWTON_ORDER, make_bundle

    from go2_locomotion.evaluation import report as reports
    from go2_locomotion.evaluation.metrics import FIGURES, SUMMARY
    from go2_locomotion.sim2sim.command_grid import run_grid

    bundle = make_bundle(tmp_path / "bundle", NEWTON_ORDER, weight=np.zeros((12, 48)))
    grid = parse_grid("stand:0,0,0 forward:0.5,0,0 turn:0,0,-1")
    report = run_grid(bundle, grid, duration_s=2.0, settle_s=1.0)
    assert report["simulator"] == "mujoco" and report["format"] == reports.FORMAT
    for c, (vx, _, wz) in zip(report["commands"], [(0, 0, 0), (0.5, 0, 0), (0, 0, -1)], strict=True):
        assert set(FIGURES) <= set(c) and c["robots"] == 1 and c["samples"] == 50 and c["fall_rate"] == 0.0
        assert c["xy_error"] == pytest.approx(abs(vx), abs=0.03) and c["yaw_error"] == pytest.approx(abs(wz), abs=0.03)
        assert c["duty_factor"] == [1.0] * 4 and c["stride_hz"] == 0.0 and 0.2 < c["height"] < 0.33
        assert 0 < c["torque_mean_abs"] < 23.7 and c["torque_saturated"] == 0.0
    assert set(report["summary"]) == set(SUMMARY) and report["summary"]["fall_rate"] == 0.0
    json_path, png_path = reports.write(report, tmp_path / "out")
    assert reports.load(json_path.parent)["commands"] == json.loads(json_path.read_text())["commands"]
    assert png_path.stat().st_size > 10_000


def test_standing_figures_by_hand():
    """One robot told to stand for 10 steps: all four feet down on 8 of them (one foot up on steps 3 and 4),
    joints moving at 1 rad/s (the helper's figure)."""
    grid = [GridCommand("stand", (0.0, 0.0, 0.0))]
    recorder = _recorder(grid, [0], settle_s=0.0)
    for step in range(10):
        contact = np.array([[True, step not in (3, 4), True, True]])
        recorder.record(_state([0], 0.0, 0.0, 0.0, contact=contact))
    report = recorder.report()
    (stand,) = report["commands"]
    assert stand["all_feet_down"] == pytest.approx(0.8) and stand["joint_speed"] == pytest.approx(1.0)
    assert stand["time_to_stand_s"] is None and stand["stood_rate"] is None  # no stop asked
    assert report["summary"]["standing_all_feet_down"] == pytest.approx(0.8)
    assert report["summary"]["standing_joint_speed"] == pytest.approx(1.0)
    assert report["summary"]["stop_time_s"] is None and report["summary"]["stop_stood_rate"] is None


def test_stop_by_hand():
    """Told 1 m/s until 0.1 s (step 5), then to stand; steps of 0.02 s, standing must hold for 1 s (50 steps).
    Robot 0 slows to 0.04 m/s at step 9 with all feet down and stays: 4 steps = 0.08 s after the stop.
    Robot 1 is slow from step 7 but lifts a foot at step 30: it stands from step 31 on, 0.52 s after the stop.
    Robot 2 never gets under 0.05 m/s. Figures count from 0.1 + 1.0 s (step 55) on."""
    grid = [GridCommand("stop", (0.0, 0.0, 0.0), before=(1.0, 0.0, 0.0), switch_s=0.1)]
    recorder = _recorder(grid, [0, 0, 0], settle_s=0.0)
    for step in range(100):
        vx = np.array([1.0 if step < 9 else 0.04, 1.0 if step < 7 else 0.0, 0.06])
        contact = np.ones((3, 4), dtype=bool)
        contact[1, 2] = step != 30
        recorder.record(_state(range(3), vx, 0.0, 0.0, contact=contact))
    (stop,) = recorder.report()["commands"]
    assert stop["samples"] == 3 * 45  # steps 55-99
    assert stop["xy_error"] == pytest.approx((0.04 + 0.0 + 0.06) / 3)  # against the zero command
    assert stop["time_to_stand_s"] is None and stop["stood_rate"] == pytest.approx(2 / 3)
    recorder = _recorder(grid, [0, 0], settle_s=0.0)
    for step in range(100):
        contact = np.ones((2, 4), dtype=bool)
        contact[1, 2] = step != 30
        recorder.record(
            _state(range(2), np.array([1.0 if step < 9 else 0.04, 1.0 if step < 7 else 0.0]), 0.0, 0.0, contact=contact)
        )
    report = recorder.report()
    assert report["commands"][0]["time_to_stand_s"] == pytest.approx(26 * 0.02)  # the slower robot: step 31
    assert report["summary"]["stop_time_s"] == pytest.approx(0.52) and report["summary"]["stop_stood_rate"] == 1.0
    assert report["summary"]["xy_error_moving"] is None  # a stop is a standing command


def test_heading_drift_by_hand():
    """Two robots told to walk straight ahead turn at +0.04 and -0.02 rad/s: their headings change 0.04 and 0.02 rad
    a second, so the drift is 0.03 rad/s (their signed mean, 0.01, would hide it). A turning robot and a standing one
    have no drift figure; a robot that falls counts until its fall."""
    grid = [
        GridCommand("forward", (0.5, 0.0, 0.0)),
        GridCommand("turn", (0.0, 0.0, 0.5)),
        GridCommand("stand", (0.0, 0.0, 0.0)),
        GridCommand("left", (0.0, 0.5, 0.0)),
    ]
    recorder = _recorder(grid, [0, 0, 1, 2, 3])
    for step in range(6):
        # robot 4 (left) turns at 0.1 rad/s until it falls at step 4, then its readings (1.0 rad/s) do not count
        wz = np.array([0.04, -0.02, 0.5, 0.0, 0.1 if step < 4 else 1.0])
        recorder.record(_state(range(5), np.zeros(5), np.zeros(5), wz, fell=[4] if step == 4 else []))
    forward, turn, stand, left = recorder.report()["commands"]
    assert forward["heading_drift"] == pytest.approx(0.03)
    assert forward["achieved"]["wz"] == pytest.approx(0.01)
    assert turn["heading_drift"] is None and stand["heading_drift"] is None
    assert left["heading_drift"] == pytest.approx(0.1)
    assert recorder.report()["summary"]["heading_drift"] == pytest.approx((0.03 + 0.1) / 2)
    # a stop (moving, then told to stand) is no straight command
    assert not GridCommand("stop", (0.0, 0.0, 0.0), before=(1.0, 0.0, 0.0), switch_s=6.0).straight


def test_mujoco_grid_on_a_model_file(tmp_path, capsys):
    """``sim2sim.py --grid --model``: the grid on an MJCF Go2 from a file (here the description written out, its
    joints given 10x Unitree's viscous friction so that the model file's own joint figures are seen to be used):
    the zero-action robot stands on it, and the report names the file; --model without a grid is refused."""
    import mujoco
    from deploy_fixtures import NEWTON_ORDER, make_bundle

    from go2_locomotion.assets import go2_description
    from go2_locomotion.sim2sim import main as sim2sim_main
    from go2_locomotion.sim2sim.command_grid import run_grid

    spec = go2_description.build_spec(spawn_height=0.0)
    for name in go2_description.JOINT_NAMES:
        spec.joint(name).damping[0] = 1.0
    model_file = tmp_path / "go2_damped.xml"
    model_file.write_text(spec.to_xml())
    assert mujoco.MjModel.from_xml_path(str(model_file)).dof_damping[6:].tolist() == [1.0] * 12
    bundle = make_bundle(tmp_path / "bundle", NEWTON_ORDER, weight=np.zeros((12, 48)))
    grid = parse_grid("stand:0,0,0 forward:0.5,0,0")
    report = run_grid(bundle, grid, duration_s=2.0, settle_s=1.0, model_file=model_file)
    assert report["settings"]["model"] == str(model_file) and report["summary"]["fall_rate"] == 0.0
    assert sim2sim_main(["--bundle", str(tmp_path / "bundle"), "--model", str(model_file)]) == 2
    assert "--model " + str(model_file) + ": only with --grid or a terrain grid" in capsys.readouterr().err


def test_mujoco_robustness_cells_change_the_robot(tmp_path, capsys):
    """``sim2sim.py --grid --robustness`` with a zero-action bundle (holds the standing pose): a 4 kg payload sinks
    the trunk on its PD springs; joint targets 40 ms late change nothing while the targets are constant; weaker
    gains (x0.8) let it sag; the grid's JSON and table name each cell."""
    from deploy_fixtures import NEWTON_ORDER, make_bundle

    from go2_locomotion.sim2sim import main as sim2sim_main

    make_bundle(tmp_path / "bundle", NEWTON_ORDER, weight=np.zeros((12, 48)))
    out = tmp_path / "robust"
    argv = ["--bundle", str(tmp_path / "bundle"), "--grid", "stand:0,0,0", "--duration", "2", "--settle", "1"]
    cells = "nominal payload:4 latency:40 gains:0.8"
    assert sim2sim_main([*argv, "--robustness", cells, "--output", str(out)]) == 0
    grid = json.loads((out / "robustness.json").read_text())
    assert [row["cell"] for row in grid["cells"]] == cells.split()
    assert all(row["falls"] == 0 for row in grid["cells"])
    height = {
        row["cell"]: json.loads((out / row["report"] / "evaluation.json").read_text())["commands"][0]["height"]
        for row in grid["cells"]
    }
    assert height["latency:40"] == pytest.approx(height["nominal"], abs=1e-6)
    assert height["nominal"] - height["payload:4"] > 0.005 and height["nominal"] - height["gains:0.8"] > 0.005
    assert "payload:4" in capsys.readouterr().out
    assert sim2sim_main([*argv[:2], "--robustness", "default"]) == 2
    assert "--robustness runs with --grid" in capsys.readouterr().err


def test_mujoco_latency_holds_the_targets_back(tmp_path):
    """A plant whose targets are 4 physics steps (one policy step) late, sent targets A then B, moves exactly as a
    plant on time sent A twice: MuJoCo is deterministic, so the joint positions agree to the last bit."""
    from deploy_fixtures import NEWTON_ORDER, make_bundle

    from go2_locomotion.robot.bundle import load_bundle
    from go2_locomotion.sim2sim.plant import Go2Plant

    bundle = load_bundle(make_bundle(tmp_path / "bundle", NEWTON_ORDER, weight=np.zeros((12, 48))))
    default = bundle.joint_array("joints.default_position")[bundle.sdk2_to_policy]
    a, b = default + 0.2, default - 0.2
    kp, kd = np.full(12, 25.0), np.full(12, 0.5)
    late, on_time = Go2Plant(bundle), Go2Plant(bundle)
    late.delay = 4
    for target_late, target_on_time in ((a, a), (b, a)):
        late.apply(target_late, kp, kd)
        on_time.apply(target_on_time, kp, kd)
    assert np.array_equal(late.data.qpos, on_time.data.qpos)
    late.apply(b, kp, kd)  # B arrives now
    on_time.apply(a, kp, kd)
    assert not np.array_equal(late.data.qpos, on_time.data.qpos)

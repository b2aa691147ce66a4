"""scripts/evaluate.py on the CPU with policies whose behaviour is known: checkpoints built here with a zeroed
actor output layer (zero action: hold the standing pose) or a constant output (a fixed joint-target offset)."""

import json

import pytest
import torch
from isaac_env import make_env

from go2_locomotion.evaluation.metrics import FIGURES, SUMMARY
from go2_locomotion.training import evaluate

GRID = "stand:0,0,0 forward:0.5,0,0 left:0,0.4,0 turn:0,0,1"
COMMANDS = {"stand": (0.0, 0.0, 0.0), "forward": (0.5, 0.0, 0.0), "left": (0.0, 0.4, 0.0), "turn": (0.0, 0.0, 1.0)}
SHORT = ["--duration", "3", "--settle", "1", "--robots_per_command", "2", "--grid", GRID]
CPU = ["--task", "Go2-Flat", "--device", "cpu", "--headless"]
CROUCH = 3.0
"""Constant action on every calf: +3 x 0.25 = 0.75 rad past the standing pose, the thighs held: the robot
tips onto its trunk within half a second (measured: every robot, 0.38-0.44 s)."""


def _save(runner, path, bias):
    last = runner.alg.get_policy().mlp[-1]
    with torch.no_grad():
        last.weight.zero_()
        last.bias.copy_(bias)
    runner.save(str(path))


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    """model_0.pt: zero action; model_1.pt: a constant action on the calves."""
    from isaaclab_rl.rsl_rl import (
        RslRlVecEnvWrapper,
        check_rsl_rl_version,
        create_rsl_rl_runner,
        handle_deprecated_rsl_rl_cfg,
    )
    from isaaclab_tasks.utils.parse_cfg import load_cfg_from_registry

    folder = tmp_path_factory.mktemp("eval_run")
    with make_env("Go2-Flat", num_envs=1) as gym_env:
        agent_cfg = load_cfg_from_registry("Go2-Flat", "rsl_rl_cfg_entry_point")
        agent_cfg = handle_deprecated_rsl_rl_cfg(agent_cfg, check_rsl_rl_version())
        agent_cfg.device = "cpu"
        runner = create_rsl_rl_runner(RslRlVecEnvWrapper(gym_env), agent_cfg)
        _save(runner, folder / "model_0.pt", torch.zeros(12))
        calves = torch.zeros(12)
        calves[[2, 5, 8, 11]] = CROUCH  # FL, FR, RL, RR calf in the pinned joint order
        runner.current_learning_iteration = 1
        _save(runner, folder / "model_1.pt", calves)
    return folder


def _evaluate(out, *args):
    assert evaluate.main([*CPU, *SHORT, "--out", str(out), *args]) == 0
    return json.loads((out / "evaluation.json").read_text())


def test_zero_action_stands_and_errors_equal_the_commands(run_folder, tmp_path):
    report = _evaluate(tmp_path, "--checkpoint", str(run_folder / "model_0.pt"))
    assert (tmp_path / "evaluation.png").stat().st_size > 10_000
    assert report["simulator"] == "isaaclab" and report["task"] == "Go2-Flat"
    assert report["physics"]["backend"] == "newton" and len(report["checkpoint_sha256"]) == 64
    assert [c["name"] for c in report["commands"]] == list(COMMANDS)
    for c in report["commands"]:
        vx, vy, wz = COMMANDS[c["name"]]
        assert set(FIGURES) <= set(c), set(FIGURES) - set(c)
        assert c["robots"] == 2 and c["fall_rate"] == 0.0 and c["samples"] == 2 * 100  # 2 s after settling
        assert abs(c["achieved"]["vx"]) < 0.05 and abs(c["achieved"]["vy"]) < 0.05 and abs(c["achieved"]["wz"]) < 0.1
        assert c["xy_error"] == pytest.approx((vx**2 + vy**2) ** 0.5, abs=0.05)
        assert c["yaw_error"] == pytest.approx(abs(wz), abs=0.1)
        assert c["feet_in_air"] < 0.1 and c["duty_factor"] == pytest.approx([1.0] * 4, abs=0.05)
        assert 0.2 < c["height"] < 0.33
    assert set(report["summary"]) == set(SUMMARY)
    assert report["summary"]["xy_error_moving"] == pytest.approx((0.5 + 0.4 + 0.0) / 3, abs=0.05)
    assert report["summary"]["standing_drift"] < 0.05


def test_same_seed_same_figures(run_folder, tmp_path):
    """The zero-action policy (a constant output) twice with one seed: every figure equal. Robots start with
    random poses, joint offsets and velocities (the play MDP's resets), so this checks the seed reaches them."""
    first = _evaluate(tmp_path / "a" / "seed7", "--checkpoint", str(run_folder / "model_0.pt"), "--seed", "7")
    second = _evaluate(tmp_path / "b", "--checkpoint", str(run_folder / "model_0.pt"), "--seed", "7")
    other = _evaluate(tmp_path / "c", "--checkpoint", str(run_folder / "model_0.pt"), "--seed", "8")
    assert first["settings"]["seed"] == 7
    assert first["commands"] == second["commands"] and first["summary"] == second["summary"]
    assert first["commands"] != other["commands"]


def test_robots_started_upside_down_are_counted_as_falls(run_folder, tmp_path):
    flipped = "env.events.reset_base.params.pose_range={'x': [0, 0], 'y': [0, 0], 'roll': [3.14, 3.14]}"
    report = _evaluate(tmp_path, "--checkpoint", str(run_folder / "model_0.pt"), flipped)
    assert report["summary"]["fall_rate"] == 1.0
    for c in report["commands"]:
        assert c["fall_rate"] == 1.0 and c["time_to_fall_s"] < 1.0 and c["samples"] == 0


def test_run_names_the_best_checkpoint_and_compare_reads_both(run_folder, tmp_path, capsys):
    out = tmp_path / "run_eval"
    assert evaluate.main([*CPU, *SHORT, "--run", str(run_folder), "--out", str(out)]) == 0
    summary = json.loads((out / evaluate.RUN_REPORT).read_text())
    zero, calves = (json.loads((out / f"model_{i}" / "evaluation.json").read_text()) for i in (0, 1))
    assert [c["checkpoint"] for c in summary["checkpoints"]] == [str(run_folder / f"model_{i}.pt") for i in (0, 1)]
    # the constant calf action tips every robot over before the figures start; zero action stands
    assert calves["summary"]["fall_rate"] == 1.0 and all(c["time_to_fall_s"] < 1.0 for c in calves["commands"])
    assert calves["summary"]["xy_error_moving"] is None
    assert zero["summary"]["fall_rate"] == 0.0 and zero["summary"]["xy_error_moving"] == pytest.approx(0.3, abs=0.05)
    assert summary["best"] == str(run_folder / "model_0.pt")
    capsys.readouterr()
    assert evaluate.main(["--compare", str(out / "model_0"), str(out / "model_1")]) == 0
    printed = capsys.readouterr().out
    assert all(name in printed for name in COMMANDS) and "summary xy_error_moving" in printed


def test_usage_errors(tmp_path, capsys):
    for args, fragment in [
        (["--duration", "0"], "--duration must be a positive number"),
        (["--duration", "2", "--settle", "2"], "--settle must be in [0, --duration = 2.0)"),
        (["--grid", "walk:1,0"], "not name:vx,vy,wz"),
        (["--num_envs", "8"], "--num_envs is set by the grid"),
        (["--run", str(tmp_path / "none")], "no such run folder"),
        (["--robustness", "latency:40 weight:3"], "cell 'weight:3' is not one of"),
        (["--robustness", "default", "--run", str(tmp_path)], "--robustness evaluates one checkpoint: not with --run"),
    ]:
        assert evaluate.main([*CPU, *args]) == 2
        err = capsys.readouterr().err
        assert fragment in err and "Traceback" not in err, err
    assert evaluate.main(["--compare", str(tmp_path), str(tmp_path)]) == 2
    assert "no evaluation report" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_isaac_lab_and_mujoco_reports_compare_on_a_fresh_bundle(run_folder, tmp_path, capsys):
    """The zero-action checkpoint: evaluated in Isaac Lab, exported to a bundle, evaluated on the same grid by
    sim2sim.py in MuJoCo; both reports carry the same fields, both robots stand, and --compare lines them up."""
    from go2_locomotion import sim2sim
    from go2_locomotion.training import export

    checkpoint = str(run_folder / "model_0.pt")
    isaac_report = _evaluate(tmp_path / "isaac", "--checkpoint", checkpoint)
    bundle = tmp_path / "bundle"
    assert export.main([*CPU, "--checkpoint", checkpoint, "--output", str(bundle)]) == 0
    args = [
        "--bundle",
        str(bundle),
        "--grid",
        GRID,
        "--duration",
        "3",
        "--settle",
        "1",
        "--output",
        str(tmp_path / "mj"),
    ]
    assert sim2sim.main(args) == 0
    mujoco_report = json.loads((tmp_path / "mj" / "evaluation.json").read_text())
    assert mujoco_report["simulator"] == "mujoco" and mujoco_report["task"] == "Go2-Flat"
    assert mujoco_report["checkpoint"] == "model_0.pt"
    assert set(mujoco_report) == set(isaac_report) - {"checkpoint_sha256"} | {"bundle", "policy_sha256"}
    for a, b in zip(isaac_report["commands"], mujoco_report["commands"], strict=True):
        assert set(a) == set(b) and a["name"] == b["name"] and a["command"] == b["command"]
        assert b["fall_rate"] == 0.0 and abs(a["xy_error"] - b["xy_error"]) < 0.05
    capsys.readouterr()
    assert evaluate.main(["--compare", str(tmp_path / "isaac"), str(tmp_path / "mj")]) == 0
    printed = capsys.readouterr().out
    assert "(isaaclab)" in printed and "(mujoco)" in printed and all(name in printed for name in COMMANDS)


def test_robustness_cells_change_the_robot(run_folder, tmp_path, capsys):
    """The zero-action policy holds the standing pose in every cell: a 2 kg payload sinks the trunk on its PD
    springs (2 kg: the zero action holds up to about 4 kg), and the grid's table, JSON and plot name each cell."""
    out = tmp_path / "robust"
    args = [*CPU, *SHORT, "--checkpoint", str(run_folder / "model_0.pt"), "--out", str(out)]
    assert evaluate.main([*args, "--robustness", "nominal payload:2 latency:40"]) == 0
    grid = json.loads((out / "robustness.json").read_text())
    assert [row["cell"] for row in grid["cells"]] == ["nominal", "payload:2", "latency:40"]
    assert all(row["falls"] == 0 and row["robots"] == 8 for row in grid["cells"])
    heights = {}
    for row in grid["cells"]:
        report = json.loads((out / row["report"] / "evaluation.json").read_text())
        heights[row["cell"]] = next(c["height"] for c in report["commands"] if c["name"] == "stand")
    # standing still, a delay of constant targets changes nothing; 2 kg on 15 kg sinks the trunk by millimetres
    assert heights["latency:40"] == pytest.approx(heights["nominal"], abs=1e-3)
    assert heights["nominal"] - heights["payload:2"] > 0.005
    assert (out / "robustness.png").is_file()
    printed = capsys.readouterr().out
    assert "payload:2" in printed and "latency:40" in printed

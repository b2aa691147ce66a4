"""Go2-Rough's terrain evaluation in Isaac Lab and in plain MuJoCo on the same two cells, from one checkpoint: a
fresh Go2-Rough policy with its actor's output layer zeroed (zero action: it holds the standing pose), evaluated by
``scripts/evaluate.py --terrain`` in Isaac Lab and, exported to a deploy bundle (237 inputs, the height scan), by
``scripts/sim2sim.py --terrain`` in MuJoCo. Standing, no robot gets half a tile out and none falls, in either;
its horizontal error is the whole command (``--terrain_speed 0.5``: a person's pace on stairs, carried through both
evaluations); ``--compare`` lines the two reports up cell by cell, each success with its 95 % interval."""

import json

import pytest
import torch
from isaac_env import make_env

from go2_locomotion import sim2sim
from go2_locomotion.export.manifest import export_bundle
from go2_locomotion.tasks.terrain_cells import cells_generator, parse_cells
from go2_locomotion.training import evaluate

pytestmark = pytest.mark.sim

CELLS = "stairs_up:0.05 slopes_down:10"
LABELS = ["stairs_up:0.05", "slopes_down:10"]
SHORT = ["--terrain", CELLS, "--robots_per_cell", "2", "--duration", "2", "--settle", "1", "--terrain_speed", "0.5"]


@pytest.fixture(scope="module")
def zero_action(tmp_path_factory):
    """``(checkpoint, bundle folder)`` of a Go2-Rough policy whose action is zero."""
    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper, check_rsl_rl_version, handle_deprecated_rsl_rl_cfg
    from isaaclab_tasks.utils.parse_cfg import load_cfg_from_registry

    from go2_locomotion.training.session import make_runner

    folder = tmp_path_factory.mktemp("rough_zero")

    def two_tiles(cfg):  # the environment only builds the policy: a small terrain
        cfg.scene.terrain.terrain_generator = cells_generator(parse_cells(CELLS))

    with make_env("Go2-Rough", num_envs=2, edit=two_tiles) as gym_env:
        cfg = load_cfg_from_registry("Go2-Rough", "rsl_rl_cfg_entry_point")
        agent_cfg = handle_deprecated_rsl_rl_cfg(cfg, check_rsl_rl_version())
        agent_cfg.device = "cpu"
        runner = make_runner(RslRlVecEnvWrapper(gym_env), agent_cfg)
        last = runner.alg.get_policy().mlp[-1]
        with torch.no_grad():
            last.weight.zero_()
            last.bias.zero_()
        runner.save(str(folder / "model_0.pt"))
        export_bundle(gym_env.unwrapped, runner, agent_cfg, folder / "bundle", task="Go2-Rough", checkpoint=None)
    return folder / "model_0.pt", folder / "bundle"


def test_isaac_lab_and_mujoco_terrain_reports_compare(zero_action, tmp_path, capsys):
    checkpoint, bundle = zero_action
    cpu = ["--task", "Go2-Rough", "--device", "cpu", "--headless"]
    assert evaluate.main([*cpu, "--checkpoint", str(checkpoint), *SHORT, "--out", str(tmp_path / "isaac")]) == 0
    assert sim2sim.main(["--bundle", str(bundle), *SHORT, "--output", str(tmp_path / "mj")]) == 0
    reports = {name: json.loads((tmp_path / name / "evaluation.json").read_text()) for name in ("isaac", "mj")}
    assert reports["isaac"]["simulator"] == "isaaclab" and reports["mj"]["simulator"] == "mujoco"
    assert set(reports["mj"]) == set(reports["isaac"]) - {"checkpoint_sha256"} | {"bundle", "policy_sha256"}
    for name, report in reports.items():
        assert report["settings"]["cells"] == LABELS and report["settings"]["success_distance_m"] == 4.0, name
        assert report["settings"]["command"] == [0.5, 0.0, 0.0], name
        assert [c["label"] for c in report["terrain"]] == LABELS, name
        for cell in report["terrain"]:
            assert cell["robots"] == 2 and cell["success_rate"] == 0.0 and cell["fall_rate"] == 0.0, (name, cell)
            # Isaac Lab starts its robots with up to 0.5 m/s: settled after 1 s, standing, as MuJoCo's from rest
            assert cell["xy_error"] == pytest.approx(0.5, abs=0.1), (name, cell)
    capsys.readouterr()
    assert evaluate.main(["--compare", str(tmp_path / "isaac"), str(tmp_path / "mj")]) == 0
    printed = capsys.readouterr().out
    assert "(isaaclab)" in printed and "(mujoco)" in printed and "only in" not in printed
    rows = [line.split() for line in printed.splitlines() if line.split()[:1] and line.split()[0] in LABELS]
    assert [row[0] for row in rows] == LABELS
    # 0 of 2 robots: Wilson's 95 % interval 0-0.66 (centre and half-width both 0.96 / 2.92 = 0.33)
    expected = ["0.00", "0.00-0.66", "0.00", "0.00-0.66", "0.00", "|", "0.00", "0.00"]
    assert all(row[1:] == expected for row in rows), printed
    with capsys.disabled():  # the comparison and the tracking errors, for the record
        errors = {name: [round(c["xy_error"], 3) for c in r["terrain"]] for name, r in reports.items()}
        print(f"\n{printed}\nxy error [m/s] per cell: {errors}")


def test_robustness_cells_on_terrain(zero_action, tmp_path, capsys):
    """``--robustness`` with ``--terrain``: the terrain cells once per robustness cell. Standing on the nominal robot
    no robot falls; with the PD gains x0.05 (Kp 1.25 N m/rad) the zero action cannot hold the 15 kg trunk up, it
    sinks onto the ground and every robot counts as fallen; the grid's JSON, plot and table carry each terrain
    cell's success and falls per robustness cell."""
    checkpoint, _ = zero_action
    out = tmp_path / "robust"
    cpu = ["--task", "Go2-Rough", "--device", "cpu", "--headless", "--checkpoint", str(checkpoint)]
    assert evaluate.main([*cpu, *SHORT, "--robustness", "nominal gains:0.05", "--out", str(out)]) == 0
    grid = json.loads((out / "robustness.json").read_text())
    assert grid["robots_per_cell"] == 2 and "0.5 m/s" in grid["title"]
    assert [row["cell"] for row in grid["cells"]] == ["nominal", "gains:0.05"]
    nominal, weak = grid["cells"]
    for row in grid["cells"]:
        assert [c["label"] for c in row["terrain"]] == LABELS
        assert all(c["success_rate"] == 0.0 and c["robots"] == 2 for c in row["terrain"])
        report = json.loads((out / row["report"] / "evaluation.json").read_text())
        assert [c["fall_rate"] for c in report["terrain"]] == [c["fall_rate"] for c in row["terrain"]]
    assert [c["fall_rate"] for c in nominal["terrain"]] == [0.0, 0.0]
    assert [c["fall_rate"] for c in weak["terrain"]] == [1.0, 1.0]
    assert (out / "robustness.png").is_file()
    printed = capsys.readouterr().out
    assert "gains:0.05" in printed and "stairs_up:0.05" in printed and "0.00 (0.00-0.66)" in printed

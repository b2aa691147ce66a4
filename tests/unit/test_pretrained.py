"""The shipped pretrained policy: where ``--checkpoint pretrained`` leads, that its files belong together, and the
figures its evaluation reports hold (the reports are produced by ``python -m go2_locomotion.training.ship``, which
runs scripts/evaluate.py and scripts/sim2sim.py; tests/sim/test_pretrained_sim.py reruns part of them)."""

from __future__ import annotations

import hashlib
import json
import subprocess

import pytest

from go2_locomotion import pretrained
from go2_locomotion.errors import UsageError
from go2_locomotion.evaluation import report as reports
from go2_locomotion.robot.bundle import load_bundle
from go2_locomotion.training.checkpoints import read_checkpoint, resolve_checkpoint


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_checkpoint_pretrained_resolves_to_the_shipped_file(tmp_path):
    for task, limit in (("Go2-Flat", 5_000_000), ("Go2-Rough", 8_000_000)):
        path = resolve_checkpoint("pretrained", root=tmp_path, task=task)
        assert path == pretrained.checkpoint(task) and pretrained.is_shipped(path)
        data = read_checkpoint(path)
        assert path.name == f"model_{data['iter']}.pt"
        # small enough to live in the repository (Go2-Rough's networks are 4x wider)
        assert path.stat().st_size < limit
    with pytest.raises(UsageError, match=r"^--checkpoint pretrained: no pretrained policy for task 'Go2-Nope'; "):
        resolve_checkpoint("pretrained", root=tmp_path, task="Go2-Nope")


def test_outputs_derived_from_the_shipped_policy_go_to_logs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert pretrained.output_dir("Go2-Flat") == tmp_path / "logs" / "pretrained" / "go2_flat"
    assert not pretrained.is_shipped(tmp_path / "model_1.pt")


def test_bundle_evaluations_and_provenance_belong_to_the_checkpoint():
    checkpoint = pretrained.checkpoint("Go2-Flat")
    bundle = load_bundle(pretrained.bundle("Go2-Flat"))  # checks the ONNX hash and every field
    assert bundle.field("checkpoint") == checkpoint.name
    provenance = json.loads((checkpoint.parent / "provenance.json").read_text())
    assert provenance["checkpoint"] == checkpoint.name and provenance["seed"] is not None
    assert provenance["command"] and provenance["package_commit"]
    # a warm start continues where the policy it started from ended
    warm = provenance.get("warm_start")
    if warm is not None:
        assert provenance["attempts"][0]["first_iteration"] == warm["provenance"]["iteration"] + 1
        assert provenance["wall_clock_s_including_warm_start"] > provenance["wall_clock_s_whole_run"]
    for name in ("isaaclab_newton", "isaaclab_physx"):
        report = reports.load(checkpoint.parent / "evaluation" / name)
        assert report["checkpoint_sha256"] == _sha256(checkpoint)
    mujoco = reports.load(checkpoint.parent / "evaluation" / "mujoco")
    assert mujoco["simulator"] == "mujoco"
    assert mujoco["policy_sha256"] == _sha256(pretrained.bundle("Go2-Flat") / "policy.onnx")


def test_shipped_files_name_no_machine_path():
    """Reports name shipped files package-relative; the exported policies carry no source paths of the machine
    that exported them."""
    folder = pretrained.checkpoint("Go2-Flat").parent
    assert pretrained.recorded_path(folder / "exported") == "go2_locomotion/pretrained/go2_flat/exported"
    for path in [
        *folder.glob("evaluation/*/*.json"),
        *pretrained.FOLDER.glob("*/params/*.yaml"),
        folder / "exported" / "policy.onnx",
        folder / "exported" / "policy.pt",
    ]:
        content = path.read_bytes()
        for marker in (b"site-packages", str(pretrained.FOLDER.parent).encode()):
            assert marker not in content, (path, marker)


def test_reports_name_a_run_folder_relative_to_the_working_directory(tmp_path, monkeypatch):
    """`--checkpoint latest` resolves to an absolute path under logs/; the report names it as the user would
    (logs/...), and a path outside the working directory as given."""
    monkeypatch.chdir(tmp_path)
    inside = tmp_path / "logs" / "rsl_rl" / "go2_flat" / "run" / "model_5.pt"
    assert pretrained.recorded_path(inside) == "logs/rsl_rl/go2_flat/run/model_5.pt"
    assert pretrained.recorded_path("logs/x/model_5.pt") == "logs/x/model_5.pt"
    outside = tmp_path.parent / "elsewhere" / "model_5.pt"
    assert pretrained.recorded_path(outside) == str(outside)


def test_the_shipped_policy_walks_and_stands_when_told():
    """The goal figures on the default grid (play MDP, 20 s, 4 robots per command in Isaac Lab), on both Isaac Lab
    engines and in MuJoCo from the bundle. Standing still scores 0.43 m/s and 0.23 rad/s here. On Newton two robots
    commanded 1 m/s fall at start-up from the reset's perturbed pose (docs/learning.md), so the fall goal and the
    stop there are checked on the robots that did not fall."""
    folder = pretrained.checkpoint("Go2-Flat").parent / "evaluation"
    reports_by_name = {name: reports.load(folder / name) for name in ("isaaclab_newton", "isaaclab_physx", "mujoco")}
    summaries = {name: report["summary"] for name, report in reports_by_name.items()}
    for name, summary in summaries.items():
        assert summary["fall_rate"] <= (2 / 52 if name == "isaaclab_newton" else 0.0), (name, summary)
        assert summary["xy_error_moving"] <= 0.12, (name, summary)
        assert summary["yaw_error_moving"] <= 0.11, (name, summary)
        assert summary["standing_drift"] <= 0.03, (name, summary)
        assert summary["standing_all_feet_down"] >= 0.95, (name, summary)
        commands = {c["name"]: c for c in reports_by_name[name]["commands"]}
        # the fast end of the range
        assert commands["forward_fast"]["xy_error"] <= 0.2 and commands["turn_left_fast"]["yaw_error"] <= 0.2
        stop = commands["stop"]
        stood = stop["stood_rate"] * stop["robots"]
        assert stood == stop["robots"] - round(stop["fall_rate"] * stop["robots"]), (name, stop)
        if stop["fall_rate"] == 0.0:
            assert summary["stop_time_s"] <= 1.0, (name, summary)
    # MuJoCo within 0.05 of Isaac Lab on each mean error
    for key in ("xy_error_moving", "yaw_error_moving"):
        for name in ("isaaclab_newton", "isaaclab_physx"):
            assert abs(summaries["mujoco"][key] - summaries[name][key]) <= 0.05, (key, name)


def test_provenance_records_the_terrain_level_curve_of_a_run(tmp_path):
    """A run with Isaac Lab's terrain curriculum: the last mean level and the curve every 10 iterations; a run
    without one (Go2-Flat) or without events records none."""
    from torch.utils.tensorboard import SummaryWriter

    from go2_locomotion.training.ship import TERRAIN_LEVEL_TAG, terrain_level_record

    assert terrain_level_record(tmp_path) is None
    writer = SummaryWriter(log_dir=str(tmp_path))
    for it in range(25):
        writer.add_scalar(TERRAIN_LEVEL_TAG, 3.0 + it / 10, it)
        writer.add_scalar("Loss/value", 1.0, it)
    writer.close()
    record = terrain_level_record(tmp_path)
    assert (record["last_iteration"], record["last"]) == (24, 5.4)
    assert record["by_iteration"] == {"0": 3.0, "10": 4.0, "20": 5.0}
    flat = tmp_path / "flat"
    writer = SummaryWriter(log_dir=str(flat))
    writer.add_scalar("Loss/value", 1.0, 0)
    writer.close()
    assert terrain_level_record(flat) is None


def test_the_shipped_rough_policy_carries_its_terrain_evaluations_and_warm_start():
    """Go2-Rough's shipped files belong together: the bundle names the checkpoint and reads the height scan; the
    Isaac Lab reports (both engines, command grid on level 0 and the default terrain grid) hash the checkpoint, the
    MuJoCo reports (command grid on a plane, terrain grid) hash the bundle's policy; each terrain report holds every
    default cell of the terrain it trained on (its run's params/ shipped beside it: stairs20, so 32 cells) with
    fractions; provenance records the chain of warm starts back to Go2-Flat, every attempt of the run, and the
    terrain level curve."""
    from go2_locomotion import run_params
    from go2_locomotion.tasks.terrain_cells import default_cells

    checkpoint = pretrained.checkpoint("Go2-Rough")
    bundle = load_bundle(pretrained.bundle("Go2-Rough"))
    assert bundle.field("checkpoint") == checkpoint.name
    folder = checkpoint.parent / "evaluation"
    labels = [cell.label() for cell in default_cells(run_params.trained_terrain(checkpoint.parent))]
    assert len(labels) == 32 and "stairs_up:0.2" in labels
    for name in ("isaaclab_newton", "isaaclab_physx", "terrain_newton", "terrain_physx", "mujoco", "mujoco_terrain"):
        report = reports.load(folder / name)
        if name.startswith("mujoco"):
            assert report["policy_sha256"] == _sha256(pretrained.bundle("Go2-Rough") / "policy.onnx")
        else:
            assert report["checkpoint_sha256"] == _sha256(checkpoint), name
        if name.startswith("isaaclab") or name == "mujoco":
            continue
        cells = report["terrain"]
        assert [c["label"] for c in cells] == labels, name
        assert all(0.0 <= c["success_rate"] <= 1.0 and 0.0 <= c["fall_rate"] <= 1.0 for c in cells), name
    provenance = json.loads((checkpoint.parent / "provenance.json").read_text())
    warm = provenance["warm_start"]  # resumed from the Go2-Rough shipped before, ... , first embedded from Go2-Flat
    chain = [warm]
    while chain[-1]["kind"] == "resumed":
        assert chain[-1]["provenance"]["task"] == "Go2-Rough"
        chain.append(chain[-1]["provenance"]["warm_start"])
    assert len(chain) >= 2 and chain[-1]["kind"] == "embedded" and chain[-1]["source_task"] == "Go2-Flat"
    attempts = provenance["attempts"]
    assert attempts[0]["first_iteration"] == warm["provenance"]["iteration"] + 1
    assert attempts[-1]["last_iteration"] == provenance["iteration"]
    for before, after in zip(attempts, attempts[1:], strict=False):  # no iteration missing between attempts
        assert after["first_iteration"] == before["last_iteration"] + 1
    assert provenance["wall_clock_s_whole_run"] == pytest.approx(sum(a["wall_clock_s"] for a in attempts), abs=0.01)
    assert provenance["terrain_level"]["last_iteration"] >= provenance["iteration"]


def test_shipping_ends_with_exit_75_when_an_evaluation_stalled(tmp_path, capsys):
    from go2_locomotion.training import ship

    stalled, failed = tmp_path / "evaluate.py", tmp_path / "broken.py"
    stalled.write_text("import sys\nsys.exit(75)\n")
    failed.write_text("import sys\nsys.exit(3)\n")
    with pytest.raises(SystemExit) as exit_info:
        ship.run_script(str(stalled), "--task", "Go2-Rough")
    assert exit_info.value.code == 75
    assert capsys.readouterr().out.splitlines()[-1] == "[ship] evaluate.py stalled (exit 75); rerun the same command"
    with pytest.raises(subprocess.CalledProcessError):
        ship.run_script(str(failed))


def _summary(first: int, last: int, *walls: float, task: str = "Go2-Rough") -> dict:
    attempts, start = [], first
    for i, wall in enumerate(walls):  # the attempts split the iterations evenly
        end = last if i == len(walls) - 1 else start + (last - first + 1) // len(walls) - 1
        attempts.append({"first_iteration": start, "last_iteration": end, "wall_clock_s": wall})
        start = end + 1
    return {
        "task": task,
        "first_iteration": first,
        "last_iteration": last,
        "wall_clock_s": sum(walls),
        "samples_per_iteration_global": 10,
        "attempts": attempts,
    }


def test_a_run_continued_on_a_new_machine_ships_with_all_its_attempts(tmp_path, capsys, monkeypatch):
    """A run continued from a committed checkpoint in a new folder: ``--earlier_summary`` puts the earlier folder's
    attempts first and adds their wall-clock; summaries that do not chain are refused by name before anything of
    the shipped policy is replaced (exit 2)."""
    from go2_locomotion.training import ship

    merged = ship.with_earlier_attempts(_summary(1330, 1859, 126.3, 5062.8), [_summary(1164, 1329, 1644.7)])
    assert [(a["first_iteration"], a["last_iteration"]) for a in merged["attempts"]] == [
        (1164, 1329),
        (1330, 1594),
        (1595, 1859),
    ]
    assert merged["wall_clock_s"] == pytest.approx(1644.7 + 126.3 + 5062.8)
    assert (merged["first_iteration"], merged["last_iteration"]) == (1164, 1859)
    three = ship.with_earlier_attempts(_summary(20, 29, 3.0), [_summary(10, 19, 2.0), _summary(0, 9, 1.0)])
    assert [a["first_iteration"] for a in three["attempts"]] == [0, 10, 20] and three["wall_clock_s"] == 6.0
    # a run branched off an earlier one's checkpoint (its first attempt loaded model_1329.pt of a run that went on
    # to 1339): the earlier attempts end at 1329, the one across the branch with its wall-clock prorated (20 of 30)
    branched = _summary(1330, 1859, 7.0)
    branched["attempts"][0]["command"] = "train.py --checkpoint docs/x/model_1329.pt --resume auto"
    merged = ship.with_earlier_attempts(branched, [_summary(1300, 1339, 1.0, 6.0)])
    assert [(a["first_iteration"], a["last_iteration"]) for a in merged["attempts"]] == [
        (1300, 1319),
        (1320, 1329),
        (1330, 1859),
    ]
    assert merged["attempts"][1]["wall_clock_s"] == pytest.approx(3.0)  # 10 of the attempt's 20 iterations
    assert "iterations 1330-1339 went on past the branch" in merged["attempts"][1]["wall_clock_prorated"]
    assert merged["wall_clock_s"] == pytest.approx(1.0 + 3.0 + 7.0)
    # an overlap without that proof, a gap, another task: refused
    for earlier in (_summary(1164, 1328, 1.0), _summary(1164, 1335, 1.0), _summary(1164, 1329, 1.0, task="Go2-Flat")):
        with pytest.raises(UsageError, match="--earlier_summary: the run summaries do not chain"):
            ship.with_earlier_attempts(_summary(1330, 1859, 1.0), [earlier])

    # through the command: refused before the shipped policy is touched
    import torch

    run = tmp_path / "run"
    (run / "params").mkdir(parents=True)
    (run / "params" / "agent.yaml").write_text("seed: 42\n")
    (run / "run_summary.json").write_text(json.dumps(_summary(1330, 1859, 1.0)))
    torch.save({"iter": 1859}, run / "model_1859.pt")
    gap = tmp_path / "gap.json"
    gap.write_text(json.dumps(_summary(1164, 1300, 1.0)))
    folder = tmp_path / "pretrained"  # a stand-in for the package's folder: the test never ships into it
    (folder / "go2_rough" / "params").mkdir(parents=True)
    (folder / "go2_rough" / "model_1163.pt").write_bytes(b"shipped")
    (folder / "go2_rough" / "params" / "env.yaml").write_text("shipped: true\n")
    monkeypatch.setattr(ship, "FOLDER", folder)
    code = ship.main(["--task", "Go2-Rough", "--checkpoint", str(run / "model_1859.pt"), "--earlier_summary", str(gap)])
    assert code == 2
    assert capsys.readouterr().err.strip().endswith("iterations 1164-1300 then Go2-Rough from 1330")
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")) == [
        "go2_rough",
        "go2_rough/model_1163.pt",
        "go2_rough/params",
        "go2_rough/params/env.yaml",
    ]


def test_a_checkpoint_from_the_middle_of_a_run_ships_with_the_attempts_up_to_it(tmp_path):
    """The run went on to 1859 after the shipped checkpoint 1600: its provenance ends at 1600. Attempts 1330-1594
    (10 s) and 1595-1859 (4 s): the second is cut to 1595-1600, its wall-clock prorated to 6 of its 265
    iterations."""
    import torch

    from go2_locomotion.training import ship

    run = tmp_path / "run"
    (run / "params").mkdir(parents=True)
    (run / "params" / "agent.yaml").write_text("seed: 42\n")
    (run / "run_summary.json").write_text(json.dumps(_summary(1330, 1859, 10.0, 4.0)))
    torch.save({"iter": 1600}, run / "model_1600.pt")
    record = ship.provenance(run, run / "model_1600.pt")
    first, second = record["attempts"]
    assert (first["first_iteration"], first["last_iteration"], first["wall_clock_s"]) == (1330, 1594, 10.0)
    assert (second["first_iteration"], second["last_iteration"]) == (1595, 1600)
    assert second["wall_clock_s"] == pytest.approx(4.0 * 6 / 265, abs=1e-3)
    assert "iterations 1601-1859 came after this checkpoint" in second["wall_clock_prorated"]
    assert record["wall_clock_s_whole_run"] == pytest.approx(10.0 + 4.0 * 6 / 265, abs=1e-3)
    assert record["samples_to_this_checkpoint"] == 1601 * 10

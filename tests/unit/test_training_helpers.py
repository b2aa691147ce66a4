"""Checkpoint lookup, task ids and argument checks of the training scripts, without a simulator."""

import argparse
import json
import time
from itertools import pairwise
from pathlib import Path

import pytest
import torch

from go2_locomotion.errors import UsageError
from go2_locomotion.training import checkpoints, task_ids
from go2_locomotion.training.train import check_distributed_args, resume_mode


def _make_run(root, name, task, models, created_at, agent=checkpoints.AGENT_ENTRY_POINT):
    from isaaclab_rl.entrypoints.common import write_run_manifest

    run = root / name
    write_run_manifest(str(run), library="rsl_rl", task=task, metadata={"agent": agent})
    manifest = json.loads((run / "run.json").read_text())
    manifest["created_at"] = created_at
    (run / "run.json").write_text(json.dumps(manifest))
    for model in models:
        (run / model).write_bytes(b"")
    return run


def test_latest_is_newest_run_and_highest_iteration(tmp_path):
    _make_run(tmp_path, "2026-01-01_00-00-00", "Go2-Flat", ["model_99.pt"], "2026-01-01T00:00:00+00:00")
    newest = _make_run(
        tmp_path,
        "2026-01-02_00-00-00",
        "Go2-Flat",
        ["model_9.pt", "model_10.pt", "model_2.pt"],
        "2026-01-02T00:00:00+00:00",
    )
    # a newer run of another task sharing the folder is not a candidate
    _make_run(tmp_path, "2026-01-03_00-00-00", "Go2-Rough", ["model_500.pt"], "2026-01-03T00:00:00+00:00")
    found = checkpoints.resolve_checkpoint("latest", root=tmp_path, task="Go2-Flat")
    assert found == newest / "model_10.pt"  # numeric order: 10 after 9 (alphabetically "model_9" is last)


def test_latest_is_chosen_among_the_agent_s_runs(tmp_path):
    ppo = _make_run(tmp_path, "a", "Go2-Flat", ["model_5.pt"], "2026-01-01T00:00:00+00:00")
    sac = _make_run(tmp_path, "b", "Go2-Flat", ["model_3.pt"], "2026-01-02T00:00:00+00:00", "fast_sac_cfg_entry_point")
    assert checkpoints.resolve_checkpoint("latest", root=tmp_path, task="Go2-Flat") == ppo / "model_5.pt"
    found = checkpoints.resolve_checkpoint("latest", root=tmp_path, task="Go2-Flat", agent="fast_sac_cfg_entry_point")
    assert found == sac / "model_3.pt"
    with pytest.raises(UsageError, match="the shipped policies are PPO's"):
        checkpoints.resolve_checkpoint("pretrained", root=tmp_path, task="Go2-Flat", agent="fast_sac_cfg_entry_point")


def test_run_folder_and_file_arguments(tmp_path):
    run = _make_run(tmp_path, "r", "Go2-Flat", ["model_9.pt", "model_10.pt"], "2026-01-01T00:00:00+00:00")
    assert checkpoints.resolve_checkpoint(str(run), root=tmp_path, task="Go2-Flat") == run / "model_10.pt"
    assert checkpoints.resolve_checkpoint(str(run / "model_9.pt"), root=tmp_path, task="Go2-Flat") == run / "model_9.pt"
    with pytest.raises(UsageError, match="no such file"):
        checkpoints.resolve_checkpoint(str(run / "model_11.pt"), root=tmp_path, task="Go2-Flat")
    with pytest.raises(UsageError, match=f"no training run of task 'Go2-Rough' .* was found in {tmp_path}"):
        checkpoints.resolve_checkpoint("latest", root=tmp_path, task="Go2-Rough")


def test_read_checkpoint_refuses_damaged_files(tmp_path):
    good = tmp_path / "model_0.pt"
    torch.save({"actor_state_dict": {"mlp.0.weight": torch.zeros(4, 3)}, "iter": 0}, good)
    assert checkpoints.read_checkpoint(good)["iter"] == 0
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good.read_bytes()[:100])
    with pytest.raises(UsageError, match="truncated or corrupt"):
        checkpoints.read_checkpoint(truncated)
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(2)}, other)
    with pytest.raises(UsageError, match="not an RSL-RL checkpoint"):
        checkpoints.read_checkpoint(other)


def test_layer_widths_of_an_mlp_state_dict():
    mlp = torch.nn.Sequential(
        torch.nn.Linear(48, 128), torch.nn.ELU(), torch.nn.Linear(128, 64), torch.nn.ELU(), torch.nn.Linear(64, 12)
    )
    state = {f"mlp.{k}": v for k, v in mlp.state_dict().items()}
    assert checkpoints.layer_widths(state) == [48, 128, 64, 12]


def test_compatibility_check_names_both_widths():
    class Actor(torch.nn.Module):
        def __init__(self, widths):
            super().__init__()
            layers = [torch.nn.Linear(a, b) for a, b in pairwise(widths)]
            self.mlp = torch.nn.Sequential(*layers)

    saved = {"actor_state_dict": Actor([235, 512, 12]).state_dict()}
    checkpoints.check_compatible(saved, "m.pt", Actor([235, 512, 12]), "Go2-Rough")
    with pytest.raises(UsageError, match=r"layer widths \[235, 512, 12\].*has \[48, 512, 12\] \(observation 48"):
        checkpoints.check_compatible(saved, "m.pt", Actor([48, 512, 12]), "Go2-Flat")


def test_task_ids():
    assert task_ids.check_task("Go2-Flat") == "Go2-Flat"
    with pytest.raises(UsageError, match="unknown task 'Go2-Flt'; close matches: .*Go2-Flat"):
        task_ids.check_task("Go2-Flt")
    assert task_ids.play_id("Go2-Rough") == "Go2-Rough-Play"
    assert task_ids.play_id("Go2-Rough-Play") == "Go2-Rough-Play"
    assert task_ids.training_id("Go2-Flat-Play") == "Go2-Flat"
    assert task_ids.training_id("Go2-Flat") == "Go2-Flat"


def test_distributed_arguments(monkeypatch):
    args = argparse.Namespace(distributed=True, device="cuda", run_timestamp=None, run_name=None)
    monkeypatch.setenv("WORLD_SIZE", "4")
    with pytest.raises(UsageError, match="needs --run_timestamp"):
        check_distributed_args(args, None)
    # every rank derives the same folder from --resume auto --run_name, or from the timestamp
    args.run_name = "requeued"
    assert check_distributed_args(args, "auto") is False
    args.run_timestamp = time.strftime("%Y-%m-%d_%H-%M-%S")
    assert check_distributed_args(args, None) is False
    # CPU ranks are the package's own (gloo)
    args.device = "cpu"
    assert check_distributed_args(args, None) is True
    assert check_distributed_args(argparse.Namespace(distributed=False, device="cpu", run_name=None), None) is False
    with pytest.raises(UsageError, match="--resume auto needs --run_name NAME"):
        check_distributed_args(argparse.Namespace(distributed=False, device="cpu", run_name=None), "auto")


@pytest.mark.parametrize(
    ("value", "mode", "pushed_back"),
    [
        (False, None, []),
        (True, "checkpoint", []),
        ("auto", "auto", []),
        ("physics=physx", "checkpoint", ["physics=physx"]),
    ],
)
def test_resume_option(value, mode, pushed_back):
    overrides = []
    assert resume_mode(argparse.Namespace(resume=value), overrides) == mode
    assert overrides == pushed_back


def test_resume_option_refuses_other_words():
    with pytest.raises(UsageError, match="--resume last: accepted are --resume .* and --resume auto"):
        resume_mode(argparse.Namespace(resume="last"), [])


def test_windowed_means_compare_runs_at_equal_samples():
    """Iteration i has collected (i + 1) x per-iteration transitions; a window averages the iterations ending in
    it. 100 transitions per iteration against 400: the windows (0, 400] and (400, 800] hold iterations 0-3 and
    4-7 of the small run and iteration 0 and 1 of the large one."""
    from go2_locomotion.training.curves import windowed_by_samples

    small = {"Metrics/base_velocity/error_vel_xy": {i: float(i) for i in range(8)}}
    large = {"Metrics/base_velocity/error_vel_xy": {0: 10.0, 1: 20.0}}
    windows = [(0, 400), (400, 800)]
    assert [r["xy error"] for r in windowed_by_samples(small, 100, windows)] == [1.5, 5.5]
    assert [r["xy error"] for r in windowed_by_samples(large, 400, windows)] == [10.0, 20.0]
    assert windowed_by_samples(small, 100, windows)[0]["mean reward"] is None  # no such scalar logged


def test_comparing_runs_needs_an_output_and_one_label_each(tmp_path):
    from go2_locomotion.errors import UsageError
    from go2_locomotion.training.curves import write_curves

    with pytest.raises(UsageError, match="one label per run \\(2\\), got 1"):
        write_curves([str(tmp_path / "a"), str(tmp_path / "b")], ["only"], str(tmp_path))
    with pytest.raises(UsageError, match="--out is required"):
        write_curves([str(tmp_path / "a"), str(tmp_path / "b")], None, None)


def _run_params(folder: Path, num_envs: int, steps: int) -> None:
    """The resolved configs a run folder holds, as far as the transitions per iteration go."""
    (folder / "params").mkdir(parents=True)
    (folder / "params" / "env.yaml").write_text(f"scene:\n  num_envs: {num_envs}\n")
    (folder / "params" / "agent.yaml").write_text(f"num_steps_per_env: {steps}\n")


def _evaluated_run(folder: Path, num_envs: int, steps: int, timings: dict, summaries: dict) -> Path:
    """A run folder as training and ``evaluate.py --run`` leave it: resolved configs, RSL-RL's timing scalars per
    iteration (collection, learning seconds) and the evaluation report of some checkpoints."""
    from torch.utils.tensorboard import SummaryWriter

    _run_params(folder, num_envs, steps)
    writer = SummaryWriter(log_dir=str(folder))
    for it, (collect, learn) in timings.items():
        writer.add_scalar("Perf/collection_time", collect, it)
        writer.add_scalar("Perf/learning_time", learn, it)
    writer.close()
    entries = [
        {"checkpoint": str(folder / f"model_{it}.pt"), "summary": {"fall_rate": 0.0, **summary}, "report": ""}
        for it, summary in summaries.items()
    ]
    (folder / "evaluation").mkdir()
    (folder / "evaluation" / "evaluation_run.json").write_text(json.dumps({"checkpoints": entries}))
    return folder


def test_evaluated_runs_compare_by_samples_and_training_wall_clock(tmp_path):
    """Checkpoint i has collected (i + 1) x envs x steps transitions and taken the collection + learning time of
    iterations 0..i: 4 x 8 = 32 per iteration; iterations of 1 + 0.5 s, 2 + 1 s, 3 + 1 s."""
    from go2_locomotion.training.curves import compare_evaluated, evaluated_points

    run = _evaluated_run(
        tmp_path / "sac",
        num_envs=4,
        steps=8,
        timings={0: (1.0, 0.5), 1: (2.0, 1.0), 2: (3.0, 1.0)},
        summaries={
            2: {"xy_error_moving": 0.3, "yaw_error_moving": 0.2},
            0: {"xy_error_moving": 0.9, "yaw_error_moving": 0.8},
        },
    )
    points = evaluated_points(run)
    assert [(p["iteration"], p["samples"], p["wall_clock_s"]) for p in points] == [(0, 32, 1.5), (2, 96, 8.5)]
    table, png = compare_evaluated([run], ["FastSAC"], tmp_path / "out")
    assert "| FastSAC | 2 | 96 | 8 | 0.300 | 0.200 | 0.000 |" in table.read_text().splitlines()
    assert png.stat().st_size > 0
    with pytest.raises(UsageError, match="no evaluation/evaluation_run.json"):
        evaluated_points(tmp_path / "out")


def test_a_run_recorded_in_docs_compares_as_its_folder_did(tmp_path):
    """docs/learning/<run>/ keeps the report beside curves.csv and run_summary.json (no configs, no events): the same
    points as the run folder gave (32 transitions an iteration from the summary, timing from the csv)."""
    from go2_locomotion.training.curves import evaluated_points, read_scalars, write_csv

    run = _evaluated_run(
        tmp_path / "sac",
        num_envs=4,
        steps=8,
        timings={0: (1.0, 0.5), 1: (2.0, 1.0), 2: (3.0, 1.0)},
        summaries={2: {"xy_error_moving": 0.3, "yaw_error_moving": 0.2}},
    )
    recorded = tmp_path / "docs_run"
    recorded.mkdir()
    write_csv(read_scalars(run), recorded / "curves.csv")
    (recorded / "run_summary.json").write_text(json.dumps({"samples_per_iteration_global": 32}))
    (recorded / "evaluation_run.json").write_text((run / "evaluation" / "evaluation_run.json").read_text())
    assert evaluated_points(recorded) == evaluated_points(run)
    assert [(p["iteration"], p["samples"], p["wall_clock_s"]) for p in evaluated_points(recorded)] == [(2, 96, 8.5)]


@pytest.mark.parametrize("source", ["events", "recorded"])
def test_runs_compare_at_the_samples_all_reached_with_the_terrain_level(tmp_path, source):
    """Two runs of 4 envs x 8 steps (32 transitions an iteration): 4 and 2 iterations logged, so the comparison
    stops at 64 transitions; in 2 windows, (0, 32] holds iteration 0 and (32, 64] iteration 1 of each. Only the
    metrics a run logged are tabled (reward and terrain level here), the terrain level gets its panel. The same
    from runs recorded in docs/: their curves.csv and run_summary.json, no events or configs."""
    from torch.utils.tensorboard import SummaryWriter

    from go2_locomotion.training.curves import compare_by_samples, logged_panels, read_scalars, write_csv

    runs = {
        "warm": {0: (1.0, 3.5), 1: (2.0, 3.0), 2: (3.0, 4.0), 3: (4.0, 5.0)},
        "scratch": {0: (0.5, 3.5), 1: (0.7, 2.5)},
    }
    folders = []
    for name, iterations in runs.items():
        folder = tmp_path / name
        _run_params(folder, num_envs=4, steps=8)
        writer = SummaryWriter(log_dir=str(folder))
        for it, (reward, level) in iterations.items():
            writer.add_scalar("Train/mean_reward", reward, it)
            writer.add_scalar("Curriculum/terrain_levels", level, it)
        writer.close()
        if source == "recorded":
            recorded = tmp_path / "docs" / name
            recorded.mkdir(parents=True)
            write_csv(read_scalars(folder), recorded / "curves.csv")
            (recorded / "run_summary.json").write_text(json.dumps({"samples_per_iteration_global": 32}))
            assert read_scalars(recorded) == read_scalars(folder)
            folder = recorded
        folders.append(folder)
    table, png = compare_by_samples(folders, list(runs), tmp_path / "out", windows=2)
    assert table.read_text().splitlines() == [
        "| samples | mean reward (warm / scratch) | terrain level (warm / scratch) |",
        "|---|---|---|",
        "| 0–32 | 1 / 0.5 | 3.5 / 3.5 |",
        "| 32–64 | 2 / 0.7 | 3 / 2.5 |",
    ]
    assert png.stat().st_size > 0
    assert "mean terrain level" in logged_panels({"Curriculum/terrain_levels": {0: 1.0}})
    assert "mean terrain level" not in logged_panels({"Train/mean_reward": {0: 1.0}})


def test_unknown_override_keys_are_named_with_the_closest_fields():
    from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2FlatPPORunnerCfg
    from go2_locomotion.tasks.flat_env_cfg import Go2FlatEnvCfg
    from go2_locomotion.training.cli import unknown_override

    roots = {"env": Go2FlatEnvCfg(), "agent": Go2FlatPPORunnerCfg()}
    assert unknown_override(roots, ["env.rewards.track_lin_vel_xy_exp.weight=2", "agent.max_iterations=5"]) is None
    # a term's params dictionary may take new keys; a field set to None ends the walk
    assert unknown_override(roots, ["env.rewards.trot.params.new_key=1", "env.scene.height_scanner.x=1"]) is None
    assert unknown_override(roots, ["physics=physx", "env.rewards.trak_lin_vel_xy_exp.weight=2"]) == (
        "env.rewards.trak_lin_vel_xy_exp.weight: env.rewards (RewardsCfg) has no field 'trak_lin_vel_xy_exp'; "
        "closest: env.rewards.track_lin_vel_xy_exp, env.rewards.track_lin_vel_cycle, env.rewards.track_ang_vel_z_exp"
    )
    assert unknown_override(roots, ["agent.algorithm.learnin_rate=1e-4"]).endswith(
        "has no field 'learnin_rate'; closest: agent.algorithm.learning_rate"
    )


def test_export_output_folder_is_checked_before_anything_runs(tmp_path):
    from go2_locomotion.errors import check_writable

    check_writable(tmp_path / "new" / "bundle")  # created later, by the export
    assert not (tmp_path / "new").exists()
    (tmp_path / "file").write_text("")
    with pytest.raises(UsageError, match=r"--output .*/file/bundle: .*/file is a file, not a folder"):
        check_writable(tmp_path / "file" / "bundle")
    with pytest.raises(UsageError, match=r"--output /proc/nope: cannot create folders in /proc \("):
        check_writable(Path("/proc/nope"))


def test_run_params_read_isaac_lab_dumps_without_running_anything(tmp_path):
    from yaml.constructor import ConstructorError

    from go2_locomotion import run_params

    dump = (
        "ranges: !!python/tuple\n- -1.0\n- 1.0\n"
        "joint_ids: !!python/object/apply:builtins.slice\n- null\n- null\n- null\n"
    )
    assert run_params.load_text(dump) == {"ranges": (-1.0, 1.0), "joint_ids": slice(None)}
    marker = tmp_path / "ran"
    hostile = f"x: !!python/object/apply:pathlib.Path.touch [!!python/object/apply:pathlib.Path ['{marker}']]\n"
    with pytest.raises(ConstructorError):
        run_params.load_text(hostile)
    assert not marker.exists()


def test_a_run_records_the_commit_it_started_from(monkeypatch, tmp_path):
    from go2_locomotion.training import summary
    from go2_locomotion.training.preflight import RolloutGeometry

    monkeypatch.setattr(summary, "package_commit", lambda: "abc123")
    geometry = RolloutGeometry(
        num_envs=4, steps_per_env=24, mini_batches=4, epochs=5, observation_widths={"policy": 3}, action_width=12
    )
    recorder = summary.RunRecorder(task="Go2-Flat", log_dir=tmp_path, geometry=geometry, device="cpu")
    monkeypatch.setattr(summary, "package_commit", lambda: "def456")  # a commit made while the run went on
    assert recorder.attempt("completed")["package_commit"] == "abc123"
    assert recorder.summary("completed")["package_commit"] == "abc123"

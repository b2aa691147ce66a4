"""The run plan (:mod:`go2_locomotion.training.plan`): run folder, starting checkpoint and iteration budget of a
training attempt, decided from plain values before anything launches (no simulator, no Isaac Lab)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from go2_locomotion.errors import UsageError
from go2_locomotion.training.checkpoints import write_atomically
from go2_locomotion.training.plan import RESUME_AUTO, RESUME_CHECKPOINT, plan_run, runner_class
from go2_locomotion.training.preflight import RolloutGeometry

GEOMETRY = RolloutGeometry(
    num_envs=512, steps_per_env=24, mini_batches=4, epochs=5, observation_widths={"policy": 50}, action_width=12
)


def _plan(root: Path, **kwargs):
    defaults = {"runner": "OnPolicyRunner", "resume": None, "root": root, "max_iterations": 300, "geometry": GEOMETRY}
    return plan_run("Go2-Flat", **{**defaults, **kwargs})


def _checkpoint(folder: Path, iteration: int) -> Path:
    path = folder / f"model_{iteration}.pt"
    write_atomically({"iter": iteration, "actor_state_dict": {}}, path)
    return path


def test_a_new_run_gets_a_timestamped_folder_with_the_run_name_and_the_whole_budget(tmp_path):
    run = _plan(tmp_path, run_name="seed7", timestamp="2026-12-01_10-00-00")
    assert run.log_dir == tmp_path / "2026-12-01_10-00-00_seed7"
    assert (run.iterations, run.resume_from, run.checkpoint, run.earlier_attempt) == (300, None, None, False)
    assert not run.log_dir.exists()  # planning writes nothing


def test_auto_in_a_folder_with_checkpoints_continues_after_the_newest_for_the_rest_of_the_budget(tmp_path):
    folder = tmp_path / "rough"
    folder.mkdir()
    _checkpoint(folder, 9)
    newest = _checkpoint(folder, 110)
    (folder / "model_120.pt").write_bytes(b"truncated")  # not loadable: skipped with a warning
    run = _plan(tmp_path, resume=RESUME_AUTO, run_name="rough")
    assert (run.log_dir, run.resume_from, run.checkpoint["iter"]) == (folder, newest, 110)
    assert run.iterations == 300 - 111  # iterations 0..110 are done
    assert not run.finished


def test_auto_when_the_folder_holds_the_last_iteration_is_finished(tmp_path):
    folder = tmp_path / "rough"
    folder.mkdir()
    _checkpoint(folder, 299)
    assert _plan(tmp_path, resume=RESUME_AUTO, run_name="rough").finished


@pytest.mark.parametrize("exists", [False, True], ids=["no folder", "folder without checkpoint"])
def test_auto_without_a_checkpoint_starts_in_the_named_folder(tmp_path, exists):
    if exists:
        (tmp_path / "rough").mkdir()
    run = _plan(tmp_path, resume=RESUME_AUTO, run_name="rough")
    assert (run.log_dir, run.iterations, run.resume_from) == (tmp_path / "rough", 300, None)
    assert run.earlier_attempt is exists


def test_auto_with_a_checkpoint_starts_an_empty_folder_from_it_and_the_folder_wins_after(tmp_path):
    source = tmp_path / "shipped"
    source.mkdir()
    start = _checkpoint(source, 1163)
    run = _plan(tmp_path, resume=RESUME_AUTO, run_name="stairs20", checkpoint=str(start), max_iterations=1500)
    assert (run.log_dir, run.resume_from, run.checkpoint["iter"]) == (tmp_path / "stairs20", start, 1163)
    assert run.iterations == 1500 - 1164  # in total: the continuation trains iterations 1164..1499
    # a requeued attempt of the same command continues from the folder's own newest checkpoint
    (tmp_path / "stairs20").mkdir()
    own = _checkpoint(tmp_path / "stairs20", 1200)
    again = _plan(tmp_path, resume=RESUME_AUTO, run_name="stairs20", checkpoint=str(start), max_iterations=1500)
    assert (again.resume_from, again.iterations) == (own, 1500 - 1201)


def test_resume_from_a_named_checkpoint_starts_a_new_folder(tmp_path):
    source = tmp_path / "old"
    source.mkdir()
    path = _checkpoint(source, 40)
    run = _plan(tmp_path, resume=RESUME_CHECKPOINT, checkpoint=str(path), timestamp="t")
    assert (run.log_dir, run.resume_from, run.checkpoint["iter"], run.iterations) == (tmp_path / "t", path, 40, 300)


def test_a_missing_checkpoint_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        _plan(tmp_path, resume=RESUME_CHECKPOINT, checkpoint=str(tmp_path / "model_1.pt"))


def test_ranks_share_the_folder_and_only_rank_0_writes_there(tmp_path):
    plans = [_plan(tmp_path, rank=r, timestamp="t") for r in (None, 0, 1)]
    assert [p.writes_files for p in plans] == [True, True, False]
    assert [p.rank_dir for p in plans] == [tmp_path / "t", tmp_path / "t", tmp_path / "t" / "rank_1"]


def test_the_runner_is_a_registry_entry_and_an_unknown_one_is_named(tmp_path):
    from go2_locomotion.training.runner import Go2OnPolicyRunner

    assert runner_class("OnPolicyRunner") is Go2OnPolicyRunner
    with pytest.raises(UsageError, match=r"agent.class_name 'FastSacRunner' has no runner in this package; accepted"):
        _plan(tmp_path, runner="FastSacRunner")


def test_planning_imports_no_isaac_lab():
    code = "import sys, go2_locomotion.training.plan; print(sorted(m for m in sys.modules if m.startswith('isaac')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"

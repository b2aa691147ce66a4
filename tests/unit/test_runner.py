"""The package's runner (:mod:`go2_locomotion.training.runner`) in real processes, without a simulator: atomic
checkpoints under ``kill -9``, resume in the same folder, CPU ranks under torchrun (gloo), stop signals.

The processes run ``tests/toy_training.py``: the package's runner and RSL-RL's PPO on a point-mass environment.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from go2_locomotion.training.checkpoints import list_checkpoints, newest_loadable_checkpoint, write_atomically

TOY = Path(__file__).parents[1] / "toy_training.py"
PYTHON = sys.executable
TORCHRUN = [PYTHON, "-m", "torch.distributed.run", "--standalone"]


def _start(folder: Path, *extra: str, ranks: int = 0) -> subprocess.Popen:
    launcher = [*TORCHRUN, f"--nproc_per_node={ranks}"] if ranks else [PYTHON]
    return subprocess.Popen(
        [*launcher, str(TOY), str(folder), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _iterations(folder: Path, rank: int = 0) -> list[int]:
    path = folder / f"iterations_rank{rank}.txt"
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def _wait_for_iterations(folder: Path, count: int, process: subprocess.Popen, rank: int = 0, timeout: float = 120):
    deadline = time.time() + timeout
    while len(_iterations(folder, rank)) < count:
        assert process.poll() is None, process.communicate()[0][-3000:]
        assert time.time() < deadline, "no progress"
        time.sleep(0.05)


def _tensorboard_steps(folder: Path, tag: str = "Loss/value") -> list[int]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(folder))
    events.Reload()
    return [event.step for event in events.Scalars(tag)]


def test_atomic_write_replaces_whole_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "model_3.pt"
    write_atomically({"iter": 3, "actor_state_dict": {"w": torch.ones(2)}}, path)
    write_atomically({"iter": 4, "actor_state_dict": {"w": torch.zeros(2)}}, path)
    assert torch.load(path)["iter"] == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model_3.pt"]


def test_resume_skips_an_unreadable_newest_checkpoint_with_one_line(tmp_path):
    write_atomically({"iter": 4, "actor_state_dict": {}}, tmp_path / "model_4.pt")
    good = (tmp_path / "model_4.pt").read_bytes()
    (tmp_path / "model_6.pt").write_bytes(good[: len(good) // 2])  # truncated by a writer that was not atomic
    (tmp_path / ".model_8.pt.123.tmp").write_bytes(b"partial")  # a kill during an atomic write
    warnings = []
    path, data = newest_loadable_checkpoint(tmp_path, warn=warnings.append)
    assert (path.name, data["iter"]) == ("model_4.pt", 4)
    assert len(warnings) == 1 and "model_6.pt" in warnings[0] and "\n" not in warnings[0]
    assert [p.name for p in list_checkpoints(tmp_path)] == ["model_4.pt", "model_6.pt"]


def test_kill_9_at_random_moments_always_resumes_from_a_loadable_checkpoint(tmp_path):
    """12 kills (saves made slow so that kills land inside them too), then a run to the end."""
    folder, save_interval, max_iterations = tmp_path / "run", 2, 60
    rng = random.Random(7)
    options = ["--max_iterations", str(max_iterations), "--save_interval", str(save_interval)]
    options += ["--slow_save_s", "0.15", "--iteration_s", "0.05"]
    resumed_at, kills_in_save = [], 0
    for trial in range(12):
        seen = len(_iterations(folder))
        process = _start(folder, *options)
        _wait_for_iterations(folder, seen + 1, process)
        time.sleep(rng.uniform(0.0, 0.8))
        kills_in_save += any(p.name.endswith(".tmp") for p in folder.iterdir())
        os.killpg(process.pid, signal.SIGKILL)
        output = process.communicate()[0]
        last_logged = _iterations(folder)[-1]
        assert "skipping" not in output
        found = newest_loadable_checkpoint(folder)
        assert found is not None, f"trial {trial}: no loadable checkpoint"
        # never more than one save interval lost
        assert last_logged - found[1]["iter"] <= save_interval, (trial, last_logged, found[1]["iter"])
        if trial:
            resumed_at.append(int(re.search(r"resumed from model_(\d+)\.pt at (\d+)", output).group(2)))
    process = _start(folder, *options)
    output = process.communicate(timeout=300)[0]
    assert process.returncode == 0, output[-3000:]
    assert kills_in_save >= 1, "no kill landed inside a checkpoint write"
    # each attempt continued right after the checkpoint it loaded
    attempts = re.findall(r"resumed from model_(\d+)\.pt at (\d+)", output)
    assert all(int(at) == int(it) + 1 for it, at in attempts)
    assert all(at % save_interval == 1 for at in resumed_at)
    final = torch.load(folder / "final_rank0.pt")
    assert (final["status"], final["iteration"]) == ("completed", max_iterations - 1)
    # TensorBoard holds one value per iteration: steps logged after a lost checkpoint were purged on resume
    assert _tensorboard_steps(folder) == list(range(max_iterations))
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("logger", [[], ["--logger_dict"]], ids=["string form", "dict form"])
def test_resume_after_a_lost_checkpoint_keeps_one_tensorboard_value_per_iteration(tmp_path, logger):
    """RSL-RL accepts the TensorBoard writer as ``"tensorboard"`` or ``{"class_name": "tensorboard"}``: in both forms
    a resume drops the steps an earlier attempt logged after its newest checkpoint."""
    folder = tmp_path / "run"
    first = _start(folder, "--max_iterations", "5", "--save_interval", "2", *logger)
    assert first.wait(timeout=300) == 0, first.communicate()[0][-3000:]
    (folder / "model_4.pt").unlink()  # iterations 3 and 4 were logged, their checkpoint lost
    second = _start(folder, "--max_iterations", "7", "--save_interval", "2", *logger)
    output = second.communicate(timeout=300)[0]
    assert second.returncode == 0 and "resumed from model_2.pt at 3" in output, output[-3000:]
    assert _tensorboard_steps(folder) == list(range(7))


def test_two_cpu_ranks_hold_identical_weights_and_only_rank_0_writes(tmp_path):
    folder = tmp_path / "run"
    process = _start(folder, "--max_iterations", "3", ranks=2)
    output = process.communicate(timeout=300)[0]
    assert process.returncode == 0, output[-3000:]
    rank0, rank1 = (torch.load(folder / f"final_rank{r}.pt")["actor"] for r in (0, 1))
    assert set(rank0) == set(rank1) and any(k.startswith("obs_normalizer") for k in rank0)
    assert all(torch.equal(rank0[k], rank1[k]) for k in rank0)
    # each rank collected its own experience: rank seeds differ, so the normalisers saw different data before the
    # all-reduce; after it they agree (checked above) -- and the run folder has rank 0's files only
    assert [p.name for p in list_checkpoints(folder)] == ["model_0.pt", "model_1.pt", "model_2.pt"]
    assert len(list(folder.glob("events.out.tfevents.*"))) == 1


@pytest.mark.parametrize("how", ["SIGUSR1 to one rank", "SIGTERM to torchrun"])
def test_a_stop_signal_stops_all_ranks_at_the_same_iteration_with_one_checkpoint(tmp_path, how):
    folder = tmp_path / "run"
    process = _start(folder, "--max_iterations", "1000", "--save_interval", "1000", "--iteration_s", "0.2", ranks=2)
    _wait_for_iterations(folder, 3, process, rank=1)
    if how == "SIGTERM to torchrun":
        process.send_signal(signal.SIGTERM)
    else:
        workers = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
        rank1 = next(pid for pid in workers if b"\0RANK=1\0" in b"\0" + Path(f"/proc/{pid}/environ").read_bytes())
        os.kill(int(rank1), signal.SIGUSR1)
    output = process.communicate(timeout=120)[0]
    final = [torch.load(folder / f"final_rank{r}.pt") for r in (0, 1)]
    assert [f["status"] for f in final] == ["interrupted", "interrupted"], output[-3000:]
    stopped = final[0]["iteration"]
    assert final[1]["iteration"] == stopped and stopped >= 2
    assert _iterations(folder, 0)[-1] == _iterations(folder, 1)[-1] == stopped
    # model_0 is RSL-RL's periodic save (iteration 0 % interval == 0); the signal wrote exactly one more
    assert [p.name for p in list_checkpoints(folder)] == ["model_0.pt", f"model_{stopped}.pt"]

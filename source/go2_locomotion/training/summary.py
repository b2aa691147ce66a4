"""``run_summary.json``: what a training run did, written by rank 0 into its run folder when it ends, whether it
completed, was interrupted or failed after the run folder was created.

A run continued in the same folder (``--resume auto``, a requeued cluster job) accumulates: ``attempts`` lists
every attempt, and the totals (``wall_clock_s``, ``iterations_completed``, ``samples``) add up over them. An
attempt killed outright (``kill -9``, a dead node) writes nothing and appears only through the iterations the
next attempt resumes at."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..pretrained import recorded_path
from ..versions import package_versions
from .checkpoints import list_checkpoints
from .preflight import RolloutGeometry

SUMMARY_FILE = "run_summary.json"


def package_commit() -> str | None:
    """Git commit of the go2_locomotion checkout (``+dirty`` when it has uncommitted changes), if it is one."""
    folder = Path(__file__).parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True, timeout=10)
        if commit.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    return commit.stdout.strip() + ("+dirty" if dirty else "")


def command_line() -> str:
    """This process's command line, as a user would type it (``python scripts/train.py ...``)."""
    return shlex.join(["python", *sys.argv])


@dataclass
class RunRecorder:
    """Collects per-iteration timings and writes the summary."""

    task: str
    log_dir: Path
    geometry: RolloutGeometry
    device: str
    physics: dict | None = None
    """:func:`go2_locomotion.envs.physics_record` of the environment that ran."""
    start_time: float = field(default_factory=time.time)
    commit: str | None = field(default_factory=lambda: package_commit())
    """The checkout's commit when the attempt started: the code that runs (a commit made during a long run is not)."""
    collection_times: list[float] = field(default_factory=list)
    learning_times: list[float] = field(default_factory=list)
    first_iteration: int | None = None
    last_iteration: int | None = None
    last_mean_reward: float | None = None
    last_mean_episode_length: float | None = None
    previous: dict | None = None
    """The summary already in the run folder, when this attempt continues the run there."""

    def on_iteration(self, runner, it: int, collect_time: float, learn_time: float) -> None:
        """Record one finished iteration (a :class:`~.runner.Go2OnPolicyRunner` iteration callback, called after
        RSL-RL logged it)."""
        if self.first_iteration is None:
            self.first_iteration = it
        self.last_iteration = it
        self.collection_times.append(collect_time)
        self.learning_times.append(learn_time)
        episodes = runner.recent_episodes()
        if episodes is not None:
            self.last_mean_reward, self.last_mean_episode_length = episodes

    def attempt(self, status: str) -> dict:
        """This attempt alone."""
        return {
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(self.start_time)),
            "exit_status": status,
            "command": command_line(),
            "package_commit": self.commit,
            "world_size": self.geometry.world_size,
            "first_iteration": self.first_iteration,
            "last_iteration": self.last_iteration,
            "iterations_completed": len(self.collection_times),
            "samples": len(self.collection_times) * self.geometry.global_transitions,
            "wall_clock_s": round(time.time() - self.start_time, 3),
        }

    def summary(self, status: str) -> dict:
        iterations = len(self.collection_times)
        busy = sum(self.collection_times) + sum(self.learning_times)
        g = self.geometry
        mean = (lambda values: sum(values) / len(values)) if iterations else (lambda values: None)
        attempts = [*(self.previous or {}).get("attempts", []), self.attempt(status)]
        return {
            "task": self.task,
            "exit_status": status,
            "package_commit": self.commit,
            "versions": package_versions("go2_locomotion", "isaaclab", "rsl-rl-lib", "torch"),
            "device": self.device,
            "physics": self.physics,
            "world_size": g.world_size,
            "num_envs_per_rank": g.num_envs,
            "num_envs_global": g.num_envs * g.world_size,
            "samples_per_iteration_per_rank": g.transitions,
            "samples_per_iteration_global": g.global_transitions,
            "iterations_completed": sum(a["iterations_completed"] for a in attempts),
            "samples": sum(a["samples"] for a in attempts),
            "first_iteration": next((a["first_iteration"] for a in attempts if a["first_iteration"] is not None), None),
            "last_iteration": self.last_iteration,
            "wall_clock_s": round(sum(a["wall_clock_s"] for a in attempts), 3),
            "mean_collection_time_s": mean(self.collection_times),
            "mean_learning_time_s": mean(self.learning_times),
            "throughput_env_steps_per_s": g.global_transitions * iterations / busy if busy > 0 else None,
            "last_mean_reward": self.last_mean_reward,
            "last_mean_episode_length": self.last_mean_episode_length,
            "checkpoints": [recorded_path(p) for p in list_checkpoints(self.log_dir)],  # no machine's folders
            "geometry": g.as_dict(),
            "attempts": attempts,
        }

    def write(self, status: str) -> Path:
        """Write ``run_summary.json`` atomically; returns its path."""
        path = self.log_dir / SUMMARY_FILE
        tmp = path.with_name(f".{SUMMARY_FILE}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.summary(status), indent=2) + "\n")
        os.replace(tmp, path)
        return path


def load_summary(log_dir: Path) -> dict | None:
    """The ``run_summary.json`` of a run folder, or ``None`` when there is none (or it cannot be read)."""
    try:
        data = json.loads((Path(log_dir) / SUMMARY_FILE).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None

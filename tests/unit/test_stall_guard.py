"""Evaluation's stall guard (training/stall_guard.py) on a stand-in environment whose third step never returns: the
state before that step is written, the line names the fastest and the non-finite robots, the exit is 75."""

from __future__ import annotations

import io
import threading
from types import SimpleNamespace

import pytest
import torch

from go2_locomotion.training.stall_guard import STALL_FILE, GuardedSteps, describe_state
from go2_locomotion.training.watchdog import STALLED_EXIT_CODE


class _Scene(SimpleNamespace):
    def __getitem__(self, name):
        return getattr(self, name)


class _HangingEnv:
    """Three robots; every step moves robot 2 faster; step ``hang_at`` blocks until released."""

    def __init__(self, hang_at: int):
        self.hang_at, self.calls, self.release = hang_at, 0, threading.Event()
        data = SimpleNamespace(
            root_pose_w=torch.tensor([[0.0, 0, 0.3, 0, 0, 0, 1]] * 3),
            root_vel_w=torch.zeros(3, 6),
            joint_pos=torch.zeros(3, 12),
            joint_vel=torch.zeros(3, 12),
        )
        terrain = SimpleNamespace(terrain_levels=torch.tensor([0, 4, 7]), terrain_types=torch.tensor([1, 2, 3]))
        self.unwrapped = SimpleNamespace(
            scene=_Scene(robot=SimpleNamespace(data=data), env_origins=torch.zeros(3, 3), terrain=terrain),
            episode_length_buf=torch.zeros(3, dtype=torch.long),
        )

    def step(self, actions):
        data = self.unwrapped.scene.robot.data
        if self.calls == self.hang_at:
            self.release.wait(10)
        self.calls += 1
        data.root_vel_w[2, :2] = torch.tensor([3.0, 4.0]) * self.calls / 2  # 5 m/s after the second step
        data.joint_pos[1, 0] = float("nan") if self.calls >= 2 else 0.0
        self.unwrapped.episode_length_buf += 1
        return actions


def test_a_step_that_never_returns_writes_its_state_and_exits_75(tmp_path, capsys):
    env, exits, exited = _HangingEnv(hang_at=2), [], threading.Event()

    def record_exit(code):
        exits.append(code)
        exited.set()
        env.release.set()

    with GuardedSteps(env, 0.3, "evaluate (--stall_timeout 0.3)", tmp_path, exit=record_exit) as steps:
        for k in range(3):
            steps.step(torch.full((3, 12), float(k)))
    assert exited.is_set() and exits == [STALLED_EXIT_CODE]
    state = torch.load(tmp_path / STALL_FILE, weights_only=True)
    # the state before the third step (index 2): after two steps, with the actions of the third
    assert state["step"] == 2 and state["episode_step"].tolist() == [2, 2, 2]
    assert torch.equal(state["actions"], torch.full((3, 12), 2.0))
    assert state["root_vel_w"][2, :2].tolist() == [3.0, 4.0]
    assert state["terrain_level"].tolist() == [0, 4, 7]
    line = capsys.readouterr().err.strip()
    assert line.startswith("[go2] evaluate (--stall_timeout 0.3): simulation step 2 did not return in ")
    assert "1 of 3 robots non-finite; robot 2: 5.00 m/s, +0.30 m over its origin terrain (7, 3)" in line
    assert line.endswith(f"written to {tmp_path / STALL_FILE}; exit 75")


def test_steps_that_return_keep_it_quiet(tmp_path):
    env, exits = _HangingEnv(hang_at=-1), []
    with GuardedSteps(env, 0.3, "evaluate", tmp_path, exit=exits.append) as steps:
        for _ in range(5):
            steps.step(torch.zeros(3, 12))
    assert exits == [] and not (tmp_path / STALL_FILE).exists() and env.calls == 5


@pytest.mark.parametrize("robots", [1, 3])
def test_state_line_orders_robots_by_speed(robots):
    state = {
        "root_pose_w": torch.tensor([[0.0, 0, 0.1, 0, 0, 0, 1], [0, 0, -2.0, 0, 0, 0, 1], [0, 0, 0.3, 0, 0, 0, 1]]),
        "root_vel_w": torch.tensor([[1.0, 0, 0, 0, 0, 0], [0, 0, -9.0, 0, 0, 0], [0, 2.0, 0, 0, 0, 0]]),
        "joint_pos": torch.zeros(3, 12),
        "joint_vel": torch.zeros(3, 12),
        "env_origins": torch.zeros(3, 3),
    }
    parts = describe_state(state, robots=robots).split("; ")
    assert parts[0] == "0 of 3 robots non-finite"
    expected = ["robot 1: 9.00 m/s, -2.00 m over its origin", "robot 2: 2.00 m/s, +0.30 m over its origin",
                "robot 0: 1.00 m/s, +0.10 m over its origin"]  # fmt: skip
    assert parts[1:] == expected[:robots]


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_bar_counts_simulated_seconds_on_a_terminal_only(tmp_path):
    from go2_locomotion.training.evaluate import progress_bar

    assert progress_bar("model_1: 5 cells", 20.0, 0.02, stream=io.StringIO()) is None  # a log file, CI
    assert progress_bar("model_1: 5 cells", 20.0, 0.02, quiet=True, stream=_Terminal()) is None
    terminal = _Terminal()
    bar = progress_bar("model_1: 5 cells", 20.0, 0.02, stream=terminal)
    env = _HangingEnv(hang_at=-1)
    with GuardedSteps(env, 0, "evaluate", tmp_path, progress=bar) as steps:
        for _ in range(250):  # 5 simulated seconds of 20
            steps.step(torch.zeros(3, 12))
    line = terminal.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    # 5 of 20 simulated seconds, their rate per wall-clock second and the time left
    assert line.startswith("model_1: 5 cells:  25%|") and "| 5.0/20.0 [" in line and " sim s/s]" in line, line

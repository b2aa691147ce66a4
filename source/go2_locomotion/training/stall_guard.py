"""The stall watchdog around a loop that steps the simulation itself (``scripts/evaluate.py``), and the robots'
state at a step that hung.

Training has its watchdog in the runner (a bound per iteration). A command that steps the environment in its own loop
goes through :class:`GuardedSteps`: it beats the watchdog after every environment step and keeps a copy of the robots'
state from before each step, so when a step never returns the process writes that state (``stalled_step.pt``: the
reproduction of the hanging step), prints one line naming the hang and exits with
:data:`~.watchdog.STALLED_EXIT_CODE` instead of waiting forever.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import torch

from .watchdog import STALLED_EXIT_CODE, StallWatchdog

STALL_FILE = "stalled_step.pt"
"""The state before the step that hung, in the report folder."""


def _torch(x) -> torch.Tensor:
    return x.torch if hasattr(x, "torch") else x


def robot_state(env, actions: torch.Tensor, step: int) -> dict:
    """What a step starts from: every robot's root pose ``(N, 7)`` (x, y, z, qx, qy, qz, qw, world) and velocity
    ``(N, 6)`` (linear, angular, world), joint positions and velocities ``(N, 12)``, the actions about to be applied
    ``(N, 12)``, the environment origins ``(N, 3)``, each robot's episode step and, on generated terrain, its
    sub-terrain (level = row, type = column). Copies on the CPU."""
    unwrapped = env.unwrapped
    data = unwrapped.scene["robot"].data
    state = {
        "step": step,
        "root_pose_w": _torch(data.root_pose_w),
        "root_vel_w": _torch(data.root_vel_w),
        "joint_pos": _torch(data.joint_pos),
        "joint_vel": _torch(data.joint_vel),
        "actions": actions,
        "env_origins": _torch(unwrapped.scene.env_origins),
        "episode_step": unwrapped.episode_length_buf,
    }
    terrain = unwrapped.scene.terrain
    if getattr(terrain, "terrain_levels", None) is not None:
        state["terrain_level"] = terrain.terrain_levels
        state["terrain_type"] = terrain.terrain_types
    return {k: v.detach().cpu().clone() if isinstance(v, torch.Tensor) else v for k, v in state.items()}


def describe_state(state: dict, robots: int = 3) -> str:
    """One line on the state at a hang: non-finite robots, and the fastest robots with their height above their
    origin and sub-terrain."""
    finite = (
        torch.cat(
            [
                state[k].reshape(len(state["root_pose_w"]), -1)
                for k in ("root_pose_w", "root_vel_w", "joint_pos", "joint_vel")
            ],
            dim=1,
        )
        .isfinite()
        .all(dim=1)
    )
    speed = torch.linalg.norm(state["root_vel_w"][:, :3], dim=1).nan_to_num(float("inf"))
    height = state["root_pose_w"][:, 2] - state["env_origins"][:, 2]
    parts = [f"{int((~finite).sum())} of {len(finite)} robots non-finite"]
    for i in speed.argsort(descending=True)[:robots].tolist():
        cell = (
            f" terrain ({int(state['terrain_level'][i])}, {int(state['terrain_type'][i])})"
            if "terrain_level" in state
            else ""
        )
        parts.append(f"robot {i}: {float(speed[i]):.2f} m/s, {float(height[i]):+.2f} m over its origin{cell}")
    return "; ".join(parts)


class GuardedSteps:
    """Steps ``env`` under a stall watchdog of ``timeout_s`` seconds (0: none), as a context manager.

    Args:
        env: The (wrapped) Isaac Lab environment.
        timeout_s: Seconds one environment step may take before the process ends with exit code 75.
        what: The command and setting that bound it, for the message (e.g. ``"evaluate (--stall_timeout 300)"``).
        record: Folder for :data:`STALL_FILE`; ``None`` writes no state.
        progress: A progress bar (``tqdm``) advanced by one per step, closed on exit; ``None``: none.
        exit: What ends the process (tests record it instead).
    """

    def __init__(self, env, timeout_s: float, what: str, record: Path | None, *, progress=None, exit=os._exit) -> None:
        self.env = env
        self.progress = progress
        self.what = what
        self.record = record
        self._state: dict | None = None
        self._steps = 0
        self._watchdog = StallWatchdog(timeout_s, self._on_stall, exit=exit) if timeout_s > 0 else None

    def __enter__(self) -> GuardedSteps:
        if self._watchdog is not None:
            self._watchdog.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._watchdog is not None:
            self._watchdog.stop()
        if self.progress is not None:
            self.progress.close()

    def step(self, actions: torch.Tensor):
        """``env.step(actions)``, with the robots' state kept first when a watchdog runs."""
        if self._watchdog is not None:
            self._state = robot_state(self.env, actions, self._steps)
        result = self.env.step(actions)
        self._steps += 1
        if self._watchdog is not None:
            self._watchdog.beat()
        if self.progress is not None:
            self.progress.update(1)
        return result

    def _on_stall(self, seconds: float) -> None:
        where = ""
        if self._state is not None:
            where = f"; state before it: {describe_state(self._state)}"
            if self.record is not None:
                self.record.mkdir(parents=True, exist_ok=True)
                torch.save(self._state, self.record / STALL_FILE)
                where += f"; written to {self.record / STALL_FILE}"
        print(
            f"[go2] {self.what}: simulation step {self._steps} did not return in {seconds:.0f} s: the physics step "
            f"hangs (OvPhysX on rough terrain: docs/ovphysx_hang.md){where}; exit {STALLED_EXIT_CODE}",
            file=sys.stderr,
            flush=True,
        )

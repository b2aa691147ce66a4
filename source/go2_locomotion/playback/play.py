"""``scripts/play.py``: run a trained Go2 checkpoint deterministically in the play MDP, watch and steer it, record it,
and export the deploy bundle next to the checkpoint. The task, the checkpoint and the viewers are checked before the
simulator starts or anything is written.

Why: docs/playback.md.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import threading
import time
from collections.abc import Callable

from ..compat import private_api
from ..errors import UsageError, exit_on_usage_error
from ..robot.steering import Steering, TerminalKeys
from ..training.cli import make_parser, parse_args
from ..training.session import export_all, loaded_policy
from . import viewer as viewers
from .page import CommandPanel
from .recording import summarize

# Imported inside functions: Isaac Lab and torch (heavy; under Isaac Sim they follow Kit's start, the launch).

LOST_VIEWER_EXIT = 1


def build_parser() -> argparse.ArgumentParser:
    """Isaac Lab's playback flags (task, envs, seed, real time, video, RSL-RL, launcher) + ours."""
    from isaaclab_rl.entrypoints.common import add_common_play_args

    def extra(parser):
        parser.add_argument("--num_steps", type=int, default=None, help="Stop after this many policy steps.")
        viewers.add_viewer_args(parser)

    description = (
        "Play a Go2 checkpoint (action mean), watch and steer it (--viz viser: in a browser; terminal keys w/s a/d "
        "q/e, space, r, 0-9, *, f with any viewer), record it, and export its deploy bundle."
    )
    return make_parser(description, add_common_play_args, extra)


def main(argv: list[str] | None = None) -> int:
    """Play and export; returns the process exit code (2 for a usage error, 1 when the viewer failed)."""
    return exit_on_usage_error(lambda: _play(argv))


def _play(argv: list[str] | None) -> int:
    from isaaclab_rl.entrypoints.common import video_playback_steps

    args, overrides = parse_args(build_parser(), argv)
    if args.num_steps is not None and args.num_steps < 1:
        raise UsageError(f"--num_steps must be a positive integer, got {args.num_steps}")
    plan = viewers.plan_viewers(args)
    with (
        private_api.VisualizerFailures() as failures,
        loaded_policy(args, overrides, prepare=lambda env_cfg: plan.apply(args, env_cfg)) as session,
    ):
        export_all(session, session.work_dir / "exported")
        env = session.env
        policy = session.runner.get_inference_policy(device=env.unwrapped.device)
        from ..tasks.velocity_env_cfg import VELOCITY_COMMAND  # the task configs, loaded by the session by now

        steering = Steering(env.unwrapped.command_manager.get_term(VELOCITY_COMMAND), env.unwrapped.num_envs)
        viser = viewers.viser_visualizer(env)
        panel = CommandPanel(viser.server, steering) if viser is not None else None
        if viser is not None:
            print(f"[go2] watch and steer at http://{viser.cfg.display_address}:{viser.cfg.port}")
        budgets = [n for n in (args.num_steps, video_playback_steps(args, env.unwrapped.cfg)) if n is not None]
        with TerminalKeys() as keys:
            if keys.active:
                print("[go2] steer from this terminal: w/s a/d q/e (+-), space stop, r release, 0-9/* robot, f follow")
            watch = SteeringLoop(env, steering, keys, panel)
            steps = run_policy(
                env, policy, max_steps=min(budgets, default=None), real_time=args.real_time, on_step=watch
            )
        print(f"[go2] played {steps} steps")
    if plan.record is not None:
        _report_recording(plan.record)
    if failures.failures:
        print(f"[go2] playback stopped early: the viewer failed ({failures.failures[0]})")
        return LOST_VIEWER_EXIT
    return 0


class SteeringLoop:
    """Once per policy step: read the terminal keys, apply steering to the command term, move a following camera,
    refresh the page readout."""

    FOLLOW_OFFSET = (-2.0, -2.0, 1.2)
    """Camera eye relative to the followed robot [m]."""

    def __init__(self, env, steering, keys, panel):
        self.env, self.steering, self.keys, self.panel = env, steering, keys, panel

    def __call__(self, step: int) -> bool:
        """Returns whether the command changed."""
        for char in self.keys.read():
            self.steering.key(char)
        changed = self.steering.apply()
        robot = self.steering.state.shown_robot
        unwrapped = self.env.unwrapped
        followed = self.steering.followed_robot()
        if followed is not None:
            target = [float(x) for x in unwrapped.scene["robot"].data.root_pos_w.torch[followed]]
            eye = [t + o for t, o in zip(target, self.FOLLOW_OFFSET, strict=True)]
            unwrapped.sim.set_camera_view(eye, target)
        if self.panel is not None:
            term = self.steering.term
            data = unwrapped.scene["robot"].data
            measured = (
                *(float(v) for v in data.root_lin_vel_b.torch[robot, :2]),
                float(data.root_ang_vel_b.torch[robot, 2]),
            )
            self.panel.update_readout([float(v) for v in term.command[robot]], measured)
        return changed


def run_policy(env, policy, *, max_steps: int | None, real_time: bool, on_step: Callable[[int], bool] | None = None):
    """Step ``env`` with the deterministic ``policy`` until ``max_steps``, the viewer closes, or Ctrl-C; ``on_step``
    runs before every step and says whether it changed the command. Returns the steps played."""
    import torch

    sim = env.unwrapped.sim
    dt = env.unwrapped.step_dt
    obs = env.get_observations()
    steps = 0
    with contextlib.suppress(KeyboardInterrupt), StopOnInterrupt() as interrupt:
        while not interrupt.requested and (max_steps is None or steps < max_steps) and sim.is_running():
            start = time.time()
            if on_step is not None and on_step(steps):
                obs = env.get_observations()  # the new command is in this step's observation
            with torch.inference_mode():
                obs, _, dones, _ = env.step(policy(obs))
                policy.reset(dones)
            steps += 1
            if real_time and (pause := dt - (time.time() - start)) > 0:
                time.sleep(pause)
    return steps


class StopOnInterrupt:
    """Ctrl-C (SIGINT) asks the playback loop to stop after the current step. A flag instead of an exception: a
    ``KeyboardInterrupt`` raised inside library code between two steps could be swallowed there, and playback would
    go on. A second Ctrl-C interrupts at once. Only the main thread can install a handler; elsewhere it is a no-op."""

    def __enter__(self) -> StopOnInterrupt:
        self.requested = False
        self._previous = None
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


def _report_recording(path) -> None:
    if not path.is_file():
        raise RuntimeError(f"the viser viewer did not write the recording {path}")
    info = summarize(path)
    print(
        f"[go2] recorded {path} ({path.stat().st_size / 1e6:.1f} MB, {info.duration_s:.1f} s, {info.frames} frames); "
        "open it with: python scripts/view_recording.py " + str(path)
    )

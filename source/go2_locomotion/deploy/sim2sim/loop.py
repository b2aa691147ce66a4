"""The scripted run of the sim-to-sim check: a command sequence (:class:`Segment`), the policy at the manifest's
policy rate through :class:`~go2_locomotion.deploy.controller.ReferenceController` (the robot side of the bundle
exercised exactly as deployed), the MuJoCo plant at the physics rate, and the time series the report is made of."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

from ... import pretrained
from ..bundle import Bundle, load_bundle
from ..controller import ReferenceController
from .gif import GifRecorder
from .plant import Go2Plant
from .report import SETTLE_S, segment_report


@dataclass(frozen=True)
class Segment:
    """One leg of the scripted command sequence."""

    name: str
    """Label in the report."""
    duration_s: float
    """Length [s]."""
    command: tuple[float, float, float]
    """lin x [m/s], lin y [m/s], yaw rate [rad/s], in the trunk's heading frame."""


DEFAULT_SEGMENTS = (
    Segment("stand", 2.0, (0.0, 0.0, 0.0)),
    Segment("forward", 3.0, (0.5, 0.0, 0.0)),
    Segment("lateral", 3.0, (0.0, 0.3, 0.0)),
    Segment("turn", 3.0, (0.0, 0.0, 1.0)),
    Segment("stop", 2.0, (0.0, 0.0, 0.0)),
)
"""Stand, forward 0.5 m/s, lateral 0.3 m/s, turn 1 rad/s, stop: 13 s."""


def parse_segments(text: str) -> list[Segment]:
    """Parse ``"name:seconds:vx,vy,wz name:seconds:vx,vy,wz ..."``.

    Raises:
        ValueError: A segment is malformed; the message names it and shows the accepted form.
    """
    segments = []
    for token in text.split():
        parts = token.split(":")
        try:
            name, duration, command = parts
            values = tuple(float(v) for v in command.split(","))
            seconds = float(duration)
        except ValueError:
            raise ValueError(
                f"--commands: segment {token!r} is not name:seconds:vx,vy,wz (e.g. forward:3:0.5,0,0)"
            ) from None
        if len(values) != 3 or seconds <= 0 or not all(math.isfinite(v) for v in values):
            raise ValueError(f"--commands: segment {token!r} needs 3 finite velocities and a positive duration")
        segments.append(Segment(name, seconds, values))
    if not segments:
        raise ValueError("--commands: no segment given")
    return segments


def run(
    bundle_dir: Path | str | Bundle,
    segments: list[Segment] | tuple[Segment, ...] = DEFAULT_SEGMENTS,
    *,
    substeps: int | None = None,
    video: Path | None = None,
) -> dict:
    """Run the bundle through ``segments``; returns the report (per-segment figures and the time series).

    Args:
        bundle_dir: Folder with ``deploy.yaml`` and ``policy.onnx``.
        segments: The command sequence.
        substeps: MuJoCo steps per physics step; ``None``: the bundle's ``physics.substeps``.
        video: Write an animated GIF of the run here (needs an off-screen OpenGL context).

    Raises:
        FileNotFoundError, BundleError: The bundle is missing or inconsistent.
        VideoUnavailable: ``video`` was asked for and MuJoCo cannot render here.
    """
    bundle = bundle_dir if isinstance(bundle_dir, Bundle) else load_bundle(bundle_dir)
    controller = ReferenceController(bundle)
    robot = Go2Plant(bundle, substeps)
    model, data = robot.model, robot.data
    recorder = GifRecorder(video, model) if video is not None else None
    policy_dt = float(bundle.field("timing.policy_dt"))

    series = {k: [] for k in ("time", "segment", "cmd_vx", "cmd_vy", "cmd_wz", "vx", "vy", "wz", "height", "down")}
    t = 0.0
    for index, segment in enumerate(segments):
        command = np.asarray(segment.command, dtype=np.float64)
        for _ in range(max(1, round(segment.duration_s / policy_dt))):
            out = controller.act(robot.state(command))
            robot.apply(out.joint_pos_target, out.kp, out.kd)
            t += policy_dt
            lin_vel = robot.base_lin_vel()
            height, down = float(data.qpos[2]), robot.is_down()
            for key, value in zip(
                series, (t, index, *command, lin_vel[0], lin_vel[1], data.qvel[5], height, down), strict=True
            ):
                series[key].append(float(value) if key not in ("segment", "down") else value)
            if recorder is not None:
                recorder.capture(data)

    return {
        "bundle": pretrained.recorded_path(bundle.directory),
        "task": bundle.field("task"),
        "policy_sha256": bundle.field("policy.sha256"),
        "settings": {
            "policy_rate_hz": 1.0 / policy_dt,
            "pd_rate_hz": 1.0 / float(bundle.field("timing.sim_dt")),
            "mujoco_timestep_s": float(model.opt.timestep),
            "substeps": robot.settings.substeps,
            "integrator": robot.settings.integrator,
            "cone": robot.settings.cone,
            "floor_friction": robot.settings.friction,
            "settle_s": SETTLE_S,
            "mujoco_version": mujoco.__version__,
        },
        "segments": [segment_report(i, s, series) for i, s in enumerate(segments)],
        "fell": any(series["down"]),
        "video": str(recorder.save(policy_dt)) if recorder is not None else None,
        "series": series,
    }

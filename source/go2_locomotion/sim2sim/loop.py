"""The scripted run of the sim-to-sim check: a command sequence (:class:`Segment`), the policy at the manifest's
policy rate through :class:`~go2_locomotion.robot.controller.ReferenceController` (the robot side of the bundle
exercised exactly as deployed), the MuJoCo plant at the physics rate on a floor or a terrain cell, and the time
series the report is made of."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

from .. import pretrained
from ..robot.bundle import Bundle, load_bundle
from ..robot.controller import ReferenceController
from .gif import GifRecorder
from .plant import Go2Plant
from .report import SETTLE_S, segment_report
from .terrain import TerrainGeometry


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

TERRAIN_SEGMENTS = (Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("forward", 6.0, (1.0, 0.0, 0.0)))
"""On a terrain cell: stand, then straight ahead at 1 m/s (the terrain evaluation's command) for 6 s, out of the
8 m tile from its centre over its whole obstacle (the tile's edge is 4 m away)."""


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
    terrain: TerrainGeometry | None = None,
) -> dict:
    """Run the bundle through ``segments``; returns the report (per-segment figures and the time series).

    Args:
        bundle_dir: Folder with ``deploy.yaml`` and ``policy.onnx``.
        segments: The command sequence.
        substeps: MuJoCo steps per physics step; ``None``: the bundle's ``physics.substeps``.
        video: Write an animated GIF of the run here (needs an off-screen OpenGL context).
        terrain: The ground (a cell from :func:`.terrain.build_cell`); ``None``: a floor plane. The robot starts
            at its origin; the trunk height is measured above the ground under the trunk.

    Raises:
        FileNotFoundError, BundleError: The bundle is missing or inconsistent.
        VideoUnavailable: ``video`` was asked for and MuJoCo cannot render here.
    """
    bundle = bundle_dir if isinstance(bundle_dir, Bundle) else load_bundle(bundle_dir)
    controller = ReferenceController(bundle)
    robot = Go2Plant(bundle, substeps, terrain=terrain)
    model, data = robot.model, robot.data
    start = data.qpos[0:2].copy()
    recorder = GifRecorder(video, model) if video is not None else None
    policy_dt = float(bundle.field("timing.policy_dt"))

    keys = ("time", "segment", "cmd_vx", "cmd_vy", "cmd_wz", "vx", "vy", "wz", "height", "down", "x", "y")
    series = {k: [] for k in keys}
    t = 0.0
    for index, segment in enumerate(segments):
        command = np.asarray(segment.command, dtype=np.float64)
        for _ in range(max(1, round(segment.duration_s / policy_dt))):
            out = controller.act(robot.state(command))
            robot.apply(out.joint_pos_target, out.kp, out.kd)
            t += policy_dt
            lin_vel = robot.base_lin_vel()
            height, down = robot.base_height(), robot.is_down()
            x, y = data.qpos[0:2] - start
            for key, value in zip(
                series, (t, index, *command, lin_vel[0], lin_vel[1], data.qvel[5], height, down, x, y), strict=True
            ):
                series[key].append(float(value) if key not in ("segment", "down") else value)
            if recorder is not None:
                recorder.capture(data)

    return {
        "bundle": pretrained.recorded_path(bundle.directory),
        "task": bundle.field("task"),
        "policy_sha256": bundle.field("policy.sha256"),
        "terrain": None if terrain is None else _terrain_record(terrain, series),
        "height_scan": robot.height_source is not None,
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


def _terrain_record(terrain: TerrainGeometry, series: dict) -> dict:
    """The cell, where the robot started, and how far from there it got [m] before it fell (if it did)."""
    upright = [i for i in range(len(series["time"])) if not any(series["down"][: i + 1])]
    distance = [math.hypot(series["x"][i], series["y"][i]) for i in upright]
    return {"label": terrain.label, "origin": terrain.origin.tolist(), "max_distance_m": max(distance, default=0.0)}

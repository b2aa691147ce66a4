"""Sim-to-sim check: a deploy bundle driving this package's Go2 description in plain MuJoCo on the CPU. No Isaac Lab
is imported.

- :mod:`.plant`: the MuJoCo Go2 (:class:`Go2Plant`), its PD loop with DC-motor limits, and the MuJoCo settings
  read from the bundle's ``physics`` section (:func:`mujoco_settings`);
- :mod:`.loop`: the scripted command sequence (:class:`Segment`) and the run (:func:`run`), the policy driven
  through the reference controller exactly as deployed;
- :mod:`.report`: per-segment figures, ``sim2sim.json`` and the table; :mod:`.plot`: ``sim2sim.png``;
- :mod:`.gif`: the optional animation; :mod:`.cli`: ``scripts/sim2sim.py``.
"""

from .cli import main
from .gif import GifRecorder, VideoUnavailable
from .loop import DEFAULT_SEGMENTS, Segment, parse_segments, run
from .plant import (
    FALL_BASE_HEIGHT,
    FALL_GRAVITY_Z,
    UNRECORDED,
    Go2Plant,
    MujocoSettings,
    build_model,
    dc_motor_torque,
    mujoco_settings,
)
from .report import SETTLE_S, segment_report, table, write_report

__all__ = [
    "DEFAULT_SEGMENTS",
    "FALL_BASE_HEIGHT",
    "FALL_GRAVITY_Z",
    "SETTLE_S",
    "UNRECORDED",
    "GifRecorder",
    "Go2Plant",
    "MujocoSettings",
    "Segment",
    "VideoUnavailable",
    "build_model",
    "dc_motor_torque",
    "main",
    "mujoco_settings",
    "parse_segments",
    "run",
    "segment_report",
    "table",
    "write_report",
]

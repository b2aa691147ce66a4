"""Sim-to-sim check: a deploy bundle driving this package's Go2 description in plain MuJoCo on the CPU. No Isaac Lab
is imported, except Isaac Lab's terrain generator when a terrain cell is built.

- :mod:`.plant`: the MuJoCo Go2 (:class:`Go2Plant`) on a floor or a terrain cell, its PD loop with DC-motor limits,
  and the MuJoCo settings read from the bundle's ``physics`` section (:func:`mujoco_settings`);
- :mod:`.terrain`: Go2-Rough's terrain cells from Isaac Lab's generator as MuJoCo boxes and height fields
  (:func:`build_cell`);
- :mod:`.height_scan`: the height-scan interface (:class:`HeightSource`) and its MuJoCo ray-cast implementation
  (:class:`MujocoHeightScan`);
- :mod:`.loop`: the scripted command sequence (:class:`Segment`) and the run (:func:`run`), the policy driven
  through the reference controller exactly as deployed;
- :mod:`.report`: per-segment figures, ``sim2sim.json`` and the table; :mod:`.plot`: ``sim2sim.png``;
- :mod:`.command_grid` (``--grid``) and :mod:`.terrain_grid` (``--terrain default``): the evaluation's command and
  terrain grids in MuJoCo, reported as ``scripts/evaluate.py`` reports Isaac Lab (:mod:`go2_locomotion.evaluation`);
- :mod:`.gif`: the optional animation; :mod:`.cli`: ``scripts/sim2sim.py``.
"""

from .cli import main
from .gif import GifRecorder, VideoUnavailable
from .height_scan import HeightSource, MujocoHeightScan, ScanPattern
from .loop import DEFAULT_SEGMENTS, TERRAIN_SEGMENTS, Segment, parse_segments, run
from .plant import (
    FALL_BASE_HEIGHT,
    FALL_GRAVITY_Z,
    GROUND_GROUP,
    UNRECORDED,
    Go2Plant,
    MujocoSettings,
    build_model,
    dc_motor_torque,
    mujoco_settings,
)
from .report import SETTLE_S, segment_report, table, write_report
from .terrain import TerrainError, TerrainGeometry, build_cell

__all__ = [
    "DEFAULT_SEGMENTS",
    "FALL_BASE_HEIGHT",
    "FALL_GRAVITY_Z",
    "GROUND_GROUP",
    "SETTLE_S",
    "TERRAIN_SEGMENTS",
    "UNRECORDED",
    "GifRecorder",
    "Go2Plant",
    "HeightSource",
    "MujocoHeightScan",
    "MujocoSettings",
    "ScanPattern",
    "Segment",
    "TerrainError",
    "TerrainGeometry",
    "VideoUnavailable",
    "build_cell",
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

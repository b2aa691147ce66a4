"""The terrain grid in plain MuJoCo, from a deploy bundle (``sim2sim.py --terrain default``): the cells, criterion
and report of ``scripts/evaluate.py --terrain`` in Isaac Lab (:mod:`go2_locomotion.evaluation.terrain`,
:mod:`go2_locomotion.evaluation.terrain_report`), so ``evaluate.py --compare`` lines the two up cell by cell.

Each cell is built once (:func:`.terrain.build_cell`: the same seeded tile as Isaac Lab's evaluation lays out) and
walked by ``robots_per_cell`` robots, each a :class:`~.plant.Go2Plant` of its own on that ground with its own
reference controller (numpy + onnxruntime, as on the robot), commanded ``FORWARD_SPEED`` straight ahead in its
heading frame for ``DURATION_S`` (both of :mod:`go2_locomotion.evaluation.terrain`). Success is the curriculum's
criterion: half a tile (4 m) from the tile's centre without falling (``TerrainRecorder``, the recorder Isaac Lab's
evaluation uses).

**Starts.** Isaac Lab's evaluation resets each robot with a random yaw, a +-0.5 m offset from the tile's centre
and a random velocity, drawn from the run's seed. MuJoCo has no randomisation here and each robot runs alone, so
robots started alike would run alike; they differ by heading only: each robot starts at the tile's centre (Isaac
Lab's terrain origin), at rest with its feet on the ground, facing its own heading (:func:`headings`). Robot ``k``
of ``N`` walks out through side ``k mod 4`` of the tile, turned a further ``90 k / N`` degrees: every side gets a
quarter of the robots (on the random tiles, boxes and random rough, each meets other obstacles), and no two
headings are a quarter turn apart. That matters on the pyramids (stairs, slopes), whose four sides have the same
profile: headings a quarter turn apart cross alike (Go2-Rough's iteration-1163 policy on 10 cm stairs up with 32
robots at ``360 k / N`` degrees: every outcome four times, 8 distinct runs), while headings that differ modulo the
quarter turn meet the steps at other angles and spots (contact order and rounding differ; a height field's
triangles are split along one diagonal), the spread Isaac Lab's random yaws and offsets give. The default,
:data:`ROBOTS_PER_CELL`, is the Isaac Lab evaluation's count, 8. No offset: the start is the origin Isaac Lab's
robots are scattered around, and on every tile the ground within 0.5 m of it is the centre platform (stairs,
boxes, slopes) or the same noise.

**Falls.** Isaac Lab's: its evaluation counts a robot fallen when the task's episode ends early, on the trunk
touching the ground with more than the task's threshold (the ``base_contact`` termination, 1 N; :func:`fall_force`
reads it from the task config). MuJoCo's trunk-ground force is :meth:`Go2Plant.base_contact_force`, checked after
every policy step (Isaac Lab's contact sensor keeps the largest of its last few physics steps). The sim-to-sim
plant's broader :meth:`Go2Plant.is_down` (also tilt beyond 60 degrees or the trunk below 0.15 m above the ground
under it) is not used here: on stairs up the ground under the trunk is often the next step, and the iteration-1163
policy, climbing 10 cm steps pitched up by 28 degrees, passed 0.15 m over the step below its trunk with no
contact at all, 3 m out: a fall by that rule, a climb by Isaac Lab's.

**Early end.** A robot's outcome is its first event; once it has succeeded or fallen the recorder ignores it, so
it is no longer stepped, and a cell ends when all of its robots are decided (the figures are those of the full
duration, in less time). A cell's robots run one after another with the cell's recorder; the report puts the
cells together (``summarise`` of :mod:`go2_locomotion.evaluation.terrain`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mujoco
import numpy as np

from ..evaluation import terrain as terrain_eval
from ..evaluation import terrain_report
from ..robot.bundle import Bundle, load_bundle
from ..robot.controller import ReferenceController
from .command_grid import bundle_source, physics_settings
from .plant import Go2Plant
from .terrain import TerrainGeometry, build_cell

ROBOTS_PER_CELL = terrain_eval.ROBOTS_PER_CELL
"""Default robots per cell in MuJoCo: as many as Isaac Lab's terrain evaluation puts on a cell, one per heading
(:func:`headings`)."""

COMMAND = (terrain_eval.FORWARD_SPEED, 0.0, 0.0)
"""What every robot is told: forward at the terrain evaluation's speed, in its heading frame."""


def headings(robots: int) -> np.ndarray:
    """``[robots]`` start yaws [rad] from the world's +x: robot ``k`` faces side ``k mod 4`` of the tile turned a
    further ``(pi / 2) k / robots``, so every side gets a quarter of the robots and no two yaws are equal modulo a
    quarter turn (see the module)."""
    k = np.arange(robots)
    return 0.5 * math.pi * (k % 4) + 0.5 * math.pi * k / robots


def start_plants(bundle: Bundle, geometry: TerrainGeometry, robots: int, substeps: int | None = None) -> list[Go2Plant]:
    """One plant per heading (:func:`headings`) on ``geometry``, each at the tile's centre with its feet on the
    ground (the plant's own start), turned about the vertical through its trunk origin to its heading."""
    plants = []
    for yaw in headings(robots):
        plant = Go2Plant(bundle, substeps, terrain=geometry)
        plant.data.qpos[3:7] = [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]
        mujoco.mj_forward(plant.model, plant.data)
        plants.append(plant)
    return plants


def success_distance(cells) -> float:
    """Half a tile [m], from the cells' generator config (the task's), as Isaac Lab's evaluation reads it."""
    from ..tasks.terrain_cells import cells_generator  # the task configs: Isaac Lab (heavy)

    return float(cells_generator(cells).size[0]) / 2


def fall_force() -> float:
    """The trunk-contact force above which the task's episode ends [N] (its ``base_contact`` termination's
    threshold), the fall criterion of Isaac Lab's terrain evaluation."""
    from ..tasks.velocity_env_cfg import TerminationsCfg  # the task configs: Isaac Lab (heavy)

    return float(TerminationsCfg().base_contact.params["threshold"])


def run_cell(
    bundle: Bundle,
    cell,
    geometry: TerrainGeometry,
    *,
    robots: int,
    duration_s: float,
    settle_s: float,
    distance: float,
    threshold: float,
    substeps: int | None = None,
) -> terrain_eval.TerrainRecorder:
    """Walk ``robots`` robots forward from the centre of ``geometry`` (``cell``'s tile); returns the cell's
    recorder, ``distance`` [m] from the centre the success criterion, a trunk-ground force above ``threshold`` [N]
    a fall."""
    plants = start_plants(bundle, geometry, robots, substeps)
    controllers = [ReferenceController(bundle) for _ in plants]
    policy_dt = float(bundle.field("timing.policy_dt"))
    recorder = terrain_eval.TerrainRecorder(
        cells=[cell],
        assignment=np.zeros(robots, dtype=int),
        step_dt=policy_dt,
        settle_s=settle_s,
        success_distance=distance,
        command=COMMAND,
    )
    command = np.asarray(COMMAND, dtype=np.float64)
    origin = geometry.origin[:2]
    away, lin_vel_b, fell = np.zeros(robots), np.zeros((robots, 3)), np.zeros(robots, dtype=bool)
    for _ in range(round(duration_s / policy_dt)):
        walking = np.flatnonzero(np.isnan(recorder.succeeded_at) & np.isnan(recorder.fell_at))
        if not len(walking):
            break
        for r in walking:  # decided robots keep their last values: the recorder ignores them
            plant = plants[r]
            out = controllers[r].act(plant.state(command))
            plant.apply(out.joint_pos_target, out.kp, out.kd)
            away[r] = float(np.hypot(*(plant.data.qpos[0:2] - origin)))
            lin_vel_b[r] = plant.base_lin_vel()
            fell[r] = plant.base_contact_force() > threshold
        recorder.record(distance=away, lin_vel_b=lin_vel_b, fell=fell)
    return recorder


def run_terrain(
    bundle: Bundle | str,
    cells: list,
    *,
    robots_per_cell: int = ROBOTS_PER_CELL,
    duration_s: float = terrain_eval.DURATION_S,
    settle_s: float = terrain_eval.SETTLE_S,
    substeps: int | None = None,
    geometries: list[TerrainGeometry] | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Evaluate the bundle on terrain ``cells`` (:class:`~go2_locomotion.tasks.terrain_cells.TerrainCell`);
    returns the terrain report (``terrain_report.assemble``, ``simulator="mujoco"``).

    Args:
        geometries: The cells' MuJoCo grounds, built beforehand (:func:`.terrain.build_cell`); ``None``: built
            here.
        progress: Called with one line per cell when it is done.

    Raises:
        TerrainError: A cell MuJoCo cannot reproduce (only when ``geometries`` is ``None``).
    """
    bundle = bundle if isinstance(bundle, Bundle) else load_bundle(bundle)
    geometries = [build_cell(cell) for cell in cells] if geometries is None else geometries
    distance, threshold = success_distance(cells), fall_force()
    figures = []
    for cell, geometry in zip(cells, geometries, strict=True):
        recorder = run_cell(
            bundle,
            cell,
            geometry,
            robots=robots_per_cell,
            duration_s=duration_s,
            settle_s=settle_s,
            distance=distance,
            threshold=threshold,
            substeps=substeps,
        )
        figures.append(recorder.report()["terrain"][0])
        if progress is not None:
            row = figures[-1]
            progress(
                f"[go2] {row['label']}: success {row['success_rate']:.2f}, falls {row['fall_rate']:.2f} "
                f"({robots_per_cell} robots, {recorder.steps * recorder.step_dt:.1f} s)"
            )
    settings = {
        "cells": [c.label() for c in cells],
        "command": list(COMMAND),
        "success_distance_m": distance,
        "fall_force_n": threshold,
        "duration_s": duration_s,
        "settle_s": settle_s,
        "robots_per_cell": robots_per_cell,
        "headings_deg": [round(math.degrees(yaw), 6) for yaw in headings(robots_per_cell)],
        "start": "the tile's centre (Isaac Lab's terrain origin), feet on the ground, at rest, one heading a robot",
        "seed": None,
        **physics_settings(bundle, substeps),
        "mdp": "deploy bundle + reference controller, PD and DC-motor limits at the physics rate, a fixed forward "
        "command",
    }
    report = {"terrain": figures, "summary": terrain_eval.summarise(figures)}
    return terrain_report.assemble(report, simulator="mujoco", settings=settings, source=bundle_source(bundle))

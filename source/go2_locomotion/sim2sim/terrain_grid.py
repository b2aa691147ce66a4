"""The terrain grid of ``scripts/evaluate.py --terrain`` in plain MuJoCo, from a deploy bundle (``sim2sim.py --terrain
default``): the same seeded cells, criterion, recorder and report (:mod:`go2_locomotion.evaluation.terrain`), so
``evaluate.py --compare`` lines the two up cell by cell. Robots differ by heading only (:func:`headings`); a fall is
Isaac Lab's ``base_contact`` (:func:`fall_force`).

Why: docs/deploy.md, *The terrain grid in MuJoCo*.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import mujoco
import numpy as np

from ..evaluation import terrain as terrain_eval
from ..evaluation import terrain_report
from ..robot.bundle import Bundle, load_bundle
from ..robot.controller import ReferenceController
from .command_grid import bundle_source, model_setting, physics_settings
from .plant import Go2Plant
from .terrain import TerrainGeometry, build_cell

ROBOTS_PER_CELL = terrain_eval.ROBOTS_PER_CELL
"""Default robots per cell in MuJoCo: as many as Isaac Lab's terrain evaluation puts on a cell, one per heading
(:func:`headings`)."""

"""What every robot is told: forward at the terrain evaluation's speed, in its heading frame."""


def headings(robots: int) -> np.ndarray:
    """``[robots]`` start yaws [rad] from the world's +x: robot ``k`` faces side ``k mod 4`` of the tile turned a
    further ``(pi / 2) k / robots``, so every side gets a quarter of the robots and no two yaws are equal modulo a
    quarter turn (see the module)."""
    k = np.arange(robots)
    return 0.5 * math.pi * (k % 4) + 0.5 * math.pi * k / robots


def start_plants(
    bundle: Bundle,
    geometry: TerrainGeometry,
    robots: int,
    substeps: int | None = None,
    model_file: Path | None = None,
) -> list[Go2Plant]:
    """One plant per heading (:func:`headings`) on ``geometry``, each at the tile's centre with its feet on the
    ground (the plant's own start), turned about the vertical through its trunk origin to its heading; the
    description's Go2, or the MJCF Go2 of ``model_file`` (:func:`.plant.load_model_file`)."""
    plants = []
    for yaw in headings(robots):
        plant = Go2Plant(bundle, substeps, terrain=geometry, model_file=model_file)
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
    speed: float = terrain_eval.FORWARD_SPEED,
    model_file: Path | None = None,
) -> terrain_eval.TerrainRecorder:
    """Walk ``robots`` robots forward at ``speed`` [m/s] from the centre of ``geometry`` (``cell``'s tile); returns
    the cell's recorder, ``distance`` [m] from the centre the success criterion, a trunk-ground force above
    ``threshold`` [N] a fall; ``model_file`` as in :func:`start_plants`."""
    plants = start_plants(bundle, geometry, robots, substeps, model_file)
    controllers = [ReferenceController(bundle) for _ in plants]
    policy_dt = float(bundle.field("timing.policy_dt"))
    recorder = terrain_eval.TerrainRecorder(
        cells=[cell],
        assignment=np.zeros(robots, dtype=int),
        step_dt=policy_dt,
        settle_s=settle_s,
        success_distance=distance,
        command=(speed, 0.0, 0.0),
    )
    command = np.asarray(recorder.command, dtype=np.float64)
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
    speed: float = terrain_eval.FORWARD_SPEED,
    model_file: Path | None = None,
) -> dict:
    """Evaluate the bundle on terrain ``cells`` (:class:`~go2_locomotion.tasks.terrain_cells.TerrainCell`);
    returns the terrain report (``terrain_report.assemble``, ``simulator="mujoco"``).

    Args:
        geometries: The cells' MuJoCo grounds, built beforehand (:func:`.terrain.build_cell`); ``None``: built
            here.
        progress: Called with one line per cell when it is done.
        speed: The forward command [m/s].
        model_file: An MJCF Go2 to simulate instead of the description (:func:`.plant.load_model_file`).

    Raises:
        TerrainError: A cell MuJoCo cannot reproduce (only when ``geometries`` is ``None``).
        ValueError: ``model_file`` cannot be loaded; one line naming it.
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
            speed=speed,
            model_file=model_file,
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
        "command": [speed, 0.0, 0.0],
        "success_distance_m": distance,
        "fall_force_n": threshold,
        "duration_s": duration_s,
        "settle_s": settle_s,
        "robots_per_cell": robots_per_cell,
        "headings_deg": [round(math.degrees(yaw), 6) for yaw in headings(robots_per_cell)],
        "start": "the tile's centre (Isaac Lab's terrain origin), feet on the ground, at rest, one heading a robot",
        "seed": None,
        "model": model_setting(model_file),
        **physics_settings(bundle, substeps),
        "mdp": "deploy bundle + reference controller, PD and DC-motor limits at the physics rate, a fixed forward "
        "command",
    }
    report = {"terrain": figures, "summary": terrain_eval.summarise(figures)}
    return terrain_report.assemble(report, simulator="mujoco", settings=settings, source=bundle_source(bundle))

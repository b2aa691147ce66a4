"""The command grid in plain MuJoCo, from a deploy bundle (``sim2sim.py --grid``): the same figures and report
format as ``scripts/evaluate.py`` in Isaac Lab, so the two compare line by line (``evaluate.py --compare``).

One :class:`~.plant.Go2Plant` per grid command, all stepped in lockstep: each robot starts in the standing pose
with its feet on the floor and keeps its command; the reference controller (numpy + onnxruntime) drives it exactly
as on the robot. MuJoCo has no randomisation here, so one robot per command says everything. A robot is down when
:meth:`Go2Plant.is_down` says so (tilt beyond 60 deg, trunk below 0.15 m, or the trunk touching the floor); Isaac
Lab's task ends on trunk contact, which is the case that matters.

The terrain grid in MuJoCo (``evaluate.py --terrain``'s cells) is :mod:`.terrain_grid`.
"""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np

from .. import pretrained
from ..evaluation import report as reports
from ..evaluation.grid import GridCommand, commands_at, default_grid
from ..evaluation.metrics import GridRecorder, StepState
from ..evaluation.robustness import Cell
from ..robot.bundle import Bundle, load_bundle
from ..robot.controller import ReferenceController, projected_gravity_from_quat
from ..versions import package_versions
from .plant import Go2Plant, mujoco_settings
from .robustness import MujocoCell


def bundle_grid(bundle: Bundle) -> list[GridCommand]:
    """The default grid for the command ranges the bundle's policy was trained on."""
    return default_grid(bundle.command_ranges())


def run_grid(
    bundle: Bundle | str,
    grid: list[GridCommand] | None = None,
    *,
    duration_s: float,
    settle_s: float,
    substeps: int | None = None,
    model_file: Path | None = None,
    cell: Cell | None = None,
) -> dict:
    """Evaluate the bundle on ``grid`` (default: :func:`bundle_grid`); returns the report (:mod:`.report`).
    ``substeps`` (MuJoCo steps per physics step) defaults to the bundle's ``physics.substeps``; ``model_file``
    simulates that MJCF Go2 instead of the description (:func:`.plant.load_model_file`); ``cell`` changes one
    figure of the robot or its world (:mod:`.robustness`).

    Raises:
        ValueError: ``model_file`` cannot be loaded; one line naming it.
    """
    bundle = bundle if isinstance(bundle, Bundle) else load_bundle(bundle)
    grid = grid or bundle_grid(bundle)
    plants = [Go2Plant(bundle, substeps, model_file=model_file) for _ in grid]
    perturb = MujocoCell(cell, bundle) if cell is not None else None
    for plant in plants if perturb is not None else ():
        perturb.prepare(plant)
    # one controller per robot: each keeps its own previous action and clock
    controllers = [ReferenceController(bundle) for _ in grid]
    policy_dt = float(bundle.field("timing.policy_dt"))
    recorder = GridRecorder(
        grid=grid,
        assignment=np.arange(len(grid)),
        step_dt=policy_dt,
        settle_s=settle_s,
        joint_limits=plants[0].joint_limits(),
        effort_limits=plants[0].limits["effort_limit"],
    )
    for step in range(round(duration_s / policy_dt)):
        commands = np.asarray(commands_at(grid, range(len(grid)), step * policy_dt), dtype=np.float64)
        if perturb is not None:
            perturb.push(plants, step * policy_dt)
        gain = perturb.gain if perturb is not None else 1.0
        for plant, controller, command in zip(plants, controllers, commands, strict=True):
            state = plant.state(command)
            out = controller.act(perturb.observe(state) if perturb is not None else state)
            plant.apply(out.joint_pos_target, gain * out.kp, gain * out.kd)
        recorder.record(_state(plants))
    settings = {
        "grid": [c.describe() for c in grid],
        "duration_s": duration_s,
        "settle_s": settle_s,
        "robots_per_command": 1,
        "seed": None,
        **physics_settings(bundle, substeps),
        "mdp": "deploy bundle + reference controller, PD and DC-motor limits at the physics rate, fixed commands",
        "model": model_setting(model_file),
    }
    if cell is not None:
        settings["robustness_cell"] = {"cell": cell.label(), "changes": cell.describe()}
    return reports.assemble(recorder.report(), simulator="mujoco", settings=settings, source=bundle_source(bundle))


def model_setting(model_file: Path | None) -> str:
    """Which Go2 a MuJoCo report simulated, for its settings: the description, or the ``--model`` file as given."""
    return "the package's Go2 description" if model_file is None else str(model_file)


def physics_settings(bundle: Bundle, substeps: int | None = None) -> dict:
    """How MuJoCo stepped the bundle's robots (:func:`.plant.mujoco_settings`), for a report's settings."""
    settings = mujoco_settings(bundle, substeps)
    return {
        "mujoco_timestep_s": float(bundle.field("timing.sim_dt")) / settings.substeps,
        "substeps": settings.substeps,
        "integrator": settings.integrator,
        "cone": settings.cone,
        "floor_friction": settings.friction,
    }


def bundle_source(bundle: Bundle) -> dict:
    """What a MuJoCo report was produced from: the bundle, its policy and task, MuJoCo and the versions."""
    return {
        "task": bundle.field("task"),
        "checkpoint": bundle.field("checkpoint"),
        "bundle": pretrained.recorded_path(bundle.directory),
        "policy_sha256": bundle.field("policy.sha256"),
        "physics": {"backend": "mujoco", "engine": f"MuJoCo {mujoco.__version__}", "manager": None, "config": None},
        "versions": package_versions("go2_locomotion", "mujoco", "onnxruntime"),
    }


def _state(plants: list[Go2Plant]) -> StepState:
    def stack(values):
        return np.stack(list(values))

    return StepState(
        lin_vel_b=stack(p.base_lin_vel() for p in plants),
        ang_vel_b=stack(p.data.qvel[3:6].copy() for p in plants),
        height=np.array([p.data.qpos[2] for p in plants]),
        projected_gravity=stack(projected_gravity_from_quat(p.data.qpos[3:7]) for p in plants),
        joint_pos=stack(p.data.qpos[p.qpos_adr].copy() for p in plants),
        joint_vel=stack(p.data.qvel[p.dof_adr].copy() for p in plants),
        torque=stack(p.joint_torque() for p in plants),
        foot_contact=stack(p.foot_contacts() for p in plants),
        foot_vel_xy=stack(p.foot_velocities_xy() for p in plants),
        fell=np.array([p.is_down() for p in plants]),
    )

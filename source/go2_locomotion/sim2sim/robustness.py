"""The robustness cells (:class:`go2_locomotion.evaluation.robustness.Cell`) in plain MuJoCo: what each changes in
the package's MuJoCo Go2 (:class:`~.plant.Go2Plant`) and in what its reference controller reads, so that
``sim2sim.py --grid --robustness`` and ``evaluate.py --robustness`` run the same grid.

- ``latency``: each PD update uses the joint targets of that many physics steps before (:attr:`Go2Plant.delay`).
- ``gains``: Kp and Kd times the factor.
- ``payload``: mass on the trunk, its inertia scaled with it (as Isaac Lab's mass event does).
- ``friction``: every robot and ground geom's sliding friction (MuJoCo takes the larger of two geoms').
- ``push``: the trunk's horizontal velocity set to a uniform +-v on x and y every 4-6 s.
- ``noise``: the uniform noise of the bundle's observation terms (``observation.terms[].noise``), times the factor,
  added to what the controller reads.
- ``joint_model``: the joints' rotor inertia and friction of ``presets=real_go2`` (on) or none (off).
- ``armature``: every joint's rotor inertia (the model's own: the bundle's figures, or a ``--model`` file's) times
  the factor.
"""

from __future__ import annotations

import dataclasses

import mujoco
import numpy as np

from ..assets import go2_motors
from ..assets.go2_description import joint_values
from ..evaluation.robustness import PUSH_INTERVAL_S, Cell
from ..robot.bundle import Bundle
from ..robot.observations import projected_gravity_from_quat
from ..robot.state import RobotState
from .plant import Go2Plant

NOISY_FIELDS = {
    "base_lin_vel": "base_lin_vel",
    "base_ang_vel": "base_ang_vel",
    "projected_gravity": "projected_gravity",
    "joint_pos_rel": "joint_pos",
    "joint_vel_rel": "joint_vel",
    "height_scan": "height_scan",
}
"""Observation function -> the :class:`RobotState` field its noise goes to."""


def real_go2_joint_figures(joint_names) -> dict[str, np.ndarray]:
    """``presets=real_go2``'s rotor inertia, Coulomb and viscous friction of each named joint."""
    figures = {
        "armature": go2_motors.ARMATURE,
        "friction": go2_motors.JOINT_FRICTION,
        "viscous_friction": go2_motors.JOINT_VISCOUS_FRICTION,
    }
    return {
        key: np.array([joint_values(figure, joint_names)[name] for name in joint_names])
        for key, figure in figures.items()
    }


class MujocoCell:
    """One robustness cell applied to the plants and controller inputs of a MuJoCo command grid."""

    def __init__(self, cell: Cell, bundle: Bundle, seed: int = 0):
        self.cell = cell
        self.rng = np.random.default_rng(seed)
        self.noise = {}
        if cell.kind == "noise":
            for term in bundle.field("observation.terms"):
                noise, target = term.get("noise"), NOISY_FIELDS.get(term["function"])
                if noise and target and noise.get("type") == "UniformNoiseCfg":
                    self.noise[target] = (cell.value * noise["n_min"], cell.value * noise["n_max"])
        self._next_push = None

    @property
    def gain(self) -> float:
        """The factor on Kp and Kd."""
        return self.cell.value if self.cell.kind == "gains" else 1.0

    def prepare(self, plant: Go2Plant) -> None:
        """Change one plant before it runs."""
        model, kind, value = plant.model, self.cell.kind, self.cell.value
        if kind == "latency":
            plant.delay = round(value / 1000.0 / (plant.dt_physics))
        elif kind == "payload":
            trunk = plant.base_id
            mass = model.body_mass[trunk]
            model.body_inertia[trunk] *= (mass + value) / mass
            model.body_mass[trunk] = mass + value
        elif kind == "friction":
            model.geom_friction[:, 0] = value
        elif kind == "joint_model":
            names = [model.joint(j).name for j in range(model.njnt) if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE]
            dofs = [model.jnt_dofadr[model.joint(name).id] for name in names]
            figures = real_go2_joint_figures(names)
            scale = 1.0 if value == "on" else 0.0
            model.dof_armature[dofs] = scale * figures["armature"]
            model.dof_frictionloss[dofs] = scale * figures["friction"]
            model.dof_damping[dofs] = scale * figures["viscous_friction"]
        elif kind == "armature":
            model.dof_armature[plant.dof_adr] *= value
        if kind not in ("payload", "joint_model", "armature"):
            return
        # masses or joint inertia changed: the model's derived constants anew (mj_setConst leaves the data at qpos0)
        data = plant.data
        qpos, qvel = data.qpos.copy(), data.qvel.copy()
        mujoco.mj_setConst(model, data)
        data.qpos[:], data.qvel[:] = qpos, qvel
        mujoco.mj_forward(model, data)

    def push(self, plants: list[Go2Plant], time_s: float) -> None:
        """A push cell: at its times, every robot's trunk gets a new horizontal velocity (world frame)."""
        if self.cell.kind != "push":
            return
        if self._next_push is None:
            self._next_push = self.rng.uniform(*PUSH_INTERVAL_S)
        if time_s >= self._next_push:
            for plant in plants:
                plant.data.qvel[0:2] = self.rng.uniform(-self.cell.value, self.cell.value, 2)
            self._next_push = time_s + self.rng.uniform(*PUSH_INTERVAL_S)

    def observe(self, state: RobotState) -> RobotState:
        """What the controller reads: ``state`` with the cell's observation noise."""
        if not self.noise:
            return state
        if state.projected_gravity is None and state.base_quat is not None:
            state = dataclasses.replace(state, projected_gravity=projected_gravity_from_quat(state.base_quat))
        changes = {}
        for field, (low, high) in self.noise.items():
            value = getattr(state, field)
            if value is not None:
                changes[field] = value + self.rng.uniform(low, high, np.shape(value))
        return dataclasses.replace(state, **changes)

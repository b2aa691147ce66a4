"""The package's MuJoCo Go2 takes each joint's rotor inertia and friction from the bundle (what the policy was
trained with), and a bundle that records none leaves the joints as the description builds them."""

import numpy as np

from go2_locomotion.assets import go2_description
from go2_locomotion.robot.bundle import JOINT_DYNAMICS
from go2_locomotion.sim2sim.plant import set_joint_dynamics


class _Bundle:
    def __init__(self, dynamics):
        self._dynamics = dynamics

    def field(self, dotted):
        assert dotted == "joints.names"
        return list(go2_description.JOINT_NAMES)

    def joint_dynamics(self):
        return self._dynamics


def test_joint_figures_reach_the_mujoco_model():
    calf = np.array([name.endswith("calf_joint") for name in go2_description.JOINT_NAMES])
    dynamics = {
        "armature": np.where(calf, 0.02, 0.01),
        "friction": np.full(12, 0.2),
        "viscous_friction": np.arange(12) / 100.0,  # a different figure per joint: no joint takes another's
    }
    spec = go2_description.build_spec(spawn_height=0.0)
    set_joint_dynamics(spec, _Bundle(dynamics))
    model = spec.compile()
    for k, name in enumerate(go2_description.JOINT_NAMES):
        dof = model.jnt_dofadr[model.joint(name).id]
        assert model.dof_armature[dof] == dynamics["armature"][k]
        assert model.dof_frictionloss[dof] == 0.2
        assert model.dof_damping[dof] == k / 100.0
    # the free joint keeps none
    assert not model.dof_armature[:6].any() and not model.dof_damping[:6].any()


def test_a_bundle_without_the_figures_leaves_the_description_as_built():
    spec = go2_description.build_spec(spawn_height=0.0)
    set_joint_dynamics(spec, _Bundle({key: np.zeros(12) for key in JOINT_DYNAMICS}))
    model = spec.compile()
    assert not model.dof_armature.any() and not model.dof_frictionloss.any() and not model.dof_damping.any()


def test_real_go2_joint_figures_per_joint():
    """The MuJoCo robustness cell ``joint_model:on`` gives each joint its own figure, read from the actuator's
    per-joint-type patterns: 0.01 kg m^2 at hip and thigh, 0.02 at the calf; 0.2 N m and 0.1 N m s/rad everywhere."""
    from go2_locomotion.sim2sim.robustness import real_go2_joint_figures

    names = list(go2_description.JOINT_NAMES)
    figures = real_go2_joint_figures(names)
    assert figures["armature"].tolist() == [0.01, 0.01, 0.02] * 4
    assert figures["friction"].tolist() == [0.2] * 12 and figures["viscous_friction"].tolist() == [0.1] * 12
    assert go2_description.joint_values({".*_calf_joint": 1.0}, names) == {n: 1.0 for n in names if "calf" in n}


def test_the_armature_cell_halves_the_plants_rotor_inertia():
    """The MuJoCo robustness cell ``armature:0.5`` on the shipped blind policy's plant (trained with 0.01 kg m^2 at hip
    and thigh, 0.02 at the calf): 0.005 and 0.01, friction untouched, and the model's derived inertia constants
    recomputed (a lighter rotor: a larger inverse weight at every leg joint)."""
    from go2_locomotion import pretrained
    from go2_locomotion.evaluation.robustness import Cell
    from go2_locomotion.robot.bundle import load_bundle
    from go2_locomotion.sim2sim.plant import Go2Plant
    from go2_locomotion.sim2sim.robustness import MujocoCell

    bundle = load_bundle(pretrained.bundle("Go2-Rough-Blind"))
    plant = Go2Plant(bundle)
    dofs = plant.dof_adr
    before = plant.model.dof_invweight0[dofs].copy()
    assert plant.model.dof_armature[dofs].tolist() == [0.01, 0.01, 0.02] * 4
    MujocoCell(Cell("armature", 0.5), bundle).prepare(plant)
    np.testing.assert_allclose(plant.model.dof_armature[dofs], [0.005, 0.005, 0.01] * 4, rtol=1e-12)
    assert plant.model.dof_frictionloss[dofs].tolist() == [0.2] * 12
    assert (plant.model.dof_invweight0[dofs] > before).all()

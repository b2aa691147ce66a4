"""presets=real_go2 built on both engines: the actuator's rotor inertia and joint friction reach the simulator,
randomised per robot within their ranges (the rotor inertia by one factor for all a robot's joints), a payload sits
on the trunk, and each robot's joint targets arrive the drawn number of physics steps late."""

import pytest
import torch
from isaac_env import make_env

from go2_locomotion.assets import go2

NUM_ENVS = 64


@pytest.mark.parametrize("physics", ["newton_mjwarp", "physx"])
def test_real_go2_robot_on_each_engine(physics):
    with make_env("Go2-Flat", num_envs=NUM_ENVS, overrides=[f"physics={physics}", f"presets={go2.REAL_GO2}"]) as env:
        env.reset(seed=0)
        unwrapped = env.unwrapped
        robot = unwrapped.scene["robot"]
        data = robot.data
        calf = [i for i, name in enumerate(robot.joint_names) if name.endswith("calf_joint")]
        armature = data.joint_armature.torch
        # 0.01 kg m^2 at the hip and thigh, 0.02 at the calf, times 0.5-1.5 per robot times 0.9-1.1 per joint
        factor = armature / torch.tensor([0.02 if i in calf else 0.01 for i in range(12)])
        assert factor.min() >= 0.45 - 1e-5 and factor.max() <= 1.65 + 1e-5
        robot_factor = factor.mean(dim=1, keepdim=True)
        assert robot_factor.max() - robot_factor.min() > 0.5  # robots differ: drawn, not the nominal figure
        assert ((factor / robot_factor - 1).abs() <= 0.2 + 1e-5).all()  # a robot's joints light or heavy together
        friction, viscous = data.joint_friction_coeff.torch, data.joint_viscous_friction_coeff.torch
        assert friction.min() >= 0.1 - 1e-6 and friction.max() <= 0.3 + 1e-6  # 0.2 N m x 0.5-1.5
        assert viscous.min() >= 0.05 - 1e-6 and viscous.max() <= 0.15 + 1e-6  # 0.1 N m s/rad x 0.5-1.5
        # the payload: -1 to +7 kg on the 6.92 kg trunk
        trunk = data.body_mass.torch[:, 0] - 6.921
        assert trunk.min() >= -1.0 - 1e-3 and trunk.max() <= 7.0 + 1e-3 and trunk.max() - trunk.min() > 4.0
        # targets late (0-8 physics steps, 0-40 ms): three policy steps (4 physics steps each) of actions a, a, b;
        # a robot whose delay is 4 physics steps or more still holds a after the third, every other robot holds b
        term = unwrapped.action_manager.get_term("joint_pos")
        lags = term.delay.time_lags.clone()
        assert set(lags.tolist()) <= set(range(9)) and len(set(lags.tolist())) >= 3
        a, b = torch.full((NUM_ENVS, 12), 0.4), torch.full((NUM_ENVS, 12), -0.4)
        env.step(a)
        env.step(a)
        env.step(b)
        held = (data.joint_pos_target.torch - data.default_joint_pos.torch) / 0.25
        expected = torch.where(lags[:, None] >= 4, 0.4, -0.4).expand(-1, 12)
        assert torch.allclose(held, expected, atol=1e-5)


@pytest.mark.parametrize("physics", ["newton_mjwarp", "physx"])
def test_the_armature_robustness_cell_scales_every_joints_rotor_inertia(physics):
    """``--robustness armature:0.5`` on the play robot (whose rotor inertia training draws and play leaves nominal):
    every robot's every joint at half its figure in the simulator, 0.005 kg m^2 at the hip and thigh and 0.01 at the
    calf (Unitree's go2.xml gives the calf 0.01), its joint friction left nominal."""
    from go2_locomotion.evaluation.robustness import Cell
    from go2_locomotion.tasks.robustness import apply_cell

    overrides = [f"physics={physics}", f"presets={go2.REAL_GO2}"]
    cell = Cell("armature", 0.5)
    with make_env(
        "Go2-Flat-Play", num_envs=8, overrides=overrides, play_mode=True, edit=lambda c: apply_cell(c, cell)
    ) as env:
        env.reset(seed=0)
        robot = env.unwrapped.scene["robot"]
        expected = torch.tensor([0.01 if name.endswith("calf_joint") else 0.005 for name in robot.joint_names])
        assert torch.allclose(robot.data.joint_armature.torch, expected.expand(8, -1), atol=1e-7)
        assert torch.allclose(robot.data.joint_friction_coeff.torch, torch.full((8, 12), 0.2), atol=1e-7)

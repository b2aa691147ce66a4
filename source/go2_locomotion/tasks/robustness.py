"""How a robustness cell (``go2_locomotion.evaluation.robustness.Cell``) changes a resolved Go2 task config: one
figure of the play robot or its world at a time, through the same Isaac Lab terms training draws from."""

from __future__ import annotations

from isaaclab.managers import EventTermCfg as EventTerm
from isaaclab.managers import SceneEntityCfg

from ..assets import go2
from . import mdp
from .velocity_env_cfg import scale_joint_figures


def apply_cell(cfg, cell) -> None:
    """Change ``cfg`` (a resolved Go2 env config in play mode) as ``cell`` says: a
    :class:`go2_locomotion.evaluation.robustness.Cell`, read by its ``kind`` and ``value`` (the evaluation layer
    names the cells; the tasks layer does not import it)."""
    events = cfg.events
    if cell.kind == "latency":
        # Isaac Lab runs the motors (not Newton-native actuators, which would apply the targets once a policy step)
        steps = round(cell.value / 1000.0 / cfg.sim.dt)
        cfg.actions.joint_pos.min_delay = cfg.actions.joint_pos.max_delay = steps
        cfg.sim.use_newton_actuators = False
    elif cell.kind == "gains":
        factor = (cell.value, cell.value)
        events.actuator_gains = scale_joint_figures(
            mdp.randomize_actuator_gains, stiffness_distribution_params=factor, damping_distribution_params=factor
        )
    elif cell.kind == "payload":
        events.add_base_mass = EventTerm(
            func=mdp.randomize_rigid_body_mass,
            mode="startup",
            params={
                "asset_cfg": SceneEntityCfg("robot", body_names="base"),
                "mass_distribution_params": (cell.value, cell.value),
                "operation": "add",
            },
        )
    elif cell.kind == "friction":
        params = events.physics_material.params
        params["static_friction_range"] = params["dynamic_friction_range"] = (cell.value, cell.value)
    elif cell.kind == "push":
        events.push_robot = EventTerm(
            func=mdp.push_by_setting_velocity,
            mode="interval",
            interval_range_s=cell.push_interval_s,
            params={"velocity_range": {"x": (-cell.value, cell.value), "y": (-cell.value, cell.value)}},
        )
    elif cell.kind == "noise":
        policy = cfg.observations.policy
        policy.enable_corruption = True
        for term in vars(policy).values():
            noise = getattr(term, "noise", None)
            if noise is not None:
                term.noise = noise.replace(n_min=noise.n_min * cell.value, n_max=noise.n_max * cell.value)
    elif cell.kind == "joint_model":
        on = cell.value == "on"
        for actuator in cfg.scene.robot.actuators.values():
            actuator.armature = go2.ARMATURE if on else 0.0
            actuator.friction = actuator.dynamic_friction = go2.JOINT_FRICTION if on else 0.0
            actuator.viscous_friction = go2.JOINT_VISCOUS_FRICTION if on else 0.0
    elif cell.kind == "armature":
        # the robot's own figures (presets=real_go2's actuator), scaled as training's randomisation scales them
        events.joint_parameters = scale_joint_figures(
            mdp.randomize_joint_parameters, armature_distribution_params=(cell.value, cell.value)
        )
    elif cell.kind != "nominal":
        raise ValueError(f"unknown robustness cell kind {cell.kind!r}")

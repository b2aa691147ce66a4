"""MDP terms used by the Go2 tasks, exported by name.

Library terms come from :mod:`isaaclab.envs.mdp`; the two that exist only in Isaac Lab's velocity task package
come from there; the trot clock and its stand rule (:func:`gait_phase`, :func:`trot_swing`, :func:`push_standing`),
the critic's privileged terms, the steerable velocity command, :class:`randomize_rotor_inertia` and
:class:`warn_on_solver_overflow` are this package's own. Nothing is star-imported, so every name below has exactly
one origin.
"""

from isaaclab.envs.mdp import (
    JointPositionActionCfg,
    UniformVelocityCommandCfg,
    action_rate_l2,
    ang_vel_xy_l2,
    base_ang_vel,
    base_height_l2,
    base_lin_vel,
    flat_orientation_l2,
    generated_commands,
    height_scan,
    illegal_contact,
    is_alive,
    is_terminated,
    joint_acc_l2,
    joint_pos_rel,
    joint_torques_l2,
    joint_vel_rel,
    last_action,
    lin_vel_z_l2,
    projected_gravity,
    push_by_setting_velocity,
    randomize_actuator_gains,
    randomize_joint_parameters,
    randomize_rigid_body_com,
    randomize_rigid_body_mass,
    randomize_rigid_body_material,
    reset_joints_by_scale,
    reset_root_state_uniform,
    time_out,
    track_ang_vel_z_exp,
    track_lin_vel_xy_exp,
)
from isaaclab_tasks.core.velocity.mdp import feet_air_time, terrain_levels_vel

from .delayed_action import DelayedJointPositionAction, DelayedJointPositionActionCfg
from .frontier import FrontierTerrainLevels
from .gait import (
    cycle_lin_vel_xy_exp,
    cycle_yaw_rate_exp,
    feet_down_standing,
    gait_phase,
    push_standing,
    standing_joint_deviation_l1,
    trot_swing,
)
from .penalty_curriculum import PenaltyCurriculum
from .privileged import body_mass_offset, feet_contact_force
from .rotor_inertia import randomize_rotor_inertia
from .solver_capacity import warn_on_solver_overflow
from .steering import SteerableVelocityCommand, SteerableVelocityCommandCfg
from .stumble import feet_stumble

__all__ = [
    "DelayedJointPositionAction",
    "DelayedJointPositionActionCfg",
    "FrontierTerrainLevels",
    "JointPositionActionCfg",
    "PenaltyCurriculum",
    "SteerableVelocityCommand",
    "SteerableVelocityCommandCfg",
    "UniformVelocityCommandCfg",
    "action_rate_l2",
    "ang_vel_xy_l2",
    "base_ang_vel",
    "body_mass_offset",
    "base_height_l2",
    "base_lin_vel",
    "cycle_lin_vel_xy_exp",
    "cycle_yaw_rate_exp",
    "feet_air_time",
    "feet_contact_force",
    "feet_down_standing",
    "feet_stumble",
    "flat_orientation_l2",
    "gait_phase",
    "generated_commands",
    "height_scan",
    "illegal_contact",
    "is_alive",
    "is_terminated",
    "joint_acc_l2",
    "joint_pos_rel",
    "joint_torques_l2",
    "joint_vel_rel",
    "last_action",
    "lin_vel_z_l2",
    "projected_gravity",
    "push_by_setting_velocity",
    "push_standing",
    "randomize_actuator_gains",
    "randomize_joint_parameters",
    "randomize_rigid_body_com",
    "randomize_rigid_body_mass",
    "randomize_rigid_body_material",
    "randomize_rotor_inertia",
    "reset_joints_by_scale",
    "reset_root_state_uniform",
    "standing_joint_deviation_l1",
    "terrain_levels_vel",
    "time_out",
    "track_ang_vel_z_exp",
    "track_lin_vel_xy_exp",
    "trot_swing",
    "warn_on_solver_overflow",
]

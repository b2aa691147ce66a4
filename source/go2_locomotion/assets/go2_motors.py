"""The Go2's motors and joints as Unitree specifies them: torque-speed curve, peak torques, rotor inertia, joint
friction; each figure with its unit and source (docs/robot_model.md puts them beside Unitree's).

Plain numbers with no Isaac Lab import, so the robot side (the MuJoCo plant, the robustness cells there) reads the
same figures as the Isaac Lab config (:mod:`.go2`), which builds the actuator from them.
"""

from __future__ import annotations

KNEE_REDUCTION = 45.43 / 23.7
"""Extra reduction of the calf joint behind its motor [-]: Unitree's published peak torques, 45.43 N m at the calf
against 23.7 N m at the hip and thigh on the same motor (GO-M8010-6), 1.917:1. The calf's torque figures are the
motor's times this ratio, its speeds the motor's divided by it."""

MOTOR_PEAK_TORQUE = 23.7
"""Peak torque of a Go2 joint motor at the hip and thigh [N m] (Unitree's figure; its MuJoCo model's ctrlrange)."""

MOTOR_TORQUE_AT_KNEE_SPEED = 20.2
"""Torque the motor still gives at :data:`MOTOR_KNEE_SPEED` with torque and speed in the same direction [N m]:
the knee point of Unitree's torque-speed curve of the Go2 motor (Unitree's Isaac Lab actuator figures, ``Y1``)."""

MOTOR_KNEE_SPEED = 13.5
"""Speed up to which the motor gives (nearly) full torque [rad/s] (Unitree's curve, ``X1``)."""

MOTOR_NO_LOAD_SPEED = 30.0
"""Speed at which the motor's torque falls to zero [rad/s] (Unitree's curve, ``X2``)."""

MOTOR_STALL_TORQUE = MOTOR_TORQUE_AT_KNEE_SPEED / (1.0 - MOTOR_KNEE_SPEED / MOTOR_NO_LOAD_SPEED)
"""Isaac Lab's DC-motor line through Unitree's knee point and no-load speed, extended to rest [N m]: 36.7. The
available torque is ``min(peak, stall x (1 - speed / no-load speed))``: the peak up to 10.6 rad/s, 20.2 N m at
13.5 rad/s, zero at 30 rad/s: Unitree's curve from its knee point up (below it Unitree states 20.2 N m with torque
and speed in the same direction; the peak here is its model's 23.7). Braking torque (against the motion) stays at the
peak, as Unitree's 23.4 N m opposite-direction figure."""

EFFORT_LIMIT = {".*_hip_joint": MOTOR_PEAK_TORQUE, ".*_thigh_joint": MOTOR_PEAK_TORQUE, ".*_calf_joint": 45.43}
"""Peak joint torque [N m]; the calf sits behind :data:`KNEE_REDUCTION`."""

SATURATION_EFFORT = {
    ".*_hip_joint": MOTOR_STALL_TORQUE,
    ".*_thigh_joint": MOTOR_STALL_TORQUE,
    ".*_calf_joint": MOTOR_STALL_TORQUE * KNEE_REDUCTION,
}
"""DC-motor stall torque of each joint [N m] (:data:`MOTOR_STALL_TORQUE`; the calf's through the knee reduction):
36.7 and 70.3."""

VELOCITY_LIMIT = {
    ".*_hip_joint": MOTOR_NO_LOAD_SPEED,
    ".*_thigh_joint": MOTOR_NO_LOAD_SPEED,
    ".*_calf_joint": MOTOR_NO_LOAD_SPEED / KNEE_REDUCTION,
}
"""No-load joint speed [rad/s]: 30 at the hip and thigh, 15.65 at the calf (the same motor behind the knee
reduction). The package's first Go2 (the default until the policies trained on :data:`REAL_GO2` shipped) has 30 rad/s at
every joint and a stall torque equal to the peak, which gives the hip and thigh 13 N m at 13.5 rad/s where Unitree's
motor gives 20.2 (docs/robot_model.md)."""

ARMATURE = {".*_hip_joint": 0.01, ".*_thigh_joint": 0.01, ".*_calf_joint": 0.02}
"""Rotor inertia reflected at each joint [kg m^2]. Unitree's MuJoCo model of the Go2 gives every joint 0.01; the
calf's rotor sits behind the extra knee reduction, which multiplies a reflected inertia by its square (x3.7, 0.037
from 0.01), and a published system identification of a Go2 found 0.006-0.016 at the hip and thigh and
0.028-0.032 at the calf. 0.02 at the calf is between; the start-up randomisation scales a robot's figures by one
factor in 0.5-1.5 (0.01-0.03 at the calf) and each joint's by 0.9-1.1 more, which covers all of these
(``tasks/velocity_env_cfg.py``: ``ROTOR_INERTIA_ROBOT_RANGE``)."""

JOINT_FRICTION = 0.2
"""Coulomb friction of each joint [N m]: Unitree's MuJoCo model of the Go2 (``frictionloss``)."""

JOINT_VISCOUS_FRICTION = 0.1
"""Viscous friction of each joint [N m s/rad], passive damping on top of the PD's Kd: Unitree's MuJoCo model of
the Go2 (``damping``)."""

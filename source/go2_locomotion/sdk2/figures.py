"""Every figure of the SDK2 deploy path in one place: the Go2's DDS topics and message constants, the remote's byte
layout, the safety bounds, the velocity estimator's settings and the simulated Go2's sensor conventions.

The robot's own figures (geometry, gains, torque and speed limits, standing pose) are not repeated here: the
controller reads them from the bundle's ``deploy.yaml`` and the estimator's leg kinematics from
:mod:`go2_locomotion.assets.go2_description`.
"""

from __future__ import annotations

# --- DDS ------------------------------------------------------------------------------------------------------------
TOPIC_LOWSTATE = "rt/lowstate"
"""The Go2 publishes ``unitree_go::msg::dds_::LowState_`` here (motor, IMU, foot-force and remote state)."""

TOPIC_LOWCMD = "rt/lowcmd"
"""The Go2's motor drivers read ``unitree_go::msg::dds_::LowCmd_`` here."""

TOPIC_SPORTMODESTATE = "rt/sportmodestate"
"""Published by the Go2's built-in sport (walking) service; a writer on it means that service still runs and would
fight low-level commands."""

ROBOT_DOMAIN_ID = 0
"""DDS domain of the Go2's topics."""

ROBOT_DDS_LINE = "0.10."
"""CycloneDDS version line of the Go2 (and of the Python binding this package pins); ``--robot`` needs it."""

SPORT_SERVICE_PROBE_S = 1.0
"""How long the controller looks for a writer on :data:`TOPIC_SPORTMODESTATE` before it commands a robot [s]."""

# --- LowCmd constants -------------------------------------------------------------------------------------------------
MOTOR_SLOTS = 20
"""``LowCmd_.motor_cmd`` / ``LowState_.motor_state`` length; the Go2 uses the first 12 (SDK2 motor order)."""

LOWCMD_HEAD = (0xFE, 0xEF)
"""``LowCmd_.head``: the frame marker the Go2 expects."""

LEVEL_FLAG_LOW = 0xFF
"""``LowCmd_.level_flag`` for low-level (per-motor) control."""

MOTOR_MODE_SERVO = 0x01
"""``MotorCmd_.mode``: the motor runs its PD law (0x00 would switch it off)."""

POS_STOP = 2.146e9
"""``MotorCmd_.q`` of an unused slot: Unitree's "no position target" marker [rad]."""

VEL_STOP = 16000.0
"""``MotorCmd_.dq`` of an unused slot: Unitree's "no velocity target" marker [rad/s]."""

# --- the Go2 remote (LowState_.wireless_remote, 40 bytes) ------------------------------------------------------------
REMOTE_BYTES = 40
"""Length of ``wireless_remote``."""

REMOTE_BUTTON_BITS = {
    "R1": 0,
    "L1": 1,
    "start": 2,
    "select": 3,
    "R2": 4,
    "L2": 5,
    "F1": 6,
    "F2": 7,
    "A": 8,
    "B": 9,
    "X": 10,
    "Y": 11,
    "up": 12,
    "right": 13,
    "down": 14,
    "left": 15,
}
"""Button -> bit of the little-endian 16-bit word at bytes 2-3 of ``wireless_remote``."""

REMOTE_STICK_OFFSETS = {"lx": 4, "rx": 8, "ry": 12, "L2_analog": 16, "ly": 20}
"""Stick -> byte offset of its little-endian float32 in ``wireless_remote`` (each in [-1, 1]; up and right positive)."""

STICK_DEAD_ZONE = 0.05
"""Stick deflections below this magnitude read as zero [-] (a centred stick drifts by a few hundredths)."""

# --- controller modes and safety -----------------------------------------------------------------------------------
DAMPING_KD = 2.0
"""Damping mode: every motor gets kp 0 and this kd [N m s/rad] (4x the walking kd of 0.5): a robot lowers itself
slowly instead of dropping, and a joint moved at 2 rad/s meets 4 N m."""

STALE_POLICY_PERIODS = 3
"""LowState older than this many policy periods (3 x 20 ms for a 50 Hz policy) is stale: damping."""

RAMP_S = 3.0
"""Default time to move from the measured pose to the bundle's standing pose [s]."""

MIN_RAMP_S = 1.0
"""Shortest ramp accepted by ``--ramp`` [s]: a faster stand-up jerks a real robot."""

AUTOSTART_HOLD_S = 1.0
"""With ``--autostart`` (loopback only) the policy starts after standing this long [s]: the foot-force reading used
as the contact reference is taken here."""

AUTOSTART_SETTLE_S = 1.0
"""With ``--autostart`` the stand-up begins once LowState has been fresh this long [s] (never after a fault)."""

STOP_DAMPING_S = 0.2
"""On exit the controller sends damping commands for this long [s] before it leaves (the motors keep the last
command they received)."""

JOINT_LIMIT_MARGIN = 0.2
"""A measured joint position more than this beyond ``deploy.yaml``'s ``joints.position_limits`` is out of range
[rad]: a wrong motor order or a broken encoder."""

MAX_BASE_ANG_VEL = 15.0
"""A gyro reading above this is out of range [rad/s]."""

MAX_TILT_GRAVITY_Z = -0.5
"""Projected gravity z above this (trunk tilted beyond 60 deg) means the robot fell: damping."""

QUATERNION_NORM_TOLERANCE = 0.05
"""An IMU quaternion whose norm is off 1 by more than this is out of range [-]."""

MAX_BASE_LIN_VEL = 3.0
"""An estimated trunk speed above this is out of range [m/s] (the policy commands at most 1 m/s)."""

LOWSTATE_WAIT_S = 0.006
"""After its deadline the controller waits up to this long for the robot's next LowState and acts on it [s] (a real
Go2 sends one every 2 ms, the simulated one every 5 ms)."""

GIL_SWITCH_S = 0.0005
"""Python's thread switch interval in the controller [s] (default 5 ms): the loop gets the interpreter back from the
DDS reader thread within half a millisecond."""

# --- timing report ----------------------------------------------------------------------------------------------------
JITTER_REPORT_S = 10.0
"""The controller logs its timing figures this often [s] (and once at the end)."""

# --- base-velocity estimator -----------------------------------------------------------------------------------------
GRAVITY = 9.81
"""Standard gravity [m/s^2]; the accelerometer reads +GRAVITY along the trunk's up axis at rest."""

VELOCITY_TIME_CONSTANT_S = 0.05
"""How fast the leg-kinematics velocity corrects the accelerometer-integrated one [s]."""

MAX_INTEGRATION_STEP_S = 0.05
"""A gap between two LowStates longer than this is not integrated [s] (the estimate restarts from the legs)."""

CONTACT_FORCE_FRACTION = 0.5
"""A foot counts as loaded above this fraction of its foot-force reading while standing on four feet [-]."""

CONTACT_HEIGHT_BAND = 0.03
"""A foot counts as down only within this height of the lowest foot, along gravity [m]."""

FOOT_AGREEMENT = 0.3
"""A stance foot whose velocity estimate differs from the stance feet's median by more is ignored (it slips or is
lifting off) [m/s]."""

# --- the simulated Go2 ------------------------------------------------------------------------------------------------
SIM_COMMAND_CUTOFF = 0.8
"""The simulated Go2 takes the newest LowCmd this fraction of a physics step after publishing its LowState (4 ms of
5 ms) and integrates the step with it."""

SIM_REMOTE_PRESS_S = 0.2
"""A button of the simulated Go2's scripted remote (``--remote``) is held this long [s]."""

SIM_RECORD_EVERY_S = 0.02
"""The simulated Go2 records the trunk's position and velocity this often [s]."""

SIM_LAG_WARNING_S = 0.05
"""The simulated Go2 reports when it runs this far behind real time [s] (it then catches up step by step)."""

SIM_CATCH_UP_LIMIT_S = 0.5
"""Beyond this lag the simulated Go2 restarts its real-time clock instead of catching up [s]."""

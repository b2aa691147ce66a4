"""The observation vocabulary: every observation term a deploy bundle can carry, defined once (numpy only, so the
robot side reads it without Isaac Lab).

:data:`OBSERVATION_TERMS` maps a term's name in the bundle format (``deploy.yaml``'s
``observation.terms[].function``) to an :class:`ObservationTerm`: what the bundle writes for it, the width of one
step of it, the parameters it carries and how the robot side rebuilds it from the robot's state. The bundle checks
(:mod:`.bundle`), the reference controller (:mod:`.controller`), the exporter (:mod:`.manifest`) and preflight's
observation widths read this table. The Isaac Lab side keys the same terms by MDP function: the function
:mod:`go2_locomotion.tasks.mdp` exports under the term's name (``manifest.OBSERVATION_FORMAT``, derived from this
table and matched by identity), so a term is added here (and its left-right mirror in
:mod:`go2_locomotion.tasks.mdp.symmetry`, which a unit test asks for).

A bundle describes one observation group (``observation.group``), and a term's ``width`` is one policy step: a term
with a history of ``H`` steps (refused by the exporter today) would be ``H x width`` values, ``H`` written in its
bundle entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .joints import NUM_FEET, NUM_JOINTS
from .state import RobotState

CONFIG = "config"
"""A parameter read from the term's config (:attr:`Parameter.source`)."""
SCANNER = "scanner"
"""A parameter read from the ray caster the term's ``sensor_cfg`` names (:attr:`Parameter.source`)."""


@dataclass(frozen=True)
class Parameter:
    """A value a term's ``params`` carries in the bundle."""

    name: str
    source: str = CONFIG
    """Where the exporter reads it: :data:`CONFIG`, the term config's parameter of this name, or the MDP function's
    default where the config leaves it out (not written when neither gives a value); :data:`SCANNER`, the geometry
    of the term's ray caster."""
    only_with: str | None = None
    """Written only when this other parameter has a value other than ``None`` (read as :data:`CONFIG` reads)."""


SCANNER_GEOMETRY = (
    Parameter("sensor_offset_z", SCANNER),
    Parameter("points_xy", SCANNER),
    Parameter("ray_alignment", SCANNER),
)
"""A ray caster as the bundle carries it: its height above the trunk origin [m], its rays' start points in the trunk's
yaw-aligned frame [m], and Isaac Lab's ``ray_alignment``."""


@dataclass(frozen=True)
class StepContext:
    """What the controller knows at one policy step besides the robot's measured state."""

    to_policy: Callable[[np.ndarray], np.ndarray]
    """Reorders a per-joint ``[12]`` array from SDK2 motor order to the policy's joint order."""
    default_position: np.ndarray
    """``[12]`` ``joints.default_position`` [rad], policy order."""
    default_velocity: np.ndarray
    """``[12]`` ``joints.default_velocity`` [rad/s], policy order."""
    last_action: np.ndarray
    """``[12]`` the controller's previous raw action, policy order."""
    steps: int
    """Policy steps since the controller's reset."""
    policy_dt: float
    """Seconds per policy step."""


Rebuild = Callable[[RobotState, dict, StepContext], np.ndarray]
"""``rebuild(state, term, context)``: one step of a term from the robot's state; ``term`` is the term's bundle entry
(``name``, ``width``, ``params``)."""


@dataclass(frozen=True)
class ObservationTerm:
    """One observation term of the bundle format."""

    function: str
    """Its name in the bundle (``function``), which is also its MDP function's name in
    :mod:`go2_locomotion.tasks.mdp`."""
    input: str
    """The robot state it is rebuilt from, as the bundle writes it (``input``)."""
    units: str
    """Meaning, units and width, as the bundle writes them (``units``)."""
    width: int | None
    """Values in one policy step; ``None``: one per ray of the term's scanner (one per ``params.points_xy``)."""
    rebuild: Rebuild | None
    """How the robot side computes it (:data:`Rebuild`); ``None`` for a privileged term, which only the simulator
    knows (a critic's input): the exporter and the bundle checks refuse it in a policy."""
    params: tuple[Parameter, ...] = ()
    """What the bundle's ``params`` carries for it, in this order."""


def projected_gravity_from_quat(quat_wxyz: np.ndarray) -> np.ndarray:
    """Gravity direction ``(0, 0, -1)`` expressed in the body frame of orientation ``(w, x, y, z)``."""
    w, x, y, z = np.asarray(quat_wxyz, dtype=np.float64) / np.linalg.norm(quat_wxyz)
    # third row of the body-to-world rotation matrix, negated: R^T (0, 0, -1)
    return -np.array([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)])


def trot_clock(
    steps: int,
    period: float,
    policy_dt: float,
    command: np.ndarray | None = None,
    standing_command: float | None = None,
) -> np.ndarray:
    """``[2]`` sin, cos of the trot clock after ``steps`` policy steps of ``policy_dt`` seconds, for a cycle of
    ``period`` seconds; ``[0, 0]`` when ``standing_command`` is given and the command's norm is at most it."""
    if standing_command is not None and np.linalg.norm(np.zeros(3) if command is None else command) <= (
        standing_command
    ):
        return np.zeros(2)
    cycle = round(period / policy_dt)
    angle = 2 * np.pi * (steps % cycle) / cycle
    return np.array([np.sin(angle), np.cos(angle)])


def _measured(field: str, units: str, width: int) -> ObservationTerm:
    """The term whose bundle name and input are the state's ``field``, rebuilt as measured; the policy cannot run
    without it."""

    def rebuild(state: RobotState, term: dict, context: StepContext) -> np.ndarray:
        value = getattr(state, field)
        if value is None:
            raise ValueError(f"RobotState.{field} is required by this policy (observation term {term['name']!r})")
        return np.asarray(value, dtype=np.float64)

    return ObservationTerm(function=field, input=field, units=units, width=width, rebuild=rebuild)


def _projected_gravity(state: RobotState, term: dict, context: StepContext) -> np.ndarray:
    if state.projected_gravity is not None:
        return np.asarray(state.projected_gravity, dtype=np.float64)
    if state.base_quat is None:
        raise ValueError("RobotState: projected_gravity or base_quat is required by this policy")
    return projected_gravity_from_quat(state.base_quat)


def _command(state: RobotState, term: dict, context: StepContext) -> np.ndarray:
    return np.zeros(3) if state.command is None else np.asarray(state.command, dtype=np.float64)


def _joint_pos(state: RobotState, term: dict, context: StepContext) -> np.ndarray:
    return context.to_policy(state.joint_pos) - context.default_position


def _joint_vel(state: RobotState, term: dict, context: StepContext) -> np.ndarray:
    return context.to_policy(state.joint_vel) - context.default_velocity


def _last_action(state: RobotState, term: dict, context: StepContext) -> np.ndarray:
    return context.last_action if state.last_action is None else context.to_policy(state.last_action)


def _gait_phase(state: RobotState, term: dict, context: StepContext) -> np.ndarray:
    steps = context.steps if state.steps_since_start is None else state.steps_since_start
    params = term["params"]
    return trot_clock(steps, params["period"], context.policy_dt, state.command, params.get("standing_command"))


def _height_scan(state: RobotState, term: dict, context: StepContext) -> np.ndarray:
    if state.height_scan is None:
        raise ValueError(f"RobotState.height_scan is required by this policy ([{term['width']}] heights)")
    params = term["params"]
    return np.asarray(state.height_scan, dtype=np.float64) + params["sensor_offset_z"] - params["offset"]


OBSERVATION_TERMS: dict[str, ObservationTerm] = {
    term.function: term
    for term in (
        _measured("base_lin_vel", "velocity of the trunk's centre of mass, in the trunk frame [m/s], [3]", 3),
        _measured("base_ang_vel", "trunk angular velocity in the trunk frame (IMU gyroscope) [rad/s], [3]", 3),
        ObservationTerm(
            function="projected_gravity",
            input="projected_gravity",
            units="unit gravity vector in the trunk frame, (0, 0, -1) when level; from the IMU quaternion, [3]",
            width=3,
            rebuild=_projected_gravity,
        ),
        ObservationTerm(
            function="generated_commands",
            input="command",
            units="velocity command: lin x [m/s], lin y [m/s], yaw rate [rad/s], [3]",
            width=3,
            rebuild=_command,
            params=(Parameter("command_name"),),
        ),
        ObservationTerm(
            function="joint_pos_rel",
            input="joint_pos",
            units="joint positions minus joints.default_position [rad], [12] policy order",
            width=NUM_JOINTS,
            rebuild=_joint_pos,
        ),
        ObservationTerm(
            function="joint_vel_rel",
            input="joint_vel",
            units="joint velocities minus joints.default_velocity [rad/s], [12] policy order",
            width=NUM_JOINTS,
            rebuild=_joint_vel,
        ),
        ObservationTerm(
            function="last_action",
            input="last_action",
            units="previous raw policy output (after policy_output_clip), [12] policy order",
            width=NUM_JOINTS,
            rebuild=_last_action,
        ),
        ObservationTerm(
            function="gait_phase",
            input="gait_phase",
            units="trot clock [sin, cos] of 2 pi x f, f = (policy steps since start mod n) / n, n = params.period / "
            "timing.policy_dt steps per gait cycle; [0, 0] while the command's norm is at most "
            "params.standing_command (told to stand; no such parameter: the clock always runs), [2]",
            width=2,
            rebuild=_gait_phase,
            params=(
                Parameter("command_name"),
                Parameter("period"),
                Parameter("standing_command", only_with="command_name"),
            ),
        ),
        ObservationTerm(
            function="height_scan",
            input="height_scan",
            units="scanner height above the ground at each scan point minus params.offset [m]; points in "
            "params.points_xy (trunk position, yaw-aligned frame); scanner = trunk origin + params.sensor_offset_z",
            width=None,
            rebuild=_height_scan,
            params=(Parameter("offset"), *SCANNER_GEOMETRY),
        ),
        ObservationTerm(
            function="feet_contact_force",
            input="(simulator only)",
            units="net contact force on each foot in Go2 weights, [4] FL FR RL RR",
            width=NUM_FEET,
            rebuild=None,
        ),
        ObservationTerm(
            function="body_mass_offset",
            input="(simulator only)",
            units="trunk mass added by the start-up randomisation [kg], [1]",
            width=1,
            rebuild=None,
        ),
    )
}
"""Bundle name -> the observation term the exporter writes and the reference controller rebuilds; a term not here
is refused by both."""

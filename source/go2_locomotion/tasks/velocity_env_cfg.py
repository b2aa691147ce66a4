"""Go2 velocity tracking on rough terrain: the scene and every manager, with all figures in this file.

Go2-Rough is this configuration; Go2-Flat (``flat_env_cfg.py``) derives from it one level deep. Playback settings
are :meth:`Go2RoughEnvCfg.play_mode`, the hook Isaac Lab 3.0's play and export entrypoints call.

Shapes: ``N`` is the number of environments. The policy observation is ``[N, 237]`` here (the proprioceptive
``[N, 50]`` of Go2-Flat, then 187 height samples) and ``[N, 50]`` on flat ground; the action is ``[N, 12]``.
"""

from __future__ import annotations

import dataclasses
import math

import isaaclab.sim as sim_utils
from isaaclab.assets import ArticulationCfg, AssetBaseCfg
from isaaclab.envs import ManagerBasedRLEnvCfg
from isaaclab.managers import CurriculumTermCfg as CurrTerm
from isaaclab.managers import EventTermCfg as EventTerm
from isaaclab.managers import ObservationGroupCfg as ObsGroup
from isaaclab.managers import ObservationTermCfg as ObsTerm
from isaaclab.managers import RewardTermCfg as RewTerm
from isaaclab.managers import SceneEntityCfg
from isaaclab.managers import TerminationTermCfg as DoneTerm
from isaaclab.physics import PhysxAutoCfg
from isaaclab.scene import InteractiveSceneCfg
from isaaclab.sensors import ContactSensorCfg, RayCasterCfg, patterns
from isaaclab.sim import SimulationCfg
from isaaclab.terrains import TerrainGeneratorCfg, TerrainImporterCfg
from isaaclab.terrains import height_field as hf_terrains
from isaaclab.terrains import trimesh as mesh_terrains
from isaaclab.utils import configclass
from isaaclab.utils.noise import UniformNoiseCfg as Unoise
from isaaclab_newton.physics import MJWarpSolverCfg, NewtonCfg, NewtonCollisionPipelineCfg, NewtonShapeCfg
from isaaclab_ov.physics import OvPhysxCfg
from isaaclab_physx.physics import PhysxCfg
from isaaclab_physx.sim.spawners.materials import PhysxRigidBodyMaterialCfg
from isaaclab_tasks.utils import PresetCfg, preset

from ..assets.go2 import (
    ACTION_DELAY_S,
    CLIMBABLE,
    CLIMBABLE_ACTION_DELAY_S,
    CLIMBABLE_PAYLOAD_RANGE,
    DEFAULT_ROBOT,
    GO2_CFG,
    PAYLOAD_RANGE,
    REAL_GO2,
    STANDING_BASE_HEIGHT,
    per_robot,
)
from ..assets.go2_description import FOOT_BODIES, TOTAL_MASS
from ..compat import PATCH_LAUNCHER
from . import mdp
from .height_scanner import HeightScannerCfg

DECIMATION = 4
"""Physics steps per policy step: 200 Hz physics, 50 Hz policy."""

SIM_DT = 0.005
"""Physics time step [s]."""

##
# Gait: the trot clock and its stand rule (both tasks)
##

GAIT_PERIOD = 0.5
"""Trot cycle [s]: each foot 0.25 s in the air, 0.25 s on the ground (a 2 Hz trot); 25 policy steps."""

TROT_PAIRS = (("FL_foot", "RR_foot"), ("FR_foot", "RL_foot"))
"""Feet that move together in a trot: the diagonal pairs. The second pair is half a cycle behind the first."""

SWING_OFFSETS = tuple(0.0 if foot in TROT_PAIRS[0] else 0.5 for foot in FOOT_BODIES)
"""Cycle offset of each foot, in :data:`FOOT_BODIES` order."""

STANDING_COMMAND = 0.1
"""Command norm at or below which the robot is told to stand [m/s, rad/s together]: the clock reads [0, 0] and the
rewards ask for four feet down and the standing pose instead of a step."""

STANDING_SHARE = 0.1
"""Share of the environments told to stand still at each command draw [-]; Isaac Lab's 0.02 left standing
undertrained (docs/learning.md)."""

STANDING_PUSHES = "standing_pushes"
"""Preset name of the extra pushes on robots told to stand (``presets=standing_pushes``,
:attr:`EventsCfg.push_standing`)."""

STANDING_PUSH_INTERVAL_S = (2.0, 4.0)
"""Time between the extra pushes of a robot told to stand [s] (``presets=standing_pushes``): a robot recovers from
one within a second, and a 10 s stand meets three or four. With the ordinary pushes alone (every 10-15 s on 10 % of
the robots) the shipped policies stood stiff when pushed: of 256 robots told to stand, pushes of 0.8 / 1.0 / 1.2 m/s
felled 2 / 23 / 104 of the shipped Go2-Rough's (of 128 / 128 / 256), and no walking robot at 1.0. Measured: 4.0 M
transitions of Go2-Rough with it (30 % standing for the last 2.3 M) did not lower those falls and cost 20 cm stairs
(0.89 -> 0.67); no shipped recipe uses it (docs/learning.md, *Pushed while standing*)."""

STEP_WHEN_PUSHED = "step_when_pushed"
"""Preset name of the stand rule that pays for standing only while the trunk is still (``presets=step_when_pushed``:
the standing rewards' ``max_trunk_speed``, :data:`STILL_TRUNK_SPEED`)."""

STILL_TRUNK_SPEED = 0.2
"""Planar trunk speed [m/s] above which a robot told to stand is not charged for lifting a foot or leaving the
standing pose (``presets=step_when_pushed``): a push sets ~1 m/s, a standing trunk sways a few cm/s; a robot that
has been pushed can step until it has stopped. Measured: 2.2 M transitions of Go2-Flat with it and
``standing_pushes`` left the standing falls at 1.0 m/s pushes where they were (0.29); no shipped recipe uses it
(docs/learning.md, *Pushed while standing*)."""

PUSH_SPEED = 1.0
"""Largest trunk velocity a push sets on each of x and y [m/s] with ``presets=real_go2`` (a bump or a kick; the
first Go2's 0.5 was Isaac Lab's default)."""

FEET = SceneEntityCfg("contact_forces", body_names=list(FOOT_BODIES), preserve_order=True)
"""The four feet's contact sensors, in :data:`FOOT_BODIES` order."""

STRAIGHT_SHARE = 0.3
"""Share of the robots told, at each command draw, a yaw rate of exactly 0 with no heading controller [-]: a Go2
owner's stick sends the yaw rate itself, and policies that only met Isaac Lab's heading controller (which corrects
a drift for them) turned 0.02-0.07 rad/s when told to walk straight (docs/learning.md, *Walking straight*)."""

YAW_BIAS_STD = 0.05
"""Width of the reward on the yaw-rate error averaged over a gait cycle [rad/s] (``presets=real_go2``): a 0.03 rad/s
drift keeps exp(-0.36) = 70 % of it. Its first form, a second instantaneous yaw term of width 0.1 rad/s, left the
Go2-Flat fine-tune turning 0.02-0.10 rad/s after 4.2 M transitions: the trot's yaw sway hides a drift from it
(docs/learning.md, *Walking straight*)."""

SPEED_BIAS_STD = 0.1
"""Width of the reward on the planar velocity error averaged over a gait cycle [m/s] (``presets=real_go2``): walking
10 % off at 1 m/s keeps exp(-1) = 37 % of it, 0.08 m/s off at 0.5 m/s exp(-0.64) = 53 %, where the instantaneous
term (width 0.5 m/s) keeps 96-97 %. Without it Go2-Flat on ``real_go2`` walked 0.58-0.60 m/s when told 0.5 on its
own robot; 200 iterations with it brought that to 0.53 (docs/learning.md, *third round*)."""

VELOCITY_COMMAND = "base_velocity"
"""The velocity command term (:class:`CommandsCfg`'s field): what the policy observes, the rewards track, playback
steers and the evaluations fix."""

TOLD_TO_STAND = {"command_name": VELOCITY_COMMAND, "command_threshold": STANDING_COMMAND}
"""The stand rule's parameters, shared by the rewards that depend on it."""

_STILL_ONLY = preset(default=None, **{STEP_WHEN_PUSHED: STILL_TRUNK_SPEED})
"""The standing rewards' ``max_trunk_speed``: none (told to stand is enough), :data:`STILL_TRUNK_SPEED` with
``presets=step_when_pushed``."""

##
# Physics backends
##


@configclass
class Go2PhysicsCfg(PresetCfg):
    """Physics backends, selected on the command line with ``physics=<name>``.

    ``newton_mjwarp`` (MuJoCo-Warp on Newton) runs on CPU and GPU without Isaac Sim; ``physx`` is PhysX inside
    Isaac Sim (or OvPhysX without it).
    """

    isaacsim_physx = PhysxCfg(gpu_max_rigid_patch_count=10 * 2**15)
    # the launch installs the package's OvPhysX workarounds (Isaac Lab's launch hook, compat.launcher)
    ovphysx = OvPhysxCfg(gpu_max_rigid_patch_count=10 * 2**15, launcher_type=PATCH_LAUNCHER)
    physx = PhysxAutoCfg(isaacsim_physx=isaacsim_physx, ovphysx=ovphysx)
    newton_mjwarp = NewtonCfg(
        solver_cfg=MJWarpSolverCfg(
            # Per-environment constraint rows and contacts: Go2-Rough's measured peak with headroom; kernels span
            # the capacity, so Isaac Lab's 1000 / 300 cost CPU time (docs/performance.md).
            # `warn_on_solver_overflow` reports a run that needs more.
            njmax=400,
            nconmax=100,
            cone="pyramidal",
            impratio=1.0,
            integrator="implicitfast",
            use_mujoco_contacts=False,
        ),
        collision_cfg=NewtonCollisionPipelineCfg(max_triangle_pairs=2_500_000),
        num_substeps=2,
        debug_mode=False,
        default_shape_cfg=NewtonShapeCfg(margin=0.0, ke=160000.0, kd=1100.0),
    )
    default = newton_mjwarp
    cpu = physx
    """The CPU training recipe's backend (``presets=cpu``): PhysX, i.e. OvPhysX when Isaac Sim's Kit is not
    running, the fastest engine on a CPU (docs/performance.md)."""


CPU_RECIPE_NUM_ENVS = 512
"""Environments per process in the CPU training recipe (``--num_envs 512 presets=cpu``) [-]: where OvPhysX's
training throughput on a CPU peaks (docs/performance.md); 512 x 24 = 12,288 transitions per iteration. The env
count stays a plain number (``scene.num_envs`` is read before presets resolve, e.g. by ``play_mode``), so the
recipe passes it as a flag."""

GPU_NUM_ENVS = 4096
"""Environments per process by default (a GPU): 4096 x 24 = 98,304 transitions per iteration, upstream's figure."""


##
# Scene
##

GO2_ROUGH_TERRAINS = TerrainGeneratorCfg(
    size=(8.0, 8.0),
    border_width=20.0,
    num_rows=10,
    num_cols=20,
    horizontal_scale=0.1,
    vertical_scale=0.005,
    slope_threshold=0.75,
    use_cache=False,
    curriculum=True,
    sub_terrains={
        # Heights scaled for a robot whose trunk stands 0.32 m high.
        "pyramid_stairs": mesh_terrains.MeshPyramidStairsTerrainCfg(
            proportion=0.2, step_height_range=(0.025, 0.12), step_width=0.3, platform_width=3.0, border_width=1.0
        ),
        "pyramid_stairs_inv": mesh_terrains.MeshInvertedPyramidStairsTerrainCfg(
            proportion=0.2, step_height_range=(0.025, 0.12), step_width=0.3, platform_width=3.0, border_width=1.0
        ),
        "boxes": mesh_terrains.MeshRandomGridTerrainCfg(
            proportion=0.2, grid_width=0.45, grid_height_range=(0.025, 0.1), platform_width=2.0
        ),
        "random_rough": hf_terrains.HfRandomUniformTerrainCfg(
            proportion=0.2, noise_range=(0.01, 0.06), noise_step=0.01, border_width=0.25
        ),
        "hf_pyramid_slope": hf_terrains.HfPyramidSlopedTerrainCfg(
            proportion=0.1, slope_range=(0.0, 0.4), platform_width=2.0, border_width=0.25
        ),
        "hf_pyramid_slope_inv": hf_terrains.HfInvertedPyramidSlopedTerrainCfg(
            proportion=0.1, slope_range=(0.0, 0.4), platform_width=2.0, border_width=0.25
        ),
    },
)
"""Isaac Lab's rough-terrain mix with obstacle heights scaled down for the Go2 (8 m tiles, 10 levels x 20): the
figures of Isaac Lab's own Go2 rough task, stairs up and down to 12 cm (:class:`Go2TerrainsCfg`'s default)."""

TALLEST_STEP = 0.20
"""Highest riser of the stairs20 terrain [m]: household stairs have 15-20 cm risers (building codes cap them near
19-20 cm), where Go2-Rough's stairs stop at 12 cm."""

STAIRS20_STAIRS_SHARE = 0.3
"""Share of the stairs20 columns for each stairs direction [-]: 0.3 up + 0.3 down = 60 % stairs, HIMLoco's share
for its Go2; 12 of the 20 columns, and so 60 % of the robots (Isaac Lab spreads the robots evenly over the
columns)."""

STAIRS20_OTHER_SHARE = 0.1
"""Share of the stairs20 columns for each other sub-terrain [-]: boxes and random rough down from 0.2, slopes up
and down at Go2-Rough's 0.1; 2 columns each, so none is dropped."""

_ROUGH = GO2_ROUGH_TERRAINS.sub_terrains

GO2_STAIRS20_TERRAINS = GO2_ROUGH_TERRAINS.replace(
    sub_terrains={
        # Go2-Rough's lowest riser (2.5 cm) at level 0 up to TALLEST_STEP; tread and platforms unchanged
        "pyramid_stairs": _ROUGH["pyramid_stairs"].replace(
            proportion=STAIRS20_STAIRS_SHARE,
            step_height_range=(_ROUGH["pyramid_stairs"].step_height_range[0], TALLEST_STEP),
        ),
        "pyramid_stairs_inv": _ROUGH["pyramid_stairs_inv"].replace(
            proportion=STAIRS20_STAIRS_SHARE,
            step_height_range=(_ROUGH["pyramid_stairs_inv"].step_height_range[0], TALLEST_STEP),
        ),
        # every other sub-terrain at Go2-Rough's range
        **{
            key: _ROUGH[key].replace(proportion=STAIRS20_OTHER_SHARE)
            for key in ("boxes", "random_rough", "hf_pyramid_slope", "hf_pyramid_slope_inv")
        },
    },
)
"""Go2-Rough's terrain with stairs to 20 cm (``presets=stairs20``): household stairs, and more robots on them.

- Stairs down (pyramid) and up (inverted pyramid): risers from Go2-Rough's lowest, 2.5 cm, to
  :data:`TALLEST_STEP` across the 10 levels. Isaac Lab gives the tiles of level ``r`` a difficulty drawn from
  ``[r / 10, (r + 1) / 10)`` and the riser is ``2.5 + 17.5 x difficulty`` cm, 1.75 cm per level (Go2-Rough's 0.95
  cm): level 7 is the first with 15 cm (14.75-16.5 cm), level 8 with 18 cm (16.5-18.25 cm), level 9 reaches 20 cm
  (18.25-20 cm); 10 cm, Go2-Rough's goal, is level 4 (9.5-11.25 cm) here, level 7 there
  (``terrain_cells.level_sizes`` computes the ranges, ``tests/unit/test_stairs20_terrain.py`` checks them by hand).
- Treads stay Isaac Lab's 0.30 m: the deep end of building treads (0.25-0.30 m), shorter than the Go2's 0.39 m from
  front to hind feet, so its feet stand on different steps as on a building's stairs; a 20 cm riser on it is a
  34 degree flight. With the platforms and borders unchanged, a tile differs from Go2-Rough's only in its riser, so
  the evaluation's terrain cells are the same tiles for a policy trained on either.
- 60 % stairs (:data:`STAIRS20_STAIRS_SHARE`), and boxes, random rough and slopes kept at their ranges
  (:data:`STAIRS20_OTHER_SHARE`).
"""


@configclass
class Go2TerrainsCfg(PresetCfg):
    """Go2-Rough's terrain generators, selected on the command line with ``presets=<name>`` (Isaac Lab's preset
    selector; with the CPU recipe ``presets=cpu,stairs20``) or ``env.scene.terrain.terrain_generator=<name>``."""

    default = GO2_ROUGH_TERRAINS
    """Isaac Lab's Go2 terrain: stairs to 12 cm."""
    stairs20 = GO2_STAIRS20_TERRAINS
    """Stairs to 20 cm on 60 % of the columns (:data:`GO2_STAIRS20_TERRAINS`)."""


def scale_joint_figures(func, **ranges) -> EventTerm:
    """A start-up event scaling figures of every Go2 joint by factors drawn uniformly from ``ranges`` (the
    ``*_distribution_params`` of Isaac Lab's ``func``), per robot and joint."""
    return EventTerm(
        func=func,
        mode="startup",
        params={"asset_cfg": SceneEntityCfg("robot", joint_names=".*"), **ranges, "operation": "scale"},
    )


def climbable(full, narrow):
    """A real-Go2 randomisation range: ``full`` by default, ``narrow`` with ``presets=climbable``
    (:data:`~go2_locomotion.assets.go2.CLIMBABLE`)."""
    return preset(default=full, **{CLIMBABLE: narrow})


ROTOR_INERTIA_ROBOT_RANGE = (0.5, 1.5)
"""One factor on every rotor inertia of a robot [-]: the figure a Go2 model gives is what is uncertain (Unitree's
go2.xml 0.01 kg m^2 at the calf, a published identification 0.028-0.032, the package's 0.02:
:data:`go2_locomotion.assets.go2_motors.ARMATURE`); x0.5-1.5 spans them. Drawn per robot, not per joint: per-joint
draws (every run before 2026-12-07) almost never gave a robot four light calves, and the policies trained on them
fall back from 0.72 to 0.12 on 18 cm stairs when every joint is at x0.5 (docs/learning.md)."""

ROTOR_INERTIA_JOINT_RANGE = (0.9, 1.1)
"""The spread between one robot's joints on top of :data:`ROTOR_INERTIA_ROBOT_RANGE` [-]: twelve motors of one type
(no published figure; a tenth keeps the joints from moving in lockstep)."""

CLIMBABLE_FRICTION_RANGE = (0.4, 1.25)
"""The feet's static and dynamic friction with ``presets=climbable`` [-]: at 0.3 the shipped Go2-Rough climbed no
18 cm stairs (0 of 64) and 15 cm in 0.56; dry stairs of wood, stone or concrete under a rubber foot lie above 0.4."""

CLIMBABLE_GAIN_RANGE = (0.9, 1.1)
"""Kp and Kd factors with ``presets=climbable`` [-]: HIMLoco's range; x0.8 halved the 18 cm stairs (0.52 -> 0.27)."""


def real_go2_only(term):
    """``term`` with ``presets=real_go2`` (:data:`~go2_locomotion.assets.go2.REAL_GO2`), no term otherwise."""
    return per_robot(first=None, real=term)


def _set_real_go2(owner, key: str, value) -> None:
    """Set ``owner``'s field (or dict entry) ``key`` for the real Go2: while it is a preset its
    :data:`~go2_locomotion.assets.go2.REAL_GO2` alternative (and its default when that is the real Go2), else the
    field itself."""
    current = owner[key] if isinstance(owner, dict) else getattr(owner, key)
    if isinstance(current, PresetCfg):
        for name in (REAL_GO2, "default") if DEFAULT_ROBOT == REAL_GO2 else (REAL_GO2,):
            setattr(current, name, value)
    elif isinstance(owner, dict):
        owner[key] = value
    else:
        setattr(owner, key, value)


def terrain_generators(generator) -> list[TerrainGeneratorCfg]:
    """The terrain generator config: each of :class:`Go2TerrainsCfg`'s while presets are unresolved (a -Play config
    applies its play mode then), the config itself after, none for ``None`` (a plane)."""
    if generator is None:
        return []
    if isinstance(generator, PresetCfg):
        return [getattr(generator, field.name) for field in dataclasses.fields(generator)]
    return [generator]


TERRAIN_MATERIAL = PhysxRigidBodyMaterialCfg(
    friction_combine_mode="multiply", restitution_combine_mode="multiply", static_friction=1.0, dynamic_friction=1.0
)
"""Ground friction; the robot's own friction is randomised at start-up (see :class:`EventsCfg`). The PhysX
material class carries the combine modes (``physxMaterial:*``); the friction and restitution are the
solver-common ``physics:*`` attributes every backend reads (Isaac Lab's ``RigidBodyMaterialCfg`` is
deprecated)."""


@configclass
class Go2SceneCfg(InteractiveSceneCfg):
    """Terrain, robot, sensors and light. No asset is downloaded."""

    terrain = TerrainImporterCfg(
        prim_path="/World/ground",
        terrain_type="generator",
        terrain_generator=Go2TerrainsCfg(),
        max_init_terrain_level=5,
        collision_group=-1,
        physics_material=TERRAIN_MATERIAL,
        visual_material=sim_utils.PreviewSurfaceCfg(diffuse_color=(0.45, 0.47, 0.5)),
        debug_vis=False,
    )
    """Generated rough terrain (:class:`Go2TerrainsCfg`: Go2-Rough's default, or ``presets=stairs20``), robots start
    on the five easiest levels."""

    robot: ArticulationCfg = GO2_CFG.replace(prim_path="{ENV_REGEX_NS}/Robot")
    """The Go2."""

    height_scanner: HeightScannerCfg | None = HeightScannerCfg(
        # Isaac Lab's ray caster (on OvPhysX put back into environment order, an upstream bug), its heights from a
        # height grid of the terrain or cast (height_source)
        prim_path="{ENV_REGEX_NS}/Robot/base",
        offset=RayCasterCfg.OffsetCfg(pos=(0.0, 0.0, 20.0)),
        ray_alignment="yaw",
        pattern_cfg=patterns.GridPatternCfg(resolution=0.1, size=[1.6, 1.0]),
        debug_vis=False,
        mesh_prim_paths=["/World/ground"],
        global_world_only=True,
    )
    """17 x 11 = 187 ground heights under the trunk on a 1.6 m x 1.0 m grid at 0.1 m. It has no update period:
    sensors update lazily, so heights are read only when a term reads them (once per policy step)."""

    contact_forces = ContactSensorCfg(prim_path="{ENV_REGEX_NS}/Robot/[^/]*", history_length=3, track_air_time=True)
    """Net contact force on every body, with 3 physics steps of history and foot air time."""

    sky_light = AssetBaseCfg(prim_path="/World/skyLight", spawn=sim_utils.DomeLightCfg(intensity=750.0))
    """Untextured dome light (the stock sky texture is a download)."""


##
# MDP
##


@configclass
class CommandsCfg:
    """Base velocity command, in the robot's heading frame."""

    base_velocity = mdp.SteerableVelocityCommandCfg(
        asset_name="robot",
        resampling_time_range=(10.0, 10.0),
        rel_standing_envs=STANDING_SHARE,
        rel_heading_envs=1.0,
        rel_straight_envs=per_robot(first=0.0, real=STRAIGHT_SHARE),
        heading_command=True,
        heading_control_stiffness=0.5,
        # Arrows cost time on every step; play_mode turns them on.
        debug_vis=False,
        ranges=mdp.UniformVelocityCommandCfg.Ranges(
            lin_vel_x=(-1.0, 1.0), lin_vel_y=(-1.0, 1.0), ang_vel_z=(-1.0, 1.0), heading=(-math.pi, math.pi)
        ),
    )
    """Command ``[N, 3]``: lin x [m/s], lin y [m/s], yaw rate [rad/s] (from a heading target; with ``presets=real_go2``
    exactly 0 for :data:`STRAIGHT_SHARE` of the robots), resampled every 10 s; Isaac Lab's uniform velocity command,
    which a person can take over during playback (``steer``)."""


@configclass
class ActionsCfg:
    """Joint position targets."""

    joint_pos = mdp.DelayedJointPositionActionCfg(
        asset_name="robot",
        joint_names=[".*"],
        scale=0.25,
        use_default_offset=True,
        min_delay=round(ACTION_DELAY_S[0] / SIM_DT),
        max_delay=per_robot(
            first=0,
            real=climbable(round(ACTION_DELAY_S[1] / SIM_DT), round(CLIMBABLE_ACTION_DELAY_S[1] / SIM_DT)),
        ),
    )
    """Action ``[N, 12]``: target = standing pose + 0.25 x action [rad]; with ``presets=real_go2`` reaching the motors
    0-8 physics steps (0-40 ms, :data:`~go2_locomotion.assets.go2.ACTION_DELAY_S`; with ``presets=climbable`` 0-4,
    :data:`~go2_locomotion.assets.go2.CLIMBABLE_ACTION_DELAY_S`) late, drawn per robot at each reset."""


GO2_WEIGHT = TOTAL_MASS * -SimulationCfg().gravity[2]
"""The Go2's weight [N]: the unit of the critic's foot contact forces (a foot standing carries about a quarter)."""

PRIVILEGED_CRITIC = "privileged_critic"
"""The preset name (``presets=privileged_critic``) that gives Go2-Rough and Go2-Flat the privileged ``critic``
observation group (:class:`ObservationsCfg.CriticCfg`) and points the FastSAC critic at it; PPO's configs do not name
it, so their critic stays on ``policy`` (RSL-RL stores the extra group, unread)."""

BLIND_LIN_VEL = "blind_lin_vel"
"""The preset name (``presets=blind_lin_vel``) that keeps the trunk linear velocity, with Go2-Rough's noise, in the
blind actor's frames (on a robot it comes from the deploy's state estimator)."""

NO_LIN_VEL = "no_lin_vel"
"""The preset name (``presets=no_lin_vel``) that takes the trunk linear velocity out of Go2-Flat's actor: a Go2 in
low-level mode does not publish it. With ``presets=privileged_critic`` the critic keeps it (asymmetric actor-critic,
as Go2-Rough-Blind's)."""

FRONTIER = "frontier"
"""Preset name of the frontier terrain curriculum (:class:`CurriculumCfg`)."""

SAC_REWARDS = "sac_rewards"
"""Preset name of the rewards for an off-policy learner from scratch (``presets=sac_rewards``, holosoma's FastSAC
settings): an alive bonus (:attr:`RewardsCfg.alive`) and the regularisation penalties scaled by a curriculum on the
episode lengths (:attr:`CurriculumCfg.penalties`)."""

STUMBLE = "stumble"
"""Preset name of the penalty on a foot striking a riser (``presets=stumble``, :attr:`RewardsCfg.feet_stumble`)."""

SAC_PENALTY_TERMS = ("lin_vel_z_l2", "ang_vel_xy_l2", "dof_torques_l2", "dof_acc_l2", "action_rate_l2")
"""The penalties the ``sac_rewards`` curriculum scales: what moving costs. The terms that shape a gait rather than
charge motion (trunk height, standing pose, the fall) keep their weight; the trunk height one is what stops a crouch,
where FastSAC's from-scratch runs ended (docs/learning.md)."""

BLIND_HISTORY = 10
"""Policy steps a blind actor sees [-]: 0.2 s, about one swing of a foot (``GAIT_PERIOD`` / 2 = 0.25 s), long enough
to feel a front foot strike a riser and lift it again; HIMLoco's Go2 history is 6 steps."""

LONG_MEMORY = "long_memory"
"""Preset name of the blind actor's long history (``presets=long_memory``, :data:`BLIND_LONG_HISTORY`)."""

BLIND_LONG_HISTORY = 50
"""Policy steps a blind actor sees with ``presets=long_memory`` [-]: 1.0 s, two gait cycles (``GAIT_PERIOD`` 0.5 s)
and two risers of a building's staircase at a person's pace (0.28 m treads at 0.5 m/s: one riser per 0.56 s), so
that the height of the last riser a foot met is still in view when the next one comes. With 0.2 s the student
climbed 15 / 18 cm 0.72 / 0.48 of the time where its teacher climbs 1.00 / 0.97 (docs/learning.md)."""


@configclass
class ObservationsCfg:
    """Observation groups: ``policy`` (the actor's; the critic's too unless the agent's ``obs_groups`` maps ``critic``
    to the privileged ``critic`` group: asymmetric actor-critic) and ``teacher`` (a distillation teacher's input).
    Go2-Rough-Blind sets ``critic`` and ``teacher``; elsewhere they are ``None`` (``critic`` until
    ``presets=privileged_critic`` selects it), since RSL-RL's rollout storage keeps every group the environment
    returns, read or not."""

    @configclass
    class PolicyCfg(ObsGroup):
        """Concatenated policy observation, corrupted by uniform noise in training."""

        base_lin_vel = ObsTerm(func=mdp.base_lin_vel, noise=Unoise(n_min=-0.1, n_max=0.1))
        """Trunk linear velocity in the trunk frame ``[N, 3]`` [m/s]."""
        base_ang_vel = ObsTerm(func=mdp.base_ang_vel, noise=Unoise(n_min=-0.2, n_max=0.2))
        """Trunk angular velocity in the trunk frame ``[N, 3]`` [rad/s]."""
        projected_gravity = ObsTerm(func=mdp.projected_gravity, noise=Unoise(n_min=-0.05, n_max=0.05))
        """Unit gravity vector in the trunk frame ``[N, 3]``."""
        velocity_commands = ObsTerm(func=mdp.generated_commands, params={"command_name": VELOCITY_COMMAND})
        """Velocity command ``[N, 3]``."""
        joint_pos = ObsTerm(func=mdp.joint_pos_rel, noise=Unoise(n_min=-0.01, n_max=0.01))
        """Joint positions relative to the standing pose ``[N, 12]`` [rad]."""
        joint_vel = ObsTerm(func=mdp.joint_vel_rel, noise=Unoise(n_min=-1.5, n_max=1.5))
        """Joint velocities ``[N, 12]`` [rad/s]."""
        actions = ObsTerm(func=mdp.last_action)
        """Previous action ``[N, 12]``."""
        gait_phase = ObsTerm(
            func=mdp.gait_phase,
            params={"period": GAIT_PERIOD, "command_name": VELOCITY_COMMAND, "standing_command": STANDING_COMMAND},
        )
        """Trot clock ``[N, 2]``: sin, cos of the gait cycle, ``[0, 0]`` while told to stand. Without it the
        policy's mean action held a static pose (docs/learning.md)."""
        height_scan = ObsTerm(
            func=mdp.height_scan,
            params={"sensor_cfg": SceneEntityCfg("height_scanner")},
            noise=Unoise(n_min=-0.1, n_max=0.1),
            clip=(-1.0, 1.0),
        )
        """Sensor height minus ground height minus 0.5 m, ``[N, 187]`` [m], clipped to +-1 m."""

        def __post_init__(self):
            self.enable_corruption = True
            self.concatenate_terms = True

    @configclass
    class CriticCfg(PolicyCfg):
        """The policy's terms without noise, then what only the simulator knows: the foot contact forces and the
        trunk's added mass. The trunk velocity and the height scan are already among the policy's terms."""

        feet_contact_force = ObsTerm(func=mdp.feet_contact_force, params={"sensor_cfg": FEET}, scale=1 / GO2_WEIGHT)
        """Net contact force on each foot in :data:`FOOT_BODIES` order ``[N, 4]``, in Go2 weights."""
        trunk_mass_offset = ObsTerm(
            func=mdp.body_mass_offset, params={"asset_cfg": SceneEntityCfg("robot", body_names="base")}
        )
        """Trunk mass added by the start-up randomisation ``[N, 1]`` [kg]."""

        def __post_init__(self):
            super().__post_init__()
            self.enable_corruption = False

    @configclass
    class BlindPolicyCfg(PolicyCfg):
        """What a Go2 measures (``LowState`` at 50 Hz: IMU angular velocity, projected gravity, joint positions and
        velocities), the last action, the command and the clock, over the last :data:`BLIND_HISTORY` policy steps,
        oldest first (``[N, 47 x 10]``; ``[N, 47 x 50]`` with ``presets=long_memory``, :data:`BLIND_LONG_HISTORY`).
        No trunk linear velocity (a robot estimates it) and no height scan; with ``presets=blind_lin_vel``
        (:data:`BLIND_LIN_VEL`) the trunk linear velocity too, first in each frame as in Go2-Rough's policy
        (``[N, 50 x 10]``): the variant that measures what the estimated velocity is worth."""

        def __post_init__(self):
            super().__post_init__()
            self.base_lin_vel = preset(default=None, **{BLIND_LIN_VEL: self.base_lin_vel})
            self.height_scan = None
            self.history_length = preset(default=BLIND_HISTORY, **{LONG_MEMORY: BLIND_LONG_HISTORY})
            self.history_order = "time"

    policy: PolicyCfg = PolicyCfg()
    critic: CriticCfg | None = preset(default=None, **{PRIVILEGED_CRITIC: CriticCfg()})
    """``None`` by default; :class:`CriticCfg` with ``presets=privileged_critic`` (:data:`PRIVILEGED_CRITIC`)."""
    teacher: PolicyCfg | None = None


NOMINAL_ROBOT_FRICTION = (0.8, 0.6)
"""Static and dynamic friction of the robot's feet on the ground [-] (the ground's is 1.0 and the two multiply):
the default's, and what playback and the evaluation use with ``presets=real_go2``, whose training draws from
0.2-1.25 (:class:`EventsCfg`)."""


@configclass
class EventsCfg:
    """Domain randomisation and resets."""

    physics_material = EventTerm(
        func=mdp.randomize_rigid_body_material,
        mode="startup",
        params={
            "asset_cfg": SceneEntityCfg("robot", body_names=".*"),
            "static_friction_range": per_robot(first=(0.8, 0.8), real=climbable((0.2, 1.25), CLIMBABLE_FRICTION_RANGE)),
            "dynamic_friction_range": per_robot(
                first=(0.6, 0.6), real=climbable((0.2, 1.25), CLIMBABLE_FRICTION_RANGE)
            ),
            "restitution_range": (0.0, 0.0),
            "num_buckets": 64,
            "make_consistent": per_robot(first=False, real=True),
        },
    )
    """Robot friction, set once at start-up (the ground's is 1.0 and the two multiply): 0.8 static, 0.6 dynamic; with
    ``presets=real_go2`` both drawn from [0.2, 1.25], dynamic at most static: wet tiles to rubber on concrete,
    HIMLoco's Go2 range (``presets=climbable``: :data:`CLIMBABLE_FRICTION_RANGE`)."""

    add_base_mass = per_robot(
        first=EventTerm(
            func=mdp.randomize_rigid_body_mass,
            mode="startup",
            params={
                "asset_cfg": SceneEntityCfg("robot", body_names="base"),
                "mass_distribution_params": (1 / 1.25, 1.25),
                "operation": "scale",
                "distribution": "log_uniform",
            },
        ),
        real=EventTerm(
            func=mdp.randomize_rigid_body_mass,
            mode="startup",
            params={
                "asset_cfg": SceneEntityCfg("robot", body_names="base"),
                "mass_distribution_params": climbable(PAYLOAD_RANGE, CLIMBABLE_PAYLOAD_RANGE),
                "operation": "add",
            },
        ),
    )
    """Trunk mass scaled by a log-uniform factor in [0.8, 1.25]; with ``presets=real_go2`` a payload: -1 to +7 kg
    on the trunk (:data:`~go2_locomotion.assets.go2.PAYLOAD_RANGE`; ``presets=climbable``:
    :data:`~go2_locomotion.assets.go2.CLIMBABLE_PAYLOAD_RANGE`), its inertia scaled with it."""

    actuator_gains = real_go2_only(
        scale_joint_figures(
            mdp.randomize_actuator_gains,
            stiffness_distribution_params=climbable((0.8, 1.2), CLIMBABLE_GAIN_RANGE),
            damping_distribution_params=climbable((0.8, 1.2), CLIMBABLE_GAIN_RANGE),
        )
    )
    """With ``presets=real_go2``: Kp and Kd of every joint scaled by [0.8, 1.2], per joint: motor and drive spread
    (HIMLoco 0.9-1.1; the robustness grid's gain cells are x0.8 and x1.2; ``presets=climbable``:
    :data:`CLIMBABLE_GAIN_RANGE`)."""

    joint_parameters = real_go2_only(
        scale_joint_figures(mdp.randomize_joint_parameters, friction_distribution_params=(0.5, 1.5))
    )
    """With ``presets=real_go2``: joint friction (Coulomb and viscous together) of every joint scaled by [0.5, 1.5]
    around the actuator's figures (:mod:`go2_locomotion.assets.go2`): 0.1-0.3 N m, 0.05-0.15 N m s/rad."""

    rotor_inertia = real_go2_only(
        EventTerm(
            func=mdp.randomize_rotor_inertia,
            mode="startup",
            params={
                "asset_cfg": SceneEntityCfg("robot", joint_names=".*"),
                "robot_range": ROTOR_INERTIA_ROBOT_RANGE,
                "joint_range": ROTOR_INERTIA_JOINT_RANGE,
            },
        )
    )
    """With ``presets=real_go2``: every joint's rotor inertia, the actuator's figure times one factor per robot
    (:data:`ROTOR_INERTIA_ROBOT_RANGE`) times one per joint (:data:`ROTOR_INERTIA_JOINT_RANGE`): 0.0045-0.0165 kg m^2
    at the hip and thigh, 0.009-0.033 at the calf, all of a robot's joints light or heavy together."""

    base_com = EventTerm(
        func=mdp.randomize_rigid_body_com,
        mode="startup",
        params={
            "asset_cfg": SceneEntityCfg("robot", body_names="base"),
            "com_range": {"x": (-0.05, 0.05), "y": (-0.05, 0.05), "z": (-0.01, 0.01)},
        },
    )
    """Trunk centre of mass shifted by up to 5 cm (x, y) and 1 cm (z)."""

    reset_base = EventTerm(
        func=mdp.reset_root_state_uniform,
        mode="reset",
        params={
            "pose_range": {"x": (-0.5, 0.5), "y": (-0.5, 0.5), "yaw": (-math.pi, math.pi)},
            "velocity_range": {
                "x": (-0.5, 0.5),
                "y": (-0.5, 0.5),
                "z": (-0.5, 0.5),
                "roll": (-0.5, 0.5),
                "pitch": (-0.5, 0.5),
                "yaw": (-0.5, 0.5),
            },
        },
    )
    """Trunk pose [m, rad] and velocity [m/s, rad/s] drawn uniformly at reset."""

    reset_robot_joints = EventTerm(
        func=mdp.reset_joints_by_scale,
        mode="reset",
        params={"position_range": (0.5, 1.5), "velocity_range": (0.0, 0.0)},
    )
    """Joint positions reset to the standing pose scaled by [0.5, 1.5], at rest."""

    solver_capacity = EventTerm(
        func=mdp.warn_on_solver_overflow, mode="interval", interval_range_s=(1.0, 1.0), is_global_time=True
    )
    """Once per simulated second: warn if MuJoCo-Warp dropped constraints or contacts (njmax / nconmax)."""

    push_robot = EventTerm(
        func=mdp.push_by_setting_velocity,
        mode="interval",
        interval_range_s=(10.0, 15.0),
        params={
            "velocity_range": {
                "x": per_robot(first=(-0.5, 0.5), real=(-PUSH_SPEED, PUSH_SPEED)),
                "y": per_robot(first=(-0.5, 0.5), real=(-PUSH_SPEED, PUSH_SPEED)),
            }
        },
    )
    """A push: trunk velocity set to a random +-0.5 m/s every 10-15 s; +-:data:`PUSH_SPEED` (x and y) with
    ``presets=real_go2``."""

    push_standing = preset(
        default=None,
        **{
            STANDING_PUSHES: EventTerm(
                func=mdp.push_standing,
                mode="interval",
                interval_range_s=STANDING_PUSH_INTERVAL_S,
                params={
                    "velocity_range": {"x": (-PUSH_SPEED, PUSH_SPEED), "y": (-PUSH_SPEED, PUSH_SPEED)},
                    **TOLD_TO_STAND,
                },
            )
        },
    )
    """With ``presets=standing_pushes``: the robots told to stand are also pushed every
    :data:`STANDING_PUSH_INTERVAL_S` (+-:data:`PUSH_SPEED`, x and y), so that a standing robot learns to step when
    bumped rather than stand stiff."""


@configclass
class RewardsCfg:
    """Reward terms; each is multiplied by its weight and the policy step (0.02 s)."""

    track_lin_vel_xy_exp = RewTerm(
        func=mdp.track_lin_vel_xy_exp, weight=1.5, params={"command_name": VELOCITY_COMMAND, "std": math.sqrt(0.25)}
    )
    """exp(-|v_xy cmd - v_xy|^2 / 0.25)."""
    track_ang_vel_z_exp = RewTerm(
        func=mdp.track_ang_vel_z_exp, weight=0.75, params={"command_name": VELOCITY_COMMAND, "std": math.sqrt(0.25)}
    )
    """exp(-(w_z cmd - w_z)^2 / 0.25)."""
    track_yaw_rate_cycle = real_go2_only(
        RewTerm(
            func=mdp.cycle_yaw_rate_exp,
            weight=1.0,
            params={"command_name": VELOCITY_COMMAND, "period": GAIT_PERIOD, "std": YAW_BIAS_STD},
        )
    )
    """With ``presets=real_go2``: exp(-e^2 / 0.0025), e the yaw-rate error averaged over the last gait cycle: the
    heading a robot gains or loses per cycle, which the wide term above hardly charges (:data:`YAW_BIAS_STD`)."""
    track_lin_vel_cycle = real_go2_only(
        RewTerm(
            func=mdp.cycle_lin_vel_xy_exp,
            weight=1.0,
            params={"command_name": VELOCITY_COMMAND, "period": GAIT_PERIOD, "std": SPEED_BIAS_STD},
        )
    )
    """With ``presets=real_go2``: exp(-|e|^2 / 0.01), e the planar velocity error averaged over the last gait cycle:
    the speed a robot gains or loses per cycle, which the first term hardly charges (:data:`SPEED_BIAS_STD`)."""
    lin_vel_z_l2 = RewTerm(func=mdp.lin_vel_z_l2, weight=-2.0)
    """Vertical trunk velocity squared [m^2/s^2]."""
    ang_vel_xy_l2 = RewTerm(func=mdp.ang_vel_xy_l2, weight=-0.05)
    """Roll and pitch rate squared [rad^2/s^2]."""
    dof_torques_l2 = RewTerm(func=mdp.joint_torques_l2, weight=-2.0e-4)
    """Sum of squared joint torques [N^2 m^2]."""
    dof_acc_l2 = RewTerm(func=mdp.joint_acc_l2, weight=-2.5e-7)
    """Sum of squared joint accelerations [rad^2/s^4]."""
    action_rate_l2 = RewTerm(func=mdp.action_rate_l2, weight=-0.005)
    """Squared change of the action between policy steps; half of -0.01, which let a hind foot drag on Newton
    (docs/learning.md)."""
    base_height_l2 = RewTerm(
        func=mdp.base_height_l2,
        weight=-30.0,
        params={"target_height": STANDING_BASE_HEIGHT, "sensor_cfg": SceneEntityCfg("height_scanner")},
    )
    """(trunk height above the scanned ground - the standing pose's 0.318 m)^2 [m^2]: stops the policy resting on
    its legs in a permanent crouch, which base-contact termination cannot see."""
    flat_orientation_l2: RewTerm | None = None
    """Trunk tilt (projected gravity xy squared); used on flat ground only."""
    trot = RewTerm(
        func=mdp.trot_swing,
        weight=2.0,
        params={"period": GAIT_PERIOD, "swing_offsets": SWING_OFFSETS, "sensor_cfg": FEET, **TOLD_TO_STAND},
    )
    """Share of the feet due in the air by the trot clock that are in the air (0.5 for a trot in time); 0 while
    told to stand. It replaces Isaac Lab's feet air time, which did not make a gait (docs/learning.md)."""
    feet_down_standing = RewTerm(
        func=mdp.feet_down_standing,
        weight=1.0,
        params={"sensor_cfg": FEET, **TOLD_TO_STAND, "max_trunk_speed": _STILL_ONLY},
    )
    """Share of the feet on the ground while told to stand (with ``presets=step_when_pushed``: and still)."""
    standing_joint_deviation_l1 = RewTerm(
        func=mdp.standing_joint_deviation_l1, weight=-0.5, params={**TOLD_TO_STAND, "max_trunk_speed": _STILL_ONLY}
    )
    """Joint distance from the standing pose while told to stand (with ``presets=step_when_pushed``: and still)
    [rad]."""
    feet_stumble = preset(
        default=None,
        **{STUMBLE: RewTerm(func=mdp.feet_stumble, weight=-1.0, params={"sensor_cfg": FEET, "ratio": 5.0})},
    )
    """With ``presets=stumble``: 1 while any foot pushes horizontally more than 5x vertically (it strikes a riser
    rather than stepping on a tread; legged_gym's test), x -1.0 x 0.02 s: a second of stumbling costs a quarter of a
    fall. For the stairs teacher (issue 56: "stumbling on risers"); not measured in training yet."""
    alive = preset(default=None, **{SAC_REWARDS: RewTerm(func=mdp.is_alive, weight=2.0)})
    """With ``presets=sac_rewards``: 1 on every step the robot is up, x 2.0 x 0.02 s = 0.04 per step, about the
    largest tracking term's most (1.5 x 0.02), so staying up is worth a full tracking reward while a gait is learned
    (holosoma's FastSAC: an alive bonus 10x its PPO's; this package's PPO has none, its fall penalty below)."""
    termination_penalty = RewTerm(func=mdp.is_terminated, weight=-200.0)
    """1 on the step an episode ends by a fall, not a time-out: -200 x 0.02 s = -4 per fall, so that ending an
    episode early never beats the early penalties (without it learning collapses into falling, docs/learning.md)."""


@configclass
class TerminationsCfg:
    """Episode ends."""

    time_out = DoneTerm(func=mdp.time_out, time_out=True)
    """Episode length reached (a truncation, bootstrapped by PPO)."""
    base_contact = DoneTerm(
        func=mdp.illegal_contact,
        params={"sensor_cfg": SceneEntityCfg("contact_forces", body_names="base"), "threshold": 1.0},
    )
    """Trunk touches anything with more than 1 N."""


@configclass
class CurriculumCfg:
    """Curricula."""

    terrain_levels = preset(
        default=CurrTerm(func=mdp.terrain_levels_vel),
        **{
            FRONTIER: CurrTerm(
                func=mdp.FrontierTerrainLevels,
                # half the endings drawn at the frontier, the other half step as Isaac Lab's; a level's share
                # remembers ~20 decided episodes and is trusted from 4 (stairs20's 6 stairs-up columns feed it)
                params={"frontier_share": 0.5, "memory": 20, "min_trials": 4, "floor": 0.02},
            )
        },
    )
    """Move robots up a terrain level when they walk far enough, down when they fall short (Isaac Lab's rule);
    ``presets=frontier`` adds draws favouring the levels each sub-terrain's robots clear half the time
    (:class:`~go2_locomotion.tasks.mdp.FrontierTerrainLevels`)."""
    penalties = preset(
        default=None,
        **{
            SAC_REWARDS: CurrTerm(
                func=mdp.PenaltyCurriculum,
                # x 1.002 per episode that lasts 80 % of its 20 s, x 0.998 per one that ends before 40 %: from 0.1 to
                # full weight after ~1,150 more long than short endings (~290 CPU iterations of 512 robots)
                params={
                    "terms": SAC_PENALTY_TERMS,
                    "initial_scale": 0.1,
                    "min_scale": 0.1,
                    "rate": 0.002,
                    "grow_above": 0.8,
                    "shrink_below": 0.4,
                },
            )
        },
    )
    """With ``presets=sac_rewards``: the weights of :data:`SAC_PENALTY_TERMS` times a factor from 0.1 up to 1 that
    grows while episodes are long and shrinks while they are short
    (:class:`~go2_locomotion.tasks.mdp.PenaltyCurriculum`, holosoma's penalty curriculum)."""


##
# Environment
##


@configclass
class Go2RoughEnvCfg(ManagerBasedRLEnvCfg):
    """Go2-Rough: velocity tracking on generated rough terrain with a terrain-level curriculum."""

    sim: SimulationCfg = SimulationCfg(
        dt=SIM_DT,
        # render once per policy step
        render_interval=DECIMATION,
        physics=Go2PhysicsCfg(),
        physics_material=TERRAIN_MATERIAL,
        # With presets=real_go2 Isaac Lab runs the DC motors itself on every engine (not as Newton-native actuators,
        # 3.0's default): Newton
        # then folds the whole decimation loop into one call and the action term is applied once per policy step,
        # so the targets' per-robot delay (ActionsCfg) could only be whole 20 ms policy steps. Measured cost:
        # docs/performance.md.
        use_newton_actuators=per_robot(first=True, real=False),
    )
    scene: Go2SceneCfg = Go2SceneCfg(num_envs=GPU_NUM_ENVS, env_spacing=2.5)
    observations: ObservationsCfg = ObservationsCfg()
    actions: ActionsCfg = ActionsCfg()
    commands: CommandsCfg = CommandsCfg()
    rewards: RewardsCfg = RewardsCfg()
    terminations: TerminationsCfg = TerminationsCfg()
    events: EventsCfg = EventsCfg()
    curriculum: CurriculumCfg = CurriculumCfg()
    decimation: int = DECIMATION
    episode_length_s: float = 20.0

    def play_mode(self):
        """Playback: at most 50 robots, no observation noise, no pushes, a 5 x 5 terrain grid, command arrows; with
        ``presets=real_go2`` the nominal robot (no payload, delay, gain or joint randomisation; friction
        :data:`NOMINAL_ROBOT_FRICTION`)."""
        super().play_mode()
        self.events.push_robot = None
        # unresolved (a -Play id), presets=standing_pushes stays a name with no term behind it: a training command's
        # presets play too
        self.events.push_standing = (
            preset(default=None, **{STANDING_PUSHES: None})
            if isinstance(self.events.push_standing, PresetCfg)
            else None
        )
        # the nominal robot of presets=real_go2 (the default's play mode keeps its trunk mass draw); before the presets
        # resolve (a -Play id) its alternatives change, after them (Isaac Lab's play entrypoint) the resolved values
        events = self.events
        for name in ("actuator_gains", "joint_parameters", "rotor_inertia"):
            _set_real_go2(events, name, None)
        mass = events.add_base_mass
        if isinstance(mass, PresetCfg) or (mass is not None and mass.params.get("operation") == "add"):
            _set_real_go2(events, "add_base_mass", None)  # the payload
        friction = events.physics_material.params
        for key, value in zip(("static_friction_range", "dynamic_friction_range"), NOMINAL_ROBOT_FRICTION, strict=True):
            nominal = (value, value)
            # unresolved (the Play task's config), presets=climbable stays a name, nominal either way: a training
            # command's presets play too
            _set_real_go2(
                friction, key, climbable(nominal, nominal) if isinstance(friction[key], PresetCfg) else nominal
            )
        self.actions.joint_pos.max_delay = 0
        self.commands.base_velocity.debug_vis = True
        terrain = self.scene.terrain
        terrain.max_init_terrain_level = None  # spread robots over the whole grid
        for generator in terrain_generators(terrain.terrain_generator):
            generator.num_rows = 5
            generator.num_cols = 5
            generator.curriculum = False

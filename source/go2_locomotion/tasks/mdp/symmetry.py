"""The Go2's left-right mirror for RSL-RL's symmetry augmentation and mirror loss (``RslRlSymmetryCfg``).

Mirroring the robot in its sagittal plane (trunk y -> -y) maps every observation and action onto another valid one:
each observation term mirrors by a rule keyed by its MDP function (:data:`MIRROR_RULES`), so a group's mirror is a
signed permutation of its columns, built once per environment from the observation manager's own term layout
(any group, Go2-Flat's 50 inputs or Go2-Rough's 237, a term with history). Mirroring twice is the identity.

Only the left-right mirror is used: a front-back mirror would turn the Go2's rear-facing knees forward, a robot that
does not exist, so it is not a symmetry of this system (ANYmal's X-legs have it; Isaac Lab's ANYmal function adds it).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
from isaaclab.envs import mdp as isaaclab_mdp

from ...compat import private_api
from .gait import gait_phase
from .history import history_frames
from .privileged import body_mass_offset, feet_contact_force
from .terms import term_is

if TYPE_CHECKING:
    from isaaclab.envs import ManagerBasedRLEnv
    from tensordict import TensorDict

LEFT_RIGHT = {"L": "R", "R": "L"}
"""Side letters swapped by the mirror (the second letter of a Go2 leg prefix: FL, FR, RL, RR)."""

SIDEWAYS_JOINTS = ("hip",)
"""Joints whose angle changes sign under the mirror: the hip abduction rotates about the trunk's x axis; thigh and
calf rotate about y, which the mirror keeps."""


@dataclass(frozen=True)
class SignedPermutation:
    """``mirrored[:, i] = sign[i] * x[:, index[i]]``: a mirror of a vector's columns. Shape of both: ``(width,)``."""

    index: tuple[int, ...]
    sign: tuple[float, ...]

    def __post_init__(self):
        if sorted(self.index) != list(range(len(self.index))) or len(self.sign) != len(self.index):
            raise ValueError(f"not a signed permutation: index {self.index}, sign {self.sign}")

    @property
    def width(self) -> int:
        return len(self.index)

    def tiled(self, copies: int) -> SignedPermutation:
        """The same mirror on ``copies`` consecutive blocks (a term with history: blocks of one step each)."""
        w = self.width
        return SignedPermutation(tuple(k * w + i for k in range(copies) for i in self.index), tuple(self.sign) * copies)

    def then(self, other: SignedPermutation) -> SignedPermutation:
        """This mirror's columns followed by ``other``'s (a concatenated observation group)."""
        return SignedPermutation(self.index + tuple(self.width + i for i in other.index), self.sign + other.sign)

    def apply(self, x: torch.Tensor) -> torch.Tensor:
        """Mirror ``x`` of shape ``(..., width)``."""
        index = torch.tensor(self.index, device=x.device)
        return x[..., index] * torch.tensor(self.sign, device=x.device, dtype=x.dtype)


def signs(*values: float) -> SignedPermutation:
    """A mirror that keeps every column in place and scales it by ``values``."""
    return SignedPermutation(tuple(range(len(values))), tuple(float(v) for v in values))


def mirror_joint_name(name: str) -> str:
    """``FL_hip_joint`` -> ``FR_hip_joint``: the leg prefix's side letter swapped."""
    leg, rest = name.split("_", 1)
    if len(leg) != 2 or leg[1] not in LEFT_RIGHT:
        raise ValueError(f"joint {name!r} is not named <F|R><L|R>_<part>_joint")
    return f"{leg[0]}{LEFT_RIGHT[leg[1]]}_{rest}"


def joint_mirror(joint_names: list[str] | tuple[str, ...]) -> SignedPermutation:
    """The mirror of a per-joint vector in ``joint_names`` order: left and right legs swap, hip angles change sign."""
    position = {name: i for i, name in enumerate(joint_names)}
    index = tuple(position[mirror_joint_name(name)] for name in joint_names)
    sign = tuple(-1.0 if name.split("_")[1] in SIDEWAYS_JOINTS else 1.0 for name in joint_names)
    return SignedPermutation(index, sign)


def body_mirror(body_names: str | list[str] | tuple[str, ...]) -> SignedPermutation:
    """The mirror of a per-body vector in ``body_names`` order: legs' bodies swap sides, others (the trunk) stay."""
    names = [body_names] if isinstance(body_names, str) else list(body_names)
    position = {name: i for i, name in enumerate(names)}
    index = []
    for name in names:
        try:
            index.append(position[mirror_joint_name(name)])
        except ValueError:
            index.append(position[name])
    return SignedPermutation(tuple(index), (1.0,) * len(names))


def grid_mirror(points: torch.Tensor, tolerance: float = 1e-6) -> SignedPermutation:
    """The mirror of a scan over sensor-frame points ``(num_points, 2|3)``: point ``i`` takes the reading at
    ``(x_i, -y_i)``, which must be a point of the pattern."""
    xy = points[:, :2].double()
    target = xy * torch.tensor([1.0, -1.0], dtype=torch.float64)
    distance = torch.cdist(target, xy)
    nearest = distance.argmin(dim=1)
    if not bool((distance.gather(1, nearest[:, None]) <= tolerance).all()):
        raise ValueError("the scan pattern is not symmetric about the sensor's x axis: no left-right mirror")
    return SignedPermutation(tuple(nearest.tolist()), (1.0,) * len(points))


@dataclass(frozen=True)
class MirrorContext:
    """What the rules need to know about the robot: the joint order of the joint terms and each scanner's
    sensor-frame ray points (by sensor name)."""

    joint_names: tuple[str, ...]
    scan_points: Callable[[str], torch.Tensor]


MirrorRule = Callable[[MirrorContext, dict], SignedPermutation]
"""``rule(context, term_params)``: the mirror of one step of an observation term."""

VECTOR = signs(1, -1, 1)
"""A polar vector in the trunk frame (linear velocity, gravity): y changes sign."""
PSEUDOVECTOR = signs(-1, 1, -1)
"""An axial vector in the trunk frame (angular velocity): x and z change sign, y stays."""

MIRROR_RULES: dict[Callable, MirrorRule] = {
    isaaclab_mdp.base_lin_vel: lambda context, params: VECTOR,
    isaaclab_mdp.projected_gravity: lambda context, params: VECTOR,
    isaaclab_mdp.base_ang_vel: lambda context, params: PSEUDOVECTOR,
    # (vx, vy, yaw rate): sideways speed and turning change sign
    isaaclab_mdp.generated_commands: lambda context, params: signs(1, -1, -1),
    isaaclab_mdp.joint_pos_rel: lambda context, params: joint_mirror(context.joint_names),
    isaaclab_mdp.joint_vel_rel: lambda context, params: joint_mirror(context.joint_names),
    isaaclab_mdp.last_action: lambda context, params: joint_mirror(context.joint_names),
    # mirroring swaps the trot's diagonal pairs (FL+RR <-> FR+RL): the clock moves half a cycle, (sin, cos) -> -(sin,
    # cos); the stand reading [0, 0] stays
    gait_phase: lambda context, params: signs(-1, -1),
    isaaclab_mdp.height_scan: lambda context, params: grid_mirror(context.scan_points(params["sensor_cfg"].name)),
    feet_contact_force: lambda context, params: body_mirror(params["sensor_cfg"].body_names),
    body_mass_offset: lambda context, params: body_mirror(params["asset_cfg"].body_names),
}
"""Observation function -> how one step of its term mirrors. A term whose function is not here cannot be mirrored."""


def term_mirror(func, params: dict, width: int, context: MirrorContext, term: str) -> SignedPermutation:
    """The mirror of a term of ``width`` columns (a multiple of one step's: history is tiled)."""
    # a class term's config holds its instance once the manager is made
    rule = next((rule for key, rule in MIRROR_RULES.items() if term_is(func, key)), None)
    if rule is None:
        raise ValueError(f"observation term {term!r} ({getattr(func, '__name__', func)}) has no left-right mirror")
    step = rule(context, params)
    if width % step.width:
        raise ValueError(f"observation term {term!r} is {width} wide, not a multiple of its mirror's {step.width}")
    return step.tiled(width // step.width)


def group_mirror(terms: list[tuple[str, Callable, dict, int]], context: MirrorContext) -> SignedPermutation:
    """The mirror of a concatenated group of ``(name, func, params, width)`` terms, in the group's order."""
    mirror = SignedPermutation((), ())
    for name, func, params, width in terms:
        mirror = mirror.then(term_mirror(func, params, width, context, name))
    return mirror


@dataclass(frozen=True)
class Go2Mirror:
    """The left-right mirror of one environment's observation groups and actions."""

    groups: dict[str, SignedPermutation]
    actions: SignedPermutation

    @classmethod
    def of(cls, env: ManagerBasedRLEnv) -> Go2Mirror:
        """Read from a live environment: its observation manager's term layout, the joint action's joint order and
        the scanners' patterns. The standing pose must be mirror-symmetric (joint terms are relative to it)."""
        (action_name,) = env.action_manager.active_terms
        joint_names = tuple(private_api.action_joint_names(env.action_manager.get_term(action_name)))
        robot = env.scene["robot"]
        actions = joint_mirror(joint_names)
        order = [list(robot.joint_names).index(name) for name in joint_names]
        standing = robot.data.default_joint_pos.torch[0, order].double().cpu()
        if not torch.allclose(actions.apply(standing), standing, atol=1e-6):
            raise ValueError(f"the standing pose is not left-right symmetric: {standing.tolist()}")

        def scan_points(sensor: str) -> torch.Tensor:
            # the pattern's points in the sensor frame, the mounting offset included
            return env.scene.sensors[sensor].ray_starts.torch[0].cpu()

        context = MirrorContext(joint_names=joint_names, scan_points=scan_points)
        manager = env.observation_manager
        groups = {}
        for group, names in manager.active_terms.items():
            cfgs = private_api.observation_term_cfgs(manager, group)
            dims = manager.group_obs_term_dim[group]
            frames = history_frames(getattr(env.cfg.observations, group))
            terms = [
                (name, cfg.func, cfg.params, _width(dim, name) // frames)
                for name, cfg, dim in zip(names, cfgs, dims, strict=True)
            ]
            groups[group] = group_mirror(terms, context).tiled(frames)
        return cls(groups=groups, actions=actions)


def _width(dim: tuple[int, ...], term: str) -> int:
    if len(dim) != 1:
        raise ValueError(f"observation term {term!r} has shape {dim}: only flat terms can be mirrored")
    return dim[0]


_MIRRORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def mirror_of(env: ManagerBasedRLEnv) -> Go2Mirror:
    """The environment's mirror, built on first use and kept for the environment's life."""
    if env not in _MIRRORS:
        _MIRRORS[env] = Go2Mirror.of(env)
    return _MIRRORS[env]


@torch.no_grad()
def mirror_left_right(env, obs: TensorDict | None = None, actions: torch.Tensor | None = None):
    """RSL-RL's ``data_augmentation_func``: :func:`augment` with the environment's mirror (``env`` is Isaac Lab's
    ``RslRlVecEnvWrapper``; its ``unwrapped`` is read)."""
    return augment(mirror_of(env.unwrapped), obs, actions)


def augment(mirror: Go2Mirror, obs: TensorDict | None, actions: torch.Tensor | None):
    """Each batch followed by its left-right mirror.

    Args:
        mirror: The environment's mirror.
        obs: Observation groups, each ``(B, width)``, or ``None``.
        actions: Actions ``(B, 12)``, or ``None``.

    Returns:
        ``(obs, actions)`` with ``2 B`` rows (originals first), ``None`` where the input was ``None``.
    """
    obs_aug = None
    if obs is not None:
        obs_aug = obs.repeat(2)
        size = obs.batch_size[0]
        for group in obs.keys():  # noqa: SIM118 (iterating a TensorDict yields its rows, not its keys)
            obs_aug[group][size:] = mirror.groups[group].apply(obs[group])
    actions_aug = None if actions is None else torch.cat((actions, mirror.actions.apply(actions)), dim=0)
    return obs_aug, actions_aug

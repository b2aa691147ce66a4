"""The actor's per-joint action box read from the robot (``algorithm.action_bounds`` ``"joint_limits"``).

A joint position action is ``target = offset + scale * action`` (Isaac Lab's joint action terms; the Go2's offset is
the standing pose, its scale 0.25 rad). The box that lets the squash reach every target the joint can hold, and no
target beyond it, is ``(limit - offset) / scale`` per joint: ETH's RSL-RL SAC bounds its actions by the joint limits
for that reason. The term's resolved joint order, scale and offset are private to Isaac Lab: read through
:mod:`go2_locomotion.compat.private_api`, which checks once that they exist.
"""

from __future__ import annotations

import torch

from ..compat import private_api


def joint_limit_box(env) -> tuple[torch.Tensor, torch.Tensor]:
    """``(low, high)`` ``[A]`` in action units: per action, the driven joint's position limits (the articulation's,
    of environment 0) through the joint action term's offset and scale, in the term's joint order. ``env``: Isaac
    Lab's environment (``unwrapped``), whose action manager has one joint action term.

    Raises:
        ValueError: The environment has more or fewer than one action term, or the term's scale is 0 for a joint.
    """
    names = list(env.action_manager.active_terms)
    if len(names) != 1:
        raise ValueError(f"action_bounds='joint_limits' needs one joint action term, the environment has {names}")
    term = env.action_manager.get_term(names[0])
    robot = env.scene[term.cfg.asset_name]
    joints = private_api.action_joint_names(term)
    ids = [list(robot.joint_names).index(name) for name in joints]
    limits = robot.data.joint_pos_limits.torch[0, ids].float()  # [A, 2] rad
    scale, offset, _ = private_api.action_scale_offset_clip(term)
    scale, offset = (_per_action(value, len(ids), limits) for value in (scale, offset))
    if bool((scale == 0).any()):
        raise ValueError(f"action_bounds='joint_limits' needs a nonzero action scale per joint, got {scale.tolist()}")
    ends = (limits - offset[:, None]) / scale[:, None]  # a negative scale swaps the ends
    return ends.min(dim=1).values, ends.max(dim=1).values


def _per_action(value, width: int, like: torch.Tensor) -> torch.Tensor:
    """A term's scale or offset as ``[A]``: a number, or environment 0's row of a ``[N, A]`` tensor."""
    tensor = torch.as_tensor(value, dtype=like.dtype, device=like.device)
    if tensor.ndim == 0:
        return tensor.expand(width)
    return tensor.reshape(-1, width)[0]

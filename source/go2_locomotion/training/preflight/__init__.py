"""Preflight: check the fully merged training configuration before the simulator starts, and describe the
iteration it implies. By concern: :mod:`.checker` (values by dotted path, one message per problem), :mod:`.checks`
(each learner's checks), :mod:`.geometry` (the shape and storage of one iteration), :mod:`.widths` (observation
widths from the config).

:func:`validate` returns one message per problem, each naming the field by its dotted path (``env.…`` or
``agent.…``), the value and the accepted domain; the learner's own checks come from its description
(:mod:`..learners`).
"""

from __future__ import annotations

import math

from ...errors import UsageError
from .checker import Checker, check_device
from .geometry import (
    DistillationGeometry,
    ReplayGeometry,
    RolloutGeometry,
    distillation_storage_bytes,
    rollout_storage_bytes,
    tensor_bytes,
)
from .widths import config_observation_term_widths, config_observation_widths, observation_groups

__all__ = [
    "DistillationGeometry",
    "ReplayGeometry",
    "RolloutGeometry",
    "check_device",
    "config_observation_term_widths",
    "config_observation_widths",
    "distillation_storage_bytes",
    "is_fast_sac",
    "rollout_storage_bytes",
    "tensor_bytes",
    "validate",
]


def validate(env_cfg, agent_cfg) -> list[str]:
    """All problems of the merged configuration, one message each (empty when it is usable).

    Args:
        env_cfg: The resolved environment config (after Hydra and CLI overrides).
        agent_cfg: The resolved RSL-RL runner config.
    """
    from ..learners import learner_of  # the learners' descriptions import this package's checks

    check = Checker(env_cfg, agent_cfg)
    num_envs = check.positive_int("env.scene.num_envs")
    num_steps = check.positive_int("agent.num_steps_per_env")
    check.positive_int("agent.max_iterations")
    check.positive_int("agent.save_interval")
    decimation = check.positive_int("env.decimation")
    finite = math.isfinite
    stall_domain = "a finite number >= 0 (seconds; 0: no watchdog)"
    check.real("agent.stall_timeout_s", stall_domain, lambda x: finite(x) and x >= 0)
    try:
        learner = learner_of(agent_cfg)
    except UsageError as error:
        check.problems += error.messages
    else:
        learner.check(check, num_envs, num_steps)

    dt = check.real("env.sim.dt", "a finite number > 0 [s]", lambda x: finite(x) and x > 0)
    length = check.real("env.episode_length_s", "a finite number > 0 [s]", lambda x: finite(x) and x > 0)
    if None not in (dt, length, decimation) and length < dt * decimation:
        check.problems.append(
            f"env.episode_length_s must be at least one policy step, sim.dt x decimation = {dt} x {decimation} = "
            f"{dt * decimation} s, got {length}"
        )

    scanner = check.value("env.scene.height_scanner")
    if hasattr(scanner, "height_source"):
        from ...tasks.height_scanner import config_problems  # Isaac Lab's sensor configs: heavy

        check.problems += config_problems(scanner)

    _check_frontier_curriculum(check)
    device_problem = check_device(check.value("env.sim.device"))
    if device_problem:
        check.problems.append(f"env.sim.device {device_problem}")
    _check_observation_groups(check, env_cfg)
    return check.problems


FRONTIER_PARAMS = "env.curriculum.terrain_levels.params"
"""Where ``presets=frontier``'s settings live (:class:`~go2_locomotion.tasks.mdp.FrontierTerrainLevels`)."""


def _check_frontier_curriculum(check: Checker) -> None:
    """The frontier curriculum's settings, when the task runs it (``presets=frontier``); each one given is checked
    (Isaac Lab fills a missing one with the term's default)."""
    term = check.value("env.curriculum.terrain_levels")
    if getattr(getattr(term, "func", None), "__name__", None) != "FrontierTerrainLevels":
        return
    params = term.params or {}
    finite = math.isfinite
    if "frontier_share" in params:
        check.real(f"{FRONTIER_PARAMS}.frontier_share", "a finite number in [0, 1]", lambda x: 0 <= x <= 1)
    if "floor" in params:
        check.real(f"{FRONTIER_PARAMS}.floor", "a finite number >= 0", lambda x: finite(x) and x >= 0)
    for key in ("memory", "min_trials"):
        if key in params:
            check.positive_int(f"{FRONTIER_PARAMS}.{key}")


def _check_observation_groups(check: Checker, env_cfg) -> None:
    obs_groups = check.value("agent.obs_groups")
    available = set(observation_groups(env_cfg))
    if not isinstance(obs_groups, dict):
        check.fail("agent.obs_groups", "a mapping of roles to lists of observation groups", obs_groups)
        return
    for role, groups in obs_groups.items():
        if not isinstance(groups, (list, tuple)):
            check.fail(
                f"agent.obs_groups.{role}", f"a list of observation groups of the task {sorted(available)}", groups
            )
            continue
        for group in groups:
            if group not in available:
                check.problems.append(
                    f"agent.obs_groups.{role} must name observation groups of the task {sorted(available)}, "
                    f"got {group!r}"
                )


def is_fast_sac(agent_cfg) -> bool:
    """Whether the agent config trains with FastSAC (its learner description, :func:`..learners.learner_of`)."""
    from ..learners import FAST_SAC, learner_of  # the learners' descriptions import this package's checks

    try:
        return learner_of(agent_cfg) is FAST_SAC
    except UsageError:
        return False

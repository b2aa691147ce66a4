"""Preflight: check the fully merged training configuration before the simulator starts, and describe the
iteration it implies. By concern: :mod:`.checker` (values by dotted path, one message per problem), :mod:`.checks`
(each learner's checks), :mod:`.geometry` (the shape and storage of one iteration), :mod:`.widths` (observation
widths from the config).

:func:`validate` returns one message per problem, each naming the field by its dotted path (``env.…`` or
``agent.…``), the value and the accepted domain; the learner's own checks come from its description
(:mod:`..learners`).
"""

from __future__ import annotations

import inspect
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
    _check_penalty_curriculum(check)
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


PENALTY_PARAMS = "env.curriculum.penalties.params"
"""Where ``presets=sac_rewards``' settings of :class:`~go2_locomotion.tasks.mdp.PenaltyCurriculum` live."""


def _check_penalty_curriculum(check: Checker) -> None:
    """The penalty curriculum's settings, when the task runs it (``presets=sac_rewards``): the scaled terms are
    reward terms of the task, the factors in (0, 1] with the floor at most the start, the rate in (0, 1), the episode
    fractions in [0, 1] with the shrinking one at most the growing one. A setting not given is the term's default."""
    term = check.value("env.curriculum.penalties")
    if getattr(getattr(term, "func", None), "__name__", None) != "PenaltyCurriculum":
        return
    params = term.params or {}
    defaults = {k: p.default for k, p in inspect.signature(term.func.__call__).parameters.items()}
    rewards = check.value("env.rewards")
    known = sorted(name for name, value in vars(rewards).items() if hasattr(value, "weight"))
    for name in params.get("terms", ()):
        if name not in known:
            check.fail(f"{PENALTY_PARAMS}.terms", f"names of the task's reward terms {known}", name)

    def setting(key: str, domain: str, accept):
        if key not in params:
            return defaults[key]
        return check.real(f"{PENALTY_PARAMS}.{key}", domain, lambda x: math.isfinite(x) and accept(x))

    initial = setting("initial_scale", "a finite number in (0, 1]", lambda x: 0 < x <= 1)
    floor = setting("min_scale", "a finite number in (0, 1]", lambda x: 0 < x <= 1)
    if None not in (initial, floor) and floor > initial:
        check.problems.append(f"{PENALTY_PARAMS}.min_scale must be at most initial_scale = {initial}, got {floor}")
    setting("rate", "a finite number in (0, 1)", lambda x: 0 < x < 1)
    grow = setting("grow_above", "a finite number in [0, 1]", lambda x: 0 <= x <= 1)
    shrink = setting("shrink_below", "a finite number in [0, 1]", lambda x: 0 <= x <= 1)
    if None not in (grow, shrink) and shrink > grow:
        check.problems.append(f"{PENALTY_PARAMS}.shrink_below must be at most grow_above = {grow}, got {shrink}")


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

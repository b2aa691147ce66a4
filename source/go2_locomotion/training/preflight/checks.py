"""Each learner's preflight checks of its agent config (named in its :class:`~..learners.Learner`): the domains of
its algorithm's settings, and the cross-field rules of its rollout or replay."""

from __future__ import annotations

import math

from ...errors import UsageError
from .checker import MISSING_VALUE, Checker
from .widths import config_observation_widths

# Imported inside functions: the FastSAC package (torch and RSL-RL: heavy), for its critic rules and action bounds by
# name and its teacher's loading; for the teacher's network, Isaac Lab's config conversion and the Go2's joints
# (MuJoCo): heavy.

_finite = math.isfinite


def check_ppo(check: Checker, num_envs: int | None, num_steps: int | None) -> None:
    """RSL-RL PPO's documented domains, and mini-batches that fit the rollout."""
    check.positive_int("agent.algorithm.num_learning_epochs")
    mini_batches = check.positive_int("agent.algorithm.num_mini_batches")
    if None not in (num_envs, num_steps, mini_batches) and mini_batches > num_envs * num_steps:
        check.problems.append(
            f"agent.algorithm.num_mini_batches must be at most num_envs x num_steps_per_env = "
            f"{num_envs} x {num_steps} = {num_envs * num_steps}, got {mini_batches}"
        )
    for name in ("gamma", "lam"):
        check.real(f"agent.algorithm.{name}", "a finite number in [0, 1]", lambda x: _finite(x) and 0 <= x <= 1)
    check.real("agent.algorithm.clip_param", "a number > 0 (inf: no clipping)", lambda x: x > 0)
    check.real(
        "agent.algorithm.max_grad_norm",
        "a number > 0 representable as a 64-bit float (inf: no clipping)",
        lambda x: x > 0,
    )
    check.real("agent.algorithm.learning_rate", "a finite number > 0", lambda x: _finite(x) and x > 0)
    if check.value("agent.algorithm.schedule") == "adaptive":
        check.real(
            "agent.algorithm.desired_kl",
            "a finite number > 0 with the adaptive schedule",
            lambda x: _finite(x) and x > 0,
        )
    for name in ("entropy_coef", "value_loss_coef"):
        check.real(f"agent.algorithm.{name}", "a finite number >= 0", lambda x: _finite(x) and x >= 0)
    if check.value("agent.algorithm.critic_warmup_iterations") is not MISSING_VALUE:  # Go2PPO's (training/ppo.py)
        _check_critic_warmup(check)
    _check_init_std(check, "agent.actor")
    if check.value("agent.warm_start_noise_std") not in (None, MISSING_VALUE):
        check.real("agent.warm_start_noise_std", "None or a finite number > 0", lambda x: _finite(x) and x > 0)


def check_fast_sac(check: Checker, num_envs: int | None, num_steps: int | None) -> None:
    """FastSAC's documented domains, and a replay buffer that holds an iteration and its start."""
    from ...fast_sac import CRITIC_RULES  # the learner's rules, by name (torch and RSL-RL: heavy)
    from ...fast_sac.algorithm import ACTION_BOUNDS  # the learner's action boxes, by name

    alg = "agent.algorithm"
    check.real(f"{alg}.gamma", "a finite number in [0, 1]", lambda x: _finite(x) and 0 <= x <= 1)
    check.real(f"{alg}.tau", "a number in (0, 1]", lambda x: 0 < x <= 1)
    for name in ("actor_learning_rate", "critic_learning_rate", "init_alpha"):
        check.real(f"{alg}.{name}", "a finite number > 0", lambda x: _finite(x) and x > 0)
    tune = check.value(f"{alg}.tune_alpha")
    if not isinstance(tune, bool):
        check.fail(f"{alg}.tune_alpha", "True or False", tune)
    elif tune:
        check.real(f"{alg}.alpha_lr", "a finite number > 0 when tune_alpha is True", lambda x: _finite(x) and x > 0)
    if check.value(f"{alg}.target_entropy") is not None:
        check.real(f"{alg}.target_entropy", "a finite number [nats] or None (minus the action width)", _finite)
    check.real(f"{alg}.max_grad_norm", "a number > 0 (inf: no clipping)", lambda x: x > 0)
    batch = check.positive_int(f"{alg}.batch_size")
    buffer = check.positive_int(f"{alg}.buffer_size")
    starts = check.positive_int(f"{alg}.learning_starts")
    check.positive_int(f"{alg}.gradient_steps")
    check.positive_int(f"{alg}.policy_frequency")
    check.positive_int(f"{alg}.n_step")
    check.one_of(f"{alg}.critic_rule", tuple(CRITIC_RULES))
    _check_critic_warmup(check)
    atoms = check.positive_int("agent.critic.num_atoms")
    if atoms is not None and atoms > 1:
        low = check.real("agent.critic.v_min", "a finite number", _finite)
        high = check.real("agent.critic.v_max", "a finite number", _finite)
        if None not in (low, high) and not low < high:
            check.problems.append(f"agent.critic.v_max must be above agent.critic.v_min = {low}, got {high}")
    check.real("agent.actor.distribution_cfg.init_std", "a finite number > 0", lambda x: _finite(x) and x > 0)
    check.real("agent.actor.distribution_cfg.action_scale", "a finite number > 0", lambda x: _finite(x) and x > 0)
    if None not in (buffer, num_envs, num_steps) and buffer < num_envs * num_steps:
        check.problems.append(
            f"{alg}.buffer_size must hold one iteration, num_envs x num_steps_per_env = {num_envs} x {num_steps} = "
            f"{num_envs * num_steps} transitions, got {buffer}"
        )
    for name, value in (("learning_starts", starts), ("batch_size", batch)):
        if None not in (value, buffer) and value > buffer:
            check.problems.append(f"{alg}.{name} must be at most buffer_size = {buffer}, got {value}")
    _check_fast_sac_teacher(check, _check_fast_sac_actor(check, ACTION_BOUNDS))


def _check_fast_sac_actor(check: Checker, action_bounds: tuple[str, ...]) -> dict:
    """The domains of FastSAC's actor settings that guard a cloned gait (``actor_teacher_weight``,
    ``residual_on_teacher`` with ``residual_scale``, ``actor_lr_warmup_steps``, ``action_bounds``); returns the usable
    values of those that need a teacher or exclude other settings (absent: unusable)."""
    alg = "agent.algorithm"
    found = {}
    weight = check.real(f"{alg}.actor_teacher_weight", "a finite number >= 0 (0: off)", lambda x: _finite(x) and x >= 0)
    if weight:
        found["actor_teacher_weight"] = weight
    residual = check.value(f"{alg}.residual_on_teacher")
    if not isinstance(residual, bool):
        check.fail(f"{alg}.residual_on_teacher", "True or False", residual)
    elif residual:
        found["residual_on_teacher"] = residual
        domain = "a finite number > 0 when residual_on_teacher is True"
        check.real(f"{alg}.residual_scale", domain, lambda x: _finite(x) and x > 0)
    _whole(check, f"{alg}.actor_lr_warmup_steps", "an integer >= 0 (0: no warm-up)")
    check.one_of(f"{alg}.action_bounds", action_bounds)
    bounds = check.value(f"{alg}.action_bounds")
    if bounds in action_bounds and bounds != "scale":
        found["action_bounds"] = bounds
    return found


def _check_critic_warmup(check: Checker) -> None:
    """Both learners' critic warm-up (PPO's Go2PPO, FastSAC): a whole number of iterations."""
    _whole(check, "agent.algorithm.critic_warmup_iterations", "an integer >= 0 (0: no critic warm-up)")


def _whole(check: Checker, path: str, domain: str) -> int | None:
    """An integer >= 0 (a whole-number float accepted), or None after a message."""
    number = check.real(path, domain, lambda x: _finite(x) and x >= 0 and x == int(x))
    return None if number is None else int(number)


def _check_fast_sac_teacher(check: Checker, actor: dict) -> None:
    """FastSAC's PPO teacher: whole-number phases, a noise std >= 0, and with a teacher a checkpoint whose actor loads
    into ``agent.teacher`` reading the FastSAC actor's observation. ``actor``: the actor settings in use
    (:func:`_check_fast_sac_actor`); a pull toward the teacher or a residual on it needs a teacher, not its phase."""
    alg = "agent.algorithm"
    iterations = _whole(check, f"{alg}.teacher_iterations", "an integer >= 0 (0: no teacher)")
    cloning = _whole(check, f"{alg}.behavior_cloning_steps", "an integer >= 0 (0: the actor starts fresh)")
    noise_domain = "a finite number >= 0 [action units]"
    check.real(f"{alg}.teacher_action_noise_std", noise_domain, lambda x: _finite(x) and x >= 0)
    if check.value(f"{alg}.behavior_cloning_learning_rate") is not None:
        domain = "a finite number > 0 or None (actor_learning_rate)"
        check.real(f"{alg}.behavior_cloning_learning_rate", domain, lambda x: _finite(x) and x > 0)
    path = check.value(f"{alg}.teacher_checkpoint")
    if iterations == 0 and cloning:
        check.problems.append(
            f"{alg}.behavior_cloning_steps needs a teacher ({alg}.teacher_iterations > 0), got {cloning}"
        )
    users = {name: actor[name] for name in ("actor_teacher_weight", "residual_on_teacher") if name in actor}
    if iterations == 0 and path is not None and not users:
        check.problems.append(
            f"{alg}.teacher_checkpoint is set ({path!r}) but {alg}.teacher_iterations is 0: the teacher would never act"
        )
    _check_teacher_exclusions(check, iterations, cloning, actor)
    if not iterations and not users:
        return
    if not isinstance(path, str):
        if iterations:
            domain = "a PPO checkpoint of the task (a path or 'pretrained') when teacher_iterations > 0"
            check.fail(f"{alg}.teacher_checkpoint", domain, path)
            return
        for name, value in users.items():
            check.problems.append(f"{alg}.{name} needs a teacher ({alg}.teacher_checkpoint), got {value!r}")
        return
    problem = _teacher_problem(check, path)
    if problem is not None:
        check.problems.append(problem)


def _check_teacher_exclusions(check: Checker, iterations: int | None, cloning: int | None, actor: dict) -> None:
    """A residual actor starts as the teacher (no cloning) within +-action_scale (no box); the teacher's percentiles
    need its phase."""
    alg = "agent.algorithm"
    if actor.get("residual_on_teacher") and cloning:
        check.problems.append(
            f"{alg}.behavior_cloning_steps must be 0 with residual_on_teacher (the residual actor starts as the "
            f"teacher), got {cloning}"
        )
    if actor.get("action_bounds") is None:
        return
    if actor.get("residual_on_teacher"):
        check.problems.append(
            f"{alg}.action_bounds must be 'scale' with residual_on_teacher (residual_scale bounds the correction), "
            f"got {actor['action_bounds']!r}"
        )
    if iterations == 0 and actor["action_bounds"] == "teacher_percentiles":
        check.problems.append(
            f"{alg}.action_bounds must be 'scale' or 'joint_limits' without a teacher phase "
            f"({alg}.teacher_iterations 0; 'teacher_percentiles' fits the teacher's actions), "
            f"got {actor['action_bounds']!r}"
        )


def _teacher_problem(check: Checker, path: str) -> str | None:
    """Why the checkpoint's actor does not load as the teacher (:func:`~go2_locomotion.fast_sac.load_teacher_state`,
    into ``agent.teacher`` built on the config's widths), or None; not checked while a group the actor reads has a
    width known only to the live environment."""
    import torch
    from isaaclab.utils import to_dict
    from tensordict import TensorDict

    from ...assets.go2_description import JOINT_NAMES
    from ...fast_sac import load_teacher_state, teacher_network

    model_cfg = check.value("agent.teacher")
    if model_cfg in (None, MISSING_VALUE):
        return "agent.teacher must be the network of the teacher checkpoint (the task's PPO actor), got missing"
    groups = check.value("agent.obs_groups")
    groups = list(groups.get("actor", ["policy"])) if isinstance(groups, dict) else ["policy"]
    widths = config_observation_widths(check.roots["env"])
    if any(widths.get(group) is None for group in groups):
        return None
    obs = TensorDict({group: torch.zeros(1, widths[group]) for group in groups}, batch_size=[1])
    cfg = model_cfg if isinstance(model_cfg, dict) else to_dict(model_cfg)
    try:
        load_teacher_state(teacher_network(cfg, obs, groups, len(JOINT_NAMES)), path)
    except UsageError as error:
        return str(error)
    return None


DISTILLATION_LOSSES = ("mse", "huber")
"""RSL-RL's ``Distillation`` loss types."""

DISTILLATION_OPTIMIZERS = ("adam", "adamw", "sgd", "rmsprop")
"""The optimizers RSL-RL resolves by name."""


def check_distillation(check: Checker, num_envs: int | None, num_steps: int | None) -> None:
    """RSL-RL Distillation's domains: both models' observation sets named, positive epochs, rate and gradient
    length; the leftover steps RSL-RL would accumulate but never backpropagate are a geometry warning."""
    alg = "agent.algorithm"
    for role in ("student", "teacher"):
        if check.value(f"agent.obs_groups.{role}") is MISSING_VALUE:
            check.fail(f"agent.obs_groups.{role}", "a list of observation groups (the distillation's models read it)",
                       MISSING_VALUE)  # fmt: skip
    check.positive_int(f"{alg}.num_learning_epochs")
    check.positive_int(f"{alg}.gradient_length")
    check.real(f"{alg}.learning_rate", "a finite number > 0", lambda x: _finite(x) and x > 0)
    if check.value(f"{alg}.max_grad_norm") is not None:
        check.real(f"{alg}.max_grad_norm", "a number > 0 or None (no clipping)", lambda x: x > 0)
    check.one_of(f"{alg}.loss_type", DISTILLATION_LOSSES)
    check.one_of(f"{alg}.optimizer", DISTILLATION_OPTIMIZERS)
    _check_init_std(check, "agent.student")


def _check_init_std(check: Checker, model: str) -> None:
    """The initial std of a model that samples its actions (one with a distribution)."""
    if check.value(f"{model}.distribution_cfg") not in (None, MISSING_VALUE):
        check.real(f"{model}.distribution_cfg.init_std", "a finite number > 0", lambda x: _finite(x) and x > 0)

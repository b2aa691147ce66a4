"""Preflight: check the fully merged training configuration before the simulator starts, and describe the
rollout it implies.

:func:`validate` returns one message per problem, each naming the field by its dotted path (``env.…`` or
``agent.…``), the value and the accepted domain. Whole-number floats (``50.0``) and numpy integers are accepted
where an integer is required and written back as ``int``; a ``bool`` is never taken for a number.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass, field

from ..deploy.observations import OBSERVATION_TERMS
from ..dotted import MissingField, assign, lookup

# Imported inside functions: torch, RSL-RL and Isaac Lab (heavy); the checks of the merged configs need none of them.

_MISSING = object()


def _get(root, path: str):
    try:
        return lookup(root, path)
    except MissingField:
        return _MISSING


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _as_float(value) -> float | None:
    """The value as a 64-bit float, or None when it is no number or too large for one."""
    if not _is_number(value):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


class _Checker:
    def __init__(self, env_cfg, agent_cfg):
        self.roots = {"env": env_cfg, "agent": agent_cfg}
        self.problems: list[str] = []

    def value(self, path: str):
        section, rest = path.split(".", 1)
        return _get(self.roots[section], rest)

    def fail(self, path: str, domain: str, value) -> None:
        shown = "missing" if value is _MISSING else repr(value)
        self.problems.append(f"{path} must be {domain}, got {shown}")

    def positive_int(self, path: str) -> int | None:
        value = self.value(path)
        as_float = _as_float(value)
        if as_float is None or not math.isfinite(as_float) or as_float != int(as_float) or as_float < 1:
            self.fail(path, "a positive integer", value)
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            section, rest = path.split(".", 1)
            assign(self.roots[section], rest, int(as_float))  # normalise 50.0 / numpy.int64(50) to 50
        return int(as_float)

    def real(self, path: str, domain: str, accept) -> float | None:
        """A real number for which ``accept(x)`` holds; ``domain`` describes it in the message."""
        value = self.value(path)
        as_float = _as_float(value)
        if as_float is None or math.isnan(as_float) or not accept(as_float):
            self.fail(path, domain, value)
            return None
        return as_float


def validate(env_cfg, agent_cfg) -> list[str]:
    """All problems of the merged configuration, one message each (empty when it is usable).

    Args:
        env_cfg: The resolved environment config (after Hydra and CLI overrides).
        agent_cfg: The resolved RSL-RL runner config.
    """
    check = _Checker(env_cfg, agent_cfg)
    num_envs = check.positive_int("env.scene.num_envs")
    num_steps = check.positive_int("agent.num_steps_per_env")
    check.positive_int("agent.max_iterations")
    check.positive_int("agent.save_interval")
    decimation = check.positive_int("env.decimation")
    finite = math.isfinite
    stall_domain = "a finite number >= 0 (seconds; 0: no watchdog)"
    check.real("agent.stall_timeout_s", stall_domain, lambda x: finite(x) and x >= 0)
    if is_fast_sac(agent_cfg):
        _check_fast_sac(check, num_envs, num_steps)
    else:
        _check_ppo(check, num_envs, num_steps)

    dt = check.real("env.sim.dt", "a finite number > 0 [s]", lambda x: finite(x) and x > 0)
    length = check.real("env.episode_length_s", "a finite number > 0 [s]", lambda x: finite(x) and x > 0)
    if None not in (dt, length, decimation) and length < dt * decimation:
        check.problems.append(
            f"env.episode_length_s must be at least one policy step, sim.dt x decimation = {dt} x {decimation} = "
            f"{dt * decimation} s, got {length}"
        )

    scanner = check.value("env.scene.height_scanner")
    if hasattr(scanner, "height_source"):
        from ..tasks.height_scanner import config_problems

        check.problems += config_problems(scanner)

    device_problem = check_device(check.value("env.sim.device"))
    if device_problem:
        check.problems.append(f"env.sim.device {device_problem}")

    obs_groups = check.value("agent.obs_groups")
    available = _observation_groups(env_cfg)
    if not isinstance(obs_groups, dict):
        check.fail("agent.obs_groups", "a mapping of roles to lists of observation groups", obs_groups)
    else:
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
    return check.problems


FAST_SAC = "go2_locomotion.training.fast_sac:FastSAC"
"""``agent.algorithm.class_name`` of the FastSAC learner."""


def is_fast_sac(agent_cfg) -> bool:
    """Whether the agent config trains with FastSAC (by its algorithm's ``class_name``)."""
    return _get(agent_cfg, "algorithm.class_name") == FAST_SAC


def _check_ppo(check: _Checker, num_envs: int | None, num_steps: int | None) -> None:
    finite = math.isfinite
    check.positive_int("agent.algorithm.num_learning_epochs")
    mini_batches = check.positive_int("agent.algorithm.num_mini_batches")
    if None not in (num_envs, num_steps, mini_batches) and mini_batches > num_envs * num_steps:
        check.problems.append(
            f"agent.algorithm.num_mini_batches must be at most num_envs x num_steps_per_env = "
            f"{num_envs} x {num_steps} = {num_envs * num_steps}, got {mini_batches}"
        )
    for name in ("gamma", "lam"):
        check.real(f"agent.algorithm.{name}", "a finite number in [0, 1]", lambda x: finite(x) and 0 <= x <= 1)
    check.real("agent.algorithm.clip_param", "a number > 0 (inf: no clipping)", lambda x: x > 0)
    check.real(
        "agent.algorithm.max_grad_norm",
        "a number > 0 representable as a 64-bit float (inf: no clipping)",
        lambda x: x > 0,
    )
    check.real("agent.algorithm.learning_rate", "a finite number > 0", lambda x: finite(x) and x > 0)
    if check.value("agent.algorithm.schedule") == "adaptive":
        check.real(
            "agent.algorithm.desired_kl",
            "a finite number > 0 with the adaptive schedule",
            lambda x: finite(x) and x > 0,
        )
    for name in ("entropy_coef", "value_loss_coef"):
        check.real(f"agent.algorithm.{name}", "a finite number >= 0", lambda x: finite(x) and x >= 0)
    if check.value("agent.actor.distribution_cfg") not in (None, _MISSING):
        check.real("agent.actor.distribution_cfg.init_std", "a finite number > 0", lambda x: finite(x) and x > 0)


def _check_fast_sac(check: _Checker, num_envs: int | None, num_steps: int | None) -> None:
    """FastSAC's documented domains, and a replay buffer that holds an iteration and its start."""
    finite = math.isfinite
    alg = "agent.algorithm"
    check.real(f"{alg}.gamma", "a finite number in [0, 1]", lambda x: finite(x) and 0 <= x <= 1)
    check.real(f"{alg}.tau", "a number in (0, 1]", lambda x: 0 < x <= 1)
    for name in ("actor_learning_rate", "critic_learning_rate", "init_alpha"):
        check.real(f"{alg}.{name}", "a finite number > 0", lambda x: finite(x) and x > 0)
    tune = check.value(f"{alg}.tune_alpha")
    if not isinstance(tune, bool):
        check.fail(f"{alg}.tune_alpha", "True or False", tune)
    elif tune:
        check.real(f"{alg}.alpha_lr", "a finite number > 0 when tune_alpha is True", lambda x: finite(x) and x > 0)
    if check.value(f"{alg}.target_entropy") is not None:
        check.real(f"{alg}.target_entropy", "a finite number [nats] or None (minus the action width)", finite)
    check.real(f"{alg}.max_grad_norm", "a number > 0 (inf: no clipping)", lambda x: x > 0)
    batch = check.positive_int(f"{alg}.batch_size")
    buffer = check.positive_int(f"{alg}.buffer_size")
    starts = check.positive_int(f"{alg}.learning_starts")
    check.positive_int(f"{alg}.gradient_steps")
    check.positive_int(f"{alg}.policy_frequency")
    check.positive_int(f"{alg}.n_step")
    from .fast_sac import CRITIC_RULES  # the learner's rules, by name (torch and RSL-RL: heavy)

    rule = check.value(f"{alg}.critic_rule")
    if not isinstance(rule, str) or rule not in CRITIC_RULES:
        check.fail(f"{alg}.critic_rule", f"one of {list(CRITIC_RULES)}", rule)
    atoms = check.positive_int("agent.critic.num_atoms")
    if atoms is not None and atoms > 1:
        low = check.real("agent.critic.v_min", "a finite number", finite)
        high = check.real("agent.critic.v_max", "a finite number", finite)
        if None not in (low, high) and not low < high:
            check.problems.append(f"agent.critic.v_max must be above agent.critic.v_min = {low}, got {high}")
    check.real("agent.actor.distribution_cfg.init_std", "a finite number > 0", lambda x: finite(x) and x > 0)
    check.real("agent.actor.distribution_cfg.action_scale", "a finite number > 0", lambda x: finite(x) and x > 0)
    if None not in (buffer, num_envs, num_steps) and buffer < num_envs * num_steps:
        check.problems.append(
            f"{alg}.buffer_size must hold one iteration, num_envs x num_steps_per_env = {num_envs} x {num_steps} = "
            f"{num_envs * num_steps} transitions, got {buffer}"
        )
    for name, value in (("learning_starts", starts), ("batch_size", batch)):
        if None not in (value, buffer) and value > buffer:
            check.problems.append(f"{alg}.{name} must be at most buffer_size = {buffer}, got {value}")


def _observation_groups(env_cfg) -> set[str]:
    observations = env_cfg.observations
    return {name for name, group in vars(observations).items() if group is not None and not name.startswith("_")}


def check_device(device) -> str | None:
    """None when ``device`` is ``cpu``, ``cuda`` or an existing ``cuda:N``; else what is wrong with it."""
    import torch

    if not isinstance(device, str):
        return f"must be 'cpu', 'cuda' or 'cuda:N', got {device!r}"
    if device == "cpu":
        return None
    if device == "cuda" or (device.startswith("cuda:") and device[5:].isdigit()):
        count = torch.cuda.device_count()
        index = int(device[5:]) if ":" in device else 0
        if index >= count:
            visible = f"cuda:0 to cuda:{count - 1}" if count else "none"
            return f"must be a GPU of this machine (visible: {visible}), got {device!r}"
        return None
    return f"must be 'cpu', 'cuda' or 'cuda:N', got {device!r}"


@dataclass
class RolloutGeometry:
    """The shape of one PPO iteration. Sizes in transitions, memory in bytes."""

    num_envs: int
    """N: environments per rank."""
    steps_per_env: int
    """T: steps each environment collects per iteration."""
    mini_batches: int
    """Mini-batches per epoch."""
    epochs: int
    """Passes over the rollout per iteration."""
    observation_widths: dict[str, int]
    """Width of each observation group stored in the rollout."""
    action_width: int
    """A: actions per step."""
    world_size: int = 1
    """W: ranks of a distributed run."""
    transitions: int = field(init=False)
    """B = N x T per rank and iteration."""
    mini_batch_size: int = field(init=False)
    """M = B // mini-batches."""
    dropped: int = field(init=False)
    """B % mini-batches: transitions RSL-RL leaves out of every epoch."""
    optimizer_steps: int = field(init=False)
    """Mini-batches x epochs."""
    global_transitions: int = field(init=False)
    """W x N x T."""
    storage_bytes: int = field(init=False)
    """Bytes of RSL-RL's rollout storage per rank."""

    def __post_init__(self):
        self.transitions = self.num_envs * self.steps_per_env
        self.mini_batch_size = self.transitions // self.mini_batches
        self.dropped = self.transitions % self.mini_batches
        self.optimizer_steps = self.mini_batches * self.epochs
        self.global_transitions = self.world_size * self.transitions
        self.storage_bytes = rollout_storage_bytes(
            self.num_envs, self.steps_per_env, self.observation_widths, self.action_width
        )

    def warnings(self) -> list[str]:
        """Settings that work but waste something."""
        if not self.dropped:
            return []
        return [
            f"num_envs x num_steps_per_env = {self.transitions} is not divisible by num_mini_batches = "
            f"{self.mini_batches}: RSL-RL leaves {self.dropped} transitions out of every epoch"
        ]

    def report(self) -> str:
        """A short human-readable table."""
        widths = ", ".join(f"{name} {width}" for name, width in self.observation_widths.items())
        lines = [
            f"rollout: N={self.num_envs} envs x T={self.steps_per_env} steps = B={self.transitions:,} transitions "
            f"per iteration"
            + (f" per rank, {self.global_transitions:,} over {self.world_size} ranks" if self.world_size > 1 else ""),
            f"learning: {self.mini_batches} mini-batches of M={self.mini_batch_size:,} (dropped {self.dropped}) x "
            f"{self.epochs} epochs = {self.optimizer_steps} optimizer steps per iteration",
            f"widths: observation {widths}; action {self.action_width}; "
            f"rollout storage {self.storage_bytes / 2**20:.1f} MiB",
        ]
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class ReplayGeometry:
    """The shape of one FastSAC iteration: collection into the replay buffer, then gradient steps on replayed
    batches. Sizes in transitions, memory in bytes."""

    num_envs: int
    """N: environments per rank."""
    steps_per_env: int
    """T: steps each environment collects per iteration."""
    batch_size: int
    """Transitions per gradient step."""
    gradient_steps: int
    """Gradient steps per iteration."""
    buffer_size: int
    """Replay capacity in transitions."""
    learning_starts: int
    """Transitions stored before the first gradient step."""
    observation_widths: dict[str, int]
    """Width of each observation group stored in the buffer (twice: observation and next observation)."""
    action_width: int
    """A: actions per step."""
    world_size: int = 1
    """W: ranks (FastSAC runs one)."""
    transitions: int = field(init=False)
    """B = N x T per iteration."""
    global_transitions: int = field(init=False)
    """W x N x T."""
    replayed: int = field(init=False)
    """Gradient steps x batch size: transitions replayed per iteration."""
    update_to_data: float = field(init=False)
    """Replayed / collected per iteration."""
    storage_bytes: int = field(init=False)
    """Bytes of the replay buffer."""

    def __post_init__(self):
        from .fast_sac import replay_memory_bytes  # torch and RSL-RL: heavy

        self.transitions = self.num_envs * self.steps_per_env
        self.global_transitions = self.world_size * self.transitions
        self.replayed = self.gradient_steps * self.batch_size
        self.update_to_data = self.replayed / self.transitions
        self.storage_bytes = replay_memory_bytes(self.buffer_size, self.observation_widths, self.action_width)

    def warnings(self) -> list[str]:
        """Settings that work but waste something."""
        return []

    def report(self) -> str:
        """A short human-readable table."""
        widths = ", ".join(f"{name} {width}" for name, width in self.observation_widths.items())
        fill = -(-self.buffer_size // self.transitions)
        start = -(-self.learning_starts // self.transitions)
        return "\n".join(
            [
                f"collection: N={self.num_envs} envs x T={self.steps_per_env} steps = B={self.transitions:,} "
                f"transitions per iteration into the replay buffer",
                f"learning: {self.gradient_steps} gradient steps x {self.batch_size:,} replayed transitions = "
                f"{self.replayed:,} per iteration (update-to-data {self.update_to_data:.2f}); first update after "
                f"{self.learning_starts:,} transitions ({start} iterations)",
                f"widths: observation {widths}; action {self.action_width}; replay buffer {self.buffer_size:,} "
                f"transitions = {self.storage_bytes / 2**20:.1f} MiB (full after {fill} iterations)",
            ]
        )

    def as_dict(self) -> dict:
        return asdict(self)


def config_observation_term_widths(env_cfg) -> dict[str, dict[str, int | None]]:
    """Width of each observation term, per group, from the config alone (no simulator): the width the observation
    vocabulary gives the term's function (recognised by identity,
    :func:`~go2_locomotion.deploy.manifest.observation_format_name`; widths from
    :data:`~go2_locomotion.deploy.observations.OBSERVATION_TERMS`), and for a term of one value per ray the number of
    rays Isaac Lab's own pattern function casts for its sensor's pattern.

    A term whose function the deploy side does not know gets ``None``; ``tests/sim/test_tasks_sim.py`` compares
    these widths with the ones the live observation manager reports.
    """
    from ..deploy.manifest import observation_format_name

    widths: dict[str, dict[str, int | None]] = {}
    for group_name, group in vars(env_cfg.observations).items():
        if group is None or group_name.startswith("_"):
            continue
        terms: dict[str, int | None] = {}
        for term_name, term in vars(group).items():
            func = getattr(term, "func", None)
            if func is None:
                continue
            name = observation_format_name(func)
            width = OBSERVATION_TERMS[name].width if name is not None else None
            if name is not None and width is None:  # one value per ray of the term's scanner
                pattern = getattr(env_cfg.scene, term.params["sensor_cfg"].name).pattern_cfg
                ray_starts, _ = pattern.func(pattern, "cpu")
                width = int(ray_starts.shape[0])
            terms[term_name] = width
        widths[group_name] = terms
    return widths


def config_observation_widths(env_cfg) -> dict[str, int | None]:
    """Observation width of each group from the config alone (:func:`config_observation_term_widths` added up);
    ``None`` for a group with a term of unknown width, whose live width is read once the environment exists."""
    return {
        group: None if None in terms.values() else sum(terms.values())
        for group, terms in config_observation_term_widths(env_cfg).items()
    }


def rollout_storage_bytes(num_envs: int, steps_per_env: int, observation_widths: dict[str, int], actions: int) -> int:
    """Bytes of RSL-RL's PPO rollout storage, measured on its own class: a ``RolloutStorage`` built on PyTorch's
    ``meta`` device (shapes and dtypes, no memory), given one transition so that it allocates its distribution
    parameters (RSL-RL's ``GaussianDistribution``, the Go2 agents': mean and std), then every tensor it holds
    added up."""
    import torch
    from rsl_rl.modules.distribution import GaussianDistribution
    from rsl_rl.storage import RolloutStorage
    from tensordict import TensorDict

    meta = torch.device("meta")

    def zeros(*shape):
        return torch.zeros(*shape, device=meta)

    obs = TensorDict(
        {name: zeros(num_envs, width) for name, width in observation_widths.items()}, batch_size=[num_envs]
    )
    storage = RolloutStorage("rl", num_envs, steps_per_env, obs, [actions], device=meta)
    distribution = GaussianDistribution(actions).to(meta)
    distribution.update(zeros(num_envs, actions))
    transition = RolloutStorage.Transition()
    transition.observations = obs
    transition.actions, transition.values = zeros(num_envs, actions), zeros(num_envs, 1)
    transition.rewards, transition.dones, transition.actions_log_prob = (
        zeros(num_envs),
        zeros(num_envs),
        zeros(num_envs),
    )
    transition.distribution_params = distribution.params
    storage.add_transition(transition)
    return tensor_bytes(storage)


def tensor_bytes(holder) -> int:
    """Bytes of every tensor an object holds in its attributes: tensors, tuples or lists of tensors, TensorDicts."""
    import torch
    from tensordict import TensorDictBase

    total = 0
    for value in vars(holder).values():
        if isinstance(value, TensorDictBase):
            value = list(value.values(include_nested=True, leaves_only=True))
        for item in value if isinstance(value, tuple | list) else (value,):
            if isinstance(item, torch.Tensor):
                total += item.nbytes
    return total

"""The shape of one training iteration per learner, from the configuration: sizes in transitions, the optimizer
steps they feed, and the bytes of the learner's storage measured on RSL-RL's own classes (or the FastSAC replay
buffer) on PyTorch's ``meta`` device. Each geometry reports itself and warns about settings that waste something."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

# Imported inside functions: torch, RSL-RL, tensordict and the FastSAC package (heavy), for the storage bytes.


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
        from ...fast_sac import replay_memory_bytes  # torch and RSL-RL: heavy

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


@dataclass
class DistillationGeometry:
    """The shape of one distillation iteration: the student's rollout labelled by the teacher, then
    ``epochs x steps_per_env / gradient_length`` optimizer steps. Sizes in transitions, memory in bytes."""

    num_envs: int
    """N: environments per rank."""
    steps_per_env: int
    """T: steps each environment collects per iteration."""
    epochs: int
    """Passes over the rollout per iteration."""
    gradient_length: int
    """Rollout steps whose losses add up into one optimizer step."""
    observation_widths: dict[str, int]
    """Width of each observation group stored in the rollout (RSL-RL stores every group the environment returns)."""
    action_width: int
    """A: actions per step."""
    world_size: int = 1
    """W: ranks of a distributed run."""
    transitions: int = field(init=False)
    """B = N x T per rank and iteration."""
    optimizer_steps: int = field(init=False)
    """(epochs x T) // gradient_length."""
    dropped_steps: int = field(init=False)
    """(epochs x T) % gradient_length: steps RSL-RL accumulates but never backpropagates."""
    global_transitions: int = field(init=False)
    """W x N x T."""
    storage_bytes: int = field(init=False)
    """Bytes of RSL-RL's distillation storage per rank."""

    def __post_init__(self):
        self.transitions = self.num_envs * self.steps_per_env
        steps = self.epochs * self.steps_per_env
        self.optimizer_steps, self.dropped_steps = divmod(steps, self.gradient_length)
        self.global_transitions = self.world_size * self.transitions
        self.storage_bytes = distillation_storage_bytes(
            self.num_envs, self.steps_per_env, self.observation_widths, self.action_width
        )

    def warnings(self) -> list[str]:
        """Settings that work but waste something (RSL-RL's own warning, before the simulator starts)."""
        if not self.dropped_steps:
            return []
        return [
            f"num_learning_epochs x num_steps_per_env = {self.epochs} x {self.steps_per_env} = "
            f"{self.epochs * self.steps_per_env} is not divisible by gradient_length = {self.gradient_length}: "
            f"RSL-RL never backpropagates the last {self.dropped_steps} steps of every update"
        ]

    def report(self) -> str:
        """A short human-readable table."""
        widths = ", ".join(f"{name} {width}" for name, width in self.observation_widths.items())
        ranks = f" per rank, {self.global_transitions:,} over {self.world_size} ranks" if self.world_size > 1 else ""
        return "\n".join(
            [
                f"rollout: N={self.num_envs} envs x T={self.steps_per_env} steps = B={self.transitions:,} transitions "
                f"per iteration{ranks}, each labelled by the teacher",
                f"learning: {self.epochs} epochs x {self.steps_per_env} steps / gradient length "
                f"{self.gradient_length} = {self.optimizer_steps} optimizer steps per iteration (dropped "
                f"{self.dropped_steps} steps)",
                f"widths: observation {widths}; action {self.action_width}; "
                f"rollout storage {self.storage_bytes / 2**20:.1f} MiB",
            ]
        )

    def as_dict(self) -> dict:
        return asdict(self)


def ppo_geometry(env_cfg, agent_cfg, widths: dict[str, int | None], action_width: int, world_size: int):
    """PPO's :class:`RolloutGeometry` from the configs; ``widths``: each observation group's width (``None``:
    not known before the environment exists, left out)."""
    return RolloutGeometry(
        num_envs=env_cfg.scene.num_envs,
        steps_per_env=agent_cfg.num_steps_per_env,
        mini_batches=agent_cfg.algorithm.num_mini_batches,
        epochs=agent_cfg.algorithm.num_learning_epochs,
        observation_widths={name: w for name, w in widths.items() if w is not None},
        action_width=action_width,
        world_size=world_size,
    )


def replay_geometry(env_cfg, agent_cfg, widths: dict[str, int | None], action_width: int, world_size: int):
    """FastSAC's :class:`ReplayGeometry` from the configs: the buffer stores the groups its models read."""
    groups = {group for groups in agent_cfg.obs_groups.values() for group in groups}
    stored = {name: w for name, w in widths.items() if w is not None and name in groups}
    alg = agent_cfg.algorithm
    sizes = (alg.batch_size, alg.gradient_steps, alg.buffer_size, alg.learning_starts)
    return ReplayGeometry(env_cfg.scene.num_envs, agent_cfg.num_steps_per_env, *sizes, stored, action_width, world_size)


def distillation_geometry(env_cfg, agent_cfg, widths: dict[str, int | None], action_width: int, world_size: int):
    """Distillation's :class:`DistillationGeometry` from the configs."""
    return DistillationGeometry(
        num_envs=env_cfg.scene.num_envs,
        steps_per_env=agent_cfg.num_steps_per_env,
        epochs=agent_cfg.algorithm.num_learning_epochs,
        gradient_length=agent_cfg.algorithm.gradient_length,
        observation_widths={name: w for name, w in widths.items() if w is not None},
        action_width=action_width,
        world_size=world_size,
    )


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


def distillation_storage_bytes(
    num_envs: int, steps_per_env: int, observation_widths: dict[str, int], actions: int
) -> int:
    """Bytes of RSL-RL's distillation storage, measured on its own class: a ``RolloutStorage("distillation", ...)``
    on PyTorch's ``meta`` device (observations, rewards, actions, the teacher's actions, done flags)."""
    import torch  # heavy, as RSL-RL's storage and tensordict below
    from rsl_rl.storage import RolloutStorage
    from tensordict import TensorDict

    meta = torch.device("meta")
    obs = TensorDict(
        {name: torch.zeros(num_envs, width, device=meta) for name, width in observation_widths.items()},
        batch_size=[num_envs],
    )
    return tensor_bytes(RolloutStorage("distillation", num_envs, steps_per_env, obs, [actions], device=meta))


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

"""FastSAC: an off-policy soft actor-critic for the Go2 tasks, plugged into RSL-RL's runner as an algorithm.

RSL-RL 5.5.1 has no off-policy learner, and the well-kept SAC at hand (skrl, through Isaac Lab's wrapper) falls short
of the FastSAC recipe and of this package's contract: its Gaussian policy clips actions instead of squashing them
(its log-probabilities carry no tanh correction), its critics take no LayerNorm without custom models, and its
trainer owns the loop, its checkpoints and its logs, so the package's runner (Ctrl-C saving, atomic checkpoints,
``--resume auto``, the stall watchdog, ``run_summary.json``) and RSL-RL's exporters would not apply. So the learner
is written here, on RSL-RL's named extension points:

- the runner builds its algorithm from ``algorithm.class_name`` (:class:`FastSAC` is such a class), and its loop
  (collect ``num_steps_per_env`` steps per environment, then ``update()``) is an off-policy iteration: the steps go
  into a replay buffer, the update takes ``gradient_steps`` gradient steps on batches drawn from it;
- the actor is RSL-RL's ``MLPModel`` with a distribution class of its ``distribution_cfg``
  (:class:`SquashedGaussianDistribution`): RSL-RL's checkpoint keys, observation normaliser, TorchScript and ONNX
  exporters carry the deterministic action (the squashed mean times the action scale) into the deploy bundle.

The recipe (FastTD3 / FastSAC): many parallel environments, a tanh-squashed Gaussian actor with state-dependent
std, twin Q critics with LayerNorm and clipped double-Q targets, Polyak-averaged target critics, an automatically
tuned entropy temperature, observation normalisation, several gradient steps per collected batch. How the two critics
combine is a setting (:data:`CRITIC_RULES`): clipped double Q (the default), or each critic to its own target critic
with the actor on their mean.

Episodes cut by the time limit bootstrap from the state before the reset (the observation after a reset belongs to
the next episode; Isaac Lab keeps no final observation): the same approximation RSL-RL's PPO makes with its value
function at a time-out. Terminations do not bootstrap.

With ``n_step`` > 1 the critic learns from n-step returns (FastTD3's, and the fix for slow reward propagation that
ETH's RSL-RL-SAC names): a stored transition carries ``r_t + g r_t+1 + ... + g^(m-1) r_t+m-1``, the observation
after its last step and the discount ``g^m`` its bootstrap takes, ``m`` = n or fewer where the episode ended inside
the window (:class:`NStepWindow`). As in FastTD3, no off-policy correction: the m rewards are those of the
behaviour policy, and the entropy bonus enters at the bootstrap only.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import NamedTuple

import torch
import torch.nn as nn
from rsl_rl.modules import EmpiricalNormalization
from rsl_rl.modules.distribution import HeteroscedasticGaussianDistribution
from rsl_rl.utils import resolve_class, resolve_obs_groups
from tensordict import TensorDict

_LOG2 = math.log(2.0)


class SquashedGaussianDistribution(HeteroscedasticGaussianDistribution):
    """``a = action_scale * tanh(u)``, ``u ~ N(mean, std)``, mean and log-std from the MLP (state-dependent std).

    The deterministic output (play, evaluation, export) is ``action_scale * tanh(mean)``.
    """

    def __init__(
        self,
        output_dim: int,
        init_std: float = 1.0,
        std_range: tuple[float, float] = (math.exp(-5.0), math.exp(2.0)),
        std_type: str = "log",
        action_scale: float = 1.0,
    ) -> None:
        super().__init__(output_dim, init_std=init_std, std_range=std_range, std_type=std_type)
        # a buffer: the checkpoint carries the scale it was trained with, so play, evaluation and export of a run
        # trained with another ``action_scale`` than the config's default act as it did in training
        self.register_buffer("action_scale", torch.tensor(float(action_scale)))
        self.register_load_state_dict_pre_hook(_keep_scale_if_absent)

    def sample(self) -> torch.Tensor:
        """A squashed sample (not differentiable)."""
        return self.action_scale * torch.tanh(self._distribution.sample())

    def sample_with_log_prob(self) -> tuple[torch.Tensor, torch.Tensor]:
        """A reparameterised squashed sample and its log-density, tanh and scale corrected, summed over actions."""
        u = self._distribution.rsample()
        # log(1 - tanh(u)^2) = 2 (log 2 - u - softplus(-2u)), stable for large |u|
        log_det = 2.0 * (_LOG2 - u - nn.functional.softplus(-2.0 * u)) + torch.log(self.action_scale)
        log_prob = (self._distribution.log_prob(u) - log_det).sum(dim=-1)
        return self.action_scale * torch.tanh(u), log_prob

    def log_prob(self, outputs: torch.Tensor) -> torch.Tensor:
        """Log-density of squashed actions (inverted through atanh, clamped inside the open interval)."""
        y = torch.clamp(outputs / self.action_scale, -1.0 + 1e-6, 1.0 - 1e-6)
        u = torch.atanh(y)
        log_det = torch.log(self.action_scale * (1.0 - y.square()))
        return (self._distribution.log_prob(u) - log_det).sum(dim=-1)

    def deterministic_output(self, mlp_output: torch.Tensor) -> torch.Tensor:
        return self.action_scale * torch.tanh(mlp_output[..., 0, :])

    def as_deterministic_output_module(self) -> nn.Module:
        return _SquashedMean(float(self.action_scale))

    @property
    def mean(self) -> torch.Tensor:
        """The deterministic action of the current distribution (the squashed mean)."""
        return self.action_scale * torch.tanh(self._distribution.mean)

    @property
    def entropy(self) -> torch.Tensor:
        """Entropy of the Gaussian before the squash (the squashed one has no closed form), summed."""
        return self._distribution.entropy().sum(dim=-1)


def _keep_scale_if_absent(module, state_dict, prefix, *args) -> None:
    """Checkpoints written before the scale was a buffer lack it: they keep the configured one."""
    state_dict.setdefault(prefix + "action_scale", module.action_scale.clone())


class _SquashedMean(nn.Module):
    """Exportable: ``action_scale * tanh(mean)`` from the MLP's ``[..., 2, A]`` output."""

    def __init__(self, action_scale: float) -> None:
        super().__init__()
        self.action_scale = action_scale

    def forward(self, mlp_output: torch.Tensor) -> torch.Tensor:
        return self.action_scale * torch.tanh(mlp_output[..., 0, :])


def _q_network(
    input_dim: int, hidden_dims: list[int], activation: str, layer_norm: bool, outputs: int = 1
) -> nn.Sequential:
    activation_class = {"elu": nn.ELU, "relu": nn.ReLU, "silu": nn.SiLU, "tanh": nn.Tanh}[activation]
    layers: list[nn.Module] = []
    for width in hidden_dims:
        layers.append(nn.Linear(input_dim, width))
        if layer_norm:
            layers.append(nn.LayerNorm(width))
        layers.append(activation_class())
        input_dim = width
    layers.append(nn.Linear(input_dim, outputs))
    return nn.Sequential(*layers)


def categorical_projection(values: torch.Tensor, probs: torch.Tensor, support: torch.Tensor) -> torch.Tensor:
    """C51's projection: the distribution putting mass ``probs[..., j]`` on ``values[..., j]`` (clamped to the
    support's range), spread onto the fixed, evenly spaced ``support`` by splitting each mass between its two
    neighbouring atoms in proportion to closeness. It keeps the total mass and, inside the range, the mean."""
    count = support.shape[-1]
    v_min, v_max = float(support[0]), float(support[-1])
    position = (values.clamp(v_min, v_max) - v_min) / ((v_max - v_min) / (count - 1))
    lower = position.floor().clamp(0, count - 1)
    upper_share = position - lower  # 0 where a value sits on an atom: all its mass stays there
    projected = torch.zeros_like(probs)
    projected.scatter_add_(-1, lower.long(), probs * (1.0 - upper_share))
    projected.scatter_add_(-1, (lower + 1).clamp(max=count - 1).long(), probs * upper_share)
    return projected


class CriticRule(NamedTuple):
    """How the twin critics combine: into what each critic bootstraps from, and into the Q value the actor
    maximises."""

    bootstrap: Callable[..., tuple[torch.Tensor, torch.Tensor]]
    """``(next1, next2, mean1, mean2)`` -> what critic 1 and critic 2 bootstrap from, given the two target critics'
    outputs at the next state and policy action: values ``[B]`` (scalar critics) or return distributions
    ``[B, num_atoms]`` (distributional), and their means ``[B]``. A rule returns one tensor twice when both critics
    share a target (it is then computed once)."""
    actor_value: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    """``(q1, q2)`` ``[B]`` -> the Q value ``[B]`` the actor maximises."""


def _lower_target(next1, next2, mean1, mean2) -> tuple[torch.Tensor, torch.Tensor]:
    """Clipped double Q: per sample, the target critic with the lower mean, for both critics."""
    first = mean1 <= mean2
    lower = torch.where(first.unsqueeze(-1) if next1.dim() > first.dim() else first, next1, next2)
    return lower, lower


def _own_target(next1, next2, mean1, mean2) -> tuple[torch.Tensor, torch.Tensor]:
    """Each critic bootstraps from its own target critic."""
    return next1, next2


def _mean_q(q1: torch.Tensor, q2: torch.Tensor) -> torch.Tensor:
    return 0.5 * (q1 + q2)


CRITIC_RULES: dict[str, CriticRule] = {
    "clipped": CriticRule(_lower_target, torch.minimum),
    "independent": CriticRule(_own_target, _mean_q),
}
"""``algorithm.critic_rule`` -> its rule. ``clipped``: both critics learn toward the lower target critic, the actor
maximises the lower Q (SAC's and FastTD3's clipped double Q). ``independent``: each critic learns toward its own
target critic, the actor maximises the mean Q (holosoma's FastSAC)."""


def _each(transform: Callable[[torch.Tensor], torch.Tensor], pair: tuple[torch.Tensor, torch.Tensor]):
    """``transform`` of both entries, computed once where the two are the same tensor."""
    first = transform(pair[0])
    return first, first if pair[1] is pair[0] else transform(pair[1])


class TwinQCritic(nn.Module):
    """Two Q networks ``Q(s, a)`` over the critic's observation groups (normalised) and the action."""

    ACTIVATIONS = ("elu", "relu", "silu", "tanh")

    def __init__(
        self,
        obs: TensorDict,
        obs_groups: dict[str, list[str]],
        obs_set: str,
        action_dim: int,
        hidden_dims: list[int] = (512, 256, 128),
        activation: str = "elu",
        obs_normalization: bool = True,
        layer_norm: bool = True,
        num_atoms: int = 1,
        v_min: float = -5.0,
        v_max: float = 5.0,
        distribution_cfg: None = None,
    ) -> None:
        super().__init__()
        if distribution_cfg is not None:
            raise ValueError("the Q critics are deterministic: distribution_cfg must be None")
        if activation not in self.ACTIVATIONS:
            raise ValueError(f"critic activation must be one of {self.ACTIVATIONS}, got {activation!r}")
        if num_atoms > 1 and not v_min < v_max:
            raise ValueError(f"a distributional critic needs v_min < v_max, got {v_min} and {v_max}")
        self.obs_groups = list(obs_groups[obs_set])
        self.obs_dim = sum(obs[group].shape[-1] for group in self.obs_groups)
        self.obs_normalization = obs_normalization
        self.obs_normalizer = EmpiricalNormalization(self.obs_dim) if obs_normalization else nn.Identity()
        width = self.obs_dim + action_dim
        self.q1 = _q_network(width, list(hidden_dims), activation, layer_norm, num_atoms)
        self.q2 = _q_network(width, list(hidden_dims), activation, layer_norm, num_atoms)
        self.distributional = num_atoms > 1
        if self.distributional:  # a buffer only then: scalar critics' checkpoints keep their keys
            self.register_buffer("support", torch.linspace(float(v_min), float(v_max), int(num_atoms)))

    def latent(self, obs: TensorDict) -> torch.Tensor:
        return self.obs_normalizer(torch.cat([obs[group] for group in self.obs_groups], dim=-1))

    def forward(self, obs: TensorDict, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The two Q values ``[B]``; of a distributional critic, the means of its distributions."""
        outputs = self.logits(obs, actions)
        if self.distributional:
            return tuple(self.mean(logits.softmax(-1)) for logits in outputs)
        return tuple(output.squeeze(-1) for output in outputs)

    def logits(self, obs: TensorDict, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The two networks' outputs ``[B, num_atoms]``: of a distributional critic, its two return distributions
        over ``support`` as logits."""
        x = torch.cat([self.latent(obs), actions], dim=-1)
        return self.q1(x), self.q2(x)

    def mean(self, probs: torch.Tensor) -> torch.Tensor:
        """The mean return ``[B]`` of distributions ``probs`` ``[B, num_atoms]`` over ``support``."""
        return (probs * self.support).sum(-1)

    def update_normalization(self, obs: TensorDict) -> None:
        if self.obs_normalization:
            self.obs_normalizer.update(torch.cat([obs[group] for group in self.obs_groups], dim=-1))


class ReplayBuffer:
    """A ring buffer of transitions, ``capacity`` in total over all environments, on the learner's device."""

    def __init__(self, capacity: int, obs_widths: dict[str, int], action_dim: int, device: str | torch.device):
        self.capacity = int(capacity)
        self.device = device
        self.obs = {g: torch.zeros(self.capacity, w, device=device) for g, w in obs_widths.items()}
        self.next_obs = {g: torch.zeros(self.capacity, w, device=device) for g, w in obs_widths.items()}
        self.actions = torch.zeros(self.capacity, action_dim, device=device)
        self.rewards = torch.zeros(self.capacity, device=device)
        self.terminated = torch.zeros(self.capacity, device=device)
        self.discount = torch.zeros(self.capacity, device=device)
        self.position = 0
        self.size = 0

    @property
    def nbytes(self) -> int:
        tensors = [*self.obs.values(), *self.next_obs.values(), self.actions, self.rewards, self.terminated]
        tensors.append(self.discount)
        return sum(t.nbytes for t in tensors)

    def add(self, obs: dict, actions, rewards, next_obs: dict, terminated, discount) -> None:
        """Store a batch of transitions (one per environment); the oldest are overwritten once full. ``discount``:
        the factor of the bootstrap (gamma to the number of steps the reward sums)."""
        n = actions.shape[0]
        done = 0
        while done < n:  # contiguous slices: one copy, or two where the ring wraps
            start = self.position
            count = min(n - done, self.capacity - start)
            rows, source = slice(start, start + count), slice(done, done + count)
            for group in self.obs:
                self.obs[group][rows] = obs[group][source]
                self.next_obs[group][rows] = next_obs[group][source]
            self.actions[rows] = actions[source]
            self.rewards[rows] = rewards[source]
            self.terminated[rows] = terminated[source]
            self.discount[rows] = discount[source]
            self.position = (start + count) % self.capacity
            done += count
        self.size = min(self.size + n, self.capacity)

    def sample(self, batch_size: int, generator: torch.Generator | None = None) -> dict:
        """``batch_size`` transitions drawn uniformly, with replacement, from those stored."""
        index = torch.randint(0, self.size, (batch_size,), device=self.device, generator=generator)
        obs = TensorDict({g: t[index] for g, t in self.obs.items()}, batch_size=[batch_size])
        next_obs = TensorDict({g: t[index] for g, t in self.next_obs.items()}, batch_size=[batch_size])
        return {
            "obs": obs,
            "actions": self.actions[index],
            "rewards": self.rewards[index],
            "next_obs": next_obs,
            "terminated": self.terminated[index],
            "discount": self.discount[index],
        }


class NStepWindow:
    """The last ``n`` steps of every environment. Once it holds ``n``, each new step releases the n-step transition
    of the oldest: its observation and action, ``R = sum_k g^k r_k`` over its steps up to the first episode end
    (termination or time-out) inside the window, the next observation and termination flag of that last step, and
    the discount ``g^m`` for ``m`` summed steps. All environments step together, so one window serves them all; an
    episode end only shortens the sums of the steps before it. ``n`` = 1 releases each step as it comes."""

    def __init__(self, n: int, gamma: float) -> None:
        self.n, self.gamma = int(n), float(gamma)
        self._steps: list[dict] = []

    def push(self, obs: dict, actions, rewards, next_obs: dict, terminated, ended) -> dict | None:
        """Add one step of every environment; the oldest step's n-step transition once ``n`` are held, else None.
        ``terminated``: the episode ended in a failure (no bootstrap); ``ended``: it ended at all (time-outs too)."""
        # copies: an environment may write its next step into the tensors it returned for this one
        step = {"obs": {g: t.clone() for g, t in obs.items()}, "actions": actions.clone(), "rewards": rewards.clone()}
        step |= {"next_obs": {g: t.clone() for g, t in next_obs.items()}}
        step |= {"terminated": terminated.to(torch.float32, copy=True), "ended": ended.to(torch.float32, copy=True)}
        self._steps.append(step)
        if len(self._steps) < self.n:
            return None
        steps, self._steps = self._steps, self._steps[1:]
        ended = torch.stack([s["ended"] for s in steps])  # [n, E]
        # step k is summed when no episode ended at the steps before it
        summed = torch.cumprod(torch.cat([torch.ones_like(ended[:1]), 1.0 - ended[:-1]]), dim=0)
        powers = self.gamma ** torch.arange(self.n, dtype=summed.dtype, device=summed.device)
        returns = (summed * powers.unsqueeze(-1) * torch.stack([s["rewards"] for s in steps])).sum(0)
        count = summed.sum(0)  # m in 1..n
        last = (count.long() - 1).unsqueeze(0)

        def at_last(values: torch.Tensor) -> torch.Tensor:
            index = last if values.dim() == 2 else last.unsqueeze(-1).expand(1, *values.shape[1:])
            return values.gather(0, index)[0]

        next_obs = {g: at_last(torch.stack([s["next_obs"][g] for s in steps])) for g in steps[0]["next_obs"]}
        return {
            "obs": steps[0]["obs"],
            "actions": steps[0]["actions"],
            "rewards": returns,
            "next_obs": next_obs,
            "terminated": at_last(torch.stack([s["terminated"] for s in steps])),
            "discount": self.gamma**count,
        }


def replay_memory_bytes(capacity: int, obs_widths: dict[str, int], action_dim: int) -> int:
    """Bytes of the replay buffer: float32 observation and next observation of every group, action, reward,
    termination flag and discount per transition (measured on :class:`ReplayBuffer` on PyTorch's ``meta`` device)."""
    return ReplayBuffer(capacity, obs_widths, action_dim, torch.device("meta")).nbytes


class FastSAC:
    """Soft actor-critic with the FastSAC recipe, behind RSL-RL's algorithm interface (``act``,
    ``process_env_step``, ``compute_returns``, ``update``, ``save``, ``load``, ``get_policy``). The settings have no
    defaults here: they are the agent config's (``agents/fast_sac_cfg.py``), documented there."""

    def __init__(
        self,
        actor: nn.Module,
        critic: TwinQCritic,
        *,
        num_envs: int,
        device: str,
        gamma: float,
        tau: float,
        actor_learning_rate: float,
        critic_learning_rate: float,
        alpha_lr: float,
        init_alpha: float,
        tune_alpha: bool,
        target_entropy: float | None,
        batch_size: int,
        buffer_size: int,
        learning_starts: int,
        gradient_steps: int,
        policy_frequency: int,
        max_grad_norm: float,
        n_step: int = 1,
        critic_rule: str = "clipped",
        multi_gpu_cfg: dict | None = None,
    ) -> None:
        if multi_gpu_cfg is not None:
            raise ValueError("FastSAC runs in one process (several ranks are not supported)")
        if critic_rule not in list(CRITIC_RULES):
            raise ValueError(f"critic_rule must be one of {list(CRITIC_RULES)}, got {critic_rule!r}")
        self.critic_rule = CRITIC_RULES[critic_rule]
        """How the twin critics combine in the critic targets and the actor loss (chosen once)."""
        self.device = device
        self.actor = actor
        self.critic = critic
        self.target_critic = _frozen_copy(critic)
        self.tau = tau
        self.window = NStepWindow(n_step, gamma)
        """Discounts the stored returns and their bootstraps (the update reads gamma^m from each transition)."""
        self.batch_size, self.learning_starts = batch_size, learning_starts
        self.gradient_steps, self.policy_frequency = gradient_steps, policy_frequency
        self.max_grad_norm = max_grad_norm
        self.tune_alpha = tune_alpha
        action_dim = actor.distribution.output_dim
        self.target_entropy = -float(action_dim) if target_entropy is None else float(target_entropy)
        self.log_alpha = torch.tensor(math.log(init_alpha), device=device, requires_grad=tune_alpha)
        self.actor_optimizer = torch.optim.Adam(actor.parameters(), lr=actor_learning_rate)
        self.critic_optimizer = torch.optim.Adam(critic.parameters(), lr=critic_learning_rate)
        self.alpha_optimizer = torch.optim.Adam([self.log_alpha], lr=alpha_lr) if tune_alpha else None
        self.learning_rate = actor_learning_rate
        groups = dict.fromkeys([*actor.obs_groups, *critic.obs_groups])
        self._groups = list(groups)
        self._capacity = buffer_size
        self._action_dim = action_dim
        self.buffer: ReplayBuffer | None = None
        self._obs: TensorDict | None = None
        self._actions: torch.Tensor | None = None
        self.updates = 0

    # -- collection ----------------------------------------------------------------------------------------------

    def act(self, obs: TensorDict) -> torch.Tensor:
        """A sampled action per environment; the observation is kept for the transition."""
        if self.buffer is None:
            widths = {g: obs[g].shape[-1] for g in self._groups}
            self.buffer = ReplayBuffer(self._capacity, widths, self._action_dim, self.device)
        self._obs = obs
        self._actions = self.actor(obs, stochastic_output=True)
        return self._actions

    def process_env_step(self, obs: TensorDict, rewards, dones, extras: dict) -> None:
        """Store the transition ``(s, a, r, s', terminated)`` (with n-step returns: that of the step ``n_step`` - 1
        before); time-outs bootstrap from ``s`` (module docstring)."""
        time_outs = extras.get("time_outs")
        time_outs = torch.zeros_like(dones, dtype=torch.bool) if time_outs is None else time_outs.to(self.device)
        time_outs = time_outs.bool() & dones.bool()
        terminated = dones.bool() & ~time_outs
        keep = time_outs.unsqueeze(-1)
        next_obs = {g: torch.where(keep, self._obs[g], obs[g]) for g in self._groups}
        current = {g: self._obs[g] for g in self._groups}
        transition = self.window.push(current, self._actions, rewards, next_obs, terminated, dones.bool())
        if transition is not None:
            self.buffer.add(**transition)
        self.actor.update_normalization(obs)
        self.critic.update_normalization(obs)

    def compute_returns(self, obs: TensorDict) -> None:
        """Nothing: the targets are computed per batch in :meth:`update`."""

    # -- learning ------------------------------------------------------------------------------------------------

    @property
    def alpha(self) -> float:
        return float(self.log_alpha.detach().exp())

    def _sample_policy(self, obs: TensorDict) -> tuple[torch.Tensor, torch.Tensor]:
        latent = self.actor.get_latent(obs)
        self.actor.distribution.update(self.actor.mlp(latent))
        return self.actor.distribution.sample_with_log_prob()

    def update(self) -> dict[str, float]:
        """``gradient_steps`` gradient steps on replayed batches once ``learning_starts`` transitions are stored."""
        if self.buffer is None or self.buffer.size < self.learning_starts:
            return {}
        with torch.no_grad():  # the target critics normalise as the critics do (statistics are buffers)
            for target_buffer, buffer in zip(self.target_critic.buffers(), self.critic.buffers(), strict=True):
                target_buffer.copy_(buffer)
        totals = {"critic": 0.0, "actor": 0.0, "alpha": 0.0, "entropy": 0.0, "q": 0.0}
        actor_steps = 0
        for _ in range(self.gradient_steps):
            batch = self.buffer.sample(self.batch_size)
            alpha = self.log_alpha.exp().detach()
            critic_loss, q1 = self.critic_loss(batch, alpha)
            self.critic_optimizer.zero_grad(set_to_none=True)
            critic_loss.backward()
            nn.utils.clip_grad_norm_(self.critic.parameters(), self.max_grad_norm)
            self.critic_optimizer.step()
            totals["critic"] += critic_loss.item()
            totals["q"] += q1.mean().item()

            if self.updates % self.policy_frequency == 0:
                actor_loss, log_prob = self.actor_loss(batch["obs"], alpha)
                self.actor_optimizer.zero_grad(set_to_none=True)
                actor_loss.backward()
                nn.utils.clip_grad_norm_(self.actor.parameters(), self.max_grad_norm)
                self.actor_optimizer.step()
                totals["actor"] += actor_loss.item()
                totals["entropy"] += -log_prob.mean().item()
                if self.alpha_optimizer is not None:
                    alpha_loss = -(self.log_alpha * (log_prob.detach() + self.target_entropy)).mean()
                    self.alpha_optimizer.zero_grad(set_to_none=True)
                    alpha_loss.backward()
                    self.alpha_optimizer.step()
                    totals["alpha"] += alpha_loss.item()
                actor_steps += 1
            self.updates += 1
            with torch.no_grad():
                for target_p, p in zip(self.target_critic.parameters(), self.critic.parameters(), strict=True):
                    target_p.lerp_(p, self.tau)
        n = self.gradient_steps
        return {
            "critic": totals["critic"] / n,
            "q_mean": totals["q"] / n,
            "actor": totals["actor"] / max(actor_steps, 1),
            "alpha": totals["alpha"] / max(actor_steps, 1),
            "entropy_estimate": totals["entropy"] / max(actor_steps, 1),
            "temperature": self.alpha,
        }

    @torch.no_grad()
    def critic_targets(self, batch: dict, alpha: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The soft targets of critic 1 and critic 2 for a replayed ``batch``, bootstrapped (by ``critic_rule``) from
        the target critics at the next state and a fresh policy action. Scalar critics: values ``[B]``,
        ``r + g^m (1 - d) (Q' - alpha log pi)``. Distributional critics: distributions ``[B, num_atoms]``, the
        target critic's atoms moved to ``r + g^m (1 - d) (z - alpha log pi)`` and projected back onto the support."""
        next_actions, next_log_prob = self._sample_policy(batch["next_obs"])
        bootstrap = batch["discount"] * (1.0 - batch["terminated"])
        if not self.critic.distributional:
            q1_next, q2_next = self.target_critic(batch["next_obs"], next_actions)
            sources = self.critic_rule.bootstrap(q1_next, q2_next, q1_next, q2_next)
            return _each(lambda q: batch["rewards"] + bootstrap * (q - alpha * next_log_prob), sources)
        support = self.critic.support
        p1, p2 = (logits.softmax(-1) for logits in self.target_critic.logits(batch["next_obs"], next_actions))
        sources = self.critic_rule.bootstrap(p1, p2, self.target_critic.mean(p1), self.target_critic.mean(p2))
        shift = support - alpha * next_log_prob.unsqueeze(-1)
        atoms = batch["rewards"].unsqueeze(-1) + bootstrap.unsqueeze(-1) * shift
        return _each(lambda probs: categorical_projection(atoms, probs, support), sources)

    def critic_loss(self, batch: dict, alpha: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The summed loss of each critic to its own target (:meth:`critic_targets`): squared error of scalar
        critics, cross-entropy of distributional ones. Also the first critic's Q ``[B]``, detached."""
        target1, target2 = self.critic_targets(batch, alpha)
        if not self.critic.distributional:
            q1, q2 = self.critic(batch["obs"], batch["actions"])
            return nn.functional.mse_loss(q1, target1) + nn.functional.mse_loss(q2, target2), q1.detach()
        logits1, logits2 = self.critic.logits(batch["obs"], batch["actions"])
        pairs = ((target1, logits1), (target2, logits2))
        loss = sum(-(target * logits.log_softmax(-1)).sum(-1).mean() for target, logits in pairs)
        return loss, self.critic.mean(logits1.detach().softmax(-1))

    def actor_loss(self, obs: TensorDict, alpha: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``mean(alpha log pi - Q)`` over a fresh reparameterised policy action, Q the critics' values combined by
        ``critic_rule``; also ``log pi`` ``[B]``."""
        actions, log_prob = self._sample_policy(obs)
        q1_pi, q2_pi = self.critic(obs, actions)
        return (alpha * log_prob - self.critic_rule.actor_value(q1_pi, q2_pi)).mean(), log_prob

    # -- modes, checkpoints --------------------------------------------------------------------------------------

    def train_mode(self) -> None:
        self.actor.train()
        self.critic.train()

    def eval_mode(self) -> None:
        self.actor.eval()
        self.critic.eval()

    def get_policy(self) -> nn.Module:
        return self.actor

    def save(self) -> dict:
        """RSL-RL's keys for the networks (``actor_state_dict``, ``critic_state_dict``, ``optimizer_state_dict``)
        plus the target critics, the temperature and the update count. The replay buffer is not saved (hundreds of
        MiB): a resumed run refills it and waits ``learning_starts`` transitions before it updates again."""
        return {
            "actor_state_dict": self.actor.state_dict(),
            "critic_state_dict": self.critic.state_dict(),
            "target_critic_state_dict": self.target_critic.state_dict(),
            "optimizer_state_dict": {
                "actor": self.actor_optimizer.state_dict(),
                "critic": self.critic_optimizer.state_dict(),
                "alpha": None if self.alpha_optimizer is None else self.alpha_optimizer.state_dict(),
            },
            "log_alpha": self.log_alpha.detach().clone(),
            "updates": self.updates,
        }

    def load(self, loaded_dict: dict, load_cfg: dict | None, strict: bool) -> bool:
        load_cfg = load_cfg or {"actor": True, "critic": True, "optimizer": True, "iteration": True}
        if load_cfg.get("actor"):
            self.actor.load_state_dict(loaded_dict["actor_state_dict"], strict=strict)
        if load_cfg.get("critic"):
            self.critic.load_state_dict(loaded_dict["critic_state_dict"], strict=strict)
            self.target_critic.load_state_dict(loaded_dict["target_critic_state_dict"], strict=strict)
            with torch.no_grad():
                self.log_alpha.copy_(loaded_dict["log_alpha"])
            self.updates = int(loaded_dict.get("updates", 0))
        if load_cfg.get("optimizer"):
            optimizers = loaded_dict["optimizer_state_dict"]
            self.actor_optimizer.load_state_dict(optimizers["actor"])
            self.critic_optimizer.load_state_dict(optimizers["critic"])
            if self.alpha_optimizer is not None and optimizers.get("alpha") is not None:
                self.alpha_optimizer.load_state_dict(optimizers["alpha"])
        return bool(load_cfg.get("iteration", False))

    def broadcast_parameters(self) -> None:
        raise RuntimeError("FastSAC runs in one process")

    @staticmethod
    def construct_algorithm(obs: TensorDict, env, cfg: dict, device: str) -> FastSAC:
        """Build the actor (RSL-RL's ``MLPModel`` with :class:`SquashedGaussianDistribution`), the twin critics
        and the learner from the runner config dict, as RSL-RL's PPO does from its own."""
        alg_class, alg_cfg = resolve_class(cfg["algorithm"])
        actor_class, actor_cfg = resolve_class(cfg["actor"])
        critic_class, critic_cfg = resolve_class(cfg["critic"])
        cfg["obs_groups"] = resolve_obs_groups(obs, cfg["obs_groups"], ["actor", "critic"])
        actor = actor_class(obs, cfg["obs_groups"], "actor", env.num_actions, **actor_cfg).to(device)
        critic = critic_class(obs, cfg["obs_groups"], "critic", env.num_actions, **critic_cfg).to(device)
        return alg_class(
            actor, critic, num_envs=env.num_envs, device=device, multi_gpu_cfg=cfg.get("multi_gpu"), **alg_cfg
        )


def _frozen_copy(module: nn.Module) -> nn.Module:
    target = copy.deepcopy(module)
    for parameter in target.parameters():
        parameter.requires_grad_(False)
    return target

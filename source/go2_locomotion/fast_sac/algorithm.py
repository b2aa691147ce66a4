"""The FastSAC learner behind RSL-RL's algorithm interface (:class:`FastSAC`, ``algorithm.class_name``).

Episodes cut by the time limit bootstrap from the state before the reset (Isaac Lab keeps no final observation; the
approximation RSL-RL's PPO makes at a time-out); terminations do not bootstrap. A PPO teacher (:mod:`.teacher`) may
act for the first iterations, then behaviour-clone the actor.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable

import torch
import torch.nn as nn
from rsl_rl.utils import resolve_class, resolve_obs_groups
from tensordict import TensorDict

from .critics import CRITIC_RULES, TwinQCritic, categorical_projection
from .replay import NStepWindow, ReplayBuffer
from .teacher import build_teacher


def _each(transform: Callable[[torch.Tensor], torch.Tensor], pair: tuple[torch.Tensor, torch.Tensor]):
    """``transform`` of both entries, computed once where the two are the same tensor."""
    first = transform(pair[0])
    return first, first if pair[1] is pair[0] else transform(pair[1])


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
        teacher: nn.Module | None = None,
        teacher_checkpoint: str | None = None,
        teacher_iterations: int = 0,
        teacher_action_noise_std: float = 0.0,
        behavior_cloning_steps: int = 0,
        behavior_cloning_learning_rate: float | None = None,
        critic_warmup_iterations: int = 0,
        multi_gpu_cfg: dict | None = None,
    ) -> None:
        if multi_gpu_cfg is not None:
            raise ValueError("FastSAC runs in one process (several ranks are not supported)")
        if critic_rule not in list(CRITIC_RULES):
            raise ValueError(f"critic_rule must be one of {list(CRITIC_RULES)}, got {critic_rule!r}")
        self.critic_rule = CRITIC_RULES[critic_rule]
        """How the twin critics combine in the critic targets and the actor loss (chosen once)."""
        if teacher is None and (teacher_iterations or behavior_cloning_steps):
            raise ValueError("teacher_iterations and behavior_cloning_steps need a teacher")
        self.teacher, self.teacher_checkpoint = teacher, teacher_checkpoint
        """The PPO actor that acts during the first ``teacher_iterations`` iterations (no part of :meth:`save`), and
        the checkpoint it was read from."""
        self.teacher_iterations, self.behavior_cloning_steps = int(teacher_iterations), int(behavior_cloning_steps)
        self.teacher_action_noise_std = float(teacher_action_noise_std)
        self.behavior_cloning_learning_rate = (
            actor_learning_rate if behavior_cloning_learning_rate is None else float(behavior_cloning_learning_rate)
        )
        self.critic_warmup_iterations = int(critic_warmup_iterations)
        self.iteration = 0
        """The runner's iteration being collected: :meth:`update` calls so far (from the checkpoint on a resume)."""
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
        if self.teaching:
            self._actions = self.teacher_actions(obs, self.teacher_action_noise_std)
            # the actor's distribution at these states, for RSL-RL's log of the policy's std (nothing is sampled)
            self.actor.distribution.update(self.actor.mlp(self.actor.get_latent(obs)))
        else:
            self._actions = self.actor(obs, stochastic_output=True)
        return self._actions

    @property
    def teaching(self) -> bool:
        """Whether the teacher acts in the iteration being collected (the first ``teacher_iterations``)."""
        return self.teacher is not None and self.iteration < self.teacher_iterations

    @property
    def holds_actor(self) -> bool:
        """Whether the next :meth:`update` trains the critics alone: the ``critic_warmup_iterations`` iterations
        that follow the teacher's phase (the first ones of a run without a teacher)."""
        return self.iteration < self.teacher_iterations + self.critic_warmup_iterations

    def teacher_actions(self, obs: TensorDict, noise_std: float) -> torch.Tensor:
        """The teacher's mean action plus Gaussian noise of ``noise_std`` [action units], clamped to the actor's
        range (+-``action_scale``)."""
        actions = self.teacher(obs)  # an RSL-RL model without stochastic_output: its distribution's mean
        if noise_std > 0:
            actions = actions + noise_std * torch.randn_like(actions)
        scale = self.actor.distribution.action_scale
        return actions.clamp(-scale, scale)

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
        """``gradient_steps`` gradient steps on replayed batches once ``learning_starts`` transitions are stored.
        No step while the teacher acts; at the end of its last iteration, behaviour cloning (:meth:`behavior_clone`).
        While :attr:`holds_actor`, the critics step and the actor and the temperature stay as they are."""
        teaching, holds_actor, self.iteration = self.teaching, self.holds_actor, self.iteration + 1
        if teaching:
            return self.behavior_clone() if not self.teaching and self.behavior_cloning_steps else {}
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

            if not holds_actor and self.updates % self.policy_frequency == 0:
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

    def behavior_clone(self) -> dict[str, float]:
        """``behavior_cloning_steps`` Adam steps (an optimiser of its own at ``behavior_cloning_learning_rate``) on
        ``batch_size`` replayed transitions each, of two losses added: the mean squared error between the actor's
        deterministic action and the teacher's clamped mean action (the mean), and the negative log-likelihood of the
        executed actions (the teacher's mean plus its ``teacher_action_noise_std``) under the actor's Gaussian with
        its mean held (the std), so the clone explores as the teacher's transitions in the replay did. Returns the
        first and last squared errors and the clone's last std in action units at the replayed states."""
        if self.buffer is None or self.buffer.size == 0:
            raise RuntimeError("behaviour cloning needs the teacher's transitions in the replay buffer")
        optimizer = torch.optim.Adam(self.actor.parameters(), lr=self.behavior_cloning_learning_rate)
        distribution = self.actor.distribution
        losses = []
        for _ in range(self.behavior_cloning_steps):
            batch = self.buffer.sample(self.batch_size)
            with torch.no_grad():
                target = self.teacher_actions(batch["obs"], 0.0)
            output = self.actor.mlp(self.actor.get_latent(batch["obs"]))
            mean_loss = nn.functional.mse_loss(distribution.deterministic_output(output), target)
            mean, spread = output.unbind(dim=-2)
            distribution.update(torch.stack((mean.detach(), spread), dim=-2))
            log_prob, inside = distribution.pre_squash_log_prob(batch["actions"])
            std_loss = -(log_prob * inside).sum() / inside.sum().clamp(min=1.0)
            optimizer.zero_grad(set_to_none=True)
            (mean_loss + std_loss).backward()
            nn.utils.clip_grad_norm_(self.actor.parameters(), self.max_grad_norm)
            optimizer.step()
            losses.append(mean_loss.item())
        with torch.no_grad():  # d(action)/du = action_scale (1 - tanh(mean)^2): the std in action units
            slope = distribution.action_scale * (1.0 - torch.tanh(mean).square())
            std = float((distribution.std * slope).mean())
        return {"behavior_cloning_first": losses[0], "behavior_cloning": losses[-1], "behavior_cloning_std": std}

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
        if load_cfg.get("iteration") and "iter" in loaded_dict:  # the runner continues at the next iteration
            self.iteration = int(loaded_dict["iter"]) + 1
        return bool(load_cfg.get("iteration", False))

    def broadcast_parameters(self) -> None:
        raise RuntimeError("FastSAC runs in one process")

    @staticmethod
    def construct_algorithm(obs: TensorDict, env, cfg: dict, device: str) -> FastSAC:
        """Build the actor (RSL-RL's ``MLPModel`` with :class:`SquashedGaussianDistribution`), the twin critics
        and the learner from the runner config dict, as RSL-RL's PPO does from its own; with ``teacher_iterations``
        > 0 also the teacher (``agent.teacher`` with ``teacher_checkpoint``'s actor, :func:`.teacher.build_teacher`),
        which reads the actor's observation groups."""
        alg_class, alg_cfg = resolve_class(cfg["algorithm"])
        actor_class, actor_cfg = resolve_class(cfg["actor"])
        critic_class, critic_cfg = resolve_class(cfg["critic"])
        cfg["obs_groups"] = resolve_obs_groups(obs, cfg["obs_groups"], ["actor", "critic"])
        actor = actor_class(obs, cfg["obs_groups"], "actor", env.num_actions, **actor_cfg).to(device)
        critic = critic_class(obs, cfg["obs_groups"], "critic", env.num_actions, **critic_cfg).to(device)
        teacher = None
        if alg_cfg.get("teacher_iterations", 0) > 0:
            path = alg_cfg.get("teacher_checkpoint")
            teacher = build_teacher(cfg.get("teacher"), path, obs, actor.obs_groups, env.num_actions, device)
        return alg_class(
            actor,
            critic,
            num_envs=env.num_envs,
            device=device,
            teacher=teacher,
            multi_gpu_cfg=cfg.get("multi_gpu"),
            **alg_cfg,
        )


def _frozen_copy(module: nn.Module) -> nn.Module:
    target = copy.deepcopy(module)
    for parameter in target.parameters():
        parameter.requires_grad_(False)
    return target

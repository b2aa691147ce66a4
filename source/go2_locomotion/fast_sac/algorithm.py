"""The FastSAC learner behind RSL-RL's algorithm interface (:class:`FastSAC`, ``algorithm.class_name``).

Episodes cut by the time limit bootstrap from the state before the reset (Isaac Lab keeps no final observation; the
approximation RSL-RL's PPO makes at a time-out); terminations do not bootstrap. A PPO teacher (:mod:`.teacher`) may
act for the first iterations, then behaviour-clone the actor, bound its actions (``action_bounds``), pull it toward
itself (``actor_teacher_weight``) or carry it as a residual (``residual_on_teacher``).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable

import torch
import torch.nn as nn
from rsl_rl.utils import resolve_class, resolve_obs_groups
from tensordict import TensorDict

from ..errors import UsageError
from .bounds import joint_limit_box
from .critics import CRITIC_RULES, TwinQCritic, categorical_projection
from .replay import NStepWindow, ReplayBuffer
from .teacher import build_teacher

ACTION_BOUNDS = ("scale", "teacher_percentiles", "joint_limits")
"""``algorithm.action_bounds``: ``+-action_scale``, per joint the teacher phase's action percentiles, or per joint the
robot's position limits in action units (:func:`.bounds.joint_limit_box`)."""
PERCENTILES = (0.025, 0.975)
"""The fractions of the teacher's stored actions below a joint's box and below its top (``teacher_percentiles``)."""
MIN_BOX_WIDTH = 0.1
"""The narrowest per-joint box [action units]: a joint the teacher held still (or clamped) keeps a usable squash."""
TD3_BC_ALPHA = 2.5
"""TD3+BC's normalisation ``lambda = alpha / mean|Q|`` (Fujimoto & Gu 2021, their alpha)."""
RESIDUAL_KEY = "residual_on_teacher"
"""The checkpoint key of a residual actor (:meth:`FastSAC.save`): play, evaluation and export refuse it."""


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
        actor_teacher_weight: float = 0.0,
        residual_on_teacher: bool = False,
        residual_scale: float = 0.25,
        actor_lr_warmup_steps: int = 0,
        action_bounds: str = "scale",
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
        _check_teacher_uses(teacher, actor_teacher_weight, residual_on_teacher, behavior_cloning_steps, action_bounds)
        self.actor_teacher_weight = float(actor_teacher_weight)
        self.residual_on_teacher, self.residual_scale = bool(residual_on_teacher), float(residual_scale)
        self.actor_lr_warmup_steps, self.action_bounds = int(actor_lr_warmup_steps), action_bounds
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
        if self.residual_on_teacher:
            _zero_mean_head(actor)
        if action_bounds == "teacher_percentiles" and not actor.distribution.has_box:
            # +-action_scale until the teacher's phase ends; the box's keys let play load a trained box
            scale = actor.distribution.action_scale
            actor.distribution.set_box(-scale.expand(action_dim), scale.expand(action_dim))
        self.actor_learning_rate = actor_learning_rate
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
        elif self.residual_on_teacher:
            self._actions = self._on_teacher(obs, self.actor(obs, stochastic_output=True))
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
        range (+-``action_scale``, or its per-joint box)."""
        actions = self.teacher(obs)  # an RSL-RL model without stochastic_output: its distribution's mean
        if noise_std > 0:
            actions = actions + noise_std * torch.randn_like(actions)
        return self.actor.distribution.clamp(actions)

    def _on_teacher(self, obs: TensorDict, squashed: torch.Tensor, base: torch.Tensor | None = None) -> torch.Tensor:
        """The executed action of a residual actor (``residual_on_teacher``): the teacher's clamped mean action
        (``base`` where already computed) plus ``residual_scale`` times the actor's ``squashed`` output, clamped to
        the actor's range."""
        if base is None:
            with torch.no_grad():
                base = self.teacher_actions(obs, 0.0)
        return self.actor.distribution.clamp(base + self.residual_scale * squashed)

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

    def sample_policy(self, obs: TensorDict, base: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """A reparameterised executed action and its log-density; of a residual actor, on the teacher's action
        (``base``, :meth:`_on_teacher`), with the density of the scaled correction."""
        latent = self.actor.get_latent(obs)
        self.actor.distribution.update(self.actor.mlp(latent))
        actions, log_prob = self.actor.distribution.sample_with_log_prob()
        if not self.residual_on_teacher:
            return actions, log_prob
        log_prob = log_prob - actions.shape[-1] * math.log(self.residual_scale)
        return self._on_teacher(obs, actions, base), log_prob

    def update(self) -> dict[str, float]:
        """``gradient_steps`` gradient steps on replayed batches once ``learning_starts`` transitions are stored.
        No step while the teacher acts; at the end of its last iteration, behaviour cloning (:meth:`behavior_clone`).
        While :attr:`holds_actor`, the critics step and the actor and the temperature stay as they are."""
        teaching, holds_actor, self.iteration = self.teaching, self.holds_actor, self.iteration + 1
        if teaching:
            return self._end_teaching() if not self.teaching else {}
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
                self._warm_actor_learning_rate()
                actor_loss, log_prob, terms = self.actor_objective(batch["obs"], alpha)
                for name, value in terms.items():
                    totals[name] = totals.get(name, 0.0) + value.item()
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
        losses = {
            "critic": totals["critic"] / n,
            "q_mean": totals["q"] / n,
            "actor": totals["actor"] / max(actor_steps, 1),
            "alpha": totals["alpha"] / max(actor_steps, 1),
            "entropy_estimate": totals["entropy"] / max(actor_steps, 1),
            "temperature": self.alpha,
        }
        if "actor_teacher_distance" in totals:
            losses["actor_teacher_distance"] = totals["actor_teacher_distance"] / actor_steps
        return losses

    def _end_teaching(self) -> dict[str, float]:
        """At the end of the teacher's last iteration: the per-joint box (``action_bounds``
        ``teacher_percentiles``, :meth:`fit_action_bounds`), then behaviour cloning (:meth:`behavior_clone`)."""
        logs = self.fit_action_bounds() if self.action_bounds == "teacher_percentiles" else {}
        if self.behavior_cloning_steps:
            logs |= self.behavior_clone()
        return logs

    def fit_action_bounds(self) -> dict[str, float]:
        """Map the actor's squash onto a box per joint: from the :data:`PERCENTILES` of the actions stored in the
        replay (the teacher's), at least :data:`MIN_BOX_WIDTH` wide (widened about its centre). Returns the mean
        width [action units]."""
        if self.buffer is None or self.buffer.size == 0:
            raise RuntimeError("action_bounds=teacher_percentiles needs the teacher's transitions in the replay buffer")
        low, high = percentiles(self.buffer.actions[: self.buffer.size], PERCENTILES)
        centre, half = 0.5 * (low + high), (0.5 * (high - low)).clamp(min=0.5 * MIN_BOX_WIDTH)
        self.actor.distribution.set_box(centre - half, centre + half)
        return {"action_bounds_width": float(2.0 * half.mean())}

    def _warm_actor_learning_rate(self) -> None:
        """With ``actor_lr_warmup_steps`` N: before the k-th actor step (Adam's count + 1), the actor's learning rate
        becomes ``min(k, N) / N`` of ``actor_learning_rate``."""
        if not self.actor_lr_warmup_steps:
            return
        first = next(iter(self.actor.parameters()))
        taken = int(self.actor_optimizer.state[first]["step"]) if first in self.actor_optimizer.state else 0
        fraction = min(taken + 1, self.actor_lr_warmup_steps) / self.actor_lr_warmup_steps
        self.learning_rate = self.actor_learning_rate * fraction
        for group in self.actor_optimizer.param_groups:
            group["lr"] = self.learning_rate

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
            std = float((distribution.std * distribution.squash_slope(mean)).mean())
        return {"behavior_cloning_first": losses[0], "behavior_cloning": losses[-1], "behavior_cloning_std": std}

    @torch.no_grad()
    def critic_targets(self, batch: dict, alpha: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The soft targets of critic 1 and critic 2 for a replayed ``batch``, bootstrapped (by ``critic_rule``) from
        the target critics at the next state and a fresh policy action. Scalar critics: values ``[B]``,
        ``r + g^m (1 - d) (Q' - alpha log pi)``. Distributional critics: distributions ``[B, num_atoms]``, the
        target critic's atoms moved to ``r + g^m (1 - d) (z - alpha log pi)`` and projected back onto the support."""
        next_actions, next_log_prob = self.sample_policy(batch["next_obs"])
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
        """:meth:`actor_objective`'s loss and ``log pi``."""
        loss, log_prob, _ = self.actor_objective(obs, alpha)
        return loss, log_prob

    def actor_objective(self, obs: TensorDict, alpha: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, dict]:
        """``mean(alpha log pi - Q)`` over a fresh reparameterised policy action, Q the critics' values combined by
        ``critic_rule``; also ``log pi`` ``[B]`` and the loss's other terms (detached, by log name). With
        ``actor_teacher_weight`` w > 0 (TD3+BC): ``lambda mean(alpha log pi - Q) + w d``, ``lambda = 2.5 / mean|Q|``
        (detached), ``d`` the mean squared difference between the deterministic executed action and the teacher's
        clamped mean (logged as ``actor_teacher_distance``)."""
        base = None
        if self.residual_on_teacher or self.actor_teacher_weight > 0:
            with torch.no_grad():
                base = self.teacher_actions(obs, 0.0)
        actions, log_prob = self.sample_policy(obs, base)
        q1_pi, q2_pi = self.critic(obs, actions)
        q = self.critic_rule.actor_value(q1_pi, q2_pi)
        loss = (alpha * log_prob - q).mean()
        if not self.actor_teacher_weight > 0:
            return loss, log_prob, {}
        deterministic = self.actor.distribution.mean  # of the distribution sample_policy set at these states
        if self.residual_on_teacher:
            deterministic = self._on_teacher(obs, deterministic, base)
        distance = nn.functional.mse_loss(deterministic, base)
        weight = TD3_BC_ALPHA / q.detach().abs().mean().clamp(min=1e-6)
        return (
            weight * loss + self.actor_teacher_weight * distance,
            log_prob,
            {"actor_teacher_distance": distance.detach()},
        )

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
        saved = {
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
        if self.residual_on_teacher:  # only then: checkpoints of other runs keep their keys
            saved[RESIDUAL_KEY] = {"residual_scale": self.residual_scale, "teacher_checkpoint": self.teacher_checkpoint}
        return saved

    def load(self, loaded_dict: dict, load_cfg: dict | None, strict: bool) -> bool:
        load_cfg = load_cfg or {"actor": True, "critic": True, "optimizer": True, "iteration": True}
        if load_cfg.get("actor") and "target_critic_state_dict" in loaded_dict:  # a run's state (play: the actor)
            _check_residual_matches(loaded_dict, self.residual_on_teacher)
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
        > 0, ``actor_teacher_weight`` > 0 or ``residual_on_teacher`` also the teacher (``agent.teacher`` with
        ``teacher_checkpoint``'s actor, :func:`.teacher.build_teacher`), which reads the actor's observation groups.
        With ``action_bounds`` ``"joint_limits"`` the actor's box is the robot's joint limits read from ``env``."""
        alg_class, alg_cfg = resolve_class(cfg["algorithm"])
        actor_class, actor_cfg = resolve_class(cfg["actor"])
        critic_class, critic_cfg = resolve_class(cfg["critic"])
        cfg["obs_groups"] = resolve_obs_groups(obs, cfg["obs_groups"], ["actor", "critic"])
        actor = actor_class(obs, cfg["obs_groups"], "actor", env.num_actions, **actor_cfg).to(device)
        if alg_cfg.get("action_bounds") == "joint_limits":  # known from the robot before any step: set once, here
            actor.distribution.set_box(*(end.to(device) for end in joint_limit_box(env.unwrapped)))
        critic = critic_class(obs, cfg["obs_groups"], "critic", env.num_actions, **critic_cfg).to(device)
        teacher, uses = None, _teacher_uses(alg_cfg)
        if uses:
            path = alg_cfg.get("teacher_checkpoint")
            teacher = build_teacher(cfg.get("teacher"), path, obs, actor.obs_groups, env.num_actions, device, uses)
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


def _teacher_uses(alg_cfg: dict) -> str:
    """What needs the teacher in an algorithm config (for messages), or ``""``: nothing does."""
    uses = [
        f"{name} {condition}"
        for name, condition, used in (
            ("teacher_iterations", "> 0", alg_cfg.get("teacher_iterations", 0) > 0),
            ("actor_teacher_weight", "> 0", alg_cfg.get("actor_teacher_weight", 0.0) > 0),
            ("residual_on_teacher", "True", bool(alg_cfg.get("residual_on_teacher", False))),
        )
        if used
    ]
    return ", ".join(uses)


def _check_teacher_uses(teacher, weight: float, residual: bool, cloning_steps: int, action_bounds: str) -> None:
    """The learner's refusals of settings that need a teacher or exclude each other (the preflight names them
    first, one line each)."""
    if action_bounds not in ACTION_BOUNDS:
        raise ValueError(f"action_bounds must be one of {list(ACTION_BOUNDS)}, got {action_bounds!r}")
    if teacher is None and (weight > 0 or residual):
        raise ValueError("actor_teacher_weight > 0 and residual_on_teacher need a teacher (teacher_checkpoint)")
    if residual and (cloning_steps or action_bounds != "scale"):
        raise ValueError("residual_on_teacher excludes behavior_cloning_steps > 0 and action_bounds other than 'scale'")


def _check_residual_matches(loaded_dict: dict, residual: bool) -> None:
    """A run resumes with the actor form it was trained with: a residual on the teacher, or a policy."""
    saved = bool(loaded_dict.get(RESIDUAL_KEY))
    if saved != residual:
        raise UsageError(
            f"agent.algorithm.residual_on_teacher must be {saved} to continue this checkpoint (its actor is "
            f"{'a correction to the teacher' if saved else 'a policy of its own'}), got {residual}"
        )


def _zero_mean_head(actor: nn.Module) -> None:
    """Zero the mean half of the actor's last layer (weights and biases): its squashed mean is 0 at every state."""
    last = [module for module in actor.mlp.modules() if isinstance(module, nn.Linear)][-1]
    width = actor.distribution.output_dim
    with torch.no_grad():
        last.weight[:width].zero_()
        last.bias[:width].zero_()


def percentiles(values: torch.Tensor, fractions: tuple[float, ...]) -> list[torch.Tensor]:
    """Per column of ``values`` ``[N, A]``, the value below which each fraction of the rows lies, interpolated
    linearly between order statistics (numpy's default): at ``f``, position ``f (N - 1)`` of the sorted column.
    Sorted once (``torch.quantile`` refuses inputs over 16 M elements: a GPU teacher phase holds ~50 M)."""
    ordered = values.sort(dim=0).values
    last = ordered.shape[0] - 1
    result = []
    for fraction in fractions:
        position = fraction * last
        below = math.floor(position)
        share = position - below
        result.append(ordered[below] + share * (ordered[min(below + 1, last)] - ordered[below]))
    return result

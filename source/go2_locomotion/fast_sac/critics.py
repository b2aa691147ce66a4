"""FastSAC's twin Q critics (:class:`TwinQCritic`, scalar or C51-distributional) and the rules that combine them
(:data:`CRITIC_RULES`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import torch
import torch.nn as nn
from rsl_rl.modules import EmpiricalNormalization
from tensordict import TensorDict


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

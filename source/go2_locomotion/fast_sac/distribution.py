"""The FastSAC actor's output: a tanh-squashed Gaussian with state-dependent std, an RSL-RL distribution class
(``actor.distribution_cfg.class_name``), so RSL-RL's checkpoint keys and TorchScript / ONNX exporters carry the
deterministic action ``action_scale * tanh(mean)`` into the deploy bundle."""

from __future__ import annotations

import math

import torch
import torch.nn as nn
from rsl_rl.modules.distribution import HeteroscedasticGaussianDistribution

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

    def pre_squash_log_prob(self, actions: torch.Tensor, margin: float = 1e-3) -> tuple[torch.Tensor, torch.Tensor]:
        """Per action, the log-density of ``u = atanh(actions / action_scale)`` under the current Gaussian (before the
        squash: the squash's Jacobian does not depend on the distribution), and a mask, 1 where the action lies
        inside the range by more than ``margin`` of it (an action clamped to the range's end carries no density)."""
        y = actions / self.action_scale
        inside = (y.abs() < 1.0 - margin).to(actions.dtype)
        u = torch.atanh(torch.clamp(y, -1.0 + margin, 1.0 - margin))
        return self._distribution.log_prob(u), inside

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

"""The FastSAC actor's output: a tanh-squashed Gaussian with state-dependent std, an RSL-RL distribution class
(``actor.distribution_cfg.class_name``), so RSL-RL's checkpoint keys and TorchScript / ONNX exporters carry the
deterministic action ``action_scale * tanh(mean)`` (or, with a per-joint box, ``centre + half_width * tanh(mean)``)
into the deploy bundle."""

from __future__ import annotations

import math

import torch
import torch.nn as nn
from rsl_rl.modules.distribution import HeteroscedasticGaussianDistribution

_LOG2 = math.log(2.0)
BOX_BUFFERS = ("action_low", "action_high")
"""The buffers of a per-joint box (:meth:`SquashedGaussianDistribution.set_box`): a checkpoint carries them, and an
actor built without a box takes them when it loads (play needs no ``action_bounds`` setting)."""


class SquashedGaussianDistribution(HeteroscedasticGaussianDistribution):
    """``a = action_scale * tanh(u)``, ``u ~ N(mean, std)``, mean and log-std from the MLP (state-dependent std).

    The deterministic output (play, evaluation, export) is ``action_scale * tanh(mean)``. With a per-joint box
    ``[low, high]`` (:meth:`set_box`, ``algorithm.action_bounds``) the squash maps onto it instead:
    ``a = (high + low) / 2 + (high - low) / 2 * tanh(u)``.
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

    # -- the box -----------------------------------------------------------------------------------------------

    @property
    def has_box(self) -> bool:
        """Whether the squash maps onto a per-joint box (:meth:`set_box`) rather than ``+-action_scale``."""
        return hasattr(self, "action_high")

    def set_box(self, low: torch.Tensor, high: torch.Tensor) -> None:
        """Map the squash onto the per-joint box ``[low, high]`` ``[A]`` from now on; the box is saved with the
        actor (buffers ``action_low``, ``action_high``: a checkpoint without them keeps ``+-action_scale``)."""
        for name, value in zip(BOX_BUFFERS, (low, high), strict=True):
            value = torch.as_tensor(value, dtype=self.action_scale.dtype, device=self.action_scale.device)
            self.register_buffer(name, value.detach().clone().reshape(self.output_dim))

    def _half_centre(self) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The squash's half-width (``action_scale``, or per joint) and centre (None: 0)."""
        if not self.has_box:
            return self.action_scale, None
        return 0.5 * (self.action_high - self.action_low), 0.5 * (self.action_high + self.action_low)

    def squash(self, u: torch.Tensor) -> torch.Tensor:
        """``half_width * tanh(u) + centre``: ``action_scale * tanh(u)`` without a box."""
        half, centre = self._half_centre()
        actions = half * torch.tanh(u)
        return actions if centre is None else actions + centre

    def _unsquash(self, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``y = (actions - centre) / half_width`` (tanh's output) and the half-width."""
        half, centre = self._half_centre()
        return (actions if centre is None else actions - centre) / half, half

    def clamp(self, actions: torch.Tensor) -> torch.Tensor:
        """``actions`` clamped to the squash's range: ``+-action_scale``, or the box."""
        if not self.has_box:
            return actions.clamp(-self.action_scale, self.action_scale)
        return torch.maximum(torch.minimum(actions, self.action_high), self.action_low)

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs) -> None:
        # a checkpoint trained with a box carries it: load it into an actor built without one (a resume, a test)
        if not self.has_box and all(prefix + name in state_dict for name in BOX_BUFFERS):
            self.set_box(state_dict[prefix + BOX_BUFFERS[0]], state_dict[prefix + BOX_BUFFERS[1]])
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    # -- sampling and densities --------------------------------------------------------------------------------

    def sample(self) -> torch.Tensor:
        """A squashed sample (not differentiable)."""
        return self.squash(self._distribution.sample())

    def sample_with_log_prob(self) -> tuple[torch.Tensor, torch.Tensor]:
        """A reparameterised squashed sample and its log-density, tanh and scale corrected, summed over actions."""
        u = self._distribution.rsample()
        half, _ = self._half_centre()
        # log(1 - tanh(u)^2) = 2 (log 2 - u - softplus(-2u)), stable for large |u|
        log_det = 2.0 * (_LOG2 - u - nn.functional.softplus(-2.0 * u)) + torch.log(half)
        log_prob = (self._distribution.log_prob(u) - log_det).sum(dim=-1)
        return self.squash(u), log_prob

    def log_prob(self, outputs: torch.Tensor) -> torch.Tensor:
        """Log-density of squashed actions (inverted through atanh, clamped inside the open interval)."""
        y, half = self._unsquash(outputs)
        y = torch.clamp(y, -1.0 + 1e-6, 1.0 - 1e-6)
        u = torch.atanh(y)
        log_det = torch.log(half * (1.0 - y.square()))
        return (self._distribution.log_prob(u) - log_det).sum(dim=-1)

    def pre_squash_log_prob(self, actions: torch.Tensor, margin: float = 1e-3) -> tuple[torch.Tensor, torch.Tensor]:
        """Per action, the log-density of ``u = atanh(y)`` (``y`` the action in tanh's range) under the current
        Gaussian (before the squash: the squash's Jacobian does not depend on the distribution), and a mask, 1 where
        the action lies inside the range by more than ``margin`` of it (an action clamped to the range's end carries
        no density)."""
        y, _ = self._unsquash(actions)
        inside = (y.abs() < 1.0 - margin).to(actions.dtype)
        u = torch.atanh(torch.clamp(y, -1.0 + margin, 1.0 - margin))
        return self._distribution.log_prob(u), inside

    def squash_slope(self, u: torch.Tensor) -> torch.Tensor:
        """``d(action)/du`` at ``u``: ``half_width (1 - tanh(u)^2)``."""
        half, _ = self._half_centre()
        return half * (1.0 - torch.tanh(u).square())

    def deterministic_output(self, mlp_output: torch.Tensor) -> torch.Tensor:
        return self.squash(mlp_output[..., 0, :])

    def as_deterministic_output_module(self) -> nn.Module:
        if not self.has_box:
            return _SquashedMean(float(self.action_scale))
        half, centre = self._half_centre()
        return _SquashedBoxMean(half.detach().cpu(), centre.detach().cpu())

    @property
    def mean(self) -> torch.Tensor:
        """The deterministic action of the current distribution (the squashed mean)."""
        return self.squash(self._distribution.mean)

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


class _SquashedBoxMean(nn.Module):
    """Exportable: ``centre + half_width * tanh(mean)`` per joint from the MLP's ``[..., 2, A]`` output."""

    def __init__(self, half_width: torch.Tensor, centre: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("half_width", half_width.clone())
        self.register_buffer("centre", centre.clone())

    def forward(self, mlp_output: torch.Tensor) -> torch.Tensor:
        return self.centre + self.half_width * torch.tanh(mlp_output[..., 0, :])

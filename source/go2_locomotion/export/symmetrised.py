"""A left-right symmetrised policy for export (``export.py --symmetrise``): ``1/2 (f(x) + M_a f(M_o x))``.

A policy trained with mirrored data (symmetry augmentation) is nearly, not exactly, equivariant under the Go2's
left-right mirror; what is left turns it when told to walk straight. Averaging the policy with its own mirror image
makes it exactly equivariant: ``g(M_o x) = M_a g(x)``. Measured on Unitree's go2.xml in MuJoCo, the heading drift of a
Go2-Flat fine-tuned on ``presets=real_go2`` fell from 0.020 to 0.002 rad/s, and its speed from 0.51 / 0.96 to
0.43 / 0.86 m/s at 0.5 / 1.0 (docs/robot_model.md): the averaged policy steps shorter. The mirrors are the ones the
symmetry augmentation trains with (:class:`~go2_locomotion.tasks.mdp.symmetry.Go2Mirror`).
"""

from __future__ import annotations

import torch
from torch import nn

from ..tasks.mdp.symmetry import SignedPermutation


class Symmetrised(nn.Module):
    """``inner`` (an RSL-RL export module: observation ``[N, W]`` in, actions ``[N, A]`` out) averaged with its
    mirror image: ``0.5 * (inner(x) + M_a inner(M_o x))``; ``M_o`` and ``M_a`` are signed permutations of the
    observation's and the action's columns."""

    __jit_unused_properties__ = ["input_names", "output_names"]  # the ONNX export's, not TorchScript's

    def __init__(self, inner: nn.Module, observation: SignedPermutation, action: SignedPermutation) -> None:
        super().__init__()
        self.inner = inner
        self.register_buffer("obs_index", torch.tensor(observation.index, dtype=torch.long))
        self.register_buffer("obs_sign", torch.tensor(observation.sign, dtype=torch.float32))
        self.register_buffer("act_index", torch.tensor(action.index, dtype=torch.long))
        self.register_buffer("act_sign", torch.tensor(action.sign, dtype=torch.float32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mirrored = self.inner(x[:, self.obs_index] * self.obs_sign)
        return 0.5 * (self.inner(x) + mirrored[:, self.act_index] * self.act_sign)

    @torch.jit.export
    def reset(self) -> None:
        """Nothing to reset (the MLP exports have no state); kept for the TorchScript interface."""

    @torch.jit.unused
    def get_dummy_inputs(self) -> tuple[torch.Tensor]:
        """The ONNX tracing input of the wrapped module."""
        return self.inner.get_dummy_inputs()

    @property
    def input_names(self) -> list[str]:
        return self.inner.input_names

    @property
    def output_names(self) -> list[str]:
        return self.inner.output_names

"""What the FastSAC unit tests share: observations as RSL-RL's runner hands them, and one runner iteration."""

from __future__ import annotations

import torch
from tensordict import TensorDict


def obs(values) -> TensorDict:
    """``values`` as the ``policy`` observation group of a batch of environments."""
    values = torch.as_tensor(values, dtype=torch.float32)
    return TensorDict({"policy": values}, batch_size=[values.shape[0]])


def iteration(learner, generator: torch.Generator, width: int, steps: int = 4, n: int = 16) -> dict:
    """One runner iteration on random observations of ``width`` inputs: ``steps`` steps of ``n`` environments
    collected (random rewards, no episode ends), then the update."""
    with torch.inference_mode():
        for _ in range(steps):
            learner.act(obs(torch.randn(n, width, generator=generator)))
            rewards = torch.randn(n, generator=generator)
            extras = {"time_outs": torch.zeros(n, dtype=torch.bool)}
            learner.process_env_step(obs(torch.randn(n, width, generator=generator)), rewards, torch.zeros(n), extras)
    return learner.update()

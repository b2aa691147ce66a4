"""The FastSAC learner's former home: ``go2_locomotion.training.fast_sac:FastSAC`` (and its distribution and critic
classes), as run folders saved before :mod:`go2_locomotion.fast_sac` existed name them in their ``params/agent.yaml``,
resolve to the same classes."""

from ..fast_sac import (
    CRITIC_RULES,
    CriticRule,
    FastSAC,
    NStepWindow,
    ReplayBuffer,
    SquashedGaussianDistribution,
    TwinQCritic,
    categorical_projection,
    replay_memory_bytes,
)

__all__ = [
    "CRITIC_RULES",
    "CriticRule",
    "FastSAC",
    "NStepWindow",
    "ReplayBuffer",
    "SquashedGaussianDistribution",
    "TwinQCritic",
    "categorical_projection",
    "replay_memory_bytes",
]

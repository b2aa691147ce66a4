"""FastSAC: an off-policy soft actor-critic for the Go2 tasks, an RSL-RL algorithm run by the package's runner.

RSL-RL 5.5.1 has no off-policy learner; this one plugs into its named extension points: the runner builds
:class:`FastSAC` from ``algorithm.class_name`` and runs its loop (collect ``num_steps_per_env`` steps into the replay
buffer, then ``gradient_steps`` gradient steps), the actor is RSL-RL's ``MLPModel`` with
:class:`SquashedGaussianDistribution`. The recipe (FastTD3 / FastSAC): many parallel environments, a tanh-squashed
actor, twin LayerNorm critics with Polyak targets combined by :data:`CRITIC_RULES`, a tuned entropy temperature,
several gradient steps per collected batch. Design and measurements: docs/design.md "The second learner: FastSAC".

Modules, one concept each: :mod:`.distribution` (the actor's output), :mod:`.critics`, :mod:`.replay` (buffer and
n-step window), :mod:`.teacher` (a PPO actor that acts first), :mod:`.algorithm` (the learner). The agent configs
name the classes as ``go2_locomotion.fast_sac:X``; ``go2_locomotion.training.fast_sac:X`` (runs saved before the
package existed) names the same classes.
"""

from .algorithm import FastSAC
from .critics import CRITIC_RULES, CriticRule, TwinQCritic, categorical_projection
from .distribution import SquashedGaussianDistribution
from .replay import NStepWindow, ReplayBuffer, replay_memory_bytes
from .teacher import load_teacher_state, teacher_network

__all__ = [
    "CRITIC_RULES",
    "CriticRule",
    "FastSAC",
    "NStepWindow",
    "ReplayBuffer",
    "SquashedGaussianDistribution",
    "TwinQCritic",
    "categorical_projection",
    "load_teacher_state",
    "replay_memory_bytes",
    "teacher_network",
]

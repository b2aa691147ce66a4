"""RSL-RL's PPO with a critic warm-up (:class:`Go2PPO`): for the first ``critic_warmup_iterations`` iterations of a
run, each update trains the critic alone while the actor (its weights, noise and observation normalizer) and the
learning rate stay as they are.

Why: a warm-started actor beside a fresh critic is broken by PPO's first updates, whose advantages come from an
untrained value function (docs/learning.md, *PPO fine-tuning of the student*).
"""

from __future__ import annotations

from rsl_rl.algorithms import PPO


class Go2PPO(PPO):
    """PPO whose first ``critic_warmup_iterations`` updates (counted by the run's iteration number, so a resumed run
    does not warm up again) leave the actor and the learning rate untouched: the surrogate and entropy terms have no
    gradient path, the value loss trains the critic at the configured learning rate.

    The runner tells it the iteration before each update (:attr:`iteration`); built outside the package's runner
    it stays at 0, which holds the actor for every update when ``critic_warmup_iterations`` > 0.
    """

    def __init__(self, *args, critic_warmup_iterations: int = 0, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.critic_warmup_iterations = int(critic_warmup_iterations)
        self.iteration = 0
        """The learning iteration of the next :meth:`update`, set by the runner."""

    @property
    def holds_actor(self) -> bool:
        """Whether the next :meth:`update` trains the critic alone."""
        return self.iteration < self.critic_warmup_iterations

    def update(self) -> dict[str, float]:
        if not self.holds_actor:
            return super().update()
        parameters = list(self.actor.parameters())
        trainable = [parameter.requires_grad for parameter in parameters]
        normalizer = getattr(self.actor, "obs_normalizer", None)
        normalizer_training = getattr(normalizer, "training", False)
        learning_rate = self.learning_rate
        for parameter in parameters:
            parameter.requires_grad_(False)
        if normalizer_training:
            normalizer.train(False)  # its statistics update only in training mode
        try:
            return super().update()
        finally:
            for parameter, flag in zip(parameters, trainable, strict=True):
                parameter.requires_grad_(flag)
            if normalizer_training:
                normalizer.train(True)
            # the adaptive schedule reads a KL of ~0 with the actor held and would raise the rate for nothing
            self.learning_rate = learning_rate
            for group in self.optimizer.param_groups:
                group["lr"] = learning_rate

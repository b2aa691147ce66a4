"""FastSAC's ``critic_rule`` against hand-worked numbers: the critics' soft targets (scalar and C51), the actor loss
with its entropy term and a whole update, for ``clipped`` and ``independent``; ``clipped`` (the default) against the
formulas of the learner before the rule was a setting; the preflight's refusal of an unknown rule.

The networks are fixed linear functions: critics without hidden layers (``Q = w_s s + w_a a + b``, or logits that
are the bias alone), and an actor whose last layer has zero weights, so its Gaussian has mean ``atanh(0.5)`` and
log-std ``LOG_STD`` at every state. Its "sample" is its mean (:class:`MeanAction`), so the policy action is
``tanh(atanh 0.5) = 0.5`` and ``log pi = -LOG_STD - ln(2 pi) / 2 - ln(1 - 0.5^2) = -0.5`` (``LOG_STD`` is chosen so).
With ``alpha = 0.2`` the entropy term ``alpha log pi`` is -0.1 everywhere.
"""

import math

import pytest
import torch
from isaaclab_rl.rsl_rl import check_rsl_rl_version, handle_deprecated_rsl_rl_cfg
from isaaclab_tasks.utils import resolve_presets
from rsl_rl.models import MLPModel
from tensordict import TensorDict

from go2_locomotion.agents.fast_sac_cfg import FastSacAlgorithmCfg, Go2FlatFastSacRunnerCfg
from go2_locomotion.errors import USAGE_EXIT_CODE, UsageError, exit_on_usage_error
from go2_locomotion.tasks.flat_env_cfg import Go2FlatEnvCfg
from go2_locomotion.training.fast_sac import FastSAC, ReplayBuffer, SquashedGaussianDistribution, TwinQCritic
from go2_locomotion.training.preflight import validate

GROUPS = {"actor": ["policy"], "critic": ["policy"]}
ALPHA = 0.2
LOG_STD = 0.5 - 0.5 * math.log(2 * math.pi) - math.log(0.75)
"""So that log pi = -LOG_STD - ln(2 pi) / 2 - ln(1 - tanh^2) = -0.5 at the action 0.5 (tanh^2 = 0.25)."""
LOG_PI = -0.5


class MeanAction(SquashedGaussianDistribution):
    """A test double of the actor's distribution: noise 0. The "sample" is the squashed mean, with the log-density
    the squashed Gaussian gives it (differentiable through the mean)."""

    def sample(self) -> torch.Tensor:
        return self.mean

    def sample_with_log_prob(self) -> tuple[torch.Tensor, torch.Tensor]:
        actions = self.mean
        return actions, self.log_prob(actions)


def _obs(values) -> TensorDict:
    values = torch.as_tensor(values, dtype=torch.float32)
    return TensorDict({"policy": values}, batch_size=[values.shape[0]])


def _set_linear(layer: torch.nn.Linear, weight, bias) -> None:
    with torch.no_grad():
        layer.weight.copy_(torch.as_tensor(weight, dtype=torch.float32).reshape(layer.weight.shape))
        layer.bias.copy_(torch.as_tensor(bias, dtype=torch.float32))


def _learner(rule=None, atoms=None, designed=True) -> FastSAC:
    """One observation, one action; ``rule`` None keeps the config's default. ``atoms``: ``(num_atoms, v_min,
    v_max)`` of distributional critics. ``designed``: the fixed actor of the module docstring and linear critics (to
    be set); else a randomly initialised squashed Gaussian actor and critics with a hidden layer. Learning rates ~0:
    an update leaves the networks as they are."""
    obs = _obs(torch.zeros(1, 1))
    distribution = {"class_name": MeanAction if designed else SquashedGaussianDistribution, "action_scale": 1.0}
    actor = MLPModel(obs, GROUPS, "actor", 1, [4], "elu", False, distribution)
    if designed:
        last = [m for m in actor.mlp.modules() if isinstance(m, torch.nn.Linear)][-1]
        _set_linear(last, torch.zeros(2, 4), [math.atanh(0.5), LOG_STD])  # [mean, log std] at every state
    support = {} if atoms is None else dict(zip(("num_atoms", "v_min", "v_max"), atoms, strict=True))
    critic = TwinQCritic(obs, GROUPS, "critic", 1, [] if designed else [8], "elu", False, False, **support)
    frozen = {"critic_learning_rate": 1e-12, "actor_learning_rate": 1e-12, "alpha_lr": 1e-12}
    settings = FastSacAlgorithmCfg(batch_size=2, buffer_size=4, learning_starts=1, gradient_steps=1).to_dict()
    settings.update(frozen)
    settings.pop("class_name")
    if rule is not None:
        settings["critic_rule"] = rule
    learner = FastSAC(actor, critic, num_envs=1, device="cpu", **settings)
    with torch.no_grad():
        learner.log_alpha.fill_(math.log(ALPHA))
    return learner


def _policy_is_as_designed(learner: FastSAC) -> None:
    with torch.no_grad():
        learner.actor.distribution.update(learner.actor.mlp(learner.actor.get_latent(_obs([[1.0], [2.0]]))))
        actions, log_prob = learner.actor.distribution.sample_with_log_prob()
    assert actions[:, 0].tolist() == pytest.approx([0.5, 0.5], abs=1e-6)
    assert log_prob.tolist() == pytest.approx([LOG_PI, LOG_PI], abs=1e-5)


# -- scalar critics ----------------------------------------------------------------------------------------------


def _scalar_learner(rule=None) -> FastSAC:
    """Q = w_s s + w_a a + b, input [s, a]:
    critic 1: s + a;        critic 2: 2 a + 2
    target 1: s + 2 a;      target 2: 0.5 s + 1"""
    learner = _learner(rule)
    _set_linear(learner.critic.q1[-1], [1.0, 1.0], [0.0])
    _set_linear(learner.critic.q2[-1], [0.0, 2.0], [2.0])
    _set_linear(learner.target_critic.q1[-1], [1.0, 2.0], [0.0])
    _set_linear(learner.target_critic.q2[-1], [0.5, 0.0], [1.0])
    _policy_is_as_designed(learner)
    return learner


def _batch(rewards, discount, terminated, obs=1.0, actions=-0.5, next_obs=2.0) -> dict:
    n = len(rewards)
    return {
        "obs": _obs([[obs]] * n),
        "actions": torch.full((n, 1), actions),
        "rewards": torch.tensor(rewards),
        "next_obs": _obs([[next_obs]] * n),
        "terminated": torch.tensor(terminated, dtype=torch.float32),
        "discount": torch.tensor(discount),
    }


# Next state s' = 2, policy action a' = 0.5: target 1 = 2 + 2 x 0.5 = 3.0, target 2 = 0.5 x 2 + 1 = 2.0.
# Soft values Q' - alpha log pi = Q' - 0.2 x (-0.5) = Q' + 0.1: 3.1 and 2.1.
# Sample 0: r = 0.3, discount 0.9, running on. Sample 1: r = -1, terminated (no bootstrap): target -1 either way.
SCALAR_TARGETS = {
    # min(3.1, 2.1) = 2.1 for both critics: 0.3 + 0.9 x 2.1 = 2.19
    "clipped": ([0.3 + 0.9 * 2.1, -1.0], [0.3 + 0.9 * 2.1, -1.0]),
    # critic 1 from target 1: 0.3 + 0.9 x 3.1 = 3.09; critic 2 from target 2: 2.19
    "independent": ([0.3 + 0.9 * 3.1, -1.0], [0.3 + 0.9 * 2.1, -1.0]),
}


@pytest.mark.parametrize("rule", ["clipped", "independent"])
def test_scalar_targets_worked_by_hand(rule):
    learner = _scalar_learner(rule)
    batch = _batch([0.3, -1.0], [0.9, 0.9], [0, 1])
    target1, target2 = learner.critic_targets(batch, torch.tensor(ALPHA))
    assert target1.tolist() == pytest.approx(SCALAR_TARGETS[rule][0], abs=1e-5)
    assert target2.tolist() == pytest.approx(SCALAR_TARGETS[rule][1], abs=1e-5)


# At s = 1 and the policy action 0.5: critic 1 = 1 + 0.5 = 1.5, critic 2 = 2 x 0.5 + 2 = 3.0.
# Actor loss = alpha log pi - Q = 0.2 x (-0.5) - Q = -0.1 - Q.
ACTOR_LOSS = {
    "clipped": -0.1 - 1.5,  # Q = min(1.5, 3.0)
    "independent": -0.1 - (1.5 + 3.0) / 2,  # Q = mean = 2.25
}


@pytest.mark.parametrize("rule", ["clipped", "independent"])
def test_actor_loss_worked_by_hand(rule):
    learner = _scalar_learner(rule)
    loss, log_prob = learner.actor_loss(_obs([[1.0], [1.0]]), torch.tensor(ALPHA))
    assert loss.item() == pytest.approx(ACTOR_LOSS[rule], abs=1e-5)
    assert log_prob.tolist() == pytest.approx([LOG_PI, LOG_PI], abs=1e-5)


# One stored transition (s = 1, a = -0.5, r = 0.3, s' = 2, discount 0.9), replayed twice.
# Critics at the stored action: critic 1 = 1 - 0.5 = 0.5, critic 2 = 2 x (-0.5) + 2 = 1.0.
UPDATE_CRITIC_LOSS = {
    # (0.5 - 2.19)^2 + (1.0 - 2.19)^2 = 2.8561 + 1.4161
    "clipped": 2.8561 + 1.4161,
    # (0.5 - 3.09)^2 + (1.0 - 2.19)^2 = 6.7081 + 1.4161 (swapped targets would give 2.8561 + 4.3681)
    "independent": 6.7081 + 1.4161,
}


@pytest.mark.parametrize("rule", ["clipped", "independent"])
def test_an_update_reports_the_losses_worked_by_hand(rule):
    learner = _scalar_learner(rule)
    learner.buffer = ReplayBuffer(1, {"policy": 1}, 1, "cpu")
    one = torch.ones(1)
    learner.buffer.add(
        {"policy": one[:, None]}, -0.5 * one[:, None], 0.3 * one, {"policy": 2 * one[:, None]}, 0 * one, 0.9 * one
    )
    report = learner.update()
    assert report["critic"] == pytest.approx(UPDATE_CRITIC_LOSS[rule], abs=1e-4)
    assert report["actor"] == pytest.approx(ACTOR_LOSS[rule], abs=1e-4)
    assert report["entropy_estimate"] == pytest.approx(-LOG_PI, abs=1e-5)
    assert report["q_mean"] == pytest.approx(0.5, abs=1e-5)  # critic 1 at the stored action


# -- distributional critics ----------------------------------------------------------------------------------------

SUPPORT = (4, -1.0, 2.0)
"""Atoms z = -1, 0, 1, 2."""


def _distributional_learner(rule=None) -> FastSAC:
    """Logits = bias (zero weights): every critic has one distribution over z = -1, 0, 1, 2 at every input.
    target 1: [0.1, 0.2, 0.3, 0.4], mean -0.1 + 0.3 + 0.8 = 1.0
    target 2: [0.4, 0.3, 0.2, 0.1], mean -0.4 + 0.2 + 0.2 = 0.0 (the lower)
    critic 1: [0.1, 0.2, 0.3, 0.4], mean 1.0
    critic 2: [0.1, 0.1, 0.1, 0.7], mean -0.1 + 0.1 + 1.4 = 1.4"""
    learner = _learner(rule, atoms=SUPPORT)
    for network, probs in (
        (learner.target_critic.q1, [0.1, 0.2, 0.3, 0.4]),
        (learner.target_critic.q2, [0.4, 0.3, 0.2, 0.1]),
        (learner.critic.q1, [0.1, 0.2, 0.3, 0.4]),
        (learner.critic.q2, [0.1, 0.1, 0.1, 0.7]),
    ):
        _set_linear(network[-1], torch.zeros(4, 2), torch.tensor(probs).log())
    _policy_is_as_designed(learner)
    return learner


# Sample 0: r = 0.45, discount 0.5, running on. Atoms move to r + 0.5 (z - alpha log pi) = 0.45 + 0.5 (z + 0.1)
# = 0.5 + 0.5 z: -1 -> 0.0 (all on atom 0), 0 -> 0.5 (half on 0, half on 1), 1 -> 1.0 (on 1), 2 -> 1.5 (half on 1,
# half on 2). Projected [q0, q1, q2, q3] = [0, q0 + q1/2, q1/2 + q2 + q3/2, q3/2]:
#   target 1 [0.1, 0.2, 0.3, 0.4] -> [0, 0.1 + 0.1, 0.1 + 0.3 + 0.2, 0.2] = [0, 0.2, 0.6, 0.2]
#   target 2 [0.4, 0.3, 0.2, 0.1] -> [0, 0.4 + 0.15, 0.15 + 0.2 + 0.05, 0.05] = [0, 0.55, 0.4, 0.05]
# Sample 1: r = 0.45, terminated: every atom at 0.45, 0.55 on 0 and 0.45 on 1, whatever the distribution.
FROM_TARGET_1 = [0.0, 0.2, 0.6, 0.2]
FROM_TARGET_2 = [0.0, 0.55, 0.4, 0.05]
TERMINAL = [0.0, 0.55, 0.45, 0.0]
DISTRIBUTIONAL_TARGETS = {
    "clipped": (FROM_TARGET_2, FROM_TARGET_2),  # target 2 has the lower mean: both critics learn toward it
    "independent": (FROM_TARGET_1, FROM_TARGET_2),
}


@pytest.mark.parametrize("rule", ["clipped", "independent"])
def test_distributional_targets_worked_by_hand(rule):
    learner = _distributional_learner(rule)
    batch = _batch([0.45, 0.45], [0.5, 0.5], [0, 1])
    targets = learner.critic_targets(batch, torch.tensor(ALPHA))
    for target, expected in zip(targets, DISTRIBUTIONAL_TARGETS[rule], strict=True):
        assert target[0].tolist() == pytest.approx(expected, abs=1e-5)
        assert target[1].tolist() == pytest.approx(TERMINAL, abs=1e-5)


def _cross_entropy(target, probs) -> float:
    return -sum(t * math.log(p) for t, p in zip(target, probs, strict=True))


@pytest.mark.parametrize("rule", ["clipped", "independent"])
def test_distributional_update_worked_by_hand(rule):
    """Critic loss: each critic's cross-entropy to its target; actor loss: -0.1 - Q, Q from the critics' means
    1.0 and 1.4 (clipped: the lower, 1.0; independent: the mean, 1.2)."""
    learner = _distributional_learner(rule)
    learner.buffer = ReplayBuffer(1, {"policy": 1}, 1, "cpu")
    one = torch.ones(1)
    learner.buffer.add(
        {"policy": one[:, None]}, -0.5 * one[:, None], 0.45 * one, {"policy": one[:, None]}, 0 * one, 0.5 * one
    )
    report = learner.update()
    target1, target2 = DISTRIBUTIONAL_TARGETS[rule]
    critic1, critic2 = [0.1, 0.2, 0.3, 0.4], [0.1, 0.1, 0.1, 0.7]
    expected = _cross_entropy(target1, critic1) + _cross_entropy(target2, critic2)
    assert report["critic"] == pytest.approx(expected, abs=1e-4)
    assert report["actor"] == pytest.approx({"clipped": -0.1 - 1.0, "independent": -0.1 - 1.2}[rule], abs=1e-4)


# -- clipped is the behaviour before the setting -------------------------------------------------------------------


def test_the_default_is_the_clipped_double_q_of_before_on_random_networks():
    """With the config's default rule and random networks (random policy noise too), the targets and the actor loss
    equal the formulas of the learner before ``critic_rule`` existed: min of the target critics (scalar), the
    target distribution with the lower mean (C51), min of the critics in the actor loss."""
    for atoms in (None, (11, -2.0, 3.0)):
        torch.manual_seed(0)
        learner = _learner(atoms=atoms, designed=False)
        with torch.no_grad():  # target critics unlike the critics (a copy of them at the start)
            for parameter in learner.target_critic.parameters():
                parameter.add_(torch.randn_like(parameter))
        batch = _batch([0.3, -0.2, 0.1], [0.9, 0.81, 0.9], [0, 0, 1])
        batch["obs"], batch["next_obs"] = _obs(torch.randn(3, 1)), _obs(torch.randn(3, 1))
        alpha = torch.tensor(ALPHA)

        state = torch.get_rng_state()
        target1, target2 = learner.critic_targets(batch, alpha)
        torch.set_rng_state(state)  # the same policy noise, replayed for the formulas of before
        with torch.no_grad():
            learner.actor.distribution.update(learner.actor.mlp(learner.actor.get_latent(batch["next_obs"])))
            next_actions, next_log_prob = learner.actor.distribution.sample_with_log_prob()
            bootstrap = batch["discount"] * (1.0 - batch["terminated"])
            if atoms is None:
                q1, q2 = learner.target_critic(batch["next_obs"], next_actions)
                before = batch["rewards"] + bootstrap * (torch.min(q1, q2) - alpha * next_log_prob)
            else:
                support = learner.critic.support
                p1, p2 = (x.softmax(-1) for x in learner.target_critic.logits(batch["next_obs"], next_actions))
                lower_first = ((p1 * support).sum(-1) <= (p2 * support).sum(-1)).unsqueeze(-1)
                atoms_moved = batch["rewards"][:, None] + bootstrap[:, None] * (
                    support - alpha * next_log_prob[:, None]
                )
                before = _project(atoms_moved, torch.where(lower_first, p1, p2), support)
        torch.testing.assert_close(target1, before)
        torch.testing.assert_close(target2, before)

        state = torch.get_rng_state()
        loss, _ = learner.actor_loss(batch["obs"], alpha)
        torch.set_rng_state(state)
        learner.actor.distribution.update(learner.actor.mlp(learner.actor.get_latent(batch["obs"])))
        actions, log_prob = learner.actor.distribution.sample_with_log_prob()
        q1, q2 = learner.critic(batch["obs"], actions)
        torch.testing.assert_close(loss.detach(), (alpha * log_prob - torch.min(q1, q2)).mean().detach())


def _project(values: torch.Tensor, probs: torch.Tensor, support: torch.Tensor) -> torch.Tensor:
    """C51's projection written out per atom: each mass split between its two neighbouring atoms."""
    low, high, count = float(support[0]), float(support[-1]), support.shape[0]
    spacing = (high - low) / (count - 1)
    projected = torch.zeros_like(probs)
    for row in range(values.shape[0]):
        for j in range(count):
            position = (float(values[row, j].clamp(low, high)) - low) / spacing
            below = min(math.floor(position), count - 1)
            share = position - below
            projected[row, below] += probs[row, j] * (1 - share)
            projected[row, min(below + 1, count - 1)] += probs[row, j] * share
    return projected


# -- the setting -----------------------------------------------------------------------------------------------------


def test_the_learner_refuses_an_unknown_rule():
    with pytest.raises(ValueError, match=r"critic_rule must be one of \['clipped', 'independent'\], got 'min'"):
        _learner("min")


def _cfgs():
    env = Go2FlatEnvCfg()
    env.sim.device = "cpu"
    agent = handle_deprecated_rsl_rl_cfg(resolve_presets(Go2FlatFastSacRunnerCfg(), ("cpu",)), check_rsl_rl_version())
    return env, agent


@pytest.mark.parametrize("rule", ["clipped", "independent"])
def test_the_preflight_accepts_both_rules(rule):
    env, agent = _cfgs()
    agent.algorithm.critic_rule = rule
    assert validate(env, agent) == []


@pytest.mark.parametrize("value", ["mean", "Clipped", "", None, 1, ["clipped"]])
def test_the_preflight_refuses_any_other_rule_by_name(value, capsys):
    env, agent = _cfgs()
    agent.algorithm.critic_rule = value
    problems = validate(env, agent)
    assert problems == [f"agent.algorithm.critic_rule must be one of ['clipped', 'independent'], got {value!r}"]

    def train() -> int:  # as scripts/train.py turns the preflight's problems into its exit
        raise UsageError(*problems)

    assert exit_on_usage_error(train) == USAGE_EXIT_CODE
    assert capsys.readouterr().err == f"error: {problems[0]}\n"

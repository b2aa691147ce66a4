"""FastSAC without a simulator: the squashed Gaussian's densities and exported action against hand-worked values,
the replay buffer's ring and size, the learner's update rules (clipped double-Q target, Polyak step, time-out
bootstrapping, learning_starts), a toy problem it must solve, checkpoints, and the preflight's named domains."""

import math

import numpy as np
import pytest
import torch
from isaaclab_rl.rsl_rl import check_rsl_rl_version, handle_deprecated_rsl_rl_cfg
from isaaclab_tasks.utils import resolve_presets
from rsl_rl.models import MLPModel
from rsl_rl.utils import resolve_callable
from tensordict import TensorDict

from go2_locomotion.agents.fast_sac_cfg import FastSacAlgorithmCfg, Go2FlatFastSacRunnerCfg, Go2RoughFastSacRunnerCfg
from go2_locomotion.dotted import assign
from go2_locomotion.tasks.flat_env_cfg import Go2FlatEnvCfg
from go2_locomotion.tasks.velocity_env_cfg import Go2RoughEnvCfg
from go2_locomotion.training import fast_sac
from go2_locomotion.training.fast_sac import FastSAC, ReplayBuffer, SquashedGaussianDistribution, TwinQCritic
from go2_locomotion.training.preflight import ReplayGeometry, is_fast_sac, validate

GROUPS = {"actor": ["policy"], "critic": ["policy"]}


def _obs(values) -> TensorDict:
    values = torch.as_tensor(values, dtype=torch.float32)
    return TensorDict({"policy": values}, batch_size=[values.shape[0]])


def _learner(width=3, actions=2, num_envs=4, scale=1.0, atoms=None, **kwargs) -> FastSAC:
    """A small learner; ``atoms``: ``(num_atoms, v_min, v_max)`` of a distributional critic."""
    obs = _obs(torch.zeros(num_envs, width))
    distribution = {"class_name": fast_sac.__name__ + ":SquashedGaussianDistribution", "action_scale": scale}
    actor = MLPModel(obs, GROUPS, "actor", actions, [32, 32], "elu", False, distribution)
    support = {} if atoms is None else dict(zip(("num_atoms", "v_min", "v_max"), atoms, strict=True))
    critic = TwinQCritic(obs, GROUPS, "critic", actions, [32, 32], "elu", False, True, **support)
    defaults = FastSacAlgorithmCfg(batch_size=8, buffer_size=64, learning_starts=1, gradient_steps=1).to_dict()
    settings = {**defaults, **kwargs}
    settings.pop("class_name")
    return FastSAC(actor, critic, num_envs=num_envs, device="cpu", **settings)


# -- the squashed Gaussian -------------------------------------------------------------------------------------


def _distribution(mean, log_std, scale):
    d = SquashedGaussianDistribution(len(mean), std_type="log", action_scale=scale)
    d.update(torch.tensor([[mean, log_std]], dtype=torch.float32))
    return d


def test_log_prob_is_the_change_of_variables_worked_by_hand():
    # one action, u ~ N(0.3, e^-0.5), a = 2 tanh(u); at u = 0.7: a = 2 tanh(0.7)
    d = _distribution([0.3], [-0.5], 2.0)
    sigma = math.exp(-0.5)
    u = 0.7
    log_normal = -0.5 * ((u - 0.3) / sigma) ** 2 - math.log(sigma) - 0.5 * math.log(2 * math.pi)
    expected = log_normal - math.log(2.0 * (1 - math.tanh(u) ** 2))
    a = torch.tensor([[2.0 * math.tanh(u)]])
    assert d.log_prob(a).item() == pytest.approx(expected, abs=1e-4)


def test_reparameterised_sample_carries_its_own_log_prob_and_gradient():
    torch.manual_seed(0)
    mean = torch.tensor([[0.2, -1.0, 3.0]], requires_grad=True)
    d = SquashedGaussianDistribution(3, std_type="log", action_scale=4.0)
    d.update(torch.stack([mean, torch.full((1, 3), -1.0)], dim=-2))
    actions, log_prob = d.sample_with_log_prob()
    assert actions.abs().max() < 4.0
    # the same density through the atanh inversion (away from the edges, where atanh is exact enough)
    assert log_prob.item() == pytest.approx(d.log_prob(actions).item(), abs=1e-3)
    actions.sum().backward()
    assert mean.grad is not None and (mean.grad > 0).all()  # a = 4 tanh(mean + std eps) rises with the mean


def test_deterministic_action_is_the_squashed_mean_times_the_scale_also_when_exported():
    d = _distribution([0.0, 0.5, -3.0], [0.0, 0.0, 0.0], 4.0)
    raw = torch.tensor([[[0.0, 0.5, -3.0], [0.0, 0.0, 0.0]]])
    expected = torch.tensor([[0.0, 4 * math.tanh(0.5), 4 * math.tanh(-3.0)]])
    torch.testing.assert_close(d.deterministic_output(raw), expected)
    torch.testing.assert_close(d.as_deterministic_output_module()(raw), expected)
    scripted = torch.jit.script(d.as_deterministic_output_module())
    torch.testing.assert_close(scripted(raw), expected)


def test_samples_stay_inside_the_action_scale():
    torch.manual_seed(1)
    d = SquashedGaussianDistribution(12, std_type="log", action_scale=4.0)
    d.update(torch.stack([torch.full((1000, 12), 5.0), torch.full((1000, 12), 1.0)], dim=-2))
    a = d.sample()
    assert a.abs().max() <= 4.0 and a.mean() > 3.0  # squashed towards the bound, never past it


# -- critics and buffer ------------------------------------------------------------------------------------------


def test_twin_critics_have_layer_norm_and_differ():
    torch.manual_seed(0)
    critic = TwinQCritic(_obs(torch.zeros(2, 5)), GROUPS, "critic", 3, [16, 8], "elu", True, True)
    norms = [m for m in critic.q1 if isinstance(m, torch.nn.LayerNorm)]
    assert [n.normalized_shape for n in norms] == [(16,), (8,)]
    q1, q2 = critic(_obs(torch.randn(4, 5)), torch.randn(4, 3))
    assert q1.shape == q2.shape == (4,) and not torch.allclose(q1, q2)


def test_categorical_projection_worked_by_hand():
    """Support -1, 0, 1. Mass 0.2 at 0.5 splits evenly between 0 and 1; 0.3 at 2.0 is clamped onto 1; 0.5 at -0.25
    goes 1/4 to -1 and 3/4 to 0. Mass and (inside the range) the mean are kept."""
    support = torch.tensor([-1.0, 0.0, 1.0])
    values, probs = torch.tensor([[0.5, 2.0, -0.25]]), torch.tensor([[0.2, 0.3, 0.5]])
    projected = fast_sac.categorical_projection(values, probs, support)
    assert projected[0].tolist() == pytest.approx([0.125, 0.475, 0.4])
    assert float((projected * support).sum()) == pytest.approx(0.2 * 0.5 + 0.3 * 1.0 + 0.5 * -0.25)
    on_atoms = fast_sac.categorical_projection(support.repeat(2, 1), torch.full((2, 3), 1 / 3), support)
    torch.testing.assert_close(on_atoms, torch.full((2, 3), 1 / 3))


def test_distributional_critic_outputs_the_means_of_its_distributions():
    torch.manual_seed(0)
    critic = TwinQCritic(_obs(torch.zeros(2, 5)), GROUPS, "critic", 3, [16], "elu", False, True, 11, -2.0, 3.0)
    obs, actions = _obs(torch.randn(4, 5)), torch.randn(4, 3)
    logits1, logits2 = critic.logits(obs, actions)
    assert logits1.shape == logits2.shape == (4, 11)
    q1, q2 = critic(obs, actions)
    atoms = torch.linspace(-2.0, 3.0, 11)
    torch.testing.assert_close(q1, (logits1.softmax(-1) * atoms).sum(-1))
    torch.testing.assert_close(q2, (logits2.softmax(-1) * atoms).sum(-1))
    assert "support" in critic.state_dict() and "support" not in _learner().critic.state_dict()
    with pytest.raises(ValueError, match="v_min < v_max"):
        TwinQCritic(_obs(torch.zeros(2, 5)), GROUPS, "critic", 3, [16], "elu", False, True, 11, 1.0, 1.0)


def test_replay_buffer_ring_and_memory():
    buffer = ReplayBuffer(5, {"policy": 2}, 1, "cpu")
    for step in range(3):  # 3 batches of 2 transitions into 5 slots: the first one is overwritten
        value = torch.tensor([[10.0 * step], [10.0 * step + 1]])
        obs = {"policy": value.repeat(1, 2)}
        buffer.add(obs, value, value[:, 0], obs, value[:, 0], value[:, 0])
    assert buffer.size == 5 and buffer.position == 1
    assert buffer.actions[:, 0].tolist() == [21.0, 1.0, 10.0, 11.0, 20.0]
    batch = buffer.sample(200, torch.Generator().manual_seed(0))
    assert set(batch["actions"][:, 0].tolist()) == {1.0, 10.0, 11.0, 20.0, 21.0}
    # per transition: observation and next observation 2 x 2 floats + action 1 + reward 1 + termination 1 + discount 1
    assert buffer.nbytes == 5 * (4 + 1 + 1 + 1 + 1) * 4
    assert fast_sac.replay_memory_bytes(1_000_000, {"policy": 50}, 12) == 1_000_000 * (100 + 12 + 3) * 4


# -- the learner -------------------------------------------------------------------------------------------------


def _step(learner, obs, next_obs, rewards, dones, time_outs):
    with torch.inference_mode():
        learner.act(_obs(obs))
        extras = {"time_outs": torch.tensor(time_outs)}
        learner.process_env_step(_obs(next_obs), torch.tensor(rewards), torch.tensor(dones), extras)


def test_time_outs_bootstrap_from_the_state_before_the_reset_and_terminations_do_not():
    learner = _learner(width=1, num_envs=3)
    # env 0 runs on, env 1 terminates, env 2 hits the time limit (both got the reset's observation 9)
    _step(learner, [[1.0], [2.0], [3.0]], [[4.0], [9.0], [9.0]], [0.1, 0.2, 0.3], [0, 1, 1], [False, False, True])
    buffer = learner.buffer
    assert buffer.next_obs["policy"][:3, 0].tolist() == [4.0, 9.0, 3.0]
    assert buffer.terminated[:3].tolist() == [0.0, 1.0, 0.0]
    assert buffer.rewards[:3].tolist() == pytest.approx([0.1, 0.2, 0.3])


def test_n_step_returns_sum_until_the_episode_ends_worked_by_hand():
    """n = 3, gamma 0.5, three environments over four steps (observation = 10 x step + env). Env 0 runs on, env 1
    terminates at step 1, env 2 times out at step 2 (bootstrapping from its observation there, 22)."""
    learner = _learner(width=1, num_envs=3, gamma=0.5, n_step=3)
    rewards = [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [4.0, 4.0, 4.0], [8.0, 8.0, 8.0]]
    dones = [[0, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]]
    time_outs = [[False] * 3, [False] * 3, [False, False, True], [False] * 3]
    for t in range(4):
        obs = [[10.0 * t + e] for e in range(3)]
        next_obs = [[10.0 * (t + 1) + e] for e in range(3)]
        _step(learner, obs, next_obs, rewards[t], dones[t], time_outs[t])
        assert learner.buffer.size == max(0, t - 1) * 3  # a step's transition leaves the window two steps later
    b = learner.buffer
    assert b.obs["policy"][:6, 0].tolist() == [0, 1, 2, 10, 11, 12]
    # step 0: env 0 sums 1 + 2/2 + 4/4 and bootstraps at step 2's next observation (30) with 0.5^3;
    # env 1 sums 1 + 2/2 and ends in its failure at step 1; env 2 sums all three, ending in its time-out at step 2
    # step 1: env 0 sums 2 + 4/2 + 8/4; env 1 terminated: 2 alone; env 2: 2 + 4/2, bootstrap from 22 with 0.5^2
    assert b.rewards[:6].tolist() == pytest.approx([3.0, 2.0, 3.0, 6.0, 2.0, 4.0])
    assert b.next_obs["policy"][:6, 0].tolist() == [30, 21, 22, 40, 21, 22]
    assert b.terminated[:6].tolist() == [0, 1, 0, 0, 1, 0]
    assert b.discount[:6].tolist() == pytest.approx([0.125, 0.25, 0.125, 0.125, 0.5, 0.25])


def test_one_step_window_stores_each_step_as_it_comes():
    learner = _learner(width=1, num_envs=2, gamma=0.5)
    _step(learner, [[1.0], [2.0]], [[3.0], [4.0]], [1.0, 2.0], [0, 1], [False, False])
    b = learner.buffer
    assert b.size == 2 and b.rewards[:2].tolist() == [1.0, 2.0] and b.discount[:2].tolist() == [0.5, 0.5]


def test_no_update_before_learning_starts():
    learner = _learner(num_envs=4, learning_starts=8)
    before = [p.clone() for p in learner.critic.parameters()]
    _step(learner, torch.zeros(4, 3), torch.zeros(4, 3), [0.0] * 4, [0] * 4, [False] * 4)
    assert learner.update() == {}
    assert all(torch.equal(a, b) for a, b in zip(before, learner.critic.parameters(), strict=True))
    _step(learner, torch.zeros(4, 3), torch.zeros(4, 3), [0.0] * 4, [0] * 4, [False] * 4)
    assert set(learner.update()) >= {"critic", "actor", "temperature"}


def test_target_critics_take_a_polyak_step():
    torch.manual_seed(0)
    learner = _learner(tau=0.25)
    _step(learner, torch.randn(4, 3), torch.randn(4, 3), [1.0] * 4, [0] * 4, [False] * 4)
    target_before = [p.clone() for p in learner.target_critic.parameters()]
    learner.update()
    for old, new, target in zip(
        target_before, learner.critic.parameters(), learner.target_critic.parameters(), strict=True
    ):
        torch.testing.assert_close(target, 0.75 * old + 0.25 * new)


def test_critic_target_is_the_clipped_double_q_soft_value():
    """With learning rates ~0 (the networks as they were), the critic's loss is the squared error to
    r + gamma (1 - d) (min Q' - alpha log pi), computed here from the networks directly."""
    torch.manual_seed(0)
    learner = _learner(
        num_envs=4,
        gamma=0.9,
        critic_learning_rate=1e-12,
        actor_learning_rate=1e-12,
        alpha_lr=1e-12,
        batch_size=4,
        buffer_size=4,
    )
    obs, next_obs = torch.randn(4, 3), torch.randn(4, 3)
    rewards, dones = [1.0, -1.0, 0.5, 2.0], [0, 1, 0, 0]
    _step(learner, obs, next_obs, rewards, dones, [False] * 4)
    generator_state = torch.get_rng_state()
    loss = learner.update()["critic"]
    torch.set_rng_state(generator_state)  # the same batch indices and policy samples, replayed by hand
    b = learner.buffer
    index = torch.randint(0, b.size, (4,))
    with torch.no_grad():
        o, n = _obs(b.obs["policy"][index]), _obs(b.next_obs["policy"][index])
        latent = learner.actor.get_latent(n)
        learner.actor.distribution.update(learner.actor.mlp(latent))
        a2, logp = learner.actor.distribution.sample_with_log_prob()
        t1, t2 = learner.target_critic(n, a2)
        alpha = learner.alpha
        assert b.discount[index].tolist() == pytest.approx([0.9] * 4)  # one-step returns: gamma
        target = b.rewards[index] + 0.9 * (1 - b.terminated[index]) * (torch.min(t1, t2) - alpha * logp)
        q1, q2 = learner.critic(o, b.actions[index])
        expected = ((q1 - target) ** 2).mean() + ((q2 - target) ** 2).mean()
    assert loss == pytest.approx(expected.item(), rel=1e-4)


def test_distributional_critic_target_is_the_projected_soft_target_of_the_lower_target_critic():
    """With learning rates ~0, the loss is the summed cross-entropy of both critics to the target distribution: the
    target critic with the lower mean (per sample), its atoms moved to r + gamma (1 - d) (z - alpha log pi) and
    projected back, computed here by hand (the projection by the rule of the worked test above)."""
    torch.manual_seed(0)
    frozen = {"critic_learning_rate": 1e-12, "actor_learning_rate": 1e-12, "alpha_lr": 1e-12}
    learner = _learner(num_envs=4, gamma=0.9, batch_size=4, buffer_size=4, atoms=(5, -2.0, 2.0), **frozen)
    with torch.no_grad():
        learner.log_alpha.fill_(math.log(0.2))  # an entropy term large enough to move atoms by a visible amount
    _step(learner, torch.randn(4, 3), torch.randn(4, 3), [1.0, -1.0, 0.5, 1.5], [0, 1, 0, 0], [False] * 4)
    generator_state = torch.get_rng_state()
    loss = learner.update()["critic"]
    torch.set_rng_state(generator_state)
    b, z = learner.buffer, torch.linspace(-2.0, 2.0, 5)
    index = torch.randint(0, b.size, (4,))
    with torch.no_grad():
        o, n = _obs(b.obs["policy"][index]), _obs(b.next_obs["policy"][index])
        learner.actor.distribution.update(learner.actor.mlp(learner.actor.get_latent(n)))
        a2, logp = learner.actor.distribution.sample_with_log_prob()
        t1, t2 = (logits.softmax(-1) for logits in learner.target_critic.logits(n, a2))
        expected = 0.0
        for i in range(4):
            p = t1[i] if (t1[i] * z).sum() <= (t2[i] * z).sum() else t2[i]
            target = torch.zeros(5)
            for j in range(5):
                value = b.rewards[index[i]] + 0.9 * (1 - b.terminated[index[i]]) * (z[j] - 0.2 * logp[i])
                position = (float(value.clamp(-2.0, 2.0)) + 2.0) / 1.0
                low = math.floor(position)
                target[low] += p[j] * (1 - (position - low))
                target[min(low + 1, 4)] += p[j] * (position - low)
            for logits in learner.critic.logits(o, b.actions[index]):
                expected -= float((target * logits[i].log_softmax(-1)).sum()) / 4
    assert loss == pytest.approx(expected, rel=1e-4)


@pytest.mark.parametrize("atoms", [None, (51, -3.0, 1.0)], ids=["scalar critic", "distributional critic"])
def test_learns_a_one_step_problem(atoms):
    """Reward -(a - 0.5)^2 per action, every step terminal: the deterministic action must reach 0.5."""
    torch.manual_seed(0)
    toy = {"width": 1, "actions": 2, "num_envs": 64, "batch_size": 256, "buffer_size": 4096, "init_alpha": 0.001}
    rates = {"actor_learning_rate": 3e-3, "critic_learning_rate": 3e-3}
    learner = _learner(learning_starts=256, gradient_steps=4, atoms=atoms, **toy, **rates)
    obs = torch.ones(64, 1)
    for _ in range(150):
        with torch.inference_mode():
            actions = learner.act(_obs(obs))
            rewards = -((actions - 0.5) ** 2).sum(-1)
            learner.process_env_step(_obs(obs), rewards, torch.ones(64), {"time_outs": torch.zeros(64, dtype=bool)})
        learner.update()
    learner.eval_mode()
    with torch.no_grad():
        action = learner.actor(_obs(torch.ones(1, 1)))
    np.testing.assert_allclose(action.numpy(), [[0.5, 0.5]], atol=0.1)


def test_checkpoint_round_trip():
    torch.manual_seed(0)
    learner = _learner(tau=0.5)
    _step(learner, torch.randn(4, 3), torch.randn(4, 3), [1.0] * 4, [0] * 4, [False] * 4)
    learner.update()
    with torch.no_grad():
        learner.log_alpha.fill_(-1.5)
    saved = learner.save()
    other = _learner()
    assert other.load(saved, None, True) is True
    probe = _obs(torch.randn(5, 3))
    with torch.no_grad():
        torch.testing.assert_close(other.actor(probe), learner.actor(probe))
        torch.testing.assert_close(
            other.target_critic(probe, torch.zeros(5, 2)), learner.target_critic(probe, torch.zeros(5, 2))
        )
    assert other.alpha == pytest.approx(math.exp(-1.5)) and other.updates == 1


def test_refuses_several_ranks():
    with pytest.raises(ValueError, match="one process"):
        _learner(multi_gpu_cfg={"world_size": 2})


# -- configs and preflight ---------------------------------------------------------------------------------------


def _cfgs(agent_cls=Go2FlatFastSacRunnerCfg, env_cls=Go2FlatEnvCfg, preset=()):
    env = env_cls()
    env.sim.device = "cpu"
    agent = handle_deprecated_rsl_rl_cfg(resolve_presets(agent_cls(), preset), check_rsl_rl_version())
    return env, agent


def test_class_names_resolve_to_the_learner():
    _, agent = _cfgs()
    assert is_fast_sac(agent)
    # as RSL-RL reads them: plain strings of the config's dict
    assert resolve_callable(str(agent.algorithm.class_name)) is FastSAC
    assert resolve_callable(str(agent.critic.class_name)) is TwinQCritic
    assert resolve_callable(str(agent.actor.distribution_cfg.class_name)) is SquashedGaussianDistribution


@pytest.mark.parametrize("preset", [(), ("cpu",)])
def test_shipped_settings_are_valid(preset):
    for agent_cls, env_cls in ((Go2FlatFastSacRunnerCfg, Go2FlatEnvCfg), (Go2RoughFastSacRunnerCfg, Go2RoughEnvCfg)):
        assert validate(*_cfgs(agent_cls, env_cls, preset)) == []


BAD = [
    *[("agent.algorithm.gamma", v, "a finite number in [0, 1]") for v in (True, math.nan, math.inf, "0.9", 1.01)],
    *[("agent.algorithm.tau", v, "a number in (0, 1]") for v in (True, math.nan, "0.1", 0.0, 1.5, math.inf)],
    *[("agent.algorithm.alpha_lr", v, "a finite number > 0 when tune_alpha") for v in (True, math.nan, math.inf, 0)],
    *[("agent.algorithm.init_alpha", v, "a finite number > 0") for v in (True, math.nan, math.inf, "0.1", 0.0)],
    *[("agent.algorithm.actor_learning_rate", v, "a finite number > 0") for v in (False, math.inf, -1e-3)],
    *[("agent.algorithm.critic_learning_rate", v, "a finite number > 0") for v in (math.nan, 0.0)],
    ("agent.algorithm.tune_alpha", 1, "True or False"),
    ("agent.algorithm.tune_alpha", "yes", "True or False"),
    ("agent.algorithm.target_entropy", math.nan, "a finite number [nats] or None"),
    ("agent.algorithm.target_entropy", math.inf, "a finite number [nats] or None"),
    *[
        (f"agent.algorithm.{name}", v, "a positive integer")
        for name in ("batch_size", "buffer_size", "learning_starts", "gradient_steps", "policy_frequency", "n_step")
        for v in (True, math.nan, math.inf, "8", 0, 2.5)
    ],
    *[("agent.num_steps_per_env", v, "a positive integer") for v in (True, math.nan, "8", 0)],
    ("agent.actor.distribution_cfg.action_scale", math.inf, "a finite number > 0"),
    ("agent.actor.distribution_cfg.init_std", 0.0, "a finite number > 0"),
]


@pytest.mark.parametrize(("path", "value", "domain"), BAD, ids=[f"{p}={v!r}" for p, v, _ in BAD])
def test_each_unusable_setting_is_named(path, value, domain):
    env, agent = _cfgs(preset=("cpu",))
    assign({"env": env, "agent": agent}, path, value)
    problems = validate(env, agent)
    assert len(problems) == 1, problems
    assert problems[0].startswith(path) and domain in problems[0] and f"got {value!r}" in problems[0], problems[0]


@pytest.mark.parametrize("value", [True, math.nan, math.inf, "8", 0, 2.5])
def test_unusable_atom_counts_are_named(value):
    env, agent = _cfgs(preset=("cpu",))
    agent.critic.num_atoms = value
    assert validate(env, agent) == [f"agent.critic.num_atoms must be a positive integer, got {value!r}"]


@pytest.mark.parametrize(
    ("v_min", "v_max", "problem"),
    [
        (math.nan, 5.0, "agent.critic.v_min must be a finite number, got nan"),
        (-5.0, math.inf, "agent.critic.v_max must be a finite number, got inf"),
        (-5.0, "5", "agent.critic.v_max must be a finite number, got '5'"),
        (2.0, 2.0, "agent.critic.v_max must be above agent.critic.v_min = 2.0, got 2.0"),
    ],
)
def test_a_distributional_critic_needs_a_finite_increasing_support(v_min, v_max, problem):
    env, agent = _cfgs(preset=("cpu",))
    agent.critic.num_atoms, agent.critic.v_min, agent.critic.v_max = 101, v_min, v_max
    assert validate(env, agent) == [problem]
    agent.critic.num_atoms = 1  # a scalar critic has no support
    assert validate(env, agent) == []


def test_alpha_lr_is_free_when_the_temperature_is_fixed():
    env, agent = _cfgs(preset=("cpu",))
    agent.algorithm.tune_alpha = False
    agent.algorithm.alpha_lr = math.nan
    assert validate(env, agent) == []


def test_buffer_rules():
    env, agent = _cfgs(preset=("cpu",))
    env.scene.num_envs = 512
    agent.algorithm.buffer_size = 4000
    agent.algorithm.learning_starts = 5000
    assert validate(env, agent) == [
        "agent.algorithm.buffer_size must hold one iteration, num_envs x num_steps_per_env = 512 x 8 = 4096 "
        "transitions, got 4000",
        "agent.algorithm.learning_starts must be at most buffer_size = 4000, got 5000",
    ]


def test_replay_geometry_of_the_cpu_setting():
    env, agent = _cfgs(preset=("cpu",))
    alg = agent.algorithm
    g = ReplayGeometry(
        512,
        agent.num_steps_per_env,
        alg.batch_size,
        alg.gradient_steps,
        alg.buffer_size,
        alg.learning_starts,
        {"policy": 50},
        12,
    )
    assert (g.transitions, g.replayed, g.update_to_data) == (4096, 16384, 4.0)
    assert g.storage_bytes == 1_000_000 * (2 * 50 + 12 + 3) * 4
    report = g.report()
    assert "update-to-data 4.00" in report and "438.7 MiB" in report and "(2 iterations)" in report


def test_a_checkpoint_carries_its_action_scale():
    """A run trained with ``action_scale`` 1 plays back, evaluates and exports with 1 although the config that
    rebuilds the actor says 4; a checkpoint without the scale keeps the configured one."""
    torch.manual_seed(0)
    trained, rebuilt = _learner(scale=1.0), _learner(scale=4.0)
    with torch.no_grad():
        for p in trained.actor.mlp.parameters():
            p.add_(torch.randn_like(p))
    rebuilt.load(trained.save(), None, True)
    probe = _obs(torch.randn(5, 3))
    with torch.no_grad():
        actions = rebuilt.actor(probe)
        torch.testing.assert_close(actions, trained.actor(probe))
    assert actions.abs().max() <= 1.0 and float(rebuilt.actor.distribution.action_scale) == 1.0
    exported = rebuilt.actor.distribution.as_deterministic_output_module()
    assert exported.action_scale == 1.0
    older = {k: v for k, v in trained.actor.state_dict().items() if not k.endswith("distribution.action_scale")}
    configured = _learner(scale=4.0)
    configured.actor.load_state_dict(older, strict=True)
    assert float(configured.actor.distribution.action_scale) == 4.0

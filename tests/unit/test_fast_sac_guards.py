"""FastSAC's guards of a cloned gait, against hand-worked numbers: the TD3+BC pull toward the teacher
(``actor_teacher_weight``), the residual actor on the teacher (``residual_on_teacher``, ``residual_scale``), the
actor's learning-rate warm-up (``actor_lr_warmup_steps``) and the per-joint box of the teacher's action percentiles
(``action_bounds``); each off by default (the learner as before: test_fast_sac_teacher.py), refused by the learner and
by the preflight in one line where unusable.

Learners are built as RSL-RL's runner builds them (``FastSAC.construct_algorithm``) on hand-built observations (3
inputs in the ``policy`` group, 2 actions, ``action_scale`` 4), or, for the actor loss worked by hand, from the fixed
networks of test_fast_sac_critic_rule.py: one input, one action, critics ``Q1 = s + a`` and ``Q2 = 2 a + 2``, an
actor whose action is 0.5 with ``log pi = -0.5`` at every state.
"""

import copy
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from fast_sac_fixtures import iteration
from fast_sac_fixtures import obs as _obs
from isaaclab_rl.rsl_rl import check_rsl_rl_version, handle_deprecated_rsl_rl_cfg
from isaaclab_tasks.utils import resolve_presets
from rsl_rl.models import MLPModel

from go2_locomotion import pretrained
from go2_locomotion.agents.fast_sac_cfg import FastSacAlgorithmCfg, Go2FlatFastSacRunnerCfg
from go2_locomotion.dotted import assign
from go2_locomotion.errors import UsageError
from go2_locomotion.fast_sac import FastSAC, SquashedGaussianDistribution, TwinQCritic
from go2_locomotion.fast_sac.algorithm import percentiles
from go2_locomotion.fast_sac.bounds import joint_limit_box
from go2_locomotion.tasks.flat_env_cfg import Go2FlatEnvCfg
from go2_locomotion.training.checkpoints import check_compatible
from go2_locomotion.training.preflight import validate

WIDTH, ACTIONS, SCALE = 3, 2, 4.0
GAUSSIAN = {"class_name": "GaussianDistribution", "init_std": 1.0}
TEACHER = {"class_name": "MLPModel", "hidden_dims": [16, 16], "activation": "elu", "obs_normalization": False,
           "distribution_cfg": GAUSSIAN}  # fmt: skip
"""A PPO actor's config as RSL-RL gets it (``agent.teacher``)."""


def _ppo_actor(bias, width=WIDTH) -> MLPModel:
    """A PPO actor whose weights are zero and whose last bias is ``bias``: its mean action is ``bias`` everywhere."""
    actor = MLPModel(_obs(torch.zeros(1, width)), {"actor": ["policy"]}, "actor", len(bias), [16, 16], "elu", False,
                     dict(GAUSSIAN))  # fmt: skip
    with torch.no_grad():
        for parameter in actor.mlp.parameters():
            parameter.zero_()
        actor.mlp[-1].bias.copy_(torch.tensor(bias))
    return actor


def _teacher_file(tmp_path: Path, bias=(0.7, 9.0)) -> str:
    path = tmp_path / "teacher.pt"
    torch.save({"actor_state_dict": _ppo_actor(list(bias)).state_dict(), "iter": 99, "infos": None}, path)
    return str(path)


def _learner(num_envs=16, **algorithm) -> FastSAC:
    """A small FastSAC as the runner builds it."""
    alg = FastSacAlgorithmCfg(batch_size=32, buffer_size=4096, learning_starts=64, gradient_steps=2).to_dict()
    alg.update(algorithm)
    mlp = {"class_name": "MLPModel", "hidden_dims": [32, 32], "activation": "elu", "obs_normalization": True}
    squashed = {"class_name": "go2_locomotion.fast_sac:SquashedGaussianDistribution", "action_scale": SCALE}
    cfg = {
        "obs_groups": {"actor": ["policy"], "critic": ["policy"]},
        "actor": {**mlp, "distribution_cfg": {**squashed, "init_std": 0.25}},
        "critic": {"class_name": "go2_locomotion.fast_sac:TwinQCritic", "hidden_dims": [16, 16]},
        "algorithm": alg,
        "teacher": dict(TEACHER),
    }
    env = SimpleNamespace(num_actions=ACTIONS, num_envs=num_envs, unwrapped=_robot_env())
    return FastSAC.construct_algorithm(_obs(torch.zeros(num_envs, WIDTH)), env, cfg, "cpu")


def _robot_env(scale=(0.5, -0.25), offset=(-2.0, 0.2)):
    """Isaac Lab's environment as the joint-limit box reads it: a robot with joints a [-1, 1], b [0, 2], c [-3, -1]
    rad (articulation order) and one joint action term driving c then a with per-joint ``scale`` and ``offset``
    (``[N, A]`` tensors, as a term resolves them)."""
    limits = torch.tensor([[[-1.0, 1.0], [0.0, 2.0], [-3.0, -1.0]]]).expand(4, 3, 2)
    robot = SimpleNamespace(joint_names=["a", "b", "c"], data=SimpleNamespace(joint_pos_limits=SimpleNamespace()))
    robot.data.joint_pos_limits.torch = limits
    resolved = {"_joint_names": ["c", "a"], "_clip": None, "_scale": torch.tensor([scale]).expand(4, 2),
                "_offset": torch.tensor([offset]).expand(4, 2)}  # fmt: skip
    term = SimpleNamespace(cfg=SimpleNamespace(asset_name="robot"), **resolved)
    manager = SimpleNamespace(active_terms=["joint_pos"], get_term={"joint_pos": term}.__getitem__)
    return SimpleNamespace(action_manager=manager, scene={"robot": robot})


# -- actor_teacher_weight: TD3+BC ---------------------------------------------------------------------------------

ALPHA = 0.2
LOG_STD = 0.5 - 0.5 * math.log(2 * math.pi) - math.log(0.75)
"""So that log pi = -0.5 at the action 0.5 (test_fast_sac_critic_rule.py)."""


class MeanAction(SquashedGaussianDistribution):
    """Noise 0: the "sample" is the squashed mean, with the squashed Gaussian's log-density at it."""

    def sample_with_log_prob(self) -> tuple[torch.Tensor, torch.Tensor]:
        actions = self.mean
        return actions, self.log_prob(actions)


def _set_linear(layer: torch.nn.Linear, weight, bias) -> None:
    with torch.no_grad():
        layer.weight.copy_(torch.as_tensor(weight, dtype=torch.float32).reshape(layer.weight.shape))
        layer.bias.copy_(torch.as_tensor(bias, dtype=torch.float32))


def _designed(teacher_mean: float, **algorithm) -> FastSAC:
    """One input, one action (``action_scale`` 1), learning rates ~0: the actor acts 0.5 (log pi -0.5) everywhere,
    critic 1 ``Q = s + a``, critic 2 ``Q = 2 a + 2`` (clipped double Q: their minimum), the teacher's mean
    ``teacher_mean`` everywhere."""
    obs, groups = _obs(torch.zeros(1, 1)), {"actor": ["policy"], "critic": ["policy"]}
    actor = MLPModel(obs, groups, "actor", 1, [4], "elu", False, {"class_name": MeanAction, "action_scale": 1.0})
    last = [m for m in actor.mlp.modules() if isinstance(m, torch.nn.Linear)][-1]
    _set_linear(last, torch.zeros(2, 4), [math.atanh(0.5), LOG_STD])
    critic = TwinQCritic(obs, groups, "critic", 1, [], "elu", False, False)
    _set_linear(critic.q1[-1], [1.0, 1.0], [0.0])
    _set_linear(critic.q2[-1], [0.0, 2.0], [2.0])
    teacher = _ppo_actor([teacher_mean], width=1)
    settings = FastSacAlgorithmCfg(batch_size=2, buffer_size=4, learning_starts=1, gradient_steps=1).to_dict()
    settings.update(critic_learning_rate=1e-12, actor_learning_rate=1e-12, alpha_lr=1e-12, **algorithm)
    settings.pop("class_name")
    learner = FastSAC(actor, critic, num_envs=2, device="cpu", teacher=teacher, **settings)
    with torch.no_grad():
        learner.log_alpha.fill_(math.log(ALPHA))
    return learner


# At s = 1, a = 0.5: Q = min(1 + 0.5, 2 x 0.5 + 2) = 1.5; the SAC term alpha log pi - Q = -0.1 - 1.5 = -1.6.
# lambda = 2.5 / |1.5| = 5/3. Teacher mean 0.9: distance (0.5 - 0.9)^2 = 0.16; 2.0 clamps to the range, 1.0: 0.25.
TD3_BC = [
    (0.0, 0.9, -1.6),  # off: the SAC loss as before
    (2.0, 0.9, 5 / 3 * -1.6 + 2.0 * 0.16),
    (0.5, 2.0, 5 / 3 * -1.6 + 0.5 * 0.25),
]


@pytest.mark.parametrize(("weight", "teacher_mean", "expected"), TD3_BC)
def test_the_actor_loss_adds_the_td3_bc_pull_toward_the_teacher_worked_by_hand(weight, teacher_mean, expected):
    learner = _designed(teacher_mean, actor_teacher_weight=weight)
    loss, log_prob = learner.actor_loss(_obs([[1.0], [1.0]]), torch.tensor(ALPHA))
    assert loss.item() == pytest.approx(expected, abs=1e-5)
    assert log_prob.tolist() == pytest.approx([-0.5, -0.5], abs=1e-5)


def test_an_update_logs_the_distance_to_the_teacher():
    """One stored transition at s = 1, an update: the actor loss is the hand-worked 5/3 x -1.6 + 2 x 0.16 and the
    logged distance 0.16; without the weight no distance is logged."""
    for weight, logged in ((2.0, {"actor": 5 / 3 * -1.6 + 2.0 * 0.16, "actor_teacher_distance": 0.16}), (0.0, {})):
        learner = _designed(0.9, actor_teacher_weight=weight)
        with torch.inference_mode():
            learner.act(_obs([[1.0], [1.0]]))
            extras = {"time_outs": torch.zeros(2, dtype=torch.bool)}
            learner.process_env_step(_obs([[2.0], [2.0]]), torch.tensor([0.3, 0.3]), torch.zeros(2), extras)
        losses = learner.update()
        assert ("actor_teacher_distance" in losses) == bool(logged)
        for name, value in logged.items():
            assert losses[name] == pytest.approx(value, abs=1e-5), name


def test_the_pull_needs_a_teacher_and_loads_it_without_a_teacher_phase(tmp_path):
    learner = _learner(teacher_checkpoint=_teacher_file(tmp_path), actor_teacher_weight=1.0)
    assert learner.teacher is not None and not learner.teaching
    with pytest.raises(UsageError) as error:
        _learner(actor_teacher_weight=1.0)
    assert str(error.value) == (
        "agent.algorithm.teacher_checkpoint must name a PPO checkpoint of the task when actor_teacher_weight > 0, "
        "got None"
    )


# -- residual_on_teacher -----------------------------------------------------------------------------------------


def test_a_residual_actor_starts_as_the_teacher_and_executes_the_total(tmp_path):
    """Teacher mean [0.7, 9.0] (clamped: [0.7, 4.0]), residual_scale 0.25: the actor's mean starts at 0 at every
    state, so the deterministic executed action is the teacher's; a sample is the teacher's plus 0.25 x 4 tanh(u),
    u ~ N(0, 0.25) (the actor's init_std), clamped to +-4: replayed by hand from the same draws. The replay stores
    that total."""
    learner = _learner(512, teacher_checkpoint=_teacher_file(tmp_path), residual_on_teacher=True)
    obs = _obs(torch.randn(512, WIDTH, generator=torch.Generator().manual_seed(0)))
    with torch.no_grad():
        assert torch.equal(learner.actor(obs), torch.zeros(512, ACTIONS))
    torch.manual_seed(7)
    with torch.inference_mode():
        actions = learner.act(obs)
        learner.process_env_step(obs, torch.zeros(512), torch.zeros(512), {"time_outs": torch.zeros(512, dtype=bool)})
    torch.manual_seed(7)
    u = torch.normal(torch.zeros(512, ACTIONS), torch.full((512, ACTIONS), 0.25))
    expected = (torch.tensor([0.7, 4.0]) + 0.25 * 4.0 * torch.tanh(u)).clamp(-SCALE, SCALE)
    torch.testing.assert_close(actions, expected, rtol=0, atol=1e-6)
    assert torch.equal(learner.buffer.actions[:512], actions)
    # std of tanh(u), u ~ N(0, 0.25): tanh(u) ~ u - u^3 / 3, variance 0.25^2 - 2 x 0.25^4 = 0.0547, std 0.234
    assert float((actions[:, 0] - 0.7).std()) == pytest.approx(0.234, abs=0.02)


def test_the_critics_see_the_total_action_and_its_density(tmp_path):
    """The policy action the critic targets and the actor loss use: the teacher's clamped mean plus 0.25 times the
    actor's sample, with log pi of that total: the actor's own minus 2 log 0.25 (two actions, each scaled by 0.25)."""
    learner = _learner(teacher_checkpoint=_teacher_file(tmp_path), residual_on_teacher=True)
    obs = _obs(torch.randn(8, WIDTH, generator=torch.Generator().manual_seed(1)))
    torch.manual_seed(3)
    with torch.no_grad():
        actions, log_prob = learner.sample_policy(obs)
    torch.manual_seed(3)
    with torch.no_grad():
        learner.actor.distribution.update(learner.actor.mlp(learner.actor.get_latent(obs)))
        own, own_log_prob = learner.actor.distribution.sample_with_log_prob()
    torch.testing.assert_close(actions, (torch.tensor([0.7, 4.0]) + 0.25 * own).clamp(-SCALE, SCALE))
    torch.testing.assert_close(log_prob, own_log_prob - 2 * math.log(0.25))


def test_a_residual_checkpoint_is_refused_by_play_and_continues_only_as_a_residual(tmp_path):
    teacher = _teacher_file(tmp_path)
    learner = _learner(teacher_checkpoint=teacher, residual_on_teacher=True)
    saved = {**learner.save(), "iter": 3, "infos": None}
    assert saved["residual_on_teacher"] == {"residual_scale": 0.25, "teacher_checkpoint": teacher}
    path = tmp_path / "model_3.pt"
    with pytest.raises(UsageError) as error:
        check_compatible(saved, path, learner.actor, "Go2-Flat")
    assert str(error.value) == (
        f"checkpoint {path} was trained with agent.algorithm.residual_on_teacher=True: its actor is a correction to "
        f"the teacher {teacher}, which play, evaluation and export do not add; they accept checkpoints trained "
        "without it"
    )
    with pytest.raises(UsageError) as error:
        _learner().load(saved, None, True)
    assert str(error.value) == (
        "agent.algorithm.residual_on_teacher must be True to continue this checkpoint (its actor is a correction to "
        "the teacher), got False"
    )
    resumed = _learner(teacher_checkpoint=teacher, residual_on_teacher=True)
    resumed.load(saved, None, True)
    assert resumed.iteration == 4
    check_compatible({**_learner().save(), "iter": 0}, path, learner.actor, "Go2-Flat")  # a policy plays


def test_the_learner_refuses_a_residual_without_a_teacher_or_with_cloning(tmp_path):
    with pytest.raises(UsageError, match="when residual_on_teacher True, got None"):
        _learner(residual_on_teacher=True)
    settings = {"teacher_checkpoint": _teacher_file(tmp_path), "teacher_iterations": 1, "residual_on_teacher": True}
    with pytest.raises(ValueError, match="residual_on_teacher excludes behavior_cloning_steps"):
        _learner(behavior_cloning_steps=10, **settings)


# -- actor_lr_warmup_steps -----------------------------------------------------------------------------------------


def test_the_actor_learning_rate_rises_linearly_over_the_warmup():
    """Warm-up 4 at 1e-3, one actor step per update: after k steps the rate is k/4 x 1e-3 (2.5e-4, 5e-4, 7.5e-4,
    1e-3), then stays. Adam's first step moves each weight by its rate (``m / sqrt(v)`` = +-1 after one step): by
    2.5e-4, where without the warm-up it moves by 1e-3. A resume after 2 steps continues at 3/4."""
    rates = []
    for warmup in (4, 0):
        torch.manual_seed(0)
        learner = _learner(actor_learning_rate=1e-3, actor_lr_warmup_steps=warmup, gradient_steps=1)
        generator = torch.Generator().manual_seed(1)
        before = [p.detach().clone() for p in learner.actor.parameters()]
        iteration(learner, generator, WIDTH)
        after = [p.detach() for p in learner.actor.parameters()]
        moved = max(float((p - q).abs().max()) for p, q in zip(after, before, strict=True))
        assert moved == pytest.approx(2.5e-4 if warmup else 1e-3, rel=1e-3)
        rates.append(learner.actor_optimizer.param_groups[0]["lr"])
    assert rates == pytest.approx([2.5e-4, 1e-3], rel=1e-12)
    learner = _learner(actor_learning_rate=1e-3, actor_lr_warmup_steps=4, gradient_steps=1)
    generator = torch.Generator().manual_seed(1)
    seen = []
    for k in range(1, 7):
        iteration(learner, generator, WIDTH)
        seen.append(learner.actor_optimizer.param_groups[0]["lr"])
        assert learner.learning_rate == seen[-1]
        if k == 2:  # a copy: the state dicts share the live tensors
            saved = copy.deepcopy({**learner.save(), "iter": 1})
    assert seen == pytest.approx([2.5e-4, 5e-4, 7.5e-4, 1e-3, 1e-3, 1e-3], rel=1e-12)
    resumed = _learner(actor_learning_rate=1e-3, actor_lr_warmup_steps=4, gradient_steps=1)
    resumed.load(saved, None, True)
    iteration(resumed, generator, WIDTH)
    assert resumed.actor_optimizer.param_groups[0]["lr"] == pytest.approx(7.5e-4, rel=1e-12)


# -- action_bounds -------------------------------------------------------------------------------------------------


def test_percentiles_worked_by_hand():
    """41 values 0..40: 2.5 % at position 0.025 x 40 = 1 (the value 1), 97.5 % at 39. Two values 0 and 10: positions
    0.025 and 0.975 of the way, 0.25 and 9.75. As numpy's default."""
    column = torch.arange(41.0)[torch.randperm(41, generator=torch.Generator().manual_seed(0))]
    values = torch.stack([column, -2 * column], dim=1)
    low, high = percentiles(values, (0.025, 0.975))
    assert low.tolist() == [1.0, -78.0] and high.tolist() == [39.0, -2.0]
    low, high = percentiles(torch.tensor([[10.0], [0.0]]), (0.025, 0.975))
    assert low.tolist() == pytest.approx([0.25]) and high.tolist() == pytest.approx([9.75])
    np.testing.assert_allclose(np.percentile(values.numpy(), [2.5, 97.5], axis=0), [[1.0, -78.0], [39.0, -2.0]])


def test_a_box_maps_the_squash_per_joint_worked_by_hand():
    """Box [-1, 3] and [0, 0.5]: centre 1 and 0.25, half-width 2 and 0.25. At u = 0.5 the action is
    centre + half tanh(0.5); log-density log N(u) - log(half (1 - tanh(u)^2)), summed; the exported module agrees."""
    d = SquashedGaussianDistribution(2, std_type="log", action_scale=4.0)
    d.set_box(torch.tensor([-1.0, 0.0]), torch.tensor([3.0, 0.5]))
    d.update(torch.tensor([[[0.5, 0.5], [-0.5, -0.5]]]))
    t = math.tanh(0.5)
    expected = [1 + 2 * t, 0.25 + 0.25 * t]
    assert d.mean[0].tolist() == pytest.approx(expected)
    raw = torch.tensor([[[0.5, 0.5], [0.0, 0.0]]])
    assert d.deterministic_output(raw)[0].tolist() == pytest.approx(expected)
    assert torch.jit.script(d.as_deterministic_output_module())(raw)[0].tolist() == pytest.approx(expected)
    sigma = math.exp(-0.5)
    log_normal = -0.5 * math.log(2 * math.pi) - math.log(sigma)  # at u = mean
    by_hand = sum(log_normal - math.log(half * (1 - t**2)) for half in (2.0, 0.25))
    assert d.log_prob(torch.tensor([expected])).item() == pytest.approx(by_hand, abs=1e-4)
    assert torch.equal(d.clamp(torch.tensor([[5.0, -1.0]])), torch.tensor([[3.0, 0.0]]))
    torch.manual_seed(0)
    d.update(torch.tensor([[[3.0, -3.0], [1.0, 1.0]]]).expand(1000, 2, 2))
    samples = d.sample()
    assert (samples >= torch.tensor([-1.0, 0.0])).all() and (samples <= torch.tensor([3.0, 0.5])).all()


def test_the_box_travels_in_the_actor_s_state_and_old_checkpoints_keep_the_scale():
    """Without a box the actor's keys are as before (``distribution.action_scale``); a box adds ``action_low`` and
    ``action_high``, which load into an actor built without one; an actor saved before either keeps +-scale."""
    plain = _learner()
    assert "distribution.action_low" not in plain.actor.state_dict()
    boxed = _learner()
    boxed.actor.distribution.set_box(torch.tensor([-1.0, 0.5]), torch.tensor([2.0, 3.5]))
    state = boxed.actor.state_dict()
    assert state["distribution.action_low"].tolist() == [-1.0, 0.5]
    plain.actor.load_state_dict(state, strict=True)
    assert plain.actor.distribution.has_box and plain.actor.distribution.action_high.tolist() == [2.0, 3.5]
    older = {k: v for k, v in _learner().actor.state_dict().items() if not k.startswith("distribution.")}
    fresh = _learner()
    fresh.actor.load_state_dict(older, strict=True)
    assert not fresh.actor.distribution.has_box and float(fresh.actor.distribution.action_scale) == SCALE


@pytest.mark.parametrize("played_with", ["teacher_percentiles", "scale"])
def test_a_trained_box_plays_whatever_the_config_names(tmp_path, played_with):
    """Play rebuilds the actor from the config and takes the trained box from the checkpoint: with
    ``action_bounds=teacher_percentiles`` the actor carries the box's keys (+-4 until loaded), with the default it has
    none and gains them as it loads. An actor configured with a box refuses a checkpoint trained without one (it
    would act in a box its training never had)."""
    trained = _learner(action_bounds="teacher_percentiles")
    trained.actor.distribution.set_box(torch.tensor([-1.0, 0.5]), torch.tensor([2.0, 3.5]))
    saved, path = {**trained.save(), "iter": 0}, tmp_path / "model_0.pt"
    player = _learner(action_bounds=played_with)
    assert player.actor.distribution.has_box == (played_with != "scale")
    check_compatible(saved, path, player.actor, "Go2-Flat")
    player.load({"actor_state_dict": saved["actor_state_dict"]}, {"actor": True}, True)
    assert player.actor.distribution.action_high.tolist() == [2.0, 3.5]
    plain = {**_learner().save(), "iter": 0}
    with pytest.raises(UsageError, match="does not fit task 'Go2-Flat'"):
        check_compatible(plain, path, _learner(action_bounds="teacher_percentiles").actor, "Go2-Flat")


def test_the_joint_limit_box_worked_by_hand():
    """Action 0 drives c: ([-3, -1] - (-2)) / 0.5 = [-2, 2]; action 1 drives a with a negative scale: ([-1, 1] - 0.2) /
    -0.25 = [4.8, -3.2], ends swapped to [-3.2, 4.8]. A number as scale or offset applies to every joint."""
    low, high = joint_limit_box(_robot_env())
    assert low.tolist() == pytest.approx([-2.0, -3.2]) and high.tolist() == pytest.approx([2.0, 4.8])
    env = _robot_env()
    term = env.action_manager.get_term("joint_pos")
    term.__dict__.update({"_scale": 0.25, "_offset": 0.0})
    low, high = joint_limit_box(env)
    assert low.tolist() == pytest.approx([-12.0, -4.0]) and high.tolist() == pytest.approx([-4.0, 4.0])
    with pytest.raises(ValueError, match="nonzero action scale"):
        joint_limit_box(_robot_env(scale=(0.5, 0.0)))


def test_the_learner_acts_inside_the_robot_s_joint_limits():
    """``action_bounds=joint_limits``: the actor built by the runner maps its squash onto the joint-limit box from the
    first step (no teacher needed), and its deterministic action at a huge pre-squash mean is the box's top."""
    learner = _learner(action_bounds="joint_limits")
    distribution = learner.actor.distribution
    assert distribution.action_low.tolist() == pytest.approx([-2.0, -3.2])
    assert distribution.action_high.tolist() == pytest.approx([2.0, 4.8])
    top = distribution.deterministic_output(torch.tensor([[[50.0, 50.0], [0.0, 0.0]]]))
    assert top[0].tolist() == pytest.approx([2.0, 4.8])
    assert not _learner().actor.distribution.has_box


def test_the_teacher_phase_sets_the_box_to_its_action_percentiles(tmp_path):
    """Teacher mean [0.7, 9.0] plus noise 0.5, 2 iterations of 4 x 64 = 512 stored actions: joint 0's box is the
    2.5-97.5 % percentiles of its stored actions (numpy's), about 0.7 -+ 1.96 x 0.5; joint 1 was clamped to 4.0 in
    every one, a box of width 0 widened to 0.1 about it: [3.95, 4.05]. From then on the actor acts inside the box, and
    the teacher's clamp is the box."""
    teacher = _teacher_file(tmp_path)
    settings = {"teacher_checkpoint": teacher, "teacher_iterations": 2, "teacher_action_noise_std": 0.5}
    learner = _learner(64, action_bounds="teacher_percentiles", **settings)
    generator = torch.Generator().manual_seed(0)
    assert iteration(learner, generator, WIDTH, n=64) == {}
    assert learner.actor.distribution.action_high.tolist() == [4.0, 4.0]  # +-action_scale until the phase ends
    logs = iteration(learner, generator, WIDTH, n=64)
    stored = learner.buffer.actions[:512].numpy()
    low, high = np.percentile(stored[:, 0], [2.5, 97.5])
    box = learner.actor.distribution
    assert box.action_low.tolist() == pytest.approx([low, 3.95], abs=1e-5)
    assert box.action_high.tolist() == pytest.approx([high, 4.05], abs=1e-5)
    assert low == pytest.approx(0.7 - 1.96 * 0.5, abs=0.15) and high == pytest.approx(0.7 + 1.96 * 0.5, abs=0.15)
    assert logs["action_bounds_width"] == pytest.approx((high - low + 0.1) / 2, abs=1e-5)
    iteration(learner, generator, WIDTH, n=64)
    acted = learner.buffer.actions[512:768]
    assert (acted[:, 0] >= low - 1e-5).all() and (acted[:, 0] <= high + 1e-5).all()
    assert (acted[:, 1] >= 3.95 - 1e-5).all() and (acted[:, 1] <= 4.05 + 1e-5).all()
    with torch.no_grad():
        assert learner.teacher_actions(_obs(torch.zeros(1, WIDTH)), 0.0)[0].tolist() == pytest.approx([0.7, 4.05])


# -- preflight -------------------------------------------------------------------------------------------------


def _problems(**algorithm) -> list[str]:
    env = Go2FlatEnvCfg()
    env.sim.device = "cpu"
    agent = handle_deprecated_rsl_rl_cfg(resolve_presets(Go2FlatFastSacRunnerCfg(), ("cpu",)), check_rsl_rl_version())
    for name, value in algorithm.items():
        assign(agent, f"algorithm.{name}", value)
    return validate(env, agent)


A = "agent.algorithm"
BAD = [
    *[("actor_teacher_weight", v, "a finite number >= 0 (0: off)") for v in (-0.5, math.nan, math.inf, True, "1")],
    *[("residual_on_teacher", v, "True or False") for v in (1, "yes", None)],
    *[("actor_lr_warmup_steps", v, "an integer >= 0 (0: no warm-up)") for v in (-1, 2.5, math.nan, True, "100")],
    *[
        ("action_bounds", v, "one of ['scale', 'teacher_percentiles', 'joint_limits']")
        for v in ("limits", "", None, 4.0)
    ],
]


@pytest.mark.parametrize(("name", "value", "domain"), BAD, ids=[f"{n}={v!r}" for n, v, _ in BAD])
def test_each_unusable_guard_setting_is_named(name, value, domain):
    assert _problems(**{name: value}) == [f"{A}.{name} must be {domain}, got {value!r}"]


def test_guards_that_need_a_teacher_or_exclude_each_other_are_named():
    assert _problems(actor_teacher_weight=1.0) == [
        f"{A}.actor_teacher_weight needs a teacher ({A}.teacher_checkpoint), got 1.0"
    ]
    assert _problems(residual_on_teacher=True, residual_scale=0.0) == [
        f"{A}.residual_scale must be a finite number > 0 when residual_on_teacher is True, got 0.0",
        f"{A}.residual_on_teacher needs a teacher ({A}.teacher_checkpoint), got True",
    ]
    assert _problems(action_bounds="teacher_percentiles") == [
        f"{A}.action_bounds must be 'scale' or 'joint_limits' without a teacher phase ({A}.teacher_iterations 0; "
        "'teacher_percentiles' fits the teacher's actions), got 'teacher_percentiles'"
    ]
    assert _problems(action_bounds="joint_limits") == []  # the robot's limits need no teacher
    teacher = str(pretrained.checkpoint("Go2-Flat"))
    phase = {"teacher_checkpoint": teacher, "teacher_iterations": 125, "residual_on_teacher": True}
    assert _problems(behavior_cloning_steps=2000, action_bounds="teacher_percentiles", **phase) == [
        f"{A}.behavior_cloning_steps must be 0 with residual_on_teacher (the residual actor starts as the teacher), "
        "got 2000",
        f"{A}.action_bounds must be 'scale' with residual_on_teacher (residual_scale bounds the correction), got "
        "'teacher_percentiles'",
    ]
    assert _problems(action_bounds="joint_limits", **phase) == [
        f"{A}.action_bounds must be 'scale' with residual_on_teacher (residual_scale bounds the correction), got "
        "'joint_limits'",
    ]


def test_the_guards_are_accepted_with_the_shipped_teacher():
    """A pull or a residual needs the teacher's checkpoint but not its phase (no 'would never act')."""
    teacher = str(pretrained.checkpoint("Go2-Flat"))
    assert _problems(teacher_checkpoint=teacher, actor_teacher_weight=1.0, actor_lr_warmup_steps=1000) == []
    assert _problems(teacher_checkpoint=teacher, residual_on_teacher=True, residual_scale=0.5) == []
    phase = {"teacher_checkpoint": teacher, "teacher_iterations": 125, "behavior_cloning_steps": 2000}
    assert _problems(action_bounds="teacher_percentiles", **phase) == []

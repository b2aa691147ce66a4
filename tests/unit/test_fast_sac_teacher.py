"""FastSAC's PPO teacher without a simulator (``algorithm.teacher_*``): the replay holds the teacher's clamped mean
plus noise while it acts and no gradient step is taken; behaviour cloning fits the actor to it; teacher_iterations 0
is the learner as before, bit for bit; the teacher stays out of checkpoints and comes back on a resume inside its
phase; one-line refusals of unusable checkpoints and settings, by the learner and by the preflight.

The learner is built as RSL-RL's runner builds it (``FastSAC.construct_algorithm``) on hand-built observations: 3
inputs in the ``policy`` group, 2 actions, ``action_scale`` 4; the teacher is an RSL-RL PPO actor saved as a
checkpoint's ``actor_state_dict``.
"""

import math
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from fast_sac_fixtures import iteration
from fast_sac_fixtures import obs as _obs
from isaaclab_rl.rsl_rl import check_rsl_rl_version, handle_deprecated_rsl_rl_cfg
from isaaclab_tasks.utils import resolve_presets
from isaaclab_tasks.utils.parse_cfg import load_cfg_from_registry
from rsl_rl.models import MLPModel

import go2_locomotion.tasks as tasks
from go2_locomotion import pretrained
from go2_locomotion.agents.fast_sac_cfg import FastSacAlgorithmCfg, Go2FlatFastSacRunnerCfg
from go2_locomotion.catalog import FAST_SAC_ENTRY_POINT, PPO_ENTRY_POINT
from go2_locomotion.dotted import assign
from go2_locomotion.errors import UsageError
from go2_locomotion.fast_sac import FastSAC
from go2_locomotion.tasks.flat_env_cfg import Go2FlatEnvCfg
from go2_locomotion.training import train
from go2_locomotion.training.checkpoints import resolve_teacher_checkpoint
from go2_locomotion.training.learners import FAST_SAC, learner_of_checkpoint
from go2_locomotion.training.preflight import validate

WIDTH, ACTIONS, SCALE = 3, 2, 4.0
FIELD = "agent.algorithm.teacher_checkpoint"
TEACHER = {
    "class_name": "MLPModel",
    "hidden_dims": [16, 16],
    "activation": "elu",
    "obs_normalization": False,
    "distribution_cfg": {"class_name": "GaussianDistribution", "init_std": 1.0},
}
"""A PPO actor's config as RSL-RL gets it (``agent.teacher``)."""


def _ppo_actor(width=WIDTH, hidden=(16, 16), bias=None) -> MLPModel:
    """A PPO actor (Gaussian output); ``bias``: every weight and bias zero but the last layer's bias, so that its
    mean action is ``bias`` at every state."""
    distribution = dict(TEACHER["distribution_cfg"])
    actor = MLPModel(_obs(torch.zeros(1, width)), {"actor": ["policy"]}, "actor", ACTIONS, list(hidden), "elu", False,
                     distribution)  # fmt: skip
    if bias is not None:
        with torch.no_grad():
            for parameter in actor.mlp.parameters():
                parameter.zero_()
            actor.mlp[-1].bias.copy_(torch.tensor(bias))
    return actor


def _save_teacher(path: Path, actor: MLPModel) -> Path:
    """``actor`` as a PPO checkpoint (RSL-RL's keys)."""
    torch.save({"actor_state_dict": actor.state_dict(), "critic_state_dict": {}, "optimizer_state_dict": {},
                "iter": 99, "infos": None}, path)  # fmt: skip
    return path


def _cfg(with_teacher_keys=True, **algorithm) -> dict:
    """A small FastSAC runner config as RSL-RL gets it. ``with_teacher_keys`` False: the algorithm dict of a run
    saved before the teacher and the warm-ups existed (no ``teacher_*``, ``behavior_cloning_steps``,
    ``critic_warmup_iterations`` or gait-guard keys: ``actor_teacher_weight``, ``residual_*``,
    ``actor_lr_warmup_steps``, ``action_bounds``)."""
    alg = FastSacAlgorithmCfg(batch_size=32, buffer_size=4096, learning_starts=64, gradient_steps=2).to_dict()
    if not with_teacher_keys:
        keys = (
            "teacher_checkpoint",
            "teacher_iterations",
            "teacher_action_noise_std",
            "behavior_cloning_steps",
            "behavior_cloning_learning_rate",
            "critic_warmup_iterations",
            "actor_teacher_weight",
            "residual_on_teacher",
            "residual_scale",
            "actor_lr_warmup_steps",
            "action_bounds",
        )
        for key in keys:
            del alg[key]
    alg.update(algorithm)
    mlp = {"class_name": "MLPModel", "hidden_dims": [32, 32], "activation": "elu", "obs_normalization": True}
    squashed = {"class_name": "go2_locomotion.fast_sac:SquashedGaussianDistribution", "action_scale": SCALE}
    return {
        "obs_groups": {"actor": ["policy"], "critic": ["policy"]},
        "actor": {**mlp, "distribution_cfg": {**squashed, "init_std": 0.25}},
        "critic": {"class_name": "go2_locomotion.fast_sac:TwinQCritic", "hidden_dims": [16, 16]},
        "algorithm": alg,
        "teacher": dict(TEACHER),
    }


def _learner(num_envs=16, **cfg) -> FastSAC:
    env = SimpleNamespace(num_actions=ACTIONS, num_envs=num_envs)
    return FastSAC.construct_algorithm(_obs(torch.zeros(num_envs, WIDTH)), env, _cfg(**cfg), "cpu")


def _parameters(module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in module.parameters()]


def _same(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


# -- the teacher phase -------------------------------------------------------------------------------------------


def test_while_the_teacher_acts_the_replay_holds_its_clamped_mean_and_nothing_learns(tmp_path):
    """Mean action [0.7, 9.0] at every state, noise 0: every stored action is [0.7, 4.0] (9.0 clamped to the
    actor's range +-4); no gradient step in the 2 teacher iterations; the actor acts from the third."""
    path = _save_teacher(tmp_path / "teacher.pt", _ppo_actor(bias=[0.7, 9.0]))
    teacher = {"teacher_checkpoint": str(path), "teacher_iterations": 2, "teacher_action_noise_std": 0.0}
    learner = _learner(**teacher)
    actor, critic = _parameters(learner.actor), _parameters(learner.critic)
    generator = torch.Generator().manual_seed(0)
    assert iteration(learner, generator, WIDTH) == {} and iteration(learner, generator, WIDTH) == {}
    assert learner.buffer.size == 2 * 4 * 16  # two iterations of 4 steps x 16 environments, above learning_starts
    expected = torch.tensor([0.7, 4.0]).expand(128, 2)
    assert torch.equal(learner.buffer.actions[:128], expected)
    assert _same(actor, _parameters(learner.actor)) and _same(critic, _parameters(learner.critic))
    assert learner.updates == 0 and not learner.teaching
    losses = iteration(learner, generator, WIDTH)  # the actor acts now, and learns
    assert "critic" in losses and learner.updates == 2
    assert not torch.equal(learner.buffer.actions[128:192], expected[:64])


def test_the_teacher_s_actions_are_its_mean_plus_the_configured_noise(tmp_path):
    """Noise std 0.5 on the mean [0.7, 9.0]: the same draws replayed by hand give the stored actions exactly; the
    unclamped action's spread is 0.5 (the clamped one stays at 4 unless a draw below -10 sigma came)."""
    path = _save_teacher(tmp_path / "teacher.pt", _ppo_actor(bias=[0.7, 9.0]))
    learner = _learner(512, teacher_checkpoint=str(path), teacher_iterations=1, teacher_action_noise_std=0.5)
    torch.manual_seed(7)
    with torch.inference_mode():
        actions = learner.act(_obs(torch.zeros(512, WIDTH)))
    torch.manual_seed(7)
    expected = (torch.tensor([0.7, 9.0]) + 0.5 * torch.randn(512, 2)).clamp(-SCALE, SCALE)
    assert torch.equal(actions, expected)
    assert float((actions[:, 0] - 0.7).std()) == pytest.approx(0.5, rel=0.1)
    assert torch.equal(actions[:, 1], torch.full((512,), 4.0))


def test_a_trained_teacher_s_actions_reach_the_replay_through_its_network(tmp_path):
    """A randomly initialised PPO actor, noise 0: each stored action is that network's mean at the stored state."""
    torch.manual_seed(3)
    teacher = _ppo_actor()
    path = _save_teacher(tmp_path / "teacher.pt", teacher)
    learner = _learner(teacher_checkpoint=str(path), teacher_iterations=1, teacher_action_noise_std=0.0)
    iteration(learner, torch.Generator().manual_seed(1), WIDTH)
    stored = learner.buffer.size
    with torch.no_grad():
        expected = teacher(_obs(learner.buffer.obs["policy"][:stored])).clamp(-SCALE, SCALE)
    torch.testing.assert_close(learner.buffer.actions[:stored], expected, rtol=0, atol=1e-6)
    assert float(expected.abs().max()) > 0.1  # a network that does not output zero


def _cloning(tmp_path, noise=0.0, **rates) -> tuple[float, float, dict, FastSAC, list]:
    """3 teacher iterations (action noise ``noise``) fill the replay (3 x 8 x 64 = 1,536 transitions), then 150
    cloning steps: the squared error between the actor's deterministic action and the teacher's mean on 1,000 states
    never replayed, before and after; the cloning's losses, the learner and its critics' parameters before."""
    torch.manual_seed(0)
    teacher = _ppo_actor()
    path = _save_teacher(tmp_path / "teacher.pt", teacher)
    settings = {"teacher_checkpoint": str(path), "teacher_iterations": 3, "teacher_action_noise_std": noise}
    learner = _learner(64, behavior_cloning_steps=150, batch_size=128, **settings, **rates)
    generator = torch.Generator().manual_seed(1)
    held_out = _obs(torch.randn(1000, WIDTH, generator=generator))

    def error() -> float:
        with torch.no_grad():
            return float(((learner.actor(held_out) - teacher(held_out)) ** 2).mean())

    before, critic = error(), _parameters(learner.critic)
    assert iteration(learner, generator, WIDTH, 8, 64) == {} and iteration(learner, generator, WIDTH, 8, 64) == {}
    losses = iteration(learner, generator, WIDTH, 8, 64)
    return before, error(), losses, learner, critic


def test_behaviour_cloning_fits_the_actor_to_the_teacher_on_held_out_states(tmp_path):
    """Adam at 3e-3: the held-out error falls from the fresh actor's ~0.6 to under 0.005 (measured 0.59 -> 0.0003);
    the critics do not move."""
    before, after, losses, learner, critic = _cloning(tmp_path, actor_learning_rate=3e-3)
    assert set(losses) == {"behavior_cloning_first", "behavior_cloning", "behavior_cloning_std"}
    assert losses["behavior_cloning"] < losses["behavior_cloning_first"] / 100
    assert before > 0.3 and after < 0.005 and after < before / 100, (before, after)
    assert _same(critic, _parameters(learner.critic)) and learner.updates == 0


def test_behaviour_cloning_gives_the_clone_the_teacher_s_exploration_noise(tmp_path):
    """The executed actions were the teacher's mean plus noise of std 0.3 action units: the clone's own samples at
    1,000 states never replayed spread by 0.3 about its mean (the fresh actor's init_std 0.25 before the squash is
    ~1 action unit, 0.25 x action_scale 4 at the centre), the mean fits as without noise, and the logged std agrees.
    Without noise in the replay the clone's std falls towards the distribution's floor: from ~1 to under 0.15 action
    units in the 150 steps (measured 0.09)."""
    before, after, losses, learner, _ = _cloning(tmp_path, noise=0.3, actor_learning_rate=3e-3)
    held_out = _obs(torch.randn(1000, WIDTH, generator=torch.Generator().manual_seed(9)))

    def spread() -> torch.Tensor:
        with torch.no_grad():
            learner.actor.distribution.update(learner.actor.mlp(learner.actor.get_latent(held_out)))
            samples = torch.stack([learner.actor.distribution.sample() for _ in range(200)])
        return samples.std(dim=0)  # per state and action, over 200 draws

    assert after < 0.005 < 0.3 < before, (before, after)
    per_state = spread()
    assert float(per_state.mean()) == pytest.approx(0.3, abs=0.03), float(per_state.mean())
    assert losses["behavior_cloning_std"] == pytest.approx(0.3, abs=0.03)
    _, after, losses, learner, _ = _cloning(tmp_path, noise=0.0, actor_learning_rate=3e-3)
    assert after < 0.005 and float(spread().mean()) < 0.15 and losses["behavior_cloning_std"] < 0.15


def test_behaviour_cloning_takes_its_own_learning_rate_when_set(tmp_path):
    """The actor's RL rate 1e-7: cloning at that rate barely moves the actor; at behavior_cloning_learning_rate 3e-3
    it fits as above, and the RL steps keep 1e-7."""
    before, after, *_ = _cloning(tmp_path, actor_learning_rate=1e-7)
    assert after > 0.9 * before > 0.27, (before, after)
    before, after, _, learner, _ = _cloning(tmp_path, actor_learning_rate=1e-7, behavior_cloning_learning_rate=3e-3)
    assert after < 0.005 < 0.3 < before, (before, after)
    assert learner.actor_optimizer.param_groups[0]["lr"] == 1e-7


def test_without_a_teacher_the_learner_is_bit_for_bit_what_it_was(tmp_path):
    """The same seed, the same observations: a run saved before the teacher existed (no teacher keys), the
    defaults (teacher_iterations 0) and a checkpoint named with teacher_iterations 0 (never loaded: it would draw
    random numbers to build its network) store the same replay and end with the same networks."""
    path = _save_teacher(tmp_path / "teacher.pt", _ppo_actor())
    runs = []
    for cfg in ({"with_teacher_keys": False}, {}, {"teacher_checkpoint": str(path), "behavior_cloning_steps": 0}):
        torch.manual_seed(5)
        learner = _learner(**cfg)
        generator = torch.Generator().manual_seed(6)
        losses = [iteration(learner, generator, WIDTH) for _ in range(3)]
        assert learner.teacher is None and "critic" in losses[-1]
        runs.append((learner.buffer, _parameters(learner.actor), _parameters(learner.critic), losses))
    (buffer, actor, critic, losses), *others = runs
    for other_buffer, other_actor, other_critic, other_losses in others:
        assert torch.equal(buffer.actions, other_buffer.actions)
        assert torch.equal(buffer.obs["policy"], other_buffer.obs["policy"])
        assert _same(actor, other_actor) and _same(critic, other_critic) and losses == other_losses


# -- the critic warm-up ------------------------------------------------------------------------------------------


def test_after_the_teacher_the_warmup_trains_the_critics_while_the_cloned_actor_acts_unchanged(tmp_path):
    """Teacher 2 iterations, cloning 50 steps, warm-up 2: iterations 3 and 4 take their 2 critic steps each and
    leave the cloned actor and the temperature exactly as cloning left them, while that actor (not the teacher,
    whose mean is [0.7, 9.0]) acts; iteration 5 moves the actor."""
    path = _save_teacher(tmp_path / "teacher.pt", _ppo_actor(bias=[0.7, 9.0]))
    settings = {"teacher_checkpoint": str(path), "teacher_iterations": 2, "teacher_action_noise_std": 0.0}
    learner = _learner(behavior_cloning_steps=50, critic_warmup_iterations=2, **settings)
    generator = torch.Generator().manual_seed(0)
    iteration(learner, generator, WIDTH)
    assert set(iteration(learner, generator, WIDTH)) == {
        "behavior_cloning_first",
        "behavior_cloning",
        "behavior_cloning_std",
    }
    cloned, log_alpha = _parameters(learner.actor), learner.log_alpha.detach().clone()
    for n in (1, 2):
        critic = _parameters(learner.critic)
        assert learner.holds_actor
        losses = iteration(learner, generator, WIDTH)
        assert learner.updates == 2 * n and losses["actor"] == 0.0 and losses["alpha"] == 0.0
        assert not _same(critic, _parameters(learner.critic))
        assert _same(cloned, _parameters(learner.actor)) and torch.equal(learner.log_alpha, log_alpha)
    stored = learner.buffer.actions[2 * 64 : 4 * 64]  # the warm-up's transitions: the actor's samples
    assert not torch.isclose(stored, torch.tensor([0.7, 4.0])).all(-1).any()
    assert not learner.holds_actor
    iteration(learner, generator, WIDTH)
    assert not _same(cloned, _parameters(learner.actor)) and not torch.equal(learner.log_alpha, log_alpha)


def test_without_a_teacher_the_warmup_holds_the_actor_for_the_first_iterations_and_a_resume_does_not_repeat_it():
    """Warm-up 1 and learning_starts 64 (one iteration of 4 x 16): the first update steps the critics alone; the
    second moves the actor. A run resumed from the runner's iteration 0 (the first) continues at 1: no warm-up."""
    learner = _learner(critic_warmup_iterations=1)
    generator = torch.Generator().manual_seed(0)
    actor = _parameters(learner.actor)
    losses = iteration(learner, generator, WIDTH)
    assert learner.updates == 2 and losses["critic"] > 0 and _same(actor, _parameters(learner.actor))
    iteration(learner, generator, WIDTH)
    assert not _same(actor, _parameters(learner.actor))
    resumed = _learner(critic_warmup_iterations=1)
    assert resumed.holds_actor
    resumed.load({**learner.save(), "iter": 0}, None, True)
    assert resumed.iteration == 1 and not resumed.holds_actor


# -- checkpoints ---------------------------------------------------------------------------------------------------


def test_the_teacher_stays_out_of_checkpoints_and_returns_on_a_resume_inside_its_phase(tmp_path):
    path = _save_teacher(tmp_path / "teacher.pt", _ppo_actor(bias=[0.7, 9.0]))
    settings = {"teacher_checkpoint": str(path), "teacher_iterations": 3, "teacher_action_noise_std": 0.0}
    learner = _learner(**settings)
    saved = learner.save()
    assert set(saved) == {"actor_state_dict", "critic_state_dict", "target_critic_state_dict",
                          "optimizer_state_dict", "log_alpha", "updates"}  # fmt: skip
    assert learner_of_checkpoint({**saved, "iter": 0}) is FAST_SAC
    # the runner saved iteration 1 (the second): a resume continues at 2, still the teacher's
    resumed = _learner(**settings)
    resumed.load({**saved, "iter": 1}, None, True)
    assert resumed.iteration == 2 and resumed.teaching
    with torch.inference_mode():
        assert torch.equal(resumed.act(_obs(torch.zeros(4, WIDTH))), torch.tensor([[0.7, 4.0]] * 4))
    resumed.load({**saved, "iter": 2}, None, True)
    assert resumed.iteration == 3 and not resumed.teaching
    # play loads the actor alone: the iteration stays
    resumed.load({**saved, "iter": 0}, {"actor": True}, True)
    assert resumed.iteration == 3


# -- refusals by the learner -------------------------------------------------------------------------------------


def _refusal(**cfg) -> str:
    with pytest.raises(UsageError) as error:
        _learner(**cfg)
    return str(error.value)


def test_unusable_teacher_checkpoints_are_refused_in_one_line(tmp_path):
    missing = tmp_path / "missing.pt"
    assert _refusal(teacher_checkpoint=str(missing), teacher_iterations=1) == (
        f"{FIELD} must be a PPO checkpoint file of the task or 'pretrained', got '{missing}'"
    )
    student = tmp_path / "student.pt"
    torch.save({"student_state_dict": {}, "teacher_state_dict": {}, "iter": 3}, student)
    assert _refusal(teacher_checkpoint=str(student), teacher_iterations=1) == (
        f"{FIELD} {student} has no actor_state_dict (a PPO checkpoint's actor); it holds "
        "['iter', 'student_state_dict', 'teacher_state_dict']"
    )
    wider = _save_teacher(tmp_path / "wider.pt", _ppo_actor(width=5))
    assert _refusal(teacher_checkpoint=str(wider), teacher_iterations=1) == (
        f"{FIELD} {wider}: its actor reads 5 inputs, the FastSAC actor's observation (policy) has 3; a PPO checkpoint "
        "of the same task is accepted"
    )
    smaller = _save_teacher(tmp_path / "smaller.pt", _ppo_actor(hidden=(8,)))
    assert _refusal(teacher_checkpoint=str(smaller), teacher_iterations=1) == (
        f"{FIELD} {smaller}: its actor does not fit agent.teacher (the task's PPO actor): mlp.0.bias is (8,) there, "
        "(16,) in agent.teacher"
    )
    damaged = tmp_path / "damaged.pt"
    damaged.write_bytes(b"not a checkpoint")
    assert _refusal(teacher_checkpoint=str(damaged), teacher_iterations=1).startswith(
        f"{FIELD} {damaged} cannot be loaded ("
    )
    assert _refusal(teacher_checkpoint="pretrained", teacher_iterations=1).startswith(
        f"{FIELD}=pretrained names the task's shipped policy, which scripts/train.py resolves"
    )
    assert _refusal(teacher_checkpoint=None, teacher_iterations=1) == (
        f"{FIELD} must name a PPO checkpoint of the task when teacher_iterations > 0, got None"
    )


# -- configs and preflight -------------------------------------------------------------------------------------


FAST_SAC_TASKS = [task for task in tasks.TRAINING_TASKS if FAST_SAC_ENTRY_POINT in tasks.AGENTS.get(task, {})]


@pytest.mark.parametrize("task", FAST_SAC_TASKS)
def test_the_teacher_network_is_the_task_s_ppo_actor(task):
    fast_sac = load_cfg_from_registry(task, FAST_SAC_ENTRY_POINT)
    ppo = load_cfg_from_registry(task, PPO_ENTRY_POINT)
    assert fast_sac.teacher.to_dict() == ppo.actor.to_dict()
    alg = resolve_presets(fast_sac, ()).algorithm
    assert (alg.teacher_checkpoint, alg.teacher_iterations, alg.behavior_cloning_steps) == (None, 0, 0)


def _cfgs():
    env = Go2FlatEnvCfg()
    env.sim.device = "cpu"
    agent = handle_deprecated_rsl_rl_cfg(resolve_presets(Go2FlatFastSacRunnerCfg(), ("cpu",)), check_rsl_rl_version())
    return env, agent


def _problems(**algorithm) -> list[str]:
    env, agent = _cfgs()
    for name, value in algorithm.items():
        assign(agent, f"algorithm.{name}", value)
    return validate(env, agent)


BAD = [
    *[
        ("behavior_cloning_learning_rate", v, "a finite number > 0 or None (actor_learning_rate)")
        for v in (0.0, -1e-3, math.inf, "1e-3")
    ],
    *[("critic_warmup_iterations", v, "an integer >= 0 (0: no critic warm-up)") for v in (-1, 1.5, math.nan, "20")],
    *[("teacher_iterations", v, "an integer >= 0 (0: no teacher)") for v in (-1, 2.5, True, math.nan, math.inf, "3")],
    *[
        ("behavior_cloning_steps", v, "an integer >= 0 (0: the actor starts fresh)")
        for v in (-1, 0.5, True, math.nan, "100")
    ],
    *[
        ("teacher_action_noise_std", v, "a finite number >= 0 [action units]")
        for v in (-0.1, math.nan, math.inf, True, "0.3")
    ],
]


@pytest.mark.parametrize(("name", "value", "domain"), BAD, ids=[f"{n}={v!r}" for n, v, _ in BAD])
def test_each_unusable_teacher_setting_is_named(name, value, domain):
    assert _problems(**{name: value}) == [f"agent.algorithm.{name} must be {domain}, got {value!r}"]


def test_teacher_settings_that_contradict_each_other_are_named():
    assert _problems(behavior_cloning_steps=100) == [
        "agent.algorithm.behavior_cloning_steps needs a teacher (agent.algorithm.teacher_iterations > 0), got 100"
    ]
    assert _problems(teacher_checkpoint="teacher.pt") == [
        "agent.algorithm.teacher_checkpoint is set ('teacher.pt') but agent.algorithm.teacher_iterations is 0: the "
        "teacher would never act"
    ]
    assert _problems(teacher_iterations=5) == [
        "agent.algorithm.teacher_checkpoint must be a PPO checkpoint of the task (a path or 'pretrained') when "
        "teacher_iterations > 0, got None"
    ]


def test_the_preflight_refuses_a_missing_or_mismatched_checkpoint(tmp_path):
    missing = tmp_path / "model_5.pt"
    assert _problems(teacher_iterations=5, teacher_checkpoint=str(missing)) == [
        f"{FIELD} must be a PPO checkpoint file of the task or 'pretrained', got '{missing}'"
    ]
    rough = pretrained.checkpoint("Go2-Rough")  # reads Go2-Rough's 237 inputs, not Go2-Flat's 50
    assert _problems(teacher_iterations=5, teacher_checkpoint=str(rough)) == [
        f"{FIELD} {rough}: its actor reads 237 inputs, the FastSAC actor's observation (policy) has 50; a PPO "
        "checkpoint of the same task is accepted"
    ]


@pytest.mark.parametrize("task", FAST_SAC_TASKS)
def test_pretrained_is_the_task_s_shipped_ppo_policy_and_it_fits_as_teacher(task):
    env = load_cfg_from_registry(task, "env_cfg_entry_point")
    env.sim.device = "cpu"
    agent = handle_deprecated_rsl_rl_cfg(
        resolve_presets(load_cfg_from_registry(task, FAST_SAC_ENTRY_POINT), ("cpu",)), check_rsl_rl_version()
    )
    agent.algorithm.teacher_checkpoint, agent.algorithm.teacher_iterations = "pretrained", 125
    agent.algorithm.behavior_cloning_steps = 2000
    resolve_teacher_checkpoint(agent, task)
    assert agent.algorithm.teacher_checkpoint == str(pretrained.checkpoint(task))
    assert validate(env, agent) == []  # its actor_state_dict loads into agent.teacher with strict=True


def test_pretrained_without_a_shipped_policy_is_refused_and_paths_are_left_alone():
    agent = Go2FlatFastSacRunnerCfg()
    agent.algorithm.teacher_checkpoint = "pretrained"
    with pytest.raises(UsageError) as error:
        resolve_teacher_checkpoint(agent, "Go2-Nowhere")
    assert str(error.value) == (
        "agent.algorithm.teacher_checkpoint=pretrained: no pretrained policy for task 'Go2-Nowhere'; shipped: "
        + ", ".join(pretrained.POLICIES)
    )
    agent.algorithm.teacher_checkpoint = "runs/model_300.pt"
    resolve_teacher_checkpoint(agent, "Go2-Flat")
    assert agent.algorithm.teacher_checkpoint == "runs/model_300.pt"


def test_train_check_resolves_pretrained_and_accepts_the_teacher_run(capsys):
    argv = ["--task", "Go2-Flat", "--agent", FAST_SAC_ENTRY_POINT, "--device", "cpu", "--headless", "--num_envs",
            "512", "--seed", "42", "--check", "presets=cpu", "agent.algorithm.teacher_checkpoint=pretrained",
            "agent.algorithm.teacher_iterations=125", "agent.algorithm.behavior_cloning_steps=2000"]  # fmt: skip
    assert train.main(argv) == 0
    assert "[go2] configuration OK" in capsys.readouterr().out

"""Teacher-student distillation of Go2-Rough-Blind without a simulator: RSL-RL's own models and algorithms built from
the agent configs on zero observations of the config's widths. The student is a PPO actor of the task, the teacher
is Go2-Rough's actor and takes the shipped checkpoint, the warm starts load what they promise and nothing else, and
the preflight names the distillation settings and describes its rollout."""

import hashlib
import math
import warnings
from types import SimpleNamespace

import pytest
import torch
from isaaclab.utils import to_dict
from isaaclab_rl.rsl_rl import check_rsl_rl_version, handle_deprecated_rsl_rl_cfg
from rsl_rl.utils import resolve_callable
from tensordict import TensorDict

from go2_locomotion import pretrained
from go2_locomotion.agents.distillation_cfg import Go2RoughBlindDistillationRunnerCfg
from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2RoughBlindPPORunnerCfg, Go2RoughPPORunnerCfg
from go2_locomotion.dotted import assign
from go2_locomotion.errors import UsageError
from go2_locomotion.tasks.blind_env_cfg import Go2RoughBlindEnvCfg
from go2_locomotion.tasks.velocity_env_cfg import Go2RoughEnvCfg
from go2_locomotion.training import warm_start
from go2_locomotion.training.checkpoints import layer_widths, read_checkpoint
from go2_locomotion.training.learners import DISTILLATION, PPO
from go2_locomotion.training.preflight import DistillationGeometry, config_observation_widths, validate
from go2_locomotion.training.session import load_policy, without_idle_symmetry
from go2_locomotion.training.train import rollout_geometry

ACTIONS = 12
"""The Go2's joints."""

TASK = "Go2-Rough-Blind"


def _migrated(agent):
    return handle_deprecated_rsl_rl_cfg(agent, check_rsl_rl_version())


@pytest.fixture(scope="module")
def env_cfg():
    cfg = Go2RoughBlindEnvCfg()
    cfg.sim.device = "cpu"
    return cfg


@pytest.fixture(scope="module")
def widths(env_cfg):
    return config_observation_widths(env_cfg)


def _obs(widths: dict[str, int], envs: int = 2) -> TensorDict:
    return TensorDict({group: torch.zeros(envs, width) for group, width in widths.items()}, batch_size=[envs])


def _algorithm(agent, widths: dict[str, int]):
    """RSL-RL's algorithm of an agent config, as its runner builds it (on a stand-in for the environment)."""
    cfg = {**without_idle_symmetry(to_dict(_migrated(agent))), "multi_gpu": None}
    env = SimpleNamespace(num_envs=2, num_actions=ACTIONS)
    algorithm = resolve_callable(cfg["algorithm"]["class_name"])  # as RSL-RL's runner resolves it
    return algorithm.construct_algorithm(_obs(widths), env, cfg, "cpu")


def test_the_teacher_reads_what_go2_rough_s_policy_reads(widths):
    assert widths["teacher"] == config_observation_widths(Go2RoughEnvCfg())["policy"]


def test_the_student_s_state_dict_is_a_ppo_actor_s(widths):
    distillation = _migrated(Go2RoughBlindDistillationRunnerCfg())
    ppo = _migrated(Go2RoughBlindPPORunnerCfg())
    student = warm_start.model_from_cfg(distillation.student, distillation.obs_groups, "student", widths, ACTIONS)
    actor = warm_start.model_from_cfg(ppo.actor, ppo.obs_groups, "actor", widths, ACTIONS)
    shapes = {key: tensor.shape for key, tensor in student.state_dict().items()}
    assert shapes == {key: tensor.shape for key, tensor in actor.state_dict().items()}
    actor.load_state_dict(student.state_dict(), strict=True)
    blind = _obs(widths)
    blind["policy"] = torch.randn(2, widths["policy"])
    torch.testing.assert_close(actor(blind), student(blind), atol=0, rtol=0)


def test_the_teacher_from_the_config_takes_the_shipped_go2_rough_actor(widths):
    shipped = read_checkpoint(pretrained.checkpoint("Go2-Rough"))
    distillation = _migrated(Go2RoughBlindDistillationRunnerCfg())
    teacher = warm_start.model_from_cfg(distillation.teacher, distillation.obs_groups, "teacher", widths, ACTIONS)
    teacher.load_state_dict(shipped["actor_state_dict"], strict=True)
    # and acts as Go2-Rough's own actor does on the same observation
    rough = _migrated(Go2RoughPPORunnerCfg())
    actor = warm_start.model_from_cfg(rough.actor, rough.obs_groups, "actor", {"policy": widths["teacher"]}, ACTIONS)
    actor.load_state_dict(shipped["actor_state_dict"], strict=True)
    x = torch.randn(3, widths["teacher"])
    torch.testing.assert_close(teacher(TensorDict({"teacher": x}, [3])), actor(TensorDict({"policy": x}, [3])))


def test_rsl_rl_builds_the_algorithm_without_a_warning_and_loads_the_teacher_alone(env_cfg, widths):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # RSL-RL warns when epochs x steps is not divisible by gradient_length
        algorithm = _algorithm(Go2RoughBlindDistillationRunnerCfg(), widths)
    student_before = {k: v.clone() for k, v in algorithm.student.state_dict().items()}
    path = pretrained.checkpoint("Go2-Rough")
    agent = _migrated(Go2RoughBlindDistillationRunnerCfg())
    warm = warm_start.prepare(pretrained.KEYWORD, TASK, DISTILLATION, env_cfg, agent, ACTIONS)
    assert (warm.kind, warm.path, warm.source_task) == (warm_start.TEACHER, path, "Go2-Rough")
    assert not algorithm.teacher_loaded
    record = warm_start.apply_warm_start(SimpleNamespace(alg=algorithm, cfg={}), warm, {}, "Go2-Rough-Blind")
    assert algorithm.teacher_loaded
    shipped = read_checkpoint(path)["actor_state_dict"]
    for key, tensor in algorithm.teacher.state_dict().items():
        assert torch.equal(tensor, shipped[key]), key
    for key, tensor in algorithm.student.state_dict().items():
        assert torch.equal(tensor, student_before[key]), key  # the student starts fresh
    assert record == {
        "checkpoint": f"go2_locomotion/pretrained/go2_rough/{path.name}",  # package-relative: no machine's folders
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "source_task": "Go2-Rough",
        "iteration": read_checkpoint(path)["iter"],
        "loads": "teacher",
    }


def test_a_teacher_that_does_not_fit_is_refused_in_one_line(env_cfg, widths):
    agent = _migrated(Go2RoughBlindDistillationRunnerCfg())
    flat = pretrained.checkpoint("Go2-Flat")
    with pytest.raises(UsageError) as error:
        warm_start.prepare(str(flat), TASK, DISTILLATION, env_cfg, agent, ACTIONS)
    theirs = layer_widths(read_checkpoint(flat)["actor_state_dict"])
    teacher = layer_widths(read_checkpoint(pretrained.checkpoint("Go2-Rough"))["actor_state_dict"])
    assert error.value.messages == (
        f"--warm_start {flat}: its policy has layer widths {theirs}, the teacher of Go2-Rough-Blind (agent.teacher, "
        f"reading teacher ({widths['teacher']})) has {teacher}",
    )


def test_a_teacher_must_be_a_ppo_checkpoint(env_cfg, tmp_path):
    agent = _migrated(Go2RoughBlindDistillationRunnerCfg())
    path = tmp_path / "model_4.pt"
    torch.save({"student_state_dict": {}, "teacher_state_dict": {}, "iter": 4}, path)
    with pytest.raises(UsageError) as error:
        warm_start.prepare(str(path), TASK, DISTILLATION, env_cfg, agent, ACTIONS)
    assert error.value.messages == (
        f"--warm_start {path}: a Distillation checkpoint; Distillation starts from a PPO checkpoint of Go2-Rough "
        "(default: its shipped policy)",
    )


def _distilled(widths, tmp_path, iteration: int = 5):
    """A distillation checkpoint with a student away from any initialisation."""
    algorithm = _algorithm(Go2RoughBlindDistillationRunnerCfg(), widths)
    with torch.no_grad():
        for parameter in algorithm.student.parameters():
            parameter.add_(0.3 * torch.randn_like(parameter))
    path = tmp_path / f"model_{iteration}.pt"
    torch.save({**algorithm.save(), "iter": iteration, "infos": None}, path)
    return path, algorithm.student.state_dict()


def test_ppo_starts_from_a_distilled_student_with_a_fresh_critic_and_optimiser(env_cfg, widths, tmp_path):
    path, student = _distilled(widths, tmp_path)
    agent = _migrated(Go2RoughBlindPPORunnerCfg())
    warm = warm_start.prepare(str(path), TASK, PPO, env_cfg, agent, ACTIONS)
    assert (warm.kind, warm.source_task) == (warm_start.STUDENT, TASK)
    algorithm = _algorithm(Go2RoughBlindPPORunnerCfg(), widths)
    critic_before = {k: v.clone() for k, v in algorithm.critic.state_dict().items()}
    record = warm_start.apply_warm_start(SimpleNamespace(alg=algorithm, cfg={}), warm, {}, "Go2-Rough-Blind")
    assert algorithm.actor.state_dict().keys() == student.keys()
    for key, tensor in algorithm.actor.state_dict().items():
        assert torch.equal(tensor, student[key]), key
    for key, tensor in algorithm.critic.state_dict().items():
        assert torch.equal(tensor, critic_before[key]), key
    assert algorithm.optimizer.state_dict()["state"] == {}  # no step taken, none loaded
    assert (record["loads"], record["iteration"], record["source_task"]) == ("student", 5, TASK)


def test_a_student_that_does_not_fit_the_actor_is_refused(env_cfg, widths, tmp_path):
    path, student = _distilled(widths, tmp_path)
    agent = _migrated(Go2RoughBlindPPORunnerCfg())
    agent.actor.hidden_dims = [256, 128]
    with pytest.raises(UsageError) as error:
        warm_start.prepare(str(path), TASK, PPO, env_cfg, agent, ACTIONS)
    policy = widths["policy"]
    assert error.value.messages == (
        f"--warm_start {path}: its policy has layer widths {layer_widths(student)}, the actor of Go2-Rough-Blind "
        f"(agent.actor, reading policy ({policy})) has [{policy}, 256, 128, {ACTIONS}]",
    )


def test_ppo_on_the_blind_task_has_no_shipped_start(env_cfg):
    agent = _migrated(Go2RoughBlindPPORunnerCfg())
    with pytest.raises(UsageError) as error:
        warm_start.prepare("pretrained", TASK, PPO, env_cfg, agent, ACTIONS)
    assert error.value.messages == (
        "--warm_start: task 'Go2-Rough-Blind' has no shipped policy to start from; accepted: a distillation "
        "checkpoint of Go2-Rough-Blind or a PPO checkpoint of Go2-Rough-Blind (its observation terms embedded by name)",
    )


def test_play_loads_the_student_into_either_learner_s_policy(widths, tmp_path):
    path, student = _distilled(widths, tmp_path)
    checkpoint = read_checkpoint(path)
    for agent in (Go2RoughBlindDistillationRunnerCfg(), Go2RoughBlindPPORunnerCfg()):
        algorithm = _algorithm(agent, widths)
        load_policy(SimpleNamespace(alg=algorithm), checkpoint)
        for key, tensor in algorithm.get_policy().state_dict().items():
            assert torch.equal(tensor, student[key]), key


def test_the_configuration_passes_preflight(env_cfg):
    assert validate(env_cfg, _migrated(Go2RoughBlindDistillationRunnerCfg())) == []


BAD = [
    ("agent.algorithm.num_learning_epochs", 0, "a positive integer"),
    ("agent.algorithm.gradient_length", 2.5, "a positive integer"),
    ("agent.algorithm.learning_rate", math.inf, "a finite number > 0"),
    ("agent.algorithm.learning_rate", 0.0, "a finite number > 0"),
    ("agent.algorithm.max_grad_norm", -1.0, "a number > 0 or None (no clipping)"),
    ("agent.algorithm.loss_type", "l1", "one of ['mse', 'huber']"),
    ("agent.algorithm.optimizer", "lion", "one of ['adam', 'adamw', 'sgd', 'rmsprop']"),
    ("agent.student.distribution_cfg.init_std", 0.0, "a finite number > 0"),
]


@pytest.mark.parametrize(("path", "value", "domain"), BAD, ids=[f"{p}={v!r}" for p, v, _ in BAD])
def test_each_unusable_setting_is_named(env_cfg, path, value, domain):
    agent = _migrated(Go2RoughBlindDistillationRunnerCfg())
    assign({"agent": agent}, path, value)
    assert validate(env_cfg, agent) == [f"{path} must be {domain}, got {value!r}"]


def test_both_models_need_their_observation_groups(env_cfg):
    agent = _migrated(Go2RoughBlindDistillationRunnerCfg())
    agent.obs_groups = {"student": ["policy"]}
    assert validate(env_cfg, agent) == [
        "agent.obs_groups.teacher must be a list of observation groups (the distillation's models read it), got missing"
    ]
    agent.obs_groups = {"student": ["policy"], "teacher": ["height_scan"]}
    assert validate(env_cfg, agent) == [
        "agent.obs_groups.teacher must name observation groups of the task ['critic', 'policy', 'teacher'], "
        "got 'height_scan'"
    ]


def test_geometry_worked_by_hand():
    g = DistillationGeometry(
        num_envs=10, steps_per_env=6, epochs=3, gradient_length=4, observation_widths={"a": 5, "b": 2}, action_width=3
    )
    # 3 x 6 = 18 steps = 4 x 4 + 2; per transition: observations 7 x 4 B, reward 4 B, action and teacher action
    # 2 x 3 x 4 B, done 1 B = 57 B
    assert (g.transitions, g.optimizer_steps, g.dropped_steps, g.storage_bytes) == (60, 4, 2, 60 * 57)
    assert g.warnings() == [
        "num_learning_epochs x num_steps_per_env = 3 x 6 = 18 is not divisible by gradient_length = 4: RSL-RL never "
        "backpropagates the last 2 steps of every update"
    ]
    assert "4 optimizer steps per iteration" in g.report()


def test_the_shipped_configuration_backpropagates_every_step(env_cfg, widths):
    g = rollout_geometry(env_cfg, _migrated(Go2RoughBlindDistillationRunnerCfg()), widths, ACTIONS, 1)
    assert isinstance(g, DistillationGeometry)
    assert g.warnings() == [] and g.dropped_steps == 0
    assert set(g.observation_widths) == {"policy", "critic", "teacher"}  # RSL-RL stores every group

"""The learner descriptions (:mod:`go2_locomotion.training.learners`) without a simulator: every registered agent
config is recognised as the learner of its ``--agent`` key, checkpoints by their keys, the refusals that depend on
the learner word for word, and the runner registry."""

from types import SimpleNamespace

import pytest
import torch
from isaaclab_rl.rsl_rl import check_rsl_rl_version, handle_deprecated_rsl_rl_cfg
from isaaclab_tasks.utils import resolve_presets
from isaaclab_tasks.utils.parse_cfg import load_cfg_from_registry

import go2_locomotion.tasks as tasks
from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2FlatPPORunnerCfg
from go2_locomotion.catalog import DISTILLATION_ENTRY_POINT, FAST_SAC_ENTRY_POINT, PPO_ENTRY_POINT
from go2_locomotion.errors import UsageError
from go2_locomotion.training import checkpoints, learners
from go2_locomotion.training.learners import DISTILLATION, FAST_SAC, PPO, learner_of, learner_of_checkpoint
from go2_locomotion.training.plan import RUNNERS, runner_class
from go2_locomotion.training.preflight import is_fast_sac, validate
from go2_locomotion.training.train import check_learner_args, check_teacher

PPO_CHECKPOINT = {"actor_state_dict": {}, "critic_state_dict": {}, "optimizer_state_dict": {}, "iter": 3}
SAC_CHECKPOINT = {**PPO_CHECKPOINT, "target_critic_state_dict": {}, "log_alpha": torch.zeros(()), "updates": 9}
DISTILLATION_CHECKPOINT = {"student_state_dict": {}, "teacher_state_dict": {}, "optimizer_state_dict": {}, "iter": 3}


def _agent(task: str, entry_point: str):
    """An agent config as the scripts get it: registry entry, default presets, Isaac Lab's migration."""
    cfg = resolve_presets(load_cfg_from_registry(task, entry_point), ())
    return handle_deprecated_rsl_rl_cfg(cfg, check_rsl_rl_version())


REGISTERED = [
    (task, entry_point) for task in tasks.TASKS for entry_point in (PPO_ENTRY_POINT, *tasks.AGENTS.get(task, {}))
]


@pytest.mark.parametrize(("task", "entry_point"), REGISTERED, ids=[f"{t}:{e}" for t, e in REGISTERED])
def test_every_registered_agent_config_is_the_learner_of_its_agent_key(task, entry_point):
    learner = learner_of(_agent(task, entry_point))
    assert learner.entry_point == entry_point
    assert learner is learners.BY_NAME[learner.name]


def test_each_learner_is_registered_for_some_task_and_distillation_where_a_teacher_is():
    keys = {entry_point for _, entry_point in REGISTERED}
    assert keys == {learner.entry_point for learner in learners.LEARNERS}
    distilled = {task for task, key in REGISTERED if key == DISTILLATION_ENTRY_POINT}
    assert distilled == {"Go2-Rough-Blind", "Go2-Rough-Blind-Play"}


def test_old_spelling_of_the_fast_sac_algorithm_is_still_fast_sac():
    agent = _agent("Go2-Flat", FAST_SAC_ENTRY_POINT)
    agent.algorithm.class_name = "go2_locomotion.training.fast_sac:FastSAC"  # run folders saved before the package
    assert learner_of(agent) is FAST_SAC and is_fast_sac(agent)
    assert not is_fast_sac(_agent("Go2-Flat", PPO_ENTRY_POINT))


def test_an_algorithm_of_no_learner_is_refused_by_name():
    agent = _agent("Go2-Flat", PPO_ENTRY_POINT)
    agent.algorithm.class_name = "Distillation"  # RSL-RL's, but not with class_name OnPolicyRunner
    accepted = (
        "PPO (class_name OnPolicyRunner, rsl_rl.algorithms:PPO), FastSAC (class_name OnPolicyRunner, "
        "go2_locomotion.fast_sac:FastSAC), Distillation (class_name DistillationRunner, rsl_rl.algorithms:Distillation)"
    )
    message = (
        f"agent.class_name 'OnPolicyRunner' with agent.algorithm.class_name 'Distillation' is no learner of this "
        f"package; accepted: {accepted}"
    )
    with pytest.raises(UsageError) as error:
        learner_of(agent)
    assert error.value.messages == (message,)
    agent.algorithm.class_name = "NoSuchAlgorithm"
    with pytest.raises(UsageError, match=r"^agent.algorithm.class_name must name an algorithm class, got 'NoSuch"):
        learner_of(agent)


def test_preflight_names_an_unknown_learner_among_the_other_problems():
    from go2_locomotion.tasks.flat_env_cfg import Go2FlatEnvCfg

    env, agent = Go2FlatEnvCfg(), Go2FlatPPORunnerCfg()
    env.sim.device = "cpu"
    agent.algorithm.class_name = "Distillation"
    (problem,) = validate(env, agent)
    assert problem.startswith("agent.class_name 'OnPolicyRunner' with agent.algorithm.class_name 'Distillation'")


@pytest.mark.parametrize(
    ("checkpoint", "learner"),
    [(PPO_CHECKPOINT, PPO), (SAC_CHECKPOINT, FAST_SAC), (DISTILLATION_CHECKPOINT, DISTILLATION)],
    ids=["ppo", "fast_sac", "distillation"],
)
def test_a_checkpoint_is_recognised_by_its_keys(checkpoint, learner, tmp_path):
    assert learner_of_checkpoint(checkpoint) is learner
    path = tmp_path / "model_3.pt"
    torch.save(checkpoint, path)
    assert checkpoints.read_checkpoint(path)["iter"] == 3


def test_a_file_of_no_learner_is_not_a_checkpoint(tmp_path):
    assert learner_of_checkpoint({"weights": 1, "iter": 0}) is None
    path = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(2)}, path)
    with pytest.raises(UsageError) as error:
        checkpoints.read_checkpoint(path)
    assert error.value.messages == (
        f"checkpoint {path} is not an RSL-RL checkpoint (it has none of actor_state_dict, student_state_dict)",
    )


def test_what_play_loads_is_each_learner_s_acting_model():
    assert [(learner.policy_key, learner.policy_load_cfg) for learner in learners.LEARNERS] == [
        ("actor_state_dict", {"actor": True}),
        ("actor_state_dict", {"actor": True}),
        ("student_state_dict", {"student": True}),
    ]


def test_a_checkpoint_of_another_learner_is_refused_by_name():
    policy = torch.nn.Linear(2, 2)
    with pytest.raises(UsageError) as error:
        checkpoints.check_compatible(SAC_CHECKPOINT, "m.pt", policy, "Go2-Flat", PPO)
    assert error.value.messages == (
        "checkpoint m.pt was trained with FastSAC, not the agent chosen (PPO); pass --agent fast_sac_cfg_entry_point",
    )
    with pytest.raises(UsageError) as error:
        checkpoints.check_compatible(PPO_CHECKPOINT, "m.pt", policy, "Go2-Flat", FAST_SAC)
    assert error.value.messages == (
        "checkpoint m.pt was trained with PPO, not the agent chosen (FastSAC); leave out --agent (PPO is the default)",
    )
    # resuming needs the learner's own training state; a PPO run may start from a student with --warm_start
    with pytest.raises(UsageError) as error:
        checkpoints.check_resumable(DISTILLATION_CHECKPOINT, "d.pt", PPO)
    assert error.value.messages == (
        "checkpoint d.pt was trained with Distillation, not the agent chosen (PPO); pass --agent "
        "distillation_cfg_entry_point, or start a new PPO run from it with --warm_start d.pt",
    )
    with pytest.raises(UsageError) as error:
        checkpoints.check_resumable(PPO_CHECKPOINT, "r.pt", DISTILLATION)
    assert error.value.messages == (
        "checkpoint r.pt was trained with PPO, not the agent chosen (Distillation); leave out --agent (PPO is the "
        "default)",
    )
    checkpoints.check_resumable(DISTILLATION_CHECKPOINT, "d.pt", DISTILLATION)


class _Actor(torch.nn.Module):
    def __init__(self, inputs: int):
        super().__init__()
        self.mlp = torch.nn.Sequential(torch.nn.Linear(inputs, 3))


def test_a_distilled_student_plays_as_a_ppo_actor_and_is_checked_by_its_shapes():
    saved = {**DISTILLATION_CHECKPOINT, "student_state_dict": _Actor(4).state_dict()}
    checkpoints.check_compatible(saved, "d.pt", _Actor(4), "Go2-Rough-Blind", PPO)
    with pytest.raises(UsageError) as error:
        checkpoints.check_compatible(saved, "d.pt", _Actor(5), "Go2-Rough-Blind", PPO)
    assert error.value.messages == (
        "checkpoint d.pt does not fit task 'Go2-Rough-Blind': its student has layer widths [4, 3] (observation 4, "
        "action 3), the task's policy has [5, 3] (observation 5, action 3)",
    )


def _args(agent: str, distributed: bool = False):
    return SimpleNamespace(agent=agent, distributed=distributed)


def test_ranks_and_warm_starts_are_refused_where_the_learner_has_none():
    with pytest.raises(UsageError) as error:
        check_learner_args(_args(FAST_SAC_ENTRY_POINT, distributed=True), FAST_SAC, None)
    assert error.value.messages == (
        "--distributed: FastSAC (--agent fast_sac_cfg_entry_point) runs in one process; accepted: the agents of "
        "PPO's, Distillation's",
    )
    with pytest.raises(UsageError) as error:
        check_learner_args(_args(FAST_SAC_ENTRY_POINT), FAST_SAC, "pretrained")
    assert error.value.messages == (
        "--warm_start loads trained networks into PPO's and Distillation's agents; it cannot start FastSAC (--agent "
        "fast_sac_cfg_entry_point), which starts from its own networks",
    )
    for learner in (PPO, DISTILLATION):
        check_learner_args(_args(learner.entry_point, distributed=True), learner, "pretrained")


def test_distillation_without_a_teacher_is_refused_before_the_simulator():
    with pytest.raises(UsageError) as error:
        check_teacher(DISTILLATION, DISTILLATION_ENTRY_POINT, None, resumes=False)
    assert error.value.messages == (
        "--agent distillation_cfg_entry_point: Distillation needs a teacher; pass --warm_start (the teacher task's "
        "shipped policy) or --warm_start CHECKPOINT (a PPO checkpoint of the teacher task), or --resume from a "
        "checkpoint of this learner",
    )
    check_teacher(DISTILLATION, DISTILLATION_ENTRY_POINT, "pretrained", resumes=False)
    check_teacher(DISTILLATION, DISTILLATION_ENTRY_POINT, None, resumes=True)  # the checkpoint holds the teacher
    check_teacher(PPO, PPO_ENTRY_POINT, None, resumes=False)


def test_the_runner_registry_comes_from_the_learners():
    from rsl_rl.runners import DistillationRunner, OnPolicyRunner

    from go2_locomotion.training.runner import Go2DistillationRunner, Go2OnPolicyRunner

    assert set(RUNNERS) == {"OnPolicyRunner", "DistillationRunner"}
    assert runner_class("OnPolicyRunner") is Go2OnPolicyRunner
    assert runner_class("DistillationRunner") is Go2DistillationRunner
    # the package's hooks wrap RSL-RL's teacher check, which wraps RSL-RL's loop
    assert Go2DistillationRunner.__mro__[1:] == (Go2OnPolicyRunner, DistillationRunner, OnPolicyRunner, object)

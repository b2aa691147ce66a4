"""The rewards for an off-policy learner from scratch (``presets=sac_rewards``): an alive bonus and the penalty
curriculum (:class:`go2_locomotion.tasks.mdp.PenaltyCurriculum`) that scales what moving costs by a factor following
the episode lengths; its factor travels in the checkpoint (training/curriculum_state.py). Episodes of 1,000 steps."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch

from go2_locomotion.tasks.mdp import PenaltyCurriculum
from go2_locomotion.tasks.mdp.penalty_curriculum import next_scale
from go2_locomotion.training import curriculum_state


class _Rewards:
    """Isaac Lab's reward manager as the term uses it: term configs by name, set back after a change."""

    def __init__(self, **weights):
        self.cfgs = {name: SimpleNamespace(weight=w) for name, w in weights.items()}
        self.set_calls = 0

    def get_term_cfg(self, name):
        return self.cfgs[name]

    def set_term_cfg(self, name, cfg):
        self.cfgs[name] = cfg
        self.set_calls += 1


def _env(lengths=(), **weights):
    return SimpleNamespace(
        reward_manager=_Rewards(**weights),
        episode_length_buf=torch.tensor(lengths, dtype=torch.long),
        max_episode_length=1000,
    )


PARAMS = {"terms": ["torques", "rate"], "initial_scale": 0.1, "min_scale": 0.1, "rate": 0.01}


def _term(env, **params):
    return PenaltyCurriculum(SimpleNamespace(params={**PARAMS, **params}), env)


def test_next_scale_worked_by_hand():
    """Lengths 1000, 800, 799, 100, 500 of 1,000 steps, grow at >= 80 %, shrink below 40 %: two long (1000, 800),
    one short (100): 0.2 x 1.01^2 x 0.99 = 0.2019798; clamped to [0.1, 1] at either end."""
    lengths = torch.tensor([1000, 800, 799, 100, 500])
    assert next_scale(0.2, lengths, 1000, 0.8, 0.4, 0.01, 0.1) == pytest.approx(0.2 * 1.01**2 * 0.99)
    assert next_scale(0.1, torch.tensor([10, 20]), 1000, 0.8, 0.4, 0.01, 0.1) == 0.1
    assert next_scale(0.995, torch.tensor([1000, 1000]), 1000, 0.8, 0.4, 0.01, 0.1) == 1.0


def test_the_weights_start_at_the_initial_factor_and_follow_the_episodes():
    """Torques -2e-4 and rate -0.005 start at 0.1 of themselves; three time-outs (1,000 steps) then give 0.1 x 1.01^3;
    a term not named keeps its weight; the factor is returned (Isaac Lab logs it)."""
    env = _env(lengths=[1000, 1000, 1000], torques=-2e-4, rate=-0.005, height=-30.0)
    term = _term(env)
    assert env.reward_manager.cfgs["torques"].weight == pytest.approx(-2e-5)
    assert env.reward_manager.cfgs["rate"].weight == pytest.approx(-5e-4)
    factor = term(env, torch.arange(3), **PARAMS)
    assert factor == pytest.approx(0.1 * 1.01**3)
    assert env.reward_manager.cfgs["torques"].weight == pytest.approx(-2e-4 * 0.1 * 1.01**3)
    assert env.reward_manager.cfgs["height"].weight == -30.0
    calls = env.reward_manager.set_calls
    env.episode_length_buf = torch.tensor([500, 500, 500])  # neither long nor short: nothing set
    assert term(env, torch.arange(3), **PARAMS) == pytest.approx(0.1 * 1.01**3)
    assert env.reward_manager.set_calls == calls


def test_only_the_ending_episodes_count():
    env = _env(lengths=[1000, 5, 1000], torques=-1.0, rate=-1.0)
    term = _term(env)
    assert term(env, torch.tensor([0, 2]), **PARAMS) == pytest.approx(0.1 * 1.01**2)


def test_the_factor_is_the_term_s_state_and_travels_in_the_checkpoint():
    """get_state / set_state (Isaac Lab's DifficultyScheduler convention) carry the factor and re-apply the weights;
    curriculum_state saves every stateful term by name and puts it back, naming the ones it had none for."""
    env = _env(torques=-2e-4, rate=-0.005)
    term = _term(env)
    term.set_state(torch.tensor(0.5))
    assert env.reward_manager.cfgs["rate"].weight == pytest.approx(-0.0025)
    infos = curriculum_state.saved_term_states({"penalties": term})
    assert float(infos[curriculum_state.TERMS_KEY]["penalties"]) == 0.5
    fresh_env = _env(torques=-2e-4, rate=-0.005)
    fresh = _term(fresh_env)
    line = curriculum_state.restore_term_states({"penalties": fresh, "other": _term(_env(torques=1, rate=1))}, infos)
    assert fresh.scale == 0.5 and fresh_env.reward_manager.cfgs["torques"].weight == pytest.approx(-1e-4)
    assert line == "curriculum terms restored from the checkpoint: penalties; starting fresh: other"
    assert curriculum_state.restore_term_states({"penalties": fresh}, None).endswith("none; starting fresh: penalties")


def test_stateful_terms_are_the_curriculum_class_terms_with_state():
    stateful = _term(_env(torques=1.0, rate=1.0))
    cfg = SimpleNamespace(penalties=SimpleNamespace(func=stateful), terrain_levels=SimpleNamespace(func=math.floor))
    manager = SimpleNamespace(active_terms=["terrain_levels", "penalties"], cfg=cfg)
    env = SimpleNamespace(unwrapped=SimpleNamespace(curriculum_manager=manager))
    assert curriculum_state.stateful_terms(env) == {"penalties": stateful}
    assert curriculum_state.stateful_terms(SimpleNamespace(unwrapped=SimpleNamespace())) == {}


@pytest.mark.parametrize("task", ["Go2-Flat", "Go2-Rough"])
def test_presets_sac_rewards_adds_the_alive_bonus_and_the_curriculum_and_the_default_has_neither(task):
    """The preset's terms on both tasks, accepted by the preflight (every scaled penalty is a reward term of the
    task), and absent by default (PPO's rewards as they are)."""
    from isaaclab_tasks.utils import resolve_task_config

    from go2_locomotion.agents import rsl_rl_ppo_cfg
    from go2_locomotion.training.preflight import validate

    env = resolve_task_config(task, None, overrides=["presets=cpu,sac_rewards"])[0]
    assert env.rewards.alive.weight > 0 and env.curriculum.penalties.func is PenaltyCurriculum
    env.sim.device = "cpu"
    agent = {"Go2-Flat": rsl_rl_ppo_cfg.Go2FlatPPORunnerCfg, "Go2-Rough": rsl_rl_ppo_cfg.Go2RoughPPORunnerCfg}[task]
    assert validate(env, agent()) == []
    default = resolve_task_config(task, None, overrides=["presets=cpu"])[0]
    assert default.rewards.alive is None and default.curriculum.penalties is None


P = "env.curriculum.penalties.params"


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("terms", ["dof_torques_l2", "feet_air"], "terms must be names of the task's reward terms"),
        ("initial_scale", 0.0, "initial_scale must be a finite number in (0, 1], got 0.0"),
        ("min_scale", 0.5, "min_scale must be at most initial_scale = 0.1, got 0.5"),
        ("rate", 1.0, "rate must be a finite number in (0, 1), got 1.0"),
        ("rate", math.nan, "rate must be a finite number in (0, 1), got nan"),
        ("grow_above", 1.5, "grow_above must be a finite number in [0, 1], got 1.5"),
        ("shrink_below", 0.9, "shrink_below must be at most grow_above = 0.8, got 0.9"),
    ],
)
def test_the_preflight_names_an_unusable_setting(key, value, problem):
    from isaaclab_tasks.utils import resolve_task_config

    from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2FlatPPORunnerCfg
    from go2_locomotion.training.preflight import validate

    env = resolve_task_config("Go2-Flat", None, overrides=["presets=cpu,sac_rewards"])[0]
    env.sim.device = "cpu"
    env.curriculum.penalties.params[key] = value
    problems = validate(env, Go2FlatPPORunnerCfg())
    assert len(problems) == 1 and problems[0].startswith(f"{P}.{problem}")

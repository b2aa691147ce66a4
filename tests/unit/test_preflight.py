"""Preflight validation and rollout geometry, checked value by value against messages and figures worked out
by hand."""

import math

import numpy as np
import pytest

from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2FlatPPORunnerCfg, Go2RoughPPORunnerCfg
from go2_locomotion.dotted import assign
from go2_locomotion.tasks.flat_env_cfg import Go2FlatEnvCfg
from go2_locomotion.tasks.velocity_env_cfg import Go2RoughEnvCfg
from go2_locomotion.training.preflight import RolloutGeometry, config_observation_widths, validate


def _cfgs(env_cls=Go2FlatEnvCfg, agent_cls=Go2FlatPPORunnerCfg):
    env, agent = env_cls(), agent_cls()
    env.sim.device = "cpu"
    return env, agent


def _set(cfgs, path, value):
    assign(dict(zip(("env", "agent"), cfgs, strict=True)), path, value)


BAD = [
    ("env.scene.num_envs", 0, "a positive integer"),
    ("env.scene.num_envs", True, "a positive integer"),
    ("env.scene.num_envs", 2.5, "a positive integer"),
    ("agent.num_steps_per_env", -24, "a positive integer"),
    ("agent.algorithm.num_learning_epochs", 0, "a positive integer"),
    ("agent.algorithm.num_mini_batches", math.nan, "a positive integer"),
    ("agent.max_iterations", "300", "a positive integer"),
    ("agent.save_interval", 0, "a positive integer"),
    ("env.decimation", 0, "a positive integer"),
    ("agent.stall_timeout_s", -1.0, "a finite number >= 0 (seconds; 0: no watchdog)"),
    ("agent.stall_timeout_s", math.inf, "a finite number >= 0 (seconds; 0: no watchdog)"),
    ("agent.stall_timeout_s", True, "a finite number >= 0 (seconds; 0: no watchdog)"),
    ("agent.algorithm.gamma", 1.5, "a finite number in [0, 1]"),
    ("agent.algorithm.gamma", False, "a finite number in [0, 1]"),
    ("agent.algorithm.lam", math.nan, "a finite number in [0, 1]"),
    ("agent.algorithm.lam", -0.1, "a finite number in [0, 1]"),
    ("agent.algorithm.clip_param", 0.0, "a number > 0"),
    ("agent.algorithm.clip_param", math.nan, "a number > 0"),
    ("agent.algorithm.max_grad_norm", 0.0, "a number > 0 representable as a 64-bit float"),
    ("agent.algorithm.max_grad_norm", -1.0, "a number > 0 representable as a 64-bit float"),
    ("agent.algorithm.max_grad_norm", math.nan, "a number > 0 representable as a 64-bit float"),
    ("agent.algorithm.max_grad_norm", 10**400, "a number > 0 representable as a 64-bit float"),
    ("agent.algorithm.learning_rate", math.inf, "a finite number > 0"),
    ("agent.algorithm.learning_rate", 0.0, "a finite number > 0"),
    ("agent.algorithm.desired_kl", 0.0, "a finite number > 0 with the adaptive schedule"),
    ("agent.algorithm.entropy_coef", -0.01, "a finite number >= 0"),
    ("agent.algorithm.value_loss_coef", math.inf, "a finite number >= 0"),
    ("agent.actor.distribution_cfg.init_std", 0.0, "a finite number > 0"),
    ("env.sim.dt", 0.0, "a finite number > 0 [s]"),
    ("env.episode_length_s", math.inf, "a finite number > 0 [s]"),
    ("env.sim.device", "gpu", "must be 'cpu', 'cuda' or 'cuda:N'"),
    ("env.sim.device", "cuda:99", "must be a GPU of this machine"),
]


def test_shipped_configs_are_valid():
    for env_cls, agent_cls in ((Go2RoughEnvCfg, Go2RoughPPORunnerCfg), (Go2FlatEnvCfg, Go2FlatPPORunnerCfg)):
        assert validate(*_cfgs(env_cls, agent_cls)) == []


@pytest.mark.parametrize(("path", "value", "domain"), BAD, ids=[f"{p}={v!r}" for p, v, _ in BAD])
def test_each_bad_value_is_named(path, value, domain):
    cfgs = _cfgs()
    _set(cfgs, path, value)
    problems = validate(*cfgs)
    assert len(problems) == 1, problems
    assert problems[0].startswith(path), problems[0]
    assert domain in problems[0] and f"got {value!r}" in problems[0]


def test_message_format():
    cfgs = _cfgs()
    _set(cfgs, "agent.algorithm.gamma", 1.5)
    assert validate(*cfgs) == ["agent.algorithm.gamma must be a finite number in [0, 1], got 1.5"]


def test_all_problems_at_once():
    cfgs = _cfgs()
    for path, value in [
        ("env.scene.num_envs", 0),
        ("agent.algorithm.gamma", 1.5),
        ("env.sim.dt", -1.0),
        ("agent.algorithm.max_grad_norm", 0.0),
    ]:
        _set(cfgs, path, value)
    problems = validate(*cfgs)
    assert [p.split(" ")[0] for p in problems] == [
        "env.scene.num_envs",
        "agent.algorithm.gamma",
        "agent.algorithm.max_grad_norm",
        "env.sim.dt",
    ]


def test_cross_field_rules():
    cfgs = _cfgs()
    _set(cfgs, "env.scene.num_envs", 2)
    _set(cfgs, "agent.num_steps_per_env", 3)
    _set(cfgs, "agent.algorithm.num_mini_batches", 7)
    _set(cfgs, "env.episode_length_s", 0.01)
    assert validate(*cfgs) == [
        "agent.algorithm.num_mini_batches must be at most num_envs x num_steps_per_env = 2 x 3 = 6, got 7",
        "env.episode_length_s must be at least one policy step, sim.dt x decimation = 0.005 x 4 = 0.02 s, got 0.01",
    ]


def test_observation_groups_must_exist():
    cfgs = _cfgs()
    _set(cfgs, "agent.obs_groups", {"actor": ["policy"], "critic": ["privileged"]})
    assert validate(*cfgs) == [
        "agent.obs_groups.critic must name observation groups of the task ['policy'], got 'privileged'"
    ]


def test_accepted_edge_values_and_normalisation():
    cfgs = _cfgs()
    _set(cfgs, "agent.algorithm.clip_param", math.inf)  # no clipping
    _set(cfgs, "agent.algorithm.max_grad_norm", math.inf)
    _set(cfgs, "env.scene.num_envs", 50.0)
    _set(cfgs, "agent.max_iterations", np.int64(10))
    _set(cfgs, "agent.algorithm.gamma", 1)
    assert validate(*cfgs) == []
    env, agent = cfgs
    assert env.scene.num_envs == 50 and type(env.scene.num_envs) is int
    assert agent.max_iterations == 10 and type(agent.max_iterations) is int
    # desired_kl only matters with the adaptive schedule
    _set(cfgs, "agent.algorithm.schedule", "fixed")
    _set(cfgs, "agent.algorithm.desired_kl", None)
    assert validate(*cfgs) == []


def test_geometry_of_the_go2_defaults():
    env, agent = _cfgs(Go2RoughEnvCfg, Go2RoughPPORunnerCfg)
    widths = config_observation_widths(env)
    assert widths == {"policy": 237}
    g = RolloutGeometry(
        env.scene.num_envs,
        agent.num_steps_per_env,
        agent.algorithm.num_mini_batches,
        agent.algorithm.num_learning_epochs,
        widths,
        12,
    )
    assert (g.transitions, g.mini_batch_size, g.dropped, g.optimizer_steps) == (98_304, 24_576, 0, 20)
    # per transition: obs 237 x 4 B + actions, mean, std 3 x 12 x 4 B + 5 scalars x 4 B + done 1 B = 1113 B
    assert g.storage_bytes == 98_304 * 1113
    assert g.warnings() == []
    assert config_observation_widths(Go2FlatEnvCfg()) == {"policy": 48 + 2}  # proprioception + trot clock


def test_geometry_remainder_and_ranks():
    g = RolloutGeometry(
        num_envs=10,
        steps_per_env=3,
        mini_batches=4,
        epochs=5,
        observation_widths={"policy": 48},
        action_width=12,
        world_size=4,
    )
    # B = 30 = 4 x 7 + 2
    assert (g.transitions, g.mini_batch_size, g.dropped, g.optimizer_steps) == (30, 7, 2, 20)
    assert g.global_transitions == 120
    assert g.warnings() == [
        "num_envs x num_steps_per_env = 30 is not divisible by num_mini_batches = 4: "
        "RSL-RL leaves 2 transitions out of every epoch"
    ]
    assert "120 over 4 ranks" in g.report()

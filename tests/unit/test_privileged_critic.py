"""``presets=privileged_critic`` without a simulator: Go2-Flat and Go2-Rough get the privileged ``critic`` group
(the policy's terms uncorrupted, the foot contact forces, the trunk's added mass; Go2-Flat without the height scan
it does not have), the FastSAC critic reads it and the replay stores it; without the preset nothing changes; PPO's
configs do not name it, so its critic stays on ``policy``."""

from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from isaaclab.utils import to_dict
from isaaclab_rl.rsl_rl import check_rsl_rl_version, handle_deprecated_rsl_rl_cfg
from isaaclab_tasks.utils import resolve_presets, resolve_task_config
from tensordict import TensorDict

import go2_locomotion.tasks  # noqa: F401  (registers the tasks)
from go2_locomotion.agents.fast_sac_cfg import Go2FlatFastSacRunnerCfg
from go2_locomotion.catalog import FAST_SAC_ENTRY_POINT, PPO_ENTRY_POINT
from go2_locomotion.fast_sac import FastSAC
from go2_locomotion.tasks.flat_env_cfg import Go2FlatEnvCfg
from go2_locomotion.tasks.velocity_env_cfg import PRIVILEGED_CRITIC, ObservationsCfg
from go2_locomotion.training.preflight import config_observation_widths, validate
from go2_locomotion.training.preflight.geometry import replay_geometry

POLICY_WIDTHS = {"Go2-Flat": 50, "Go2-Rough": 237}
"""The policy group's width of each task (the README's task table)."""

PRIVILEGED = {"feet_contact_force": 4, "trunk_mass_offset": 1}
"""What the critic adds to the policy's terms: four feet's contact forces, the trunk's added mass."""


def _configs(task: str, agent: str, *selectors: str):
    env, agent_cfg = resolve_task_config(task, agent, overrides=[f"presets={','.join(('cpu', *selectors))}"])
    env.sim.device = "cpu"
    return env, handle_deprecated_rsl_rl_cfg(agent_cfg, check_rsl_rl_version())


def _terms(group) -> list[str]:
    return [name for name, term in vars(group).items() if hasattr(term, "func")]


def test_the_guide_names_the_preset_the_configs_answer_to():
    guide = (Path(__file__).parents[2] / "docs" / "training.md").read_text()
    assert f"presets={PRIVILEGED_CRITIC}" in guide and f"presets=cpu,{PRIVILEGED_CRITIC}" in guide


@pytest.mark.parametrize("task", POLICY_WIDTHS)
def test_the_preset_gives_a_clean_critic_group_that_the_fast_sac_critic_reads(task):
    env, agent = _configs(task, FAST_SAC_ENTRY_POINT, PRIVILEGED_CRITIC)
    policy, critic = env.observations.policy, env.observations.critic
    assert isinstance(critic, ObservationsCfg.CriticCfg)
    assert _terms(critic) == [*_terms(policy), *PRIVILEGED]
    assert ("height_scan" in _terms(critic)) == (task == "Go2-Rough")  # Go2-Flat has no height scanner
    assert policy.enable_corruption and not critic.enable_corruption
    width = POLICY_WIDTHS[task]
    assert config_observation_widths(env) == {"policy": width, "critic": width + 5}
    assert agent.obs_groups == {"actor": ["policy"], "critic": ["critic"]}
    assert validate(env, agent) == []


@pytest.mark.parametrize(("task", "replay_bytes"), [("Go2-Flat", 900_000_000), ("Go2-Rough", 3_892_000_000)])
def test_the_replay_stores_both_groups(task, replay_bytes):
    """CPU buffer of 1,000,000 transitions, float32: observation and next observation of both groups, action 12,
    reward, termination, discount. Go2-Flat: 2 x (50 + 55) + 12 + 3 = 225 floats; Go2-Rough: 2 x (237 + 242) + 15
    = 973."""
    env, agent = _configs(task, FAST_SAC_ENTRY_POINT, PRIVILEGED_CRITIC)
    geometry = replay_geometry(env, agent, config_observation_widths(env), 12, 1)
    assert geometry.observation_widths == {"policy": POLICY_WIDTHS[task], "critic": POLICY_WIDTHS[task] + 5}
    assert geometry.storage_bytes == replay_bytes


def test_the_learner_built_from_the_config_reads_the_critic_group():
    env, agent = _configs("Go2-Flat", FAST_SAC_ENTRY_POINT, PRIVILEGED_CRITIC)
    obs = TensorDict({"policy": torch.zeros(4, 50), "critic": torch.zeros(4, 55)}, batch_size=[4])
    learner = FastSAC.construct_algorithm(obs, SimpleNamespace(num_actions=12, num_envs=4), to_dict(agent), "cpu")
    assert learner.actor.obs_groups == ["policy"] and learner.actor.obs_dim == 50
    assert learner.critic.obs_groups == ["critic"] and learner.critic.obs_dim == 55
    assert learner.critic.q1[0].in_features == 55 + 12


@pytest.mark.parametrize("task", POLICY_WIDTHS)
def test_without_the_preset_nothing_changes(task):
    env, agent = _configs(task, FAST_SAC_ENTRY_POINT)
    assert env.observations.critic is None
    assert agent.obs_groups == {"actor": ["policy"], "critic": ["policy"]}
    assert config_observation_widths(env) == {"policy": POLICY_WIDTHS[task]}


@pytest.mark.parametrize("task", POLICY_WIDTHS)
def test_ppo_keeps_its_critic_on_the_policy_group(task):
    """PPO's configs do not name the preset: selected, it adds the group to the environment (RSL-RL stores it,
    unread) and changes nothing of the agent."""
    env, agent = _configs(task, PPO_ENTRY_POINT, PRIVILEGED_CRITIC)
    _, default = _configs(task, PPO_ENTRY_POINT)
    assert env.observations.critic is not None
    assert agent.to_dict() == default.to_dict()
    assert agent.obs_groups == {"actor": ["policy"], "critic": ["policy"]}
    assert validate(env, agent) == []


def test_an_unresolved_config_has_the_default_groups():
    """The preflight and the width table read a config not yet through the command line (a preset still in it)
    as no selector leaves it: no ``critic`` group."""
    env = Go2FlatEnvCfg()
    env.sim.device = "cpu"
    assert config_observation_widths(env) == {"policy": 50}
    agent = resolve_presets(Go2FlatFastSacRunnerCfg(), ("cpu", PRIVILEGED_CRITIC))
    assert agent.obs_groups == {"actor": ["policy"], "critic": ["critic"]}
    assert validate(env, handle_deprecated_rsl_rl_cfg(agent, check_rsl_rl_version())) == [
        "agent.obs_groups.critic must name observation groups of the task ['policy'], got 'critic'"
    ]

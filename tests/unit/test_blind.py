"""Go2-Rough-Blind's observation groups without a simulator: the actor reads only what a Go2 measures, over a
time-major history; the teacher reads Go2-Rough's policy observation; the critic adds privileged inputs; the task
is Go2-Rough in everything else; the left-right mirror of a history and of the privileged terms."""

from __future__ import annotations

import pytest
import torch
from isaaclab.envs import mdp as isaaclab_mdp
from isaaclab_tasks.utils import resolve_presets
from mirror_fixtures import mirror_context

from go2_locomotion.assets.go2_description import FOOT_BODIES
from go2_locomotion.tasks import mdp
from go2_locomotion.tasks.blind_env_cfg import Go2RoughBlindEnvCfg
from go2_locomotion.tasks.mdp import symmetry
from go2_locomotion.tasks.velocity_env_cfg import BLIND_LIN_VEL, LONG_MEMORY, Go2RoughEnvCfg, ObservationsCfg

FRAME = {"base_ang_vel": 3, "projected_gravity": 3, "velocity_commands": 3, "joint_pos": 12, "joint_vel": 12,
         "actions": 12, "gait_phase": 2}  # fmt: skip
"""One step of the blind actor's input, term by term, as a Go2's LowState, the command and the clock give it."""


def _terms(group) -> dict:
    return {name: term for name, term in vars(group).items() if hasattr(term, "func") and term is not None}


def test_the_blind_actor_reads_only_what_a_go2_measures_over_a_history():
    policy = resolve_presets(Go2RoughBlindEnvCfg()).observations.policy
    terms = _terms(policy)
    assert list(terms) == list(FRAME)
    measured = {isaaclab_mdp.base_ang_vel, isaaclab_mdp.projected_gravity, isaaclab_mdp.joint_pos_rel}
    assert measured | {isaaclab_mdp.joint_vel_rel} <= {term.func for term in terms.values()}
    assert isaaclab_mdp.base_lin_vel not in {term.func for term in terms.values()}
    assert policy.enable_corruption  # the actor trains on noisy readings, like the robot's
    assert symmetry.history_frames(policy) == 10
    assert sum(FRAME.values()) * symmetry.history_frames(policy) == 470


def test_blind_lin_vel_adds_the_trunk_velocity_first_in_each_frame():
    # presets=blind_lin_vel: the variant that measures what an estimated trunk velocity is worth to the blind actor
    plain = resolve_presets(Go2RoughBlindEnvCfg()).observations.policy
    with_velocity = resolve_presets(Go2RoughBlindEnvCfg(), [BLIND_LIN_VEL]).observations.policy
    assert plain.base_lin_vel is None and list(_terms(plain)) == list(FRAME)
    terms = _terms(with_velocity)
    assert list(terms) == ["base_lin_vel", *FRAME]  # Go2-Rough's order: the velocity first
    assert terms["base_lin_vel"].func is isaaclab_mdp.base_lin_vel
    assert (terms["base_lin_vel"].noise.n_min, terms["base_lin_vel"].noise.n_max) == (-0.1, 0.1)
    assert (3 + sum(FRAME.values())) * symmetry.history_frames(with_velocity) == 500


def test_long_memory_keeps_the_frame_and_sees_one_second():
    # presets=long_memory: the same 47-wide frame over 50 policy steps = 50 x 0.02 s = 1.0 s, oldest first
    plain = resolve_presets(Go2RoughBlindEnvCfg())
    env = resolve_presets(Go2RoughBlindEnvCfg(), [LONG_MEMORY])
    long = env.observations.policy
    assert list(_terms(long)) == list(_terms(plain.observations.policy)) == list(FRAME)
    assert symmetry.history_frames(long) * env.sim.dt * env.decimation == pytest.approx(1.0)
    assert sum(FRAME.values()) * symmetry.history_frames(long) == 2350
    assert long.history_order == "time"
    # a config whose presets are not resolved yet counts the default, 10 frames (the preflight reads such configs)
    assert symmetry.history_frames(Go2RoughBlindEnvCfg().observations.policy) == 10
    # the teacher and the critic read no history: the preset changes the actor's input only
    assert env.observations.teacher.to_dict() == plain.observations.teacher.to_dict()
    assert env.observations.critic.to_dict() == plain.observations.critic.to_dict()


def test_the_teacher_reads_go2_rough_policy_observation():
    # the shipped Go2-Rough policy can teach: its input layout, noise and scan are this group's
    assert Go2RoughBlindEnvCfg().observations.teacher.to_dict() == Go2RoughEnvCfg().observations.policy.to_dict()


def test_the_critic_adds_privileged_inputs_without_noise():
    rough_policy = _terms(Go2RoughEnvCfg().observations.policy)
    critic = Go2RoughBlindEnvCfg().observations.critic
    terms = _terms(critic)
    assert list(terms) == [*rough_policy, "feet_contact_force", "trunk_mass_offset"]
    assert terms["feet_contact_force"].params["sensor_cfg"].body_names == list(FOOT_BODIES)
    assert not critic.enable_corruption
    assert all(term.noise is None for name, term in terms.items() if name not in rough_policy)


def test_blind_is_go2_rough_except_for_its_observation_groups():
    blind, rough = Go2RoughBlindEnvCfg().to_dict(), Go2RoughEnvCfg().to_dict()
    assert blind.pop("observations") != rough.pop("observations")
    assert blind == rough
    # RSL-RL would store a group nobody reads: Go2-Rough has none unless presets=privileged_critic selects it
    assert resolve_presets(Go2RoughEnvCfg()).observations.critic is None


def test_the_blind_agent_is_asymmetric():
    from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2RoughBlindPPORunnerCfg, Go2RoughPPORunnerCfg

    blind, rough = Go2RoughBlindPPORunnerCfg(), Go2RoughPPORunnerCfg()
    assert blind.obs_groups == {"actor": ["policy"], "critic": ["critic"]}
    assert rough.obs_groups == {"actor": ["policy"], "critic": ["policy"]}
    assert blind.experiment_name != rough.experiment_name


def test_history_frames_only_for_a_time_major_group():
    assert symmetry.history_frames(ObservationsCfg.PolicyCfg()) == 1
    per_term = ObservationsCfg.BlindPolicyCfg()
    per_term.history_order = "term"  # each term's own history, tiled per term
    assert symmetry.history_frames(per_term) == 1


def _frame_terms() -> list[tuple[str, object, dict, int]]:
    group = ObservationsCfg.BlindPolicyCfg()
    return [(name, term.func, term.params, FRAME[name]) for name, term in _terms(group).items()]


def test_a_time_major_history_mirrors_frame_by_frame():
    frame = symmetry.group_mirror(_frame_terms(), mirror_context())
    history = frame.tiled(3)
    x = torch.zeros(3, 47)
    x[0, 0] = 0.1  # oldest frame: roll rate
    x[2, 7] = 0.2  # newest frame: sideways command
    y = history.apply(x.reshape(-1)).reshape(3, 47)
    assert y[0, 0].item() == pytest.approx(-0.1)  # angular velocity is axial: x flips, in its own frame
    assert y[2, 7].item() == pytest.approx(-0.2)  # sideways command flips, still the newest
    assert y[1].abs().sum().item() == 0.0
    batch = torch.randn(4, 3 * 47, generator=torch.Generator().manual_seed(1))
    assert torch.equal(history.apply(history.apply(batch)), batch)


def test_privileged_terms_mirror_by_body():
    feet = symmetry.term_mirror(
        mdp.feet_contact_force,
        Go2RoughBlindEnvCfg().observations.critic.feet_contact_force.params,
        4,
        mirror_context(),
        "f",
    )
    forces = torch.tensor([1.0, 2.0, 3.0, 4.0])  # FL, FR, RL, RR
    assert list(FOOT_BODIES) == ["FL_foot", "FR_foot", "RL_foot", "RR_foot"]
    assert feet.apply(forces).tolist() == [2.0, 1.0, 4.0, 3.0]
    mass = Go2RoughBlindEnvCfg().observations.critic.trunk_mass_offset
    trunk = symmetry.term_mirror(mass.func, mass.params, 1, mirror_context(), "m")
    assert trunk.apply(torch.tensor([0.7])).tolist() == pytest.approx([0.7])

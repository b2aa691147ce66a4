"""The warm start's embedding: RSL-RL's own MLP models, Go2-Flat's widths into Go2-Rough's, no simulator.

The rough network with the flat one embedded must compute what the flat one does from the shared inputs, whatever
the height scan reads; the embedding must stay trainable (the new inputs' weights get gradients); layouts that do
not fit are refused by name.
"""

import pytest
import torch
import toy_training as toy
from rsl_rl.models.mlp_model import MLPModel
from tensordict import TensorDict

from go2_locomotion.errors import UsageError
from go2_locomotion.training import warm_start
from go2_locomotion.training.runner import Go2OnPolicyRunner

FLAT = {"base": 12, "joints": 36, "gait_phase": 2}
ROUGH = {"base": 12, "joints": 36, "gait_phase": 2, "height_scan": 187}
GAUSSIAN = {"class_name": "GaussianDistribution", "init_std": 1.0}


def _model(width: int, hidden: list[int], output: int = 12, *, normalise: bool = False) -> MLPModel:
    obs = TensorDict({"policy": torch.zeros(4, width)}, batch_size=[4])
    distribution = GAUSSIAN if output == 12 else None
    return MLPModel(obs, {"actor": ["policy"]}, "actor", output, hidden, "elu", normalise, distribution)


def _act(model: MLPModel, x: torch.Tensor) -> torch.Tensor:
    return model(TensorDict({"policy": x}, batch_size=[x.shape[0]]))


def test_input_columns_follow_the_terms_by_name():
    assert warm_start.input_columns(FLAT, ROUGH) == list(range(50))
    # a term placed elsewhere in the target maps to where it is there
    reordered = {"height_scan": 3, "base": 12, "joints": 36, "gait_phase": 2}
    assert warm_start.input_columns(FLAT, reordered) == list(range(3, 53))
    with pytest.raises(UsageError, match=r"observation term 'gait_phase' \(2 inputs\) is not an input of the task"):
        warm_start.input_columns(FLAT, {"base": 12, "joints": 36})
    with pytest.raises(UsageError, match="'joints' .36 inputs."):
        warm_start.input_columns(FLAT, {"base": 12, "joints": 24, "gait_phase": 2})


def test_a_term_the_run_takes_out_is_left_out_only_when_allowed():
    with_velocity = {"base_lin_vel": 3, "rest": 47}
    assert warm_start.input_columns(with_velocity, {"rest": 47}, dropped=("base_lin_vel",)) == [None] * 3 + list(
        range(47)
    )
    with pytest.raises(UsageError, match="term 'base_lin_vel' .3 inputs. is not an input of the task"):
        warm_start.input_columns(with_velocity, {"rest": 47})


def test_an_actor_without_the_trunk_velocity_acts_as_the_old_one_told_its_mean_velocity():
    """Go2-Flat's checkpoint into an actor that reads no trunk velocity (``presets=no_lin_vel``): the embedded actor
    computes what the old one computes when the velocity input reads its normaliser's mean."""
    torch.manual_seed(0)
    old, new = _model(50, [128, 128, 128], normalise=True), _model(47, [128, 128, 128], normalise=True)
    old.obs_normalizer.update(torch.randn(256, 50) * 2 + 0.5)
    with torch.no_grad():
        for p in old.parameters():
            p.add_(0.3 * torch.randn_like(p))
    columns = warm_start.input_columns({"base_lin_vel": 3, "rest": 47}, {"rest": 47}, dropped=("base_lin_vel",))
    new.load_state_dict(warm_start.embed(old.state_dict(), new.state_dict(), columns))
    old.eval(), new.eval()
    rest = torch.randn(16, 47)
    mean_velocity = old.obs_normalizer.mean[..., :3].expand(16, 3)
    torch.testing.assert_close(_act(new, rest), _act(old, torch.cat([mean_velocity, rest], 1)), atol=1e-5, rtol=0)
    assert not torch.allclose(_act(new, rest), _act(old, torch.cat([mean_velocity + 1.0, rest], 1)), atol=1e-3)


def test_each_network_reads_its_groups_terms():
    widths = {"policy": {"a": 2, "b": 3}, "critic": {"a": 2, "b": 3, "forces": 4}}
    assert warm_start.network_layouts(widths, {"critic": ["critic"]}) == {
        "actor": {"a": 2, "b": 3},
        "critic": {"a": 2, "b": 3, "forces": 4},
    }
    # RSL-RL's rule without obs_groups: the group of the network's name, else policy
    assert warm_start.network_layouts(widths, {})["critic"] == {"a": 2, "b": 3, "forces": 4}
    assert warm_start.network_layouts({"policy": widths["policy"]}, {})["critic"] == {"a": 2, "b": 3}


@pytest.mark.parametrize("output", [12, 1])  # the actor and the critic
def test_rough_network_acts_as_the_flat_one_whatever_the_scan(output):
    torch.manual_seed(0)
    flat, rough = _model(50, [128, 128, 128], output), _model(237, [512, 256, 128], output)
    with torch.no_grad():  # a trained-looking flat network: away from the initialisation
        for p in flat.parameters():
            p.add_(0.3 * torch.randn_like(p))
    columns = warm_start.input_columns(FLAT, ROUGH)
    rough.load_state_dict(warm_start.embed(flat.state_dict(), rough.state_dict(), columns))
    proprio = torch.randn(64, 50)
    for scan in (torch.zeros(64, 187), torch.rand(64, 187) * 2 - 1):
        torch.testing.assert_close(_act(rough, torch.cat([proprio, scan], 1)), _act(flat, proprio), atol=1e-5, rtol=0)
    if output == 12:
        torch.testing.assert_close(rough.distribution.std_param, flat.distribution.std_param)
    # the embedded units read the height scan with zero weight, and learn it from the first gradient
    first = rough.mlp[0].weight
    assert torch.count_nonzero(first[:128, 50:]) == 0
    _act(rough, torch.cat([proprio, torch.rand(64, 187)], 1)).square().sum().backward()
    assert torch.count_nonzero(first.grad[:128, 50:]) > 0
    # the extra units keep their fresh initialisation (they are not all zero), read by zero weights
    assert torch.count_nonzero(first[128:]) > 0
    assert torch.count_nonzero(rough.mlp[2].weight[:128, 128:]) == 0


def test_normaliser_statistics_of_the_shared_inputs_carry_over():
    flat, rough = _model(50, [128, 128, 128], normalise=True), _model(237, [512, 256, 128], normalise=True)
    flat.obs_normalizer.update(torch.randn(256, 50) * 3 + 1)
    state = warm_start.embed(flat.state_dict(), rough.state_dict(), warm_start.input_columns(FLAT, ROUGH))
    rough.load_state_dict(state)
    torch.testing.assert_close(rough.obs_normalizer.mean[..., :50], flat.obs_normalizer.mean)
    torch.testing.assert_close(rough.obs_normalizer.std[..., :50], flat.obs_normalizer.std)
    assert torch.all(rough.obs_normalizer.mean[..., 50:] == 0) and torch.all(rough.obs_normalizer.std[..., 50:] == 1)
    proprio = torch.randn(8, 50)
    rough.eval(), flat.eval()
    torch.testing.assert_close(
        _act(rough, torch.cat([proprio, torch.zeros(8, 187)], 1)), _act(flat, proprio), atol=1e-5, rtol=0
    )


def test_networks_that_do_not_fit_are_refused():
    columns = warm_start.input_columns(FLAT, ROUGH)
    wide, narrow = _model(50, [512, 256, 128]).state_dict(), _model(237, [128, 128, 128]).state_dict()
    with pytest.raises(UsageError, match=r"layer mlp.0 is \(512, 50\), wider than the task's \(128, 237\)"):
        warm_start.embed(wide, narrow, columns)
    with pytest.raises(UsageError, match="has 3 layers, the task's 4"):
        warm_start.embed(_model(50, [128, 128]).state_dict(), _model(237, [512, 256, 128]).state_dict(), columns)


def test_only_tasks_with_a_source_take_another_tasks_warm_start():
    assert warm_start.source_task("Go2-Rough") == "Go2-Flat"
    with pytest.raises(UsageError, match="task 'Go2-Flat' has no warm-start source; offered: Go2-Rough .from Go2-Fl"):
        warm_start.source_task("Go2-Flat")


def test_a_checkpoint_is_told_by_its_input_width():
    flat = {"actor_state_dict": _model(50, [128, 128, 128]).state_dict()}
    name, layout = warm_start.source_layout(flat, "flat.pt", "Go2-Rough")
    assert name == "Go2-Flat" and sum(layout.values()) == 50 and list(layout)[-1] == "gait_phase"
    rough = {"actor_state_dict": _model(237, [512, 256, 128]).state_dict()}
    assert warm_start.source_layout(rough, "rough.pt", "Go2-Rough")[0] == "Go2-Rough"
    old = {"actor_state_dict": _model(48, [128, 128, 128]).state_dict()}  # before the trot clock
    with pytest.raises(UsageError, match=r"old.pt: its actor reads 48 inputs; accepted are .*Go2-Flat \(50\)"):
        warm_start.source_layout(old, "old.pt", "Go2-Rough")


@pytest.mark.parametrize("std_type", ["scalar", "log"])
def test_the_warm_started_actor_explores_with_the_std_asked_for(std_type):
    obs = TensorDict({"policy": torch.zeros(4, 50)}, batch_size=[4])
    distribution = {"class_name": "GaussianDistribution", "init_std": 0.1, "std_type": std_type}
    actor = MLPModel(obs, {"actor": ["policy"]}, "actor", 12, [32, 32], "elu", False, distribution)
    mean = _act(actor.eval(), torch.zeros(1, 50))
    assert warm_start.set_noise_std(actor, 0.4) == pytest.approx(0.1)
    # the mean action is the checkpoint's; its samples now spread 0.4 on every joint
    x = torch.zeros(20_000, 50)
    samples = actor.train()(TensorDict({"policy": x}, batch_size=[20_000]), stochastic_output=True)
    torch.testing.assert_close(samples.mean(0), mean[0], atol=0.02, rtol=0)
    torch.testing.assert_close(samples.std(0), torch.full((12,), 0.4), atol=0.01, rtol=0)


def test_an_actor_without_a_noise_parameter_is_named():
    obs = TensorDict({"policy": torch.zeros(4, 50)}, batch_size=[4])
    learned_std = {"class_name": "HeteroscedasticGaussianDistribution", "init_std": 0.1}
    heteroscedastic = MLPModel(obs, {"actor": ["policy"]}, "actor", 12, [16], "elu", False, learned_std)
    for actor in (_model(50, [16], output=3), heteroscedastic):  # no distribution; a std computed by the network
        with pytest.raises(TypeError, match="agent.warm_start_noise_std: the actor has no state-independent Gauss"):
            warm_start.set_noise_std(actor, 0.4)


def test_a_warm_start_sets_the_noise_std_only_when_asked(tmp_path):
    trained = Go2OnPolicyRunner(toy.PointMassEnv(8, seed=2), toy.agent_cfg(1000), log_dir=str(tmp_path / "a"))
    trained.learn(2)
    trained.save(str(tmp_path / "model.pt"))
    checkpoint = torch.load(tmp_path / "model.pt", weights_only=False)
    saved_std = float(checkpoint["actor_state_dict"]["distribution.std_param"].mean())
    warm = warm_start.WarmStart(warm_start.STUDENT, tmp_path / "model.pt", checkpoint, "Go2-Flat")
    for asked in (None, 0.4):
        cfg = {**toy.agent_cfg(1000), "warm_start_noise_std": asked}
        runner = Go2OnPolicyRunner(toy.PointMassEnv(8, seed=2), cfg, log_dir=str(tmp_path / f"b{asked}"))
        record = warm_start.apply_warm_start(runner, warm, {}, "Go2-Flat")
        std = runner.alg.actor.distribution.std_param
        expected = saved_std if asked is None else asked
        torch.testing.assert_close(std, torch.full_like(std, expected))
        assert record.get("noise_std") == (None if asked is None else {"checkpoint": saved_std, "run": 0.4})
        # the weights are the checkpoint's either way
        torch.testing.assert_close(runner.alg.actor.mlp[0].weight, trained.alg.actor.mlp[0].weight)


@pytest.mark.parametrize("value", [0, -0.5, float("nan"), float("inf")])
def test_preflight_names_a_bad_warm_start_noise_std(value):
    from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2RoughBlindPPORunnerCfg
    from go2_locomotion.tasks.blind_env_cfg import Go2RoughBlindEnvCfg
    from go2_locomotion.training.preflight import validate

    agent = Go2RoughBlindPPORunnerCfg()
    agent.warm_start_noise_std = value
    problems = validate(Go2RoughBlindEnvCfg(), agent)
    assert [p for p in problems if "warm_start_noise_std" in p] == [
        f"agent.warm_start_noise_std must be None or a finite number > 0, got {value!r}"
    ]


def test_a_noise_std_without_a_warm_start_is_refused():
    from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2RoughBlindPPORunnerCfg
    from go2_locomotion.training.train import check_warm_start_noise

    agent = Go2RoughBlindPPORunnerCfg()
    check_warm_start_noise(agent, None)  # unset: nothing to refuse
    agent.warm_start_noise_std = 0.5
    check_warm_start_noise(agent, "student.pt")
    with pytest.raises(UsageError, match=r"agent.warm_start_noise_std=0.5 sets the actor's noise std after --warm_st"):
        check_warm_start_noise(agent, None)

"""The warm start's embedding: RSL-RL's own MLP models, Go2-Flat's widths into Go2-Rough's, no simulator.

The rough network with the flat one embedded must compute what the flat one does from the shared inputs, whatever
the height scan reads; the embedding must stay trainable (the new inputs' weights get gradients); layouts that do
not fit are refused by name.
"""

import pytest
import torch
from rsl_rl.models.mlp_model import MLPModel
from tensordict import TensorDict

from go2_locomotion.errors import UsageError
from go2_locomotion.training import warm_start

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


def test_only_tasks_with_a_source_take_a_warm_start():
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

"""``export.py --symmetrise``: the exported policy is exactly left-right equivariant, computes 1/2 (f(x) + M f(Mx))
in ONNX and TorchScript alike, and equals f where f already was symmetric. RSL-RL's own MLP model, no simulator."""

from types import SimpleNamespace

import numpy as np
import onnxruntime as ort
import torch
from rsl_rl.models.mlp_model import MLPModel
from rsl_rl.runners import OnPolicyRunner
from tensordict import TensorDict

from go2_locomotion.export.manifest import export_policy
from go2_locomotion.tasks.mdp.symmetry import Go2Mirror, SignedPermutation, joint_mirror

JOINTS = [f"{leg}_{part}_joint" for leg in ("FL", "FR", "RL", "RR") for part in ("hip", "thigh", "calf")]
# a 15-wide observation: the trunk's angular velocity (x and z flip) and the 12 joint positions
OBSERVATION = SignedPermutation((0, 1, 2), (-1.0, 1.0, -1.0)).then(joint_mirror(JOINTS))
ACTIONS = joint_mirror(JOINTS)


def _policy(normalise: bool = True) -> MLPModel:
    torch.manual_seed(0)
    obs = TensorDict({"policy": torch.zeros(4, 15)}, batch_size=[4])
    model = MLPModel(
        obs,
        {"actor": ["policy"]},
        "actor",
        12,
        [32, 32],
        "elu",
        normalise,
        {"class_name": "GaussianDistribution", "init_std": 1.0},
    )
    if normalise:
        model.obs_normalizer.update(torch.randn(64, 15) * 2 + 0.3)
    model.eval()
    return model


def _mirror(x: np.ndarray, m: SignedPermutation) -> np.ndarray:
    return x[:, list(m.index)] * np.array(m.sign, dtype=np.float32)


def test_the_symmetrised_export_is_exactly_equivariant_and_the_average(tmp_path):
    model = _policy()
    runner = SimpleNamespace(alg=SimpleNamespace(get_policy=lambda: model))
    runner.export_policy_to_jit = lambda **kw: OnPolicyRunner.export_policy_to_jit(runner, **kw)
    runner.export_policy_to_onnx = lambda **kw: OnPolicyRunner.export_policy_to_onnx(runner, **kw)
    jit_path, onnx_path = export_policy(runner, tmp_path, Go2Mirror(groups={"policy": OBSERVATION}, actions=ACTIONS))
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).normal(size=(32, 15)).astype(np.float32)

    def g(obs):  # the exported graph takes one observation at a time, as the controller sends it
        return np.concatenate([session.run(None, {"obs": row[None]})[0] for row in obs])

    def f(obs):
        with torch.no_grad():
            return model(TensorDict({"policy": torch.from_numpy(obs)}, batch_size=[len(obs)])).numpy()

    np.testing.assert_allclose(g(x), 0.5 * (f(x) + _mirror(f(_mirror(x, OBSERVATION)), ACTIONS)), atol=1e-5)
    np.testing.assert_allclose(g(_mirror(x, OBSERVATION)), _mirror(g(x), ACTIONS), atol=1e-5)
    assert np.abs(g(x) - f(x)).max() > 1e-3  # a random network is not symmetric: the average changes it
    jit = torch.jit.load(str(jit_path))
    np.testing.assert_allclose(jit(torch.from_numpy(x)).detach().numpy(), g(x), atol=1e-5)
    # without a mirror, RSL-RL's own export: f itself
    plain = tmp_path / "plain"
    plain.mkdir()
    _, onnx_plain = export_policy(runner, plain)
    plain_session = ort.InferenceSession(str(onnx_plain), providers=["CPUExecutionProvider"])
    out = np.concatenate([plain_session.run(None, {"obs": row[None]})[0] for row in x])
    np.testing.assert_allclose(out, f(x), atol=1e-5)

"""scripts/train.py and scripts/play.py on the CPU: runs, resume, export, and the errors users meet."""

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from usage_errors import expect_usage_error

from go2_locomotion import run_params
from go2_locomotion.compat import private_api
from go2_locomotion.export import manifest as manifest_module
from go2_locomotion.playback import play as play_module
from go2_locomotion.tasks.terrain_layout import column_terrains
from go2_locomotion.training import preflight
from go2_locomotion.training import train as train_module
from go2_locomotion.training.runner import Go2OnPolicyRunner
from go2_locomotion.versions import package_versions

ROOT = Path(__file__).parents[2]
CPU = ["--num_envs", "8", "--device", "cpu", "--headless"]
# an observation normaliser, so the export has non-trivial statistics to carry
NORMALISED = ["agent.actor.obs_normalization=true", "agent.critic.obs_normalization=true"]
FLAT = ["--task", "Go2-Flat", *CPU]
SMALL_TERRAIN = ["env.scene.terrain.terrain_generator.num_rows=2", "env.scene.terrain.terrain_generator.num_cols=3"]


def run_script(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "scripts" / script), *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900)


def runs(workdir: Path, experiment: str) -> list[Path]:
    folder = workdir / "logs" / "rsl_rl" / experiment
    return sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*")}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("train_play")


@pytest.fixture(scope="module")
def flat_run(workdir):
    """scripts/train.py: Go2-Flat, 2 iterations, 8 envs."""
    result = run_script("train.py", *FLAT, "--max_iterations", "2", *NORMALISED, cwd=workdir)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    (run,) = runs(workdir, "go2_flat")
    return run


@pytest.fixture(scope="module")
def rough_run(workdir):
    """scripts/train.py: Go2-Rough, 1 iteration, 8 envs (a 2 x 3 terrain grid to keep it quick), 0.2 s episodes so
    that some end inside the iteration, with the frontier curriculum (``presets=frontier``)."""
    short = "env.episode_length_s=0.2"
    result = run_script(
        "train.py",
        *("--task", "Go2-Rough", *CPU, "--max_iterations", "1", *SMALL_TERRAIN, short, "presets=frontier"),
        cwd=workdir,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    (run,) = runs(workdir, "go2_rough")
    return run


def _check_run_folder(run: Path, iterations: int):
    for it in range(iterations):
        assert (run / f"model_{it}.pt").is_file() == (it in (0, iterations - 1))
    assert torch.load(run / f"model_{iterations - 1}.pt", weights_only=True)["iter"] == iterations - 1
    assert list(run.glob("events.out.tfevents.*")), "no TensorBoard events"
    assert (run / "params" / "env.yaml").is_file() and (run / "params" / "agent.yaml").is_file()
    assert (run / "run.json").is_file()  # Isaac Lab's run manifest: `isaaclab play --checkpoint latest` finds it


def test_train_flat(flat_run):
    _check_run_folder(flat_run, iterations=2)
    agent = (flat_run / "params" / "agent.yaml").read_text()
    assert "obs_normalization: true" in agent and "num_steps_per_env: 24" in agent


def test_train_rough(rough_run):
    _check_run_folder(rough_run, iterations=1)
    # the frontier curriculum's memory went into the checkpoint: 2 levels x the sub-terrains of the 3 columns
    infos = torch.load(rough_run / "model_0.pt", weights_only=True)["infos"]
    kinds = len(dict.fromkeys(column_terrains(run_params.trained_terrain(rough_run))))
    memory = infos["terrain_frontier"]
    assert tuple(memory["trials"].shape) == tuple(memory["success"].shape) == (2, kinds)
    assert ((memory["success"] >= 0) & (memory["success"] <= 1)).all() and (memory["trials"] >= 0).all()


def test_resume_latest_continues_count_and_weights(flat_run, workdir, monkeypatch):
    monkeypatch.chdir(workdir)
    seen = {}
    real_learn = Go2OnPolicyRunner.learn

    def spy(runner, *args, **kwargs):
        seen["actor"] = {k: v.detach().cpu().clone() for k, v in runner.alg.get_policy().state_dict().items()}
        seen["start"] = runner.current_learning_iteration
        return real_learn(runner, *args, **kwargs)

    monkeypatch.setattr(Go2OnPolicyRunner, "learn", spy)
    assert train_module.main([*FLAT, "--max_iterations", "1", "--resume", *NORMALISED]) == 0
    saved = torch.load(flat_run / "model_1.pt", weights_only=True)["actor_state_dict"]
    assert set(seen["actor"]) == set(saved)
    for key, tensor in saved.items():
        assert torch.equal(seen["actor"][key], tensor), key
    # model_1 held iterations 0 and 1: the resumed run does iteration 2
    assert seen["start"] == 2
    resumed = runs(workdir, "go2_flat")[-1]
    assert resumed != flat_run
    assert torch.load(resumed / "model_2.pt", weights_only=True)["iter"] == 2


def test_play_exports_policies_equal_to_the_runner(flat_run, workdir, monkeypatch):
    import onnx
    import onnxruntime as ort

    monkeypatch.chdir(workdir)
    seen = {}
    real_run_policy = play_module.run_policy

    def spy(env, policy, **kwargs):
        seen["steps"] = real_run_policy(env, policy, **kwargs)
        obs = env.get_observations()
        with torch.inference_mode():
            seen["actions"] = policy(obs).clone()
        seen["obs"] = obs["policy"].clone()
        return seen["steps"]

    monkeypatch.setattr(play_module, "run_policy", spy)
    assert (
        play_module.main(["--task", "Go2-Flat", "--checkpoint", "latest", "--num_steps", "20", *CPU, *NORMALISED]) == 0
    )
    assert seen["steps"] == 20
    exported = runs(workdir, "go2_flat")[-1] / "exported"
    assert sorted(p.name for p in exported.iterdir()) == ["deploy.yaml", "policy.onnx", "policy.pt"]
    for name in ("policy.onnx", "policy.pt"):  # a bundle to share: no path of the exporting machine inside
        content = (exported / name).read_bytes()
        assert sys.prefix.encode() not in content and str(workdir).encode() not in content, name

    obs, actions = seen["obs"].cpu(), seen["actions"].cpu()
    assert obs.shape == (8, 50) and actions.shape == (8, 12)  # 48 proprioceptive + 2 trot clock
    jit = torch.jit.load(str(exported / "policy.pt"))
    torch.testing.assert_close(jit(obs), actions, atol=1e-5, rtol=0)

    model = onnx.load(str(exported / "policy.onnx"))
    assert [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] == [manifest_module.ONNX_OPSET]
    session = ort.InferenceSession(str(exported / "policy.onnx"))
    assert [i.name for i in session.get_inputs()] == [manifest_module.ONNX_INPUT]
    assert [o.name for o in session.get_outputs()] == [manifest_module.ONNX_OUTPUT]
    onnx_actions = np.concatenate([session.run(None, {"obs": row[None].numpy()})[0] for row in obs])
    np.testing.assert_allclose(onnx_actions, actions.numpy(), atol=1e-5, rtol=0)

    # the normaliser has real statistics after training, so an export without it could not match
    normaliser = {
        k: v
        for k, v in torch.load(exported.parent / "model_2.pt", weights_only=True)["actor_state_dict"].items()
        if "normalizer" in k
    }
    assert normaliser and any(not torch.all((v == 0) | (v == 1)) for v in normaliser.values())
    # deploy.yaml carries the trained statistics and names the checkpoint it came from
    manifest = yaml.safe_load((exported / "deploy.yaml").read_text())
    assert manifest["checkpoint"] == "model_2.pt" and manifest["task"] == "Go2-Flat"
    assert manifest["physics"]["backend"] == "newton" and manifest["physics"]["engine"] == "Newton / MuJoCo-Warp"
    stats = manifest["observation"]["normalizer"]
    mean = next(v for k, v in normaliser.items() if k.endswith("_mean")).reshape(-1).numpy()
    np.testing.assert_allclose(stats["mean"], mean, rtol=1e-6, atol=1e-7)


def test_newton_checkpoint_plays_on_physx(flat_run, tmp_path):
    """A policy trained on Newton, played on PhysX (OvPhysX): same observation and action layout, so it loads,
    runs and exports a bundle that names the engine it ran on."""
    checkpoint = shutil.copy(flat_run / "model_1.pt", tmp_path / "model_1.pt")  # the bundle goes next to it
    args = ["--task", "Go2-Flat", "--checkpoint", str(checkpoint), *CPU, *NORMALISED, "physics=physx"]
    result = run_script("play.py", *args, "--num_steps", "30", cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert "played 30 steps" in result.stdout + result.stderr
    manifest = yaml.safe_load((tmp_path / "exported" / "deploy.yaml").read_text())
    assert manifest["joints"]["backend"] == "ovphysx" and manifest["checkpoint"] == "model_1.pt"
    # what the policy met in training: Go2-Flat's training config on the real Go2, the default (the play robot is
    # nominal): up to 8 physics steps of 5 ms of target delay, feet friction drawn from 0.2-1.25
    training = manifest["training"]
    assert training["action_delay_s"] == [0.0, 0.04] and training["events"]["push_robot"]["mode"] == "interval"
    assert training["events"]["physics_material"]["static_friction_range"] == [0.2, 1.25]


def test_export_script_and_sim2sim_on_a_rough_bundle(rough_run, tmp_path):
    """scripts/export.py writes a Go2-Rough bundle where asked; scripts/sim2sim.py runs it (height scan from
    MuJoCo rays) and writes its report and plot."""
    bundle = tmp_path / "bundle"
    checkpoint = rough_run / "model_0.pt"
    result = run_script(
        "export.py",
        "--task",
        "Go2-Rough",
        "--checkpoint",
        str(checkpoint),
        "--output",
        str(bundle),
        "--device",
        "cpu",
        "--headless",
        *SMALL_TERRAIN,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert sorted(p.name for p in bundle.iterdir()) == ["deploy.yaml", "policy.onnx", "policy.pt"]
    manifest = yaml.safe_load((bundle / "deploy.yaml").read_text())
    scan = manifest["observation"]["terms"][-1]
    assert (scan["name"], scan["start"], scan["width"], scan["clip"]) == ("height_scan", 50, 187, [-1.0, 1.0])
    # a 1.6 m x 1.0 m grid at 0.1 m: 17 x 11 points, x fastest, corners at (+-0.8, +-0.5)
    points = np.array(scan["params"]["points_xy"])
    assert points.shape == (187, 2)
    np.testing.assert_allclose(
        points[[0, 16, 170, 186]], [[-0.8, -0.5], [0.8, -0.5], [-0.8, 0.5], [0.8, 0.5]], atol=1e-6
    )
    assert scan["params"]["offset"] == 0.5 and scan["params"]["sensor_offset_z"] == 0.0

    result = run_script(
        "sim2sim.py", "--bundle", str(bundle), "--commands", "stand:1:0,0,0 forward:1:0.5,0,0", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads((bundle / "sim2sim" / "sim2sim.json").read_text())
    assert report["task"] == "Go2-Rough" and len(report["series"]["time"]) == 100
    assert (bundle / "sim2sim" / "sim2sim.png").is_file()
    assert "forward" in result.stdout and "xy err" in result.stdout


def test_unknown_task_lists_close_matches(workdir, capsys, monkeypatch):
    monkeypatch.chdir(workdir)
    before = files_under(workdir)
    expect_usage_error(capsys, train_module.main, ["--task", "Go2-Flatt", *CPU], "Go2-Flatt", "Go2-Flat")
    expect_usage_error(capsys, play_module.main, ["--task", "go2-rough", *CPU], "Go2-Rough")
    assert files_under(workdir) == before


def test_latest_without_runs_says_where_it_looked(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    where = str(tmp_path / "logs" / "rsl_rl" / "go2_flat")
    expect_usage_error(capsys, play_module.main, ["--task", "Go2-Flat-Play", *CPU], "latest", where)
    expect_usage_error(capsys, train_module.main, [*FLAT, "--resume"], where)
    assert list(tmp_path.iterdir()) == []


def test_missing_and_corrupt_checkpoints(flat_run, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    missing = str(tmp_path / "model_7.pt")
    expect_usage_error(capsys, play_module.main, [*FLAT, "--checkpoint", missing], missing, "no such file")
    truncated = tmp_path / "model_1.pt"
    data = (flat_run / "model_1.pt").read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    before = files_under(tmp_path)
    expect_usage_error(capsys, play_module.main, [*FLAT, "--checkpoint", str(truncated)], "truncated or corrupt")
    expect_usage_error(capsys, train_module.main, [*FLAT, "--checkpoint", str(truncated)], "truncated or corrupt")
    assert files_under(tmp_path) == before


def test_checkpoint_of_another_task_names_both_widths(rough_run, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rough_model = shutil.copy(rough_run / "model_0.pt", tmp_path / "model_0.pt")
    before = files_under(tmp_path)
    message = expect_usage_error(
        capsys,
        play_module.main,
        [*FLAT, "--checkpoint", str(rough_model)],
        "[237, 512, 256, 128, 12]",
        "[50, 128, 128, 128, 12]",
        "observation 237",
        "observation 50",
    )
    assert "Go2-Flat-Play" in message
    assert files_under(tmp_path) == before


def test_script_error_is_one_line_with_exit_code_2(tmp_path):
    result = run_script("play.py", "--task", "Go2-Walk", "--device", "cpu", cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("error: unknown task 'Go2-Walk'")
    assert list(tmp_path.iterdir()) == []


def _summary(run: Path) -> dict:
    import json

    return json.loads((run / "run_summary.json").read_text())


def test_run_summary_after_a_one_iteration_run(rough_run, workdir):
    summary = _summary(rough_run)
    assert summary["task"] == "Go2-Rough" and summary["exit_status"] == "completed"
    assert summary["versions"] == package_versions("go2_locomotion", "isaaclab", "rsl-rl-lib", "torch")
    assert None not in summary["versions"].values()
    assert summary["device"] == "cpu" and summary["world_size"] == 1
    assert summary["physics"]["backend"] == "newton" and summary["physics"]["config"] == "NewtonCfg"
    assert summary["num_envs_per_rank"] == summary["num_envs_global"] == 8
    assert summary["samples_per_iteration_per_rank"] == summary["samples_per_iteration_global"] == 8 * 24
    assert (summary["iterations_completed"], summary["first_iteration"], summary["last_iteration"]) == (1, 0, 0)
    assert 0 < summary["mean_collection_time_s"] < summary["wall_clock_s"]
    assert 0 < summary["mean_learning_time_s"] < summary["wall_clock_s"]
    busy = summary["mean_collection_time_s"] + summary["mean_learning_time_s"]
    assert summary["throughput_env_steps_per_s"] == pytest.approx(8 * 24 / busy)
    # named relative to the working directory the run was started in: logs/rsl_rl/go2_rough/<run>/model_0.pt
    assert summary["checkpoints"] == [f"logs/rsl_rl/go2_rough/{rough_run.name}/model_0.pt"]
    assert (workdir / summary["checkpoints"][0]).is_file()
    assert summary["geometry"]["observation_widths"] == {"policy": 237}
    # the run's 0.2 s episodes (10 policy steps) end inside its 24-step iteration, so the episode figures exist
    assert 0 < summary["last_mean_episode_length"] <= 10
    assert math.isfinite(summary["last_mean_reward"])
    # the tests run from the git checkout
    assert re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", summary["package_commit"]), summary["package_commit"]


def test_check_reports_without_starting_the_simulator(workdir, capsys, monkeypatch):
    import isaaclab.app

    def no_launch(*args, **kwargs):
        raise AssertionError("--check started the simulator")

    monkeypatch.setattr(isaaclab.app, "launch_simulation", no_launch)
    monkeypatch.chdir(workdir)
    before = files_under(workdir)
    assert train_module.main(["--task", "Go2-Rough", "--check", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "B=98,304 transitions" in out and "M=24,576" in out and "20 optimizer steps" in out
    assert "observation policy 237; action 12" in out
    expect_usage_error(
        capsys,
        train_module.main,
        ["--task", "Go2-Flat", "--check", "--device", "cpu", "agent.algorithm.gamma=1.5"],
        "agent.algorithm.gamma must be a finite number in [0, 1], got 1.5",
    )
    assert (
        train_module.main(["--task", "Go2-Flat", "--device", "cpu", "--num_envs", "0", "agent.algorithm.lam=2.0"]) == 2
    )
    assert [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")] == [
        "error: env.scene.num_envs must be a positive integer, got 0",
        "error: agent.algorithm.lam must be a finite number in [0, 1], got 2.0",
    ]
    assert files_under(workdir) == before


def test_storage_figure_equals_rsl_rl_allocation(workdir, monkeypatch):
    monkeypatch.chdir(workdir)
    seen = {}
    real_learn = Go2OnPolicyRunner.learn

    def spy(runner, *args, **kwargs):
        status = real_learn(runner, *args, **kwargs)
        seen["bytes"] = preflight.tensor_bytes(private_api.rollout_storage(runner))
        return status

    monkeypatch.setattr(Go2OnPolicyRunner, "learn", spy)
    assert (
        train_module.main(
            [
                "--task",
                "Go2-Flat",
                "--num_envs",
                "5",
                "--device",
                "cpu",
                "--headless",
                "--max_iterations",
                "1",
                "--run_name",
                "storage",
            ]
        )
        == 0
    )
    run = runs(workdir, "go2_flat")[-1]
    assert run.name.endswith("_storage")
    # 5 envs x 24 steps x (50 x 4 + 3 x 12 x 4 + 5 x 4 + 1) B = 120 x 365 B
    assert _summary(run)["geometry"]["storage_bytes"] == seen["bytes"] == 120 * 365


def test_sigint_saves_a_checkpoint_and_the_summary(tmp_path):
    import signal
    import time

    log = tmp_path / "train.log"
    command = [sys.executable, str(ROOT / "scripts" / "train.py"), *FLAT, "--max_iterations", "200"]
    with open(log, "w") as out:
        process = subprocess.Popen(command, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.time() + 600
        while "Learning iteration 1/" not in log.read_text() and process.poll() is None and time.time() < deadline:
            time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=300) == 0, log.read_text()[-3000:]
    (run,) = runs(tmp_path, "go2_flat")
    summary = _summary(run)
    assert summary["exit_status"] == "interrupted"
    last = summary["last_iteration"]
    assert 1 <= last < 199 and summary["iterations_completed"] == last + 1
    assert summary["checkpoints"][-1] == f"logs/rsl_rl/go2_flat/{run.name}/model_{last}.pt"  # under the cwd
    assert torch.load(run / f"model_{last}.pt", weights_only=True)["iter"] == last

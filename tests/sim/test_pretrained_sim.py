"""The shipped pretrained policy through the user's commands: play, export, evaluate and sim2sim with
``--checkpoint pretrained`` / ``--bundle pretrained``, writing under ``logs/pretrained/`` and never into the package."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from go2_locomotion import pretrained

ROOT = Path(__file__).parents[2]
CPU = ["--device", "cpu", "--headless"]
PRETRAINED = ["--task", "Go2-Flat", "--checkpoint", "pretrained"]


def _script(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / name), *args], cwd=cwd, capture_output=True, text=True, timeout=900
    )


def _package_files() -> dict[Path, float]:
    return {p: p.stat().st_mtime for p in pretrained.FOLDER.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def test_play_export_evaluate_and_sim2sim_take_the_pretrained_policy(tmp_path):
    before = _package_files()
    out = tmp_path / "logs" / "pretrained" / "go2_flat"

    played = _script("play.py", *PRETRAINED, *["--num_envs", "2", "--num_steps", "10"], *CPU, cwd=tmp_path)
    assert played.returncode == 0, played.stderr[-3000:]
    assert f"loading {pretrained.checkpoint('Go2-Flat')}" in played.stdout
    # the exported bundle of the shipped checkpoint is the shipped bundle (same ONNX, same manifest)
    shipped = yaml.safe_load((pretrained.bundle() / "deploy.yaml").read_text())
    exported = yaml.safe_load((out / "exported" / "deploy.yaml").read_text())
    assert exported["observation"] == shipped["observation"] and exported["joints"] == shipped["joints"]
    # the same network: equal outputs (the ONNX bytes carry export-time metadata, so their hashes may differ)
    import numpy as np
    import onnxruntime as ort

    obs = np.random.default_rng(0).normal(size=(64, 50)).astype(np.float32)
    outputs = []
    for folder in (pretrained.bundle(), out / "exported"):
        session = ort.InferenceSession(str(folder / "policy.onnx"))
        outputs.append(np.concatenate([session.run(None, {"obs": row[None]})[0] for row in obs]))
    np.testing.assert_allclose(outputs[0], outputs[1], atol=1e-6)

    # walking, and a stop: 0.5 m/s until 2 s, then told to stand (its figures count from 3 s on)
    commands = "forward:0.5,0,0 stop:0.5,0,0@2:0,0,0"
    grid = ["--grid", commands, "--duration", "4.5", "--settle", "1", "--robots_per_command", "2"]
    evaluated = _script("evaluate.py", *PRETRAINED, *grid, *CPU, "physics=physx", cwd=tmp_path)
    assert evaluated.returncode == 0, evaluated.stderr[-3000:]
    report = json.loads(next(out.glob("evaluation/model_*/evaluation.json")).read_text())
    forward, stop = report["commands"]
    assert forward["fall_rate"] == 0.0 and stop["fall_rate"] == 0.0
    assert forward["achieved"]["vx"] > 0.25  # it walks forward when told to
    assert abs(stop["achieved"]["vx"]) < 0.05 and stop["all_feet_down"] > 0.95  # and stands when told to
    assert stop["time_to_stand_s"] <= 1.0 and stop["stood_rate"] == 1.0

    simulated = _script("sim2sim.py", "--bundle", "pretrained", "--commands", "walk:3:0.5,0,0", cwd=tmp_path)
    assert simulated.returncode == 0, simulated.stderr[-3000:]
    walk = json.loads((out / "sim2sim" / "sim2sim.json").read_text())["segments"][0]
    assert not walk["fell"] and walk["mean_velocity"][0] > 0.25

    assert _package_files() == before, "a command wrote into the installed package"

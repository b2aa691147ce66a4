"""The benchmark's comparators and report handling, without running a simulator."""

import json

import pytest

from go2_locomotion.benchmark import compare, upstream_tasks
from go2_locomotion.compat import PATCH_LAUNCHER
from go2_locomotion.versions import package_versions


def _report(tmp_path, fps, creation_ms):
    phases = [
        {
            "phase_name": "startup",
            "metadata": [],
            "measurements": [
                {"name": "benchmark_runtime startup Scene Creation Time", "value": creation_ms[0], "unit": "ms"},
                {"name": "benchmark_runtime startup Simulation Start Time", "value": creation_ms[1], "unit": "ms"},
            ],
        },
        {
            "phase_name": "runtime",
            "metadata": [],
            "measurements": [
                {"name": "benchmark_runtime runtime Mean Total FPS", "value": fps, "unit": "FPS"},
                {"name": "benchmark_runtime runtime Mean Iteration Time", "value": 1000.0 * 16 / fps, "unit": "ms"},
            ],
        },
    ]
    path = tmp_path / f"report_{fps}.json"
    path.write_text(json.dumps(phases))
    return path


def test_parse_report_and_ratios(tmp_path, monkeypatch):
    reports = {
        "Go2-Flat": _report(tmp_path, 600.0, (4000.0, 2000.0)),
        "Go2-Upstream-Flat-Offline": _report(tmp_path, 400.0, (5000.0, 3000.0)),
    }
    monkeypatch.setattr(compare, "run_isaaclab_benchmark", lambda kind, task, *a, **k: reports[task])
    result = compare.compare(["flat"], [16], 50, None, 0, "cpu", [], tmp_path, log=lambda *_: None)
    (row,) = result["rows"]
    assert row["ours"]["env_steps_per_s"] == 600.0 and row["upstream"]["env_steps_per_s"] == 400.0
    assert row["ours"]["env_creation_s"] == 6.0 and row["upstream"]["env_creation_s"] == 8.0
    assert row["ratio"]["env_steps_per_s"] == pytest.approx(1.5)
    assert row["ratio"]["env_creation_s"] == pytest.approx(0.75)
    assert result["versions"] == package_versions(*compare.RECORDED_PACKAGES)
    assert result["versions"]["isaaclab"] is not None


def test_comparators_are_upstream_with_local_files():
    from isaaclab_tasks.core.velocity.config.go2.flat_env_cfg import UnitreeGo2FlatEnvCfg

    ours = upstream_tasks.UpstreamGo2FlatOfflineEnvCfg()
    theirs = UnitreeGo2FlatEnvCfg()
    assert "://" not in ours.scene.robot.spawn.usd_path
    assert ours.scene.terrain.terrain_type == "usd" and "://" not in ours.scene.terrain.usd_path
    assert ours.scene.sky_light.spawn.texture_file is None
    # the MDP is upstream's, untouched
    for section in ("observations", "actions", "rewards", "terminations", "events", "commands"):
        assert getattr(ours, section).to_dict() == getattr(theirs, section).to_dict(), section
    assert ours.scene.robot.actuators == theirs.scene.robot.actuators
    # the simulation settings too, but for the OvPhysX launch, which installs the package's patches
    for ovphysx in (theirs.sim.physics.ovphysx, theirs.sim.physics.physx.ovphysx):
        assert ovphysx.launcher_type is None
        ovphysx.launcher_type = PATCH_LAUNCHER
    assert ours.sim.to_dict() == theirs.sim.to_dict()


def test_a_failed_measurement_is_recorded_and_the_rest_go_on(tmp_path, monkeypatch):
    good = _report(tmp_path, 500.0, (1000.0, 1000.0))

    def fake(kind, task, *args, **kwargs):
        if kind == "training":
            raise RuntimeError(f"isaaclab benchmark training --task {task} failed (exit 1)")
        return good

    monkeypatch.setattr(compare, "run_isaaclab_benchmark", fake)
    result = compare.compare(["flat"], [16, 64], 50, 64, 1, "cpu", [], tmp_path, log=lambda *_: None)
    assert [(r["kind"], r["num_envs"], "error" in r) for r in result["rows"]] == [
        ("runtime", 16, False),
        ("runtime", 64, False),
        ("training", 64, True),
    ]
    assert "FAILED" in compare.format_row(result["rows"][-1])


def test_repeats_alternate_and_keep_medians(tmp_path, monkeypatch):
    fps = {"Go2-Flat": iter([500.0, 700.0, 600.0]), "Go2-Upstream-Flat-Offline": iter([400.0, 300.0, 800.0])}
    calls = []

    def fake(kind, task, *args, **kwargs):
        calls.append(task)
        return _report(tmp_path, next(fps[task]), (1000.0, 1000.0))

    monkeypatch.setattr(compare, "run_isaaclab_benchmark", fake)
    result = compare.compare(["flat"], [16], 50, None, 0, "cpu", [], tmp_path, log=lambda *_: None, repeats=3)
    # first ours, then upstream first, then ours first again
    assert calls == ["Go2-Flat", "Go2-Upstream-Flat-Offline"] * 1 + ["Go2-Upstream-Flat-Offline", "Go2-Flat"] + [
        "Go2-Flat",
        "Go2-Upstream-Flat-Offline",
    ]
    (row,) = result["rows"]
    # medians: ours 600 of (500, 700, 600), upstream 400 of (400, 300, 800)
    assert (row["ours"]["env_steps_per_s"], row["upstream"]["env_steps_per_s"]) == (600.0, 400.0)
    assert row["ratio"]["env_steps_per_s"] == pytest.approx(1.5)
    assert len(row["samples"]["ours"]) == 3


def _training_report(tmp_path, name, fps, iteration_s, steps):
    phases = [
        {"phase_name": "startup", "metadata": [], "measurements": []},
        {
            "phase_name": "runtime",
            "metadata": [],
            "measurements": [
                {"name": "benchmark_rsl_rl runtime Mean Total FPS", "value": fps, "unit": "FPS"},
                {"name": "benchmark_rsl_rl runtime Mean Iteration Time", "value": 1000 * iteration_s, "unit": "ms"},
                {"name": "benchmark_rsl_rl runtime Steps per Iteration", "value": steps, "unit": ""},
                {"name": "benchmark_rsl_rl runtime Mean Collection FPS", "value": steps / (0.8 * iteration_s)},
            ],
        },
    ]
    path = tmp_path / f"{name}_{fps}.json"
    path.write_text(json.dumps(phases))
    return path


def test_cpu_recipe_comparison_rotates_and_takes_ratios(tmp_path, monkeypatch):
    """Three setups, two repeats: each measured twice, who goes first rotates, medians and ratios by hand."""
    setups = compare.cpu_recipe_setups(baseline_envs=64)
    assert [(s.task, s.num_envs, s.presets) for s in setups] == [
        ("Go2-Flat", 512, ("presets=cpu",)),
        ("Go2-Flat", 64, ()),
        ("Go2-Upstream-Flat-Offline", 64, ()),
    ]
    fps = {"Go2-Flat-512": [3000.0, 3200.0], "Go2-Flat-64": [500.0, 540.0], "Go2-Upstream-Flat-Offline-64": [300.0]}
    calls = []

    def fake(kind, task, num_envs, args, out_dir, log, **kwargs):
        key = f"{task}-{num_envs}"
        calls.append((key, "presets=cpu" in args, "agent.device=cpu" in args))
        values = fps[key]
        value = values[min(len([c for c in calls if c[0] == key]) - 1, len(values) - 1)]
        return _training_report(tmp_path, key, value, num_envs * 24 / value, num_envs * 24)

    monkeypatch.setattr(compare, "run_isaaclab_benchmark", fake)
    result = compare.compare_training(setups, 3, "cpu", tmp_path, log=lambda *_: None, repeats=2)
    assert [c[0] for c in calls] == [
        "Go2-Flat-512",
        "Go2-Flat-64",
        "Go2-Upstream-Flat-Offline-64",
        "Go2-Flat-64",
        "Go2-Upstream-Flat-Offline-64",
        "Go2-Flat-512",
    ]
    assert all(agent for _, _, agent in calls) and [p for k, p, _ in calls if k == "Go2-Flat-512"] == [True, True]
    assert result["medians"]["cpu_recipe"]["training_env_steps_per_s"] == 3100.0
    assert result["medians"]["ours_default"]["training_env_steps_per_s"] == 520.0
    assert result["ratios"]["cpu_recipe/upstream_default"] == pytest.approx(3100 / 300)
    assert result["ratios"]["cpu_recipe/ours_default"] == pytest.approx(3100 / 520)
    text = compare.format_training(result)
    assert "ratio cpu_recipe/ours_default: 5.96x" in text and "3100 env-steps/s" in text


@pytest.mark.parametrize(("flag", "registered"), [(None, False), ("1", True)])
def test_comparators_register_only_inside_the_benchmark(flag, registered):
    import os
    import subprocess
    import sys

    code = (
        "import gymnasium as gym, go2_locomotion.benchmark.registration; "
        "print('Go2-Upstream-Flat-Offline' in gym.registry)"
    )
    env = {k: v for k, v in os.environ.items() if k != "GO2_LOCOMOTION_BENCHMARK"}
    if flag:
        env["GO2_LOCOMOTION_BENCHMARK"] = flag
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert result.stdout.strip().splitlines()[-1] == str(registered), result.stderr[-2000:]


def test_a_measurement_that_hangs_is_killed_at_the_bound(tmp_path, monkeypatch):
    """A real process that never reports (standing in for ``isaaclab benchmark`` stuck in a physics step)."""
    import os
    import sys
    import time

    hung = tmp_path / "hung_python"
    pid_file = tmp_path / "hung.pid"
    hung.write_text(f"#!/bin/sh\necho $$ > {pid_file}\necho started\nexec sleep 60\n")  # exec: the same pid sleeps
    hung.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(hung))
    started = time.monotonic()
    with pytest.raises(compare.MeasurementStalled, match=r"training --task Go2-Flat stalled: no report in 0.5 s"):
        compare.run_isaaclab_benchmark("training", "Go2-Flat", 64, [], tmp_path, lambda *_: None, timeout_s=0.5)
    assert time.monotonic() - started < 10
    (log,) = tmp_path.glob("training_Go2-Flat_64_*/output.log")
    assert log.read_text() == "started\n"
    assert not os.path.exists(f"/proc/{pid_file.read_text().strip()}")  # killed and reaped, not left sleeping


def test_the_benchmark_exits_75_when_a_measurement_stalled(tmp_path, monkeypatch, capsys):
    from go2_locomotion.benchmark import cli

    good = _report(tmp_path, 500.0, (1000.0, 1000.0))

    def fake(kind, task, *args, **kwargs):
        if kind == "training":
            raise compare.MeasurementStalled(f"isaaclab benchmark training --task {task} stalled")
        return good

    monkeypatch.setattr(compare, "run_isaaclab_benchmark", fake)
    monkeypatch.setattr(cli, "plot", lambda *a: None)
    out = tmp_path / "out"
    argv = ["--pairs", "flat", "--num_envs", "16", "--training_envs", "64", "--stall_timeout", "5", "--out", str(out)]
    assert cli.main(argv) == 75
    result = json.loads((out / "benchmark.json").read_text())
    assert [r.get("stalled", False) for r in result["rows"]] == [False, True]
    assert capsys.readouterr().out.splitlines()[-1] == (
        "[go2] benchmark: 1 measurement(s) stalled (no report in 5 s, killed): the physics step hangs; exit 75"
    )

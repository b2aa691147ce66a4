"""Bad arguments to the scripts, as a new user types them: one line naming the flag, the value and what is
accepted, exit code 2, nothing written, before any simulator starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).parents[2] / "scripts"

CASES = [
    (["play.py", "--task", "Go2-Flat", "--checkpoint", "pretrained", "--device", "cuda:7"], "--device must be a GPU"),
    (
        ["play.py", "--task", "Go2-Flat", "--checkpoint", "pretrained", "--device", "cpu", "--num_envs", "-3"],
        "--num_envs",
    ),
    (["export.py", "--task", "Go2-Flat", "--checkpoint", "pretrained", "--device", "cuda:7"], "--device must be a GPU"),
    (["evaluate.py", "--task", "Go2-Flat", "--checkpoint", "pretrained", "--device", "cuda:7"], "--device must be"),
    (["curves.py", ".", "--out", "/proc/nope"], "--out /proc/nope: cannot create folders in /proc"),
    (["benchmark.py", "--num_envs", "-5"], "--num_envs must be positive integers"),
    (["train.py", "--task", "Go2-Flat", "--device", "cpu", "--warm_start"], "task 'Go2-Flat' has no warm-start source"),
    (
        ["evaluate.py", "--task", "Go2-Flat", "--checkpoint", "pretrained", "--device", "cpu", "--terrain", "default"],
        "--terrain: task Go2-Flat has no generated terrain",
    ),
    (
        ["evaluate.py", "--task", "Go2-Flat", "--checkpoint", "pretrained", "--device", "cpu", "--stall_timeout", "-1"],
        "--stall_timeout must be a finite number of seconds >= 0 (0: off), got -1.0",
    ),
    (["benchmark.py", "--stall_timeout", "nan"], "--stall_timeout must be a finite number of seconds >= 0"),
    (
        ["evaluate.py", "--task", "Go2-Rough", "--device", "cpu", "--terrain", "stairs:0.1"],
        "--terrain stairs:0.1: terrain cell 'stairs:0.1': unknown terrain 'stairs'",
    ),
    (
        ["evaluate.py", "--task", "Go2-Rough", "--device", "cpu", "--terrain", "default", "--terrain_speed", "1.5"],
        "--terrain_speed must be in (0, 1] m/s (the task's forward range), got 1.5",
    ),
    (
        ["evaluate.py", "--task", "Go2-Rough", "--device", "cpu", "--terrain_speed", "0.5"],
        "--terrain_speed 0.5: only with --terrain (a terrain evaluation)",
    ),
    (
        ["evaluate.py", "--task", "Go2-Rough", "--device", "cpu", "--terrain", "default", "--grid", "a:1,0,0"],
        "--terrain and --grid exclude each other",
    ),
    (["train.py", "--task", "Go2-Rough", "--warm_start", "nope.pt"], "--warm_start nope.pt: no such checkpoint file"),
    (["train.py", "--task", "Go2-Rough", "--warm_start", "--resume"], "it cannot be combined with --resume"),
    (["view_recording.py", "missing.viser"], "missing.viser: no such recording"),
    # every output flag: a folder that cannot be made (below a file) is refused before anything runs
    (
        ["play.py", "--task", "Go2-Flat", "--checkpoint", "pretrained", "--device", "cpu"]
        + ["--record", "/dev/null/a/r.viser"],
        "--record /dev/null/a: /dev/null is a file",
    ),
    (
        ["export.py", "--task", "Go2-Flat", "--checkpoint", "pretrained", "--device", "cpu", "--output", "/dev/null/a"],
        "--output /dev/null/a: /dev/null is a file",
    ),
    (
        ["evaluate.py", "--task", "Go2-Flat", "--checkpoint", "pretrained", "--device", "cpu", "--out", "/dev/null/a"],
        "--out /dev/null/a: /dev/null is a file",
    ),
    (["sim2sim.py", "--bundle", "pretrained", "--output", "/dev/null/a"], "--output /dev/null/a: /dev/null is a file"),
    # an agent field misspelt on evaluate.py (its agent overrides reach the actor it rebuilds)
    (
        ["evaluate.py", "--task", "Go2-Flat", "--agent", "fast_sac_cfg_entry_point", "--checkpoint", "pretrained"]
        + ["--device", "cpu", "agent.actor.distribution_cfg.action_scael=1.0"],
        "agent.actor.distribution_cfg (SquashedGaussianDistributionCfg) has no field 'action_scael'",
    ),
    (["sim2sim.py", "--bundle", "pretrained", "--video", "/dev/null/a/w.gif"], "--video /dev/null/a: /dev/null is a"),
    (["sim2sim.py", "--bundle", "pretrained", "--grid", "default", "--output", "/dev/null/a"], "--output /dev/null/a"),
    (
        ["sim2sim.py", "--bundle", "pretrained", "--terrain", "stairs:0.1"],
        "--terrain stairs:0.1: terrain cell 'stairs:0.1': unknown terrain 'stairs'; accepted: stairs_up, stairs_down",
    ),
    (["sim2sim.py", "--bundle", "pretrained", "--terrain", "stairs_up:-1"], "--terrain stairs_up:-1: terrain cell"),
    (
        ["sim2sim.py", "--bundle", "pretrained", "--terrain", "slopes_up:40"],
        "--terrain slopes_up:40: Isaac Lab's generator makes faces steeper than its slope_threshold",
    ),
    (
        ["sim2sim.py", "--bundle", "pretrained", "--terrain", "boxes:0.05", "--grid", "default"],
        "--terrain and --grid exclude each other",
    ),
    # the terrain grid in MuJoCo (--terrain default or several cells) and --task for the shipped bundle
    (
        ["sim2sim.py", "--bundle", "pretrained", "--task", "Go2-Nope"],
        "--bundle pretrained --task Go2-Nope: no pretrained policy for task 'Go2-Nope'; shipped: Go2-Flat",
    ),
    (
        ["sim2sim.py", "--bundle", "pretrained", "--terrain", "stairs_up:0.1 slopes_up:40"],
        "--terrain slopes_up:40: Isaac Lab's generator makes faces steeper than its slope_threshold",
    ),
    (
        ["sim2sim.py", "--bundle", "pretrained", "--terrain", "default", "--robots_per_cell", "0"],
        "--robots_per_cell must be a positive integer, got 0",
    ),
    (
        ["sim2sim.py", "--bundle", "pretrained", "--terrain", "boxes:0.05", "--robots_per_cell", "2"],
        "--robots_per_cell 2: only with a terrain grid (--terrain default or two or more cells)",
    ),
    (
        ["sim2sim.py", "--bundle", "pretrained", "--terrain", "default", "--video", "w.gif"],
        "--video w.gif: a terrain grid commands one speed straight ahead on every cell (--terrain_speed) and renders",
    ),
    (
        ["sim2sim.py", "--bundle", "pretrained", "--terrain", "default", "--commands", "go:1:1,0,0"],
        "--commands go:1:1,0,0: a terrain grid commands one speed straight ahead",
    ),
    (
        ["sim2sim.py", "--bundle", "pretrained", "--terrain", "default", "--terrain_speed", "0"],
        "--terrain_speed must be in (0, 1] m/s (the task's forward range), got 0",
    ),
    (
        ["sim2sim.py", "--bundle", "pretrained", "--terrain", "boxes:0.05", "--terrain_speed", "0.5"],
        "--terrain_speed 0.5: only with a terrain grid (--terrain default or two or more cells)",
    ),
    (["sim2sim.py", "--bundle", "pretrained", "--terrain", "default", "--settle", "20"], "--settle must be in [0, --"),
    (["sim2sim.py", "--bundle", "pretrained", "--duration", "5"], "--duration 5: only with --grid or a terrain grid"),
    (["view_recording.py", "missing.viser", "--html", "/dev/null/a/r.html"], "--html /dev/null/a: /dev/null is a"),
    (["curves.py", ".", "--out", "/dev/null/a"], "--out /dev/null/a: /dev/null is a file"),
    (["benchmark.py", "--out", "/dev/null/a"], "--out /dev/null/a: /dev/null is a file"),
    (["deploy_sdk2.py", "--bundle", "pretrained", "--network", "nope0"], "--network nope0: no such network interface"),
    (["deploy_sdk2.py", "--bundle", "nope", "--network", "lo"], "--bundle nope: nope: bundle folder not found"),
    (["deploy_sdk2.py", "--bundle", "pretrained", "--network", "lo", "--ramp", "0.2"], "--ramp 0.2: the stand-up"),
    (["deploy_sdk2.py", "--bundle", "pretrained", "--network", "lo", "--domain", "999"], "--domain 999: DDS domain"),
    (
        ["deploy_sdk2.py", "--bundle", "pretrained", "--network", "lo", "--commands", "walk:x:1,0,0"],
        "--commands: segment 'walk:x:1,0,0' is not name:seconds:vx,vy,wz",
    ),
    (
        ["deploy_sdk2.py", "--bundle", "pretrained", "--network", "lo", "--log", "/dev/null/a/l.jsonl"],
        "--log /dev/null/a: /dev/null is a file",
    ),
    (["sim_go2.py", "--network", "nope0"], "--network nope0: no such network interface"),
    (["sim_go2.py", "--remote", "soon:start"], "--remote: 'soon:start' is not seconds:action"),
    (["sim_go2.py", "--remote", "2:Z"], "--remote: '2:Z': unknown button 'Z'"),
    (["sim_go2.py", "--remote", "2:ly=3"], "sticks are lx, ly, rx, ry, set to a value in [-1, 1]"),
    (["sim_go2.py", "--duration", "-1"], "--duration -1: give a positive number of seconds"),
    (["sim_go2.py", "--model", "missing.xml"], "--model missing.xml: ParseXML: Error opening file"),
    (["sim_go2.py", "--video", "/dev/null/a/v.gif"], "--video /dev/null/a: /dev/null is a file"),
]


@pytest.mark.parametrize(("argv", "message"), CASES, ids=[" ".join(a[:1] + a[-2:]) for a, _ in CASES])
def test_bad_arguments_are_one_line_and_exit_2(argv, message, tmp_path):
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / argv[0]), *argv[1:]], cwd=tmp_path, capture_output=True, text=True
    )
    errors = [line for line in result.stderr.splitlines() if line.startswith(("error:", "usage:")) or message in line]
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr and any(message in line for line in errors), result.stderr[-2000:]
    assert list(tmp_path.iterdir()) == []

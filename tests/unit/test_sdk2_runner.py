"""The deploy controller's decisions, step by step, on hand-made LowStates (no DDS, no clock): damping first, the
explicit start and ramp, the policy, stop twice, faults, the remote's buttons and sticks, the scripted run, and the
checks made on the command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from go2_locomotion import pretrained
from go2_locomotion.deploy.bundle import load_bundle
from go2_locomotion.deploy.sdk2 import cli
from go2_locomotion.deploy.sdk2.bench import standing_reading
from go2_locomotion.deploy.sdk2.figures import AUTOSTART_HOLD_S, AUTOSTART_SETTLE_S, DAMPING_KD
from go2_locomotion.deploy.sdk2.messages import RobotReading
from go2_locomotion.deploy.sdk2.remote import RemoteState, encode
from go2_locomotion.deploy.sdk2.runner import Deployment, DeploySettings, command_ranges
from go2_locomotion.deploy.sim2sim.loop import Segment
from go2_locomotion.errors import UsageError

DT = 0.02


@pytest.fixture(scope="module")
def bundle():
    return load_bundle(pretrained.bundle())


def _deployment(bundle, **settings) -> tuple[Deployment, list[str]]:
    said: list[str] = []
    return Deployment(bundle, DeploySettings(interface="lo", **settings), log=said.append), said


def _reading(d: Deployment, now: float, remote: RemoteState | None = None, **changes) -> RobotReading:
    tick, encoded = round(1000 * now), encode(remote or RemoteState())
    return standing_reading(d.limits.standing, tick=tick, received=now, remote=encoded, **changes)


def _run(d: Deployment, start: float, seconds: float, remote=None, **changes) -> tuple[tuple, dict, float]:
    now = start
    for _ in range(round(seconds / DT)):
        now += DT
        command, record = d.step(now, [_reading(d, now, remote, **changes)])
    return command, record, now


def _is_damping(command) -> bool:
    q, dq, tau, kp, kd = command
    return not np.any(kp) and np.all(kd == DAMPING_KD) and not np.any(tau)


def test_starts_in_damping_and_waits_for_an_explicit_start(bundle):
    d, said = _deployment(bundle)
    command, record, now = _run(d, 0.0, 2.0)
    assert _is_damping(command) and record["mode"] == "damping"
    d.key("g", now)
    assert said[-1].endswith("standing up over 3 s")
    command, record = d.step(now + DT, [_reading(d, now + DT)])
    assert record["mode"] == "stand-up" and command[3].tolist() == [25.0] * 12 and command[4].tolist() == [0.5] * 12


def test_ramp_goes_from_the_measured_pose_to_the_standing_pose(bundle):
    d, _ = _deployment(bundle, ramp_s=2.0)
    lying = d.limits.standing + np.tile([0.0, 0.3, 0.8], 4)  # folded legs
    d.step(0.02, [_reading(d, 0.02, q=lying)])
    d.key("g", 0.02)
    (q, *_), record = d.step(1.02, [_reading(d, 1.02, q=lying)])
    assert record["mode"] == "stand-up" and q == pytest.approx(lying + 0.5 * (d.limits.standing - lying))
    (q, *_), record = d.step(2.04, [_reading(d, 2.04)])
    assert record["mode"] == "standing" and q == pytest.approx(d.limits.standing)


def _walking(bundle, **settings) -> tuple[Deployment, list[str], float]:
    d, said = _deployment(bundle, ramp_s=1.0, **settings)
    _, _, now = _run(d, 0.0, 0.1)
    d.key("g", now)
    _, _, now = _run(d, now, 1.2)
    d.key("g", now)
    assert d.supervisor.mode.value == "policy"
    return d, said, now


def test_the_policy_runs_after_the_second_start_with_its_gains(bundle):
    d, _, now = _walking(bundle)
    d.key("w", now)
    d.key("w", now)
    (q, dq, tau, kp, kd), record, now = _run(d, now, 0.5)
    assert record["mode"] == "policy" and record["command"] == pytest.approx([0.2, 0.0, 0.0])
    assert kp.tolist() == [25.0] * 12 and np.all(np.isfinite(q)) and not np.allclose(q, d.limits.standing)
    assert np.all(q >= d.limits.position[:, 0]) and np.all(q <= d.limits.position[:, 1])


def test_stop_zeroes_the_command_then_damps(bundle):
    d, said, now = _walking(bundle)
    d.key("w", now)
    _run(d, now, 0.2)
    d.key(" ", now)
    assert "command zero" in said[-1] and d.supervisor.mode.value == "policy"
    command, record, now = _run(d, now, 0.1)
    assert record["command"] == [0.0, 0.0, 0.0]
    d.key(" ", now)
    command, record, _ = _run(d, now, 0.1)
    assert _is_damping(command) and said[-1].endswith("stop: damping")


def test_stale_lowstate_damps_within_the_bound_and_says_so(bundle):
    d, said, now = _walking(bundle)
    bound = 3 * DT
    command, record = d.step(now + bound - 0.005, [])  # 55 ms without a new LowState: still walking
    assert record["mode"] == "policy"
    command, record = d.step(now + bound + 0.005, [])
    assert _is_damping(command) and "LowState stale (newest 65 ms old; bound 60 ms)" in said[-1]
    # the state flows again: the controller stays in damping until the next explicit start
    command, record, now = _run(d, now + 0.1, 0.5)
    assert _is_damping(command) and "[go2] LowState flows again" in said


@pytest.mark.parametrize(
    "changes",
    [
        {"dq": np.r_[np.nan, np.zeros(11)]},
        {"accelerometer": np.array([0.0, np.inf, 9.81])},
        {"quaternion": np.array([np.cos(1.0), np.sin(1.0), 0.0, 0.0])},  # rolled 115 deg: fallen
    ],
    ids=["nan", "inf", "fallen"],
)
def test_a_bad_reading_while_walking_damps(bundle, changes):
    d, said, now = _walking(bundle)
    command, record = d.step(now + DT, [_reading(d, now + DT, **changes)])
    assert _is_damping(command) and said[-1].startswith("[go2] DAMPING:")


def test_an_estimated_speed_out_of_range_damps(bundle):
    d, said, now = _walking(bundle)
    # an accelerometer stuck at 300 m/s^2 forward: against the legs' correction (time constant 0.05 s) the estimate
    # settles near 300 x 0.05 = 15 m/s, far beyond the 3 m/s range
    command, record, now = _run(d, now, 0.2, accelerometer=np.array([300.0, 0.0, 9.81]))
    assert _is_damping(command) and any("estimated trunk velocity" in line for line in said)


def test_the_remote_starts_steers_and_stops(bundle):
    d, said = _deployment(bundle, ramp_s=1.0)
    now = 0.0
    for buttons, seconds in (((), 0.1), (("start",), 0.1), ((), 1.2), (("start",), 0.1), ((), 0.1)):
        _, record, now = _run(d, now, seconds, remote=RemoteState(frozenset(buttons)))
    assert record["mode"] == "policy"
    _, record, now = _run(d, now, 0.1, remote=RemoteState(ly=0.5, rx=-0.2))
    assert record["command"] == pytest.approx([0.5, 0.0, 0.2])
    _, record, now = _run(d, now, 0.1)  # sticks released: back to the (zero) key command
    assert record["command"] == [0.0, 0.0, 0.0]
    command, record, now = _run(d, now, 0.1, remote=RemoteState(frozenset({"L2", "B"})))
    assert _is_damping(command) and "remote L2+B" in said[-1]


def test_autostart_and_a_scripted_run_end_in_damping(bundle):
    segments = [Segment("a", 0.1, (0.5, 0.0, 0.0)), Segment("b", 0.06, (0.0, 0.3, 0.0))]
    d, said = _deployment(bundle, ramp_s=1.0, autostart=True, segments=segments)
    seen, now = [], 0.0
    while not d.finished and now < 10:
        now += DT
        command, record = d.step(now, [_reading(d, now)])
        seen.append((record["mode"], tuple(record.get("command", ()))))
    modes = [mode for mode, _ in seen]
    # LowState fresh for the settle time, 1 s ramp, the hold, then 5 + 3 policy steps, then the script is done
    assert modes.index("stand-up") == round(AUTOSTART_SETTLE_S / DT)
    assert modes.count("standing") == round(AUTOSTART_HOLD_S / DT)
    assert [c for m, c in seen if m == "policy"] == [(0.5, 0.0, 0.0)] * 5 + [(0.0, 0.3, 0.0)] * 3 + [(0.0, 0.0, 0.0)]
    assert d.finished


def test_the_first_message_says_what_the_robot_will_do(bundle, monkeypatch):
    d, _ = _deployment(bundle)
    text = d.intro()
    for part in ("loopback: the simulated Go2", "starts in damping (kp 0, kd 2", "stays limp until you press start"):
        assert part in text
    monkeypatch.setattr("go2_locomotion.deploy.sdk2.runner.is_loopback", lambda name: False)
    assert "A REAL ROBOT" in d.intro()


def test_command_ranges_come_from_the_bundle(bundle):
    assert command_ranges(bundle).tolist() == [[-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0]]


def test_a_real_interface_needs_robot_and_the_simulator_refuses_it(monkeypatch):
    monkeypatch.setattr("go2_locomotion.deploy.sdk2.dds.interfaces", lambda: ["lo", "enp3s0"])
    monkeypatch.setattr("go2_locomotion.deploy.sdk2.dds.is_loopback", lambda name: name == "lo")
    assert cli.check_interface("lo", loopback_only=True, robot=False) is True
    assert cli.check_interface("enp3s0", loopback_only=False, robot=True) is False
    with pytest.raises(UsageError, match="--network enp3s0 is not a loopback interface: commanding a real robot"):
        cli.check_interface("enp3s0", loopback_only=False, robot=False)
    with pytest.raises(UsageError, match="the simulated Go2 publishes rt/lowstate like a robot"):
        cli.check_interface("enp3s0", loopback_only=True, robot=True)
    with pytest.raises(UsageError, match="--network wlan9: no such network interface; this machine has: lo, enp3s0"):
        cli.check_interface("wlan9", loopback_only=False, robot=True)


def test_a_robot_needs_the_go2s_cyclonedds_line(monkeypatch):
    versions = {"cyclonedds": "0.10.2"}
    monkeypatch.setattr(cli.importlib.metadata, "version", lambda name: versions[name])
    assert cli.check_cyclonedds(robot=True) == "0.10.2"
    versions["cyclonedds"] = "11.0.1"
    assert cli.check_cyclonedds(robot=False) == "11.0.1"  # the simulated Go2 on loopback: any version meets itself
    with pytest.raises(UsageError, match="--robot: CycloneDDS 11.0.1 is installed; a Go2 runs CycloneDDS 0.10.x"):
        cli.check_cyclonedds(robot=True)

    def missing(name):
        raise cli.importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(cli.importlib.metadata, "version", missing)
    with pytest.raises(UsageError, match="CycloneDDS's Python binding is not installed: ./setup.sh installs it"):
        cli.check_cyclonedds(robot=False)


def test_a_real_interface_without_robot_is_refused_in_one_line(tmp_path):
    from go2_locomotion.deploy.sdk2.dds import interfaces, is_loopback

    real = [name for name in interfaces() if not is_loopback(name)]
    if not real:
        pytest.skip("this machine has no network interface but loopback")
    script = Path(__file__).parents[2] / "scripts" / "deploy_sdk2.py"
    result = subprocess.run(
        [sys.executable, str(script), "--bundle", "pretrained", "--network", real[0]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and result.stderr.splitlines() == [
        f"error: --network {real[0]} is not a loopback interface: commanding a real robot needs --robot (read the "
        "README's 'Deploy to a real Go2' first)"
    ]
    assert list(tmp_path.iterdir()) == []


def test_a_bundle_that_needs_a_height_scan_is_refused(tmp_path, capsys):
    import yaml

    source = pretrained.bundle()
    bundle = tmp_path / "rough"
    bundle.mkdir()
    (bundle / "policy.onnx").write_bytes((source / "policy.onnx").read_bytes())
    manifest = yaml.safe_load((source / "deploy.yaml").read_text())
    manifest["observation"]["terms"][-1]["function"] = "height_scan"  # the trot clock's 2 values read as heights
    (bundle / "deploy.yaml").write_text(yaml.safe_dump(manifest))
    assert cli.deploy_main(["--bundle", str(bundle), "--network", "lo"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error: --bundle {bundle}: its policy observes a height scan (Go2-Flat)")

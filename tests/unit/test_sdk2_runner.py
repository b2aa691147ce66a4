"""The deploy controller's decisions, step by step, on hand-made LowStates (no DDS, no clock): damping first, the
explicit start and ramp, the policy, stop twice, faults, the remote's buttons and sticks, the scripted run, and the
checks made on the command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from deploy_fixtures import edited_pretrained, narrow_limits

from go2_locomotion import pretrained
from go2_locomotion.errors import UsageError
from go2_locomotion.robot.bundle import load_bundle
from go2_locomotion.sdk2 import cli
from go2_locomotion.sdk2.bench import standing_reading, standing_state
from go2_locomotion.sdk2.figures import AUTOSTART_HOLD_S, AUTOSTART_SETTLE_S, DAMPING_KD
from go2_locomotion.sdk2.messages import LowState_, RobotReading, lowstate
from go2_locomotion.sdk2.remote import RemoteState, encode
from go2_locomotion.sdk2.runner import Deployment, DeploySettings, Inbox, PreflightError, command_ranges
from go2_locomotion.sim2sim.loop import Segment

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


@pytest.mark.parametrize(("margin", "effort"), [(0.05, None), (None, 1.0)], ids=["joint-limits", "effort"])
def test_every_target_is_clamped_to_the_bundles_limits(tmp_path, margin, effort):
    d, _, now = _walking(load_bundle(edited_pretrained(tmp_path, lambda m: narrow_limits(m, margin, effort))))
    for _ in range(5):
        d.key("w", now)
    offsets = []
    for _ in range(25):  # the robot reads as standing still: kp (q* - q) is kp times the offset
        now += DT
        (q, *_), record = d.step(now, [_reading(d, now)])
        offsets.append(q - d.limits.standing)
    bound = margin if margin is not None else effort / 25.0
    assert record["mode"] == "policy" and np.all(np.abs(offsets) <= bound + 1e-9)
    assert np.any(np.isclose(np.abs(offsets), bound))  # the policy asked for more: clamped, not idle


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


def test_a_start_needs_a_fresh_usable_reading(bundle):
    d, said = _deployment(bundle)
    fallen = np.array([np.cos(1.0), np.sin(1.0), 0.0, 0.0])  # rolled 115 deg
    _, _, now = _run(d, 0.0, 0.2, quaternion=fallen)
    d.key("g", now)
    assert d.supervisor.mode.value == "damping" and said[-1].startswith("[go2] start refused: trunk tilted 115 deg")
    _, _, now = _run(d, now, 0.2)
    d.key("g", now + 0.1)  # the newest LowState is 100 ms old
    assert d.supervisor.mode.value == "damping" and said[-1] == "[go2] start refused: no fresh LowState"
    d.key("g", now)
    assert d.supervisor.mode.value == "stand-up"


def test_a_non_finite_policy_output_damps(bundle, monkeypatch):
    d, said, now = _walking(bundle)
    act = d.controller.act

    def broken(state):
        out = act(state)
        out.joint_pos_target[4] = np.nan
        return out

    monkeypatch.setattr(d.controller, "act", broken)
    command, record = d.step(now + DT, [_reading(d, now + DT)])
    assert _is_damping(command) and said[-1].startswith("[go2] DAMPING: policy output not finite")


def test_lowstates_with_a_wrong_crc_are_dropped(bundle):
    standing = _deployment(bundle)[0].limits.standing
    good = LowState_.deserialize(lowstate(tick=5, **standing_state(standing)).serialize())
    bad = LowState_.deserialize(good.serialize())
    bad.crc ^= 1  # one bit off
    inbox = Inbox()
    inbox.handle(bad, 1.0)
    assert (inbox.received, inbox.crc_failures, inbox.newest, inbox.drain()) == (0, 1, -1.0, [])
    inbox.handle(good, 2.0)
    assert (inbox.received, inbox.crc_failures, inbox.newest) == (1, 1, 2.0) and len(inbox.drain()) == 1
    unchecked = Inbox(check_crc=False)  # --ignore_lowstate_crc
    unchecked.handle(bad, 3.0)
    assert unchecked.received == 1 and not unchecked.drain()[0].crc_ok


class _Domain:
    """A DDS domain on which ``writers`` (topic -> writer ids) publish."""

    def __init__(self, **writers):
        self.writers = {topic.replace("_", "/", 1): ids for topic, ids in writers.items()}

    def other_writers(self, topic: str, wait_s: float) -> list[str]:
        return self.writers.get(topic, [])


def test_preflight_refuses_a_second_controller_and_the_robots_sport_service(bundle):
    d, _ = _deployment(bundle)
    d.preflight(_Domain(), robot=True)
    d.preflight(_Domain(rt_sportmodestate=["w"]), robot=False)  # loopback: no sport service to look for
    with pytest.raises(PreflightError, match=r"the robot's sport service is running \(rt/sportmodestate"):
        d.preflight(_Domain(rt_sportmodestate=["w"]), robot=True)
    with pytest.raises(PreflightError, match="another program already publishes rt/lowcmd on lo, domain 0"):
        d.preflight(_Domain(rt_lowcmd=["w"]), robot=False)


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
    _, record, now = _run(d, now, 0.1, remote=RemoteState(ly=0.5))
    _, record, now = _run(d, now, 0.1, remote=RemoteState(frozenset({"select"}), ly=0.5))  # stop, stick still held
    assert record["command"] == [0.0, 0.0, 0.0] and "stop: command zero" in said[-1]
    _, record, now = _run(d, now, 0.3, remote=RemoteState(ly=0.5))
    assert record["command"] == [0.0, 0.0, 0.0]  # the held stick does not walk on after a stop
    _run(d, now, 0.1)
    _, record, now = _run(d, now, 0.1, remote=RemoteState(ly=0.5))  # released and pushed again: it counts
    assert record["command"] == pytest.approx([0.5, 0.0, 0.0])
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
    monkeypatch.setattr("go2_locomotion.sdk2.runner.is_loopback", lambda name: False)
    assert "A REAL ROBOT" in d.intro()


def test_command_ranges_come_from_the_bundle(tmp_path, capsys):
    def narrow(manifest):
        manifest["commands"]["base_velocity"]["ranges"].update(lin_vel_x=[-0.5, 1.5], ang_vel_z=[-2.0, 0.5])

    d, _ = _deployment(load_bundle(edited_pretrained(tmp_path, narrow)), ramp_s=1.0)
    assert command_ranges(d.bundle).tolist() == [[-0.5, 1.5], [-1.0, 1.0], [-2.0, 0.5]]
    d.step(DT, [_reading(d, DT)])
    d.key("g", DT)
    _, _, now = _run(d, DT, 1.1)
    d.key("g", now)
    _, record, now = _run(d, now, 0.1, remote=RemoteState(ly=1.0, rx=1.0))  # full stick forward, turning right
    assert record["command"] == pytest.approx([1.5, 0.0, -2.0])
    _, record, now = _run(d, now, 0.1, remote=RemoteState(ly=-1.0, rx=-1.0))
    assert record["command"] == pytest.approx([-0.5, 0.0, 0.5])
    _, _, now = _run(d, now, 0.1)  # sticks released: the keys, clipped to the range
    for _ in range(5):
        d.key("q", now)
    assert d.key_command.tolist() == [0.0, 0.0, 0.5]

    def drop(manifest):
        del manifest["commands"]["base_velocity"]["ranges"]["ang_vel_z"]

    (tmp_path / "missing").mkdir()
    missing = edited_pretrained(tmp_path / "missing", drop)
    assert cli.deploy_main(["--bundle", str(missing), "--network", "lo"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error: --bundle {missing}: ") and "commands.base_velocity.ranges.ang_vel_z" in line


def test_a_real_interface_needs_robot_and_the_simulator_refuses_it(monkeypatch):
    monkeypatch.setattr("go2_locomotion.sdk2.dds.interfaces", lambda: ["lo", "enp3s0"])
    monkeypatch.setattr("go2_locomotion.sdk2.dds.is_loopback", lambda name: name == "lo")
    assert cli.check_interface("lo", loopback_only=True, robot=False) is True
    assert cli.check_interface("enp3s0", loopback_only=False, robot=True) is False
    with pytest.raises(UsageError, match="--network enp3s0 is not a loopback interface: commanding a real robot"):
        cli.check_interface("enp3s0", loopback_only=False, robot=False)
    with pytest.raises(UsageError, match="the simulated Go2 publishes rt/lowstate like a robot"):
        cli.check_interface("enp3s0", loopback_only=True, robot=True)
    with pytest.raises(UsageError, match="--network wlan9: no such network interface; this machine has: lo, enp3s0"):
        cli.check_interface("wlan9", loopback_only=False, robot=True)


@pytest.mark.parametrize("flag", [["--autostart"], ["--commands", "walk:1:0.5,0,0"]], ids=["autostart", "commands"])
def test_autostart_and_scripts_are_loopback_only(monkeypatch, capsys, flag):
    monkeypatch.setattr("go2_locomotion.sdk2.dds.interfaces", lambda: ["lo", "enp3s0"])
    monkeypatch.setattr("go2_locomotion.sdk2.dds.is_loopback", lambda name: name == "lo")
    monkeypatch.setattr(cli, "check_cyclonedds", lambda robot: "0.10.2")
    assert cli.deploy_main(["--bundle", "pretrained", "--network", "enp3s0", "--robot", *flag]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error: {flag[0]}: only on a loopback interface (the simulated Go2)")


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
    from go2_locomotion.sdk2.dds import interfaces, is_loopback

    real = [name for name in interfaces() if not is_loopback(name)]
    if not real:
        pytest.skip("this machine has no network interface but loopback")
    script = Path(__file__).parents[2] / "scripts" / "deploy_sdk2.py"
    result = subprocess.run(
        [sys.executable, str(script), "--bundle", "pretrained", "--network", real[0]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,  # without the check the controller would wait for a robot on that interface
    )
    assert result.returncode == 2 and result.stderr.splitlines() == [
        f"error: --network {real[0]} is not a loopback interface: commanding a real robot needs --robot (read the "
        "README's 'Deploy to a real Go2' first)"
    ]
    assert list(tmp_path.iterdir()) == []


def test_a_bundle_that_needs_a_height_scan_is_refused(tmp_path, capsys):
    def scan(manifest):
        manifest["observation"]["terms"][-1]["function"] = "height_scan"  # the trot clock's 2 values read as heights

    bundle = edited_pretrained(tmp_path, scan)
    assert cli.deploy_main(["--bundle", str(bundle), "--network", "lo"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error: --bundle {bundle}: its policy observes a height scan (Go2-Flat)")


def test_task_picks_the_shipped_policy_and_must_match_a_folder(tmp_path, capsys):
    assert cli.deploy_main(["--bundle", "pretrained", "--task", "Go2-Rough", "--network", "lo"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("error: --bundle pretrained: its policy observes a height scan (Go2-Rough)")
    assert line.endswith("accepted: a blind policy (Go2-Flat's, Go2-Rough-Blind's)")
    flat = edited_pretrained(tmp_path, lambda manifest: None)  # a Go2-Flat bundle folder
    assert cli.sim_main(["--bundle", str(flat), "--task", "Go2-Rough-Blind", "--duration", "1"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        f"error: --task Go2-Rough-Blind: the bundle {flat} is a Go2-Flat bundle (its deploy.yaml); --task chooses "
        "the shipped policy with --bundle pretrained"
    )

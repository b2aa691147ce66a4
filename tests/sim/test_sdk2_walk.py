"""The pretrained Go2-Flat policy on the simulated Go2 through real DDS on the loopback interface (two processes, a
random DDS domain): it walks, tracks as in-process sim-to-sim does, and obeys the remote; the shipped Go2-Rough-Blind
policy walks too."""

from __future__ import annotations

import numpy as np
import pytest

from go2_locomotion import pretrained
from go2_locomotion.robot.bundle import load_bundle
from go2_locomotion.sdk2.bench import (
    Bench,
    ControllerRecord,
    SimRecord,
    climbs,
    segment_velocities,
    segments_text,
    staircase_crossings,
    stall,
)
from go2_locomotion.sim2sim.loop import Segment
from go2_locomotion.sim2sim.loop import run as sim2sim

pytestmark = pytest.mark.sim

SCRIPT = [
    Segment("stand", 1.0, (0.0, 0.0, 0.0)),
    Segment("forward", 4.0, (0.8, 0.0, 0.0)),
    Segment("lateral", 2.5, (0.0, 0.4, 0.0)),
    Segment("turn", 2.5, (0.0, 0.0, 0.8)),
    Segment("stop", 1.5, (0.0, 0.0, 0.0)),
]
TRACKING_TOLERANCE = 0.05
"""The issue's bound on the DDS path's velocity tracking against in-process sim-to-sim [m/s]."""

STALE_S = 0.06
"""The controller's stale bound for the 50 Hz policy: 3 periods [s]."""

ATTEMPTS = 3
"""Runs allowed when the machine (not the code) stalled a process: on a shared 2-core box a 200 Hz Python loop is now
and then not scheduled for 60+ ms; the controller then rightly damps. A shorter stall lets the run go on but can
push a segment's velocity off: over 8 repeats on the quiet machine the largest gap to sim-to-sim was 0.034-0.035 m/s
(the stand segment: the DDS run's policy starts from the stand-up ramp's pose) and the forward segment's
0.018-0.026; one CI run read 0.051 there. So a tracking miss, too, is run again when the records show a stall; a
miss without one fails at once."""


def _scripted_walk(folder, script=SCRIPT, task_args=()):
    """Both processes on the bench, the controller walking ``script``; ``task_args`` (``--task T``) choose the shipped
    policy for both."""
    folder.mkdir()
    with Bench(folder) as bench:
        controller = bench.controller(*task_args, "--autostart", "--commands", segments_text(script))
        assert controller.wait_for("waiting for LowState", 120), controller.text()
        sim = bench.sim(*task_args, "--duration", "60")
        code = controller.wait(120)
        sim.signal(2)
        sim.wait(30)
    return code, controller.text()


def _walk_record(folder, script=SCRIPT):
    """The simulator's record, the policy's start in simulated time and each segment's mean velocity over DDS."""
    record, log = SimRecord.read(folder / "sim.jsonl"), ControllerRecord.read(folder / "controller.jsonl")
    start = log.policy_start()
    return record, start, segment_velocities(record, start, script)


def _tracking_misses(over_dds, in_process) -> list[str]:
    """The segments whose velocity over DDS is off in-process sim-to-sim's by more than the bound."""
    misses = []
    for segment, dds, local in zip(SCRIPT, over_dds, in_process, strict=True):
        xy = max(abs(dds[0] - local[0]), abs(dds[1] - local[1]))
        if xy > TRACKING_TOLERANCE or abs(dds[2] - local[2]) > 2 * TRACKING_TOLERANCE:  # yaw rate [rad/s]
            misses.append(f"{segment.name}: over DDS {np.round(dds, 4).tolist()}, in process {np.round(local, 4)}")
    return misses


def test_pretrained_walks_over_dds_as_in_sim2sim(tmp_path):
    in_process = [s["mean_velocity"] for s in sim2sim(load_bundle(pretrained.bundle()), SCRIPT)["segments"]]
    for attempt in range(ATTEMPTS):
        folder = tmp_path / f"attempt_{attempt}"
        code, output = _scripted_walk(folder)
        misses = []
        if code == 0:
            record, start, over_dds = _walk_record(folder)
            misses = _tracking_misses(over_dds, in_process)
        stalled = stall(folder, STALE_S)
        if (code == 0 and not misses) or stalled is None:
            break
        # a stall under the stale bound lets the run go on, but with late commands and states the gait drifts
        print(f"attempt {attempt + 1}: the machine stalled the bench ({stalled}); running again")
    assert code == 0, f"{stalled or ''}\n{output}"
    assert "policy on" in output and "script done: damping" in output
    assert "DAMPING:" not in output, output  # no fault on the way: the bench kept real time
    assert not misses, f"{stalled or ''}\n" + "\n".join(misses)

    forward_from, forward_to = start + SCRIPT[0].duration_s, start + SCRIPT[0].duration_s + SCRIPT[1].duration_s
    walked = np.subtract(record.at(forward_to)["pos"][:2], record.at(forward_from)["pos"][:2])
    assert walked[0] >= 2.0, walked  # 4 s at 0.8 m/s: 3.2 m asked
    end = start + sum(s.duration_s for s in SCRIPT)  # then damping: the robot lies down
    assert not any(r["down"] for r in record.trunk if start <= r["t"] < end)
    # the commands are followed at all (not two equally wrong runs)
    assert over_dds[1][0] == pytest.approx(0.8, abs=0.1) and over_dds[3][2] == pytest.approx(0.8, abs=0.15)


def _remote_drive(folder):
    # sim time: start at 1.5 s (stand up over 3 s), start again at 6 s (policy), left stick forward from 7 s,
    # select at 11 s (zero command although the stick is still forward), again at 12 s (damping), stick released
    remote = "1.5:start 6:start 7:ly=0.7 11:select 12:select 13:ly=0"
    folder.mkdir()
    with Bench(folder) as bench:
        controller = bench.controller()
        assert controller.wait_for("waiting for LowState", 120), controller.text()
        sim = bench.sim("--duration", "16", "--remote", remote)
        assert sim.wait(120) == 0, sim.text()
        controller.signal(2)
        assert controller.wait(30) == 0
    return controller.text()


def test_the_remote_starts_steers_and_stops_the_robot(tmp_path):
    for attempt in range(ATTEMPTS):
        folder = tmp_path / f"attempt_{attempt}"
        output = _remote_drive(folder)
        stale, damped = output.find("LowState stale"), output.find("stop: damping")
        early = stale >= 0 and (damped < 0 or stale < damped)  # the simulator ends at 16 s: stale after that is due
        stalled = stall(folder, STALE_S) if early else None
        if stalled is None:
            break
        print(f"attempt {attempt + 1}: the machine stalled the bench ({stalled}); running again")
    for line in ("standing up over 3 s", "policy on", "stop: command zero", "stop: damping"):
        assert line in output, output
    assert not early, f"{output}"
    record = SimRecord.read(folder / "sim.jsonl")
    walked = np.subtract(record.at(11.0)["pos"][:2], record.at(7.0)["pos"][:2])
    assert walked[0] >= 1.5, walked  # 4 s at 0.7 of the 1 m/s range
    stopped = np.subtract(record.at(12.0)["pos"][:2], record.at(11.5)["pos"][:2])
    assert np.linalg.norm(stopped) < 0.1, stopped  # the stick still forward, the robot stands after the first stop
    after = [a for a in record.arrivals if a["crc_ok"] and a["recv"] >= record.at(12.5)["wall"]]
    assert after and all(a["kp"] == 0.0 and a["kd"] == 2.0 for a in after)


BLIND_TASK = "Go2-Rough-Blind"
BLIND_SCRIPT = [Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("forward", 4.0, (0.8, 0.0, 0.0))]


def test_the_blind_policy_walks_over_dds(tmp_path):
    """Go2-Rough-Blind's shipped policy, as a user runs it (``--bundle pretrained --task Go2-Rough-Blind`` for both
    scripts): the controller runs a policy with a 10-frame history (the reference controller's, tested to 1e-5
    against Isaac Lab) in real time without a fault, and the robot walks (on stairs: the test below)."""
    for attempt in range(ATTEMPTS):
        folder = tmp_path / f"attempt_{attempt}"
        code, output = _scripted_walk(folder, BLIND_SCRIPT, ("--task", BLIND_TASK))
        stalled = stall(folder, STALE_S)
        if code == 0 or stalled is None:
            break
        print(f"attempt {attempt + 1}: the machine stalled the bench ({stalled}); running again")
    assert code == 0, f"{stalled or ''}\n{output}"
    assert f"{BLIND_TASK} policy at 50 Hz" in output and "policy on" in output and "script done: damping" in output
    assert "DAMPING:" not in output, output  # no fault on the way
    record, start, _ = _walk_record(folder, BLIND_SCRIPT)
    forward_from, forward_to = start + BLIND_SCRIPT[0].duration_s, start + sum(s.duration_s for s in BLIND_SCRIPT)
    walked = np.subtract(record.at(forward_to)["pos"][:2], record.at(forward_from)["pos"][:2])
    assert walked[0] >= 2.0, walked  # 4 s at 0.8 m/s: 3.2 m asked
    assert not any(r["down"] for r in record.trunk if start <= r["t"] < forward_to)


def test_the_blind_policy_climbs_10cm_stairs_over_dds(tmp_path):
    """The issue's robot path end to end: the simulated Go2 stands at the bottom of a 10 cm staircase (the MuJoCo
    terrain cell ``stairs_up:0.10``), the deploy controller runs the shipped blind policy over DDS at 1 m/s ahead,
    and the robot reaches the rim without a fall. One start here; three are measured in docs/deploy_sdk2.md."""
    summary = climbs(tmp_path, BLIND_TASK, "stairs_up:0.10", starts=1)
    run = summary["runs"][0]
    assert run["controller_exit_code"] == 0 and not run["fault"], run
    # the cell's centre lies 7 risers of 10 cm below its rim: the flight is there to climb
    assert run["top_m"] - run["ground_start_m"] == pytest.approx(0.7, abs=1e-3), run
    assert run["reached_top"] and not run["fell"], run
    assert summary["climbed_without_a_fall"] == 1


def test_the_blind_policy_crosses_a_10cm_building_staircase_holding_its_heading(tmp_path):
    """The building's staircase end to end (issue 56's check on the robot's side): ``sim_go2.py --terrain
    staircase:0.1``, the controller with ``--hold_heading`` and a person's script (stand, 0.5 m/s ahead); the
    shipped blind policy goes 6 risers up, over the landing and 6 down without a fall and without leaving the 3 m
    flight. One start here, on the package's Go2; 15 and 18 cm on Unitree's go2.xml are measured in docs/."""
    summary = staircase_crossings(tmp_path, pretrained.bundle(BLIND_TASK), 0.10, starts=1)
    (run,) = summary["runs"]
    assert run["controller_exit_code"] == 0, run
    # the landing is 6 risers of 10 cm up, and the trunk stood over it
    assert run["highest_ground_m"] == pytest.approx(0.6, abs=1e-3), run
    assert run["crossed_without_a_fall"] and summary["crossed_without_a_fall"] == 1, run

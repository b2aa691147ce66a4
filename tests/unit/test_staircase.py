"""A building's staircase for the DDS check (``sim_go2.py --terrain staircase:0.18``, ``sdk2.bench --staircase``):
its steps worked out by hand, how its name is read, and how a start's record is judged."""

from __future__ import annotations

import mujoco
import pytest

from go2_locomotion.sdk2.bench import STAIRCASE_MARGIN, crossing_figures, staircase_segments
from go2_locomotion.sim2sim.terrain import Staircase, build_ground, parse_staircase


def test_the_steps_of_an_18_cm_staircase():
    s = Staircase(0.18)
    # 1 m of floor, 5 treads of 0.28 m up to the landing at 6 x 0.18 = 1.08 m, 2 m of landing, 5 treads down
    assert s.landing_start == pytest.approx(1.0 + 5 * 0.28)
    assert s.end == pytest.approx(2.4 + 2.0 + 5 * 0.28)
    g = build_ground("staircase:0.18")
    assert g.label == "staircase:0.18" and g.origin.tolist() == [0.0, 0.0, 0.0]
    expected = [(0.5, 0.0), (1.1, 0.18), (1.3, 0.36), (2.3, 0.90), (2.5, 1.08), (4.3, 1.08), (4.5, 0.90),
                (5.7, 0.18), (6.0, 0.0)]  # fmt: skip
    for x, z in expected:
        assert g.surface(x, 0.0) == pytest.approx(z), x
    # the flight is 3 m wide: beside it, the floor
    assert g.surface(3.0, 1.49) == pytest.approx(1.08) and g.surface(3.0, 1.6) == pytest.approx(0.0)
    spec = mujoco.MjSpec()
    names = g.add_to(spec, friction=1.0, group=2)
    assert len(names) == 1 + 11 and spec.compile().ngeom == 12


@pytest.mark.parametrize(
    "text, message",
    [
        ("staircase:abc", "staircase:abc: a staircase is staircase:RISER, the riser in metres"),
        ("staircase:0.4", "staircase:0.4: the riser must be in (0, 0.3] m"),
        ("stairs:0.1", "stairs:0.1: a staircase is staircase:RISER"),
    ],
)
def test_a_bad_staircase_is_named_in_one_line(text, message):
    with pytest.raises(ValueError) as caught:
        parse_staircase(text)
    assert str(caught.value).startswith(message)


def test_the_script_gives_time_to_cross_slowly():
    stand, cross = staircase_segments(Staircase(0.18), 0.5)
    assert stand.command == (0.0, 0.0, 0.0) and cross.command == (0.5, 0.0, 0.0)
    # (5.8 m to the last riser + 0.5 + 1) at 60 % of 0.5 m/s: 24.3 s, rounded up
    assert cross.duration_s == 25.0
    # a robot that walks the full pace (12.5 m) is still on the floor when the script ends (at first it walked off
    # the floor's end and fell), also at 1 m/s (13 s: 13 m)
    for speed in (0.5, 1.0):
        _, cross = staircase_segments(Staircase(0.18), speed)
        assert build_ground("staircase:0.18").surface(speed * cross.duration_s + 0.4, 0.0) == 0.0


def _row(t, x, y=0.0, down=False, ground=0.0):
    return {"t": t, "pos": [x, y, 0.3], "down": down, "ground": ground}


def test_a_start_is_judged_from_the_trunk_record():
    s = Staircase(0.15)
    goal = s.end + STAIRCASE_MARGIN
    walk = [_row(1.0 + 0.1 * k, 0.05 * k, ground=0.9 if 60 < k < 80 else 0.0) for k in range(200)]
    figures = crossing_figures(walk, 1.0, 25.0, s)
    k = next(k for k in range(200) if 0.05 * k >= goal)
    assert figures["crossed_without_a_fall"] and figures["crossing_time_s"] == pytest.approx(0.1 * k)
    assert figures["highest_ground_m"] == 0.9 and not figures["fell"] and not figures["left_the_flight"]
    # a fall after the crossing does not count; one before it does
    assert crossing_figures([*walk, _row(25.0, goal + 1, down=True)], 1.0, 25.0, s)["crossed_without_a_fall"]
    fell = [dict(r, down=True) if r["t"] == walk[50]["t"] else r for r in walk]
    assert crossing_figures(fell, 1.0, 25.0, s)["fell"]
    # beside the flight while over it: off the staircase; beside it on the run-up: not
    off = [dict(r, pos=[r["pos"][0], 1.6, 0.3]) if r is walk[40] else r for r in walk]
    assert crossing_figures(off, 1.0, 25.0, s)["left_the_flight"]
    early = [dict(r, pos=[r["pos"][0], 1.6, 0.3]) if r is walk[5] else r for r in walk]
    assert not crossing_figures(early, 1.0, 25.0, s)["left_the_flight"]
    # stopped short: not crossed
    short = crossing_figures(walk[:100], 1.0, 25.0, s)
    assert not short["crossed"] and short["furthest_x_m"] == pytest.approx(0.05 * 99)


def test_a_stall_spoils_a_run_only_when_the_controller_then_faulted():
    """A stall beyond the bound that the controller rode through (exit 0, no damping) keeps the run's figures; one
    followed by a fault or damping may have decided the outcome, and is run again."""
    from pathlib import Path

    from go2_locomotion.sdk2.bench import RetriedRun

    assert not RetriedRun(Path("."), 0, "walked", None, []).spoiled
    assert not RetriedRun(Path("."), 0, "walked", "LowState 80 ms old", []).spoiled
    assert RetriedRun(Path("."), 1, "DAMPING: stale state", "LowState 80 ms old", []).spoiled
    assert RetriedRun(Path("."), 0, "DAMPING: stale state", "LowState 80 ms old", []).spoiled
    assert not RetriedRun(Path("."), 1, "DAMPING: fell", None, []).spoiled

"""The DDS bench's figures, from hand-made records (no DDS, no simulator)."""

from __future__ import annotations

import pytest


def test_straight_walk_figures_by_hand():
    from go2_locomotion.sdk2.bench import SimRecord, straight_figures
    from go2_locomotion.sim2sim.loop import parse_segments
    from go2_locomotion.sim2sim.report import SETTLE_S

    segments = parse_segments("stand:2:0,0,0 half:10:0.5,0,0 full:10:1,0,0")
    start = 3.0  # the policy's first step

    def row(t):
        if t < start + 2:
            vel, wz = (0.0, 0.0), 0.0
        elif t < start + 12:  # half: 0.45 ahead during the settle time, 0.48 after; drifting left 0.02 rad/s
            vel, wz = ((0.45, 0.0) if t < start + 2 + SETTLE_S else (0.48, 0.01)), 0.02
        else:  # full: 0.9 ahead throughout, turning right 0.005 rad/s, down once at the end
            vel, wz = (0.9, 0.0), -0.005
        return {"t": t, "vel": [*vel, 0.0], "wz": wz, "down": t > start + 21.5, "pos": [0, 0, 0]}

    record = SimRecord(trunk=[row(k * 0.02) for k in range(1300)], ready={}, arrivals=[], summary=None)
    figures = straight_figures(record, start, segments)
    assert [s["name"] for s in figures["segments"]] == ["half", "full"]  # standing has no speed to share
    half, full = figures["segments"]
    assert half["velocity"] == pytest.approx([0.48, 0.01, 0.02]) and half["speed_share"] == pytest.approx(0.96)
    assert half["heading_drift"] == pytest.approx(0.02)
    assert full["speed_share"] == pytest.approx(0.9) and full["heading_drift"] == pytest.approx(0.005)
    assert figures["fell"]

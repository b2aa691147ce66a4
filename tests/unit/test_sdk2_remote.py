"""The Go2 remote in ``wireless_remote``: byte layout, the stick mapping to a velocity command, button presses."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from go2_locomotion.sdk2.remote import ButtonEdges, RemoteState, decode, encode, stick_command, sticks_active

RANGES = np.array([[-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0]])


def test_decode_reads_unitrees_layout():
    raw = bytearray(40)
    raw[2] = 0b0000_0100  # bit 2 of the low byte: start
    raw[3] = 0b0000_0010  # bit 9 of the word: B
    struct.pack_into("<f", raw, 4, -0.5)  # lx
    struct.pack_into("<f", raw, 8, 0.25)  # rx
    struct.pack_into("<f", raw, 12, 0.75)  # ry
    struct.pack_into("<f", raw, 20, 1.0)  # ly
    state = decode(bytes(raw))
    assert state.buttons == {"start", "B"}
    assert (state.lx, state.rx, state.ry, state.ly) == (-0.5, 0.25, 0.75, 1.0)


def test_encode_decode_round_trip_and_bad_floats():
    state = RemoteState(frozenset({"L2", "select", "left"}), lx=0.5, ly=-1.0, rx=0.0, ry=0.125)
    assert decode(encode(state)) == state
    raw = bytearray(encode(state))
    struct.pack_into("<f", raw, 20, float("nan"))
    struct.pack_into("<f", raw, 4, 7.0)
    broken = decode(bytes(raw))
    assert broken.ly == 0.0 and broken.lx == 1.0  # NaN reads as centred, out of range is clipped


@pytest.mark.parametrize(
    ("sticks", "expected"),
    [
        ({"ly": 0.5}, [0.5, 0.0, 0.0]),  # left stick forward: walk forward
        ({"lx": -1.0}, [0.0, 1.0, 0.0]),  # left stick left: walk left (+y)
        ({"rx": 0.5}, [0.0, 0.0, -0.5]),  # right stick right: turn right (negative yaw rate)
        ({"ly": 0.04, "lx": -0.04}, [0.0, 0.0, 0.0]),  # inside the 0.05 dead zone
    ],
)
def test_stick_mapping(sticks, expected):
    assert stick_command(RemoteState(**sticks), RANGES).tolist() == pytest.approx(expected)


def test_full_deflection_reaches_each_end_of_an_asymmetric_range():
    ranges = np.array([[-0.5, 2.0], [-1.0, 1.0], [-1.5, 1.5]])
    assert stick_command(RemoteState(ly=-1.0), ranges)[0] == -0.5
    assert stick_command(RemoteState(ly=1.0), ranges)[0] == 2.0
    assert stick_command(RemoteState(rx=-1.0), ranges)[2] == 1.5
    assert sticks_active(RemoteState(ly=0.3)) and not sticks_active(RemoteState(ry=0.9))  # ry is not used


def test_a_button_fires_once_per_press_and_chords_need_all_buttons():
    edges = ButtonEdges()
    chords = ("start", "L2+B")
    held = [set(), {"start"}, {"start"}, set(), {"start"}, {"B"}, {"B", "L2"}, {"B", "L2"}]
    fired = [edges.presses(RemoteState(frozenset(b)), chords) for b in held]
    assert fired == [[], ["start"], [], [], ["start"], [], ["L2+B"], []]

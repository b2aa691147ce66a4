"""The Go2 remote as the robot reports it in ``LowState_.wireless_remote`` (buttons and sticks), and the usual stick
mapping to a velocity command: left stick forward/back and sideways, right stick left/right turns."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from .figures import REMOTE_BUTTON_BITS, REMOTE_BYTES, REMOTE_STICK_OFFSETS, STICK_DEAD_ZONE


@dataclass(frozen=True)
class RemoteState:
    """Buttons held and stick positions of one ``wireless_remote``."""

    buttons: frozenset[str] = frozenset()
    """Names of the buttons held (keys of :data:`~.figures.REMOTE_BUTTON_BITS`)."""
    lx: float = 0.0
    """Left stick, right positive [-1, 1]."""
    ly: float = 0.0
    """Left stick, forward positive [-1, 1]."""
    rx: float = 0.0
    """Right stick, right positive [-1, 1]."""
    ry: float = 0.0
    """Right stick, forward positive [-1, 1]."""


def decode(raw: bytes) -> RemoteState:
    """Read ``wireless_remote`` (40 bytes); non-finite stick values read as centred."""
    raw = bytes(raw).ljust(REMOTE_BYTES, b"\x00")
    (word,) = struct.unpack_from("<H", raw, 2)
    buttons = frozenset(name for name, bit in REMOTE_BUTTON_BITS.items() if word >> bit & 1)
    sticks = {}
    for name in ("lx", "ly", "rx", "ry"):
        (value,) = struct.unpack_from("<f", raw, REMOTE_STICK_OFFSETS[name])
        sticks[name] = float(np.clip(value, -1.0, 1.0)) if np.isfinite(value) else 0.0
    return RemoteState(buttons, **sticks)


def encode(state: RemoteState) -> bytes:
    """``wireless_remote`` bytes for ``state`` (the simulated Go2 reports a scripted remote this way)."""
    raw = bytearray(REMOTE_BYTES)
    word = sum(1 << REMOTE_BUTTON_BITS[name] for name in state.buttons)
    struct.pack_into("<H", raw, 2, word)
    for name in ("lx", "ly", "rx", "ry"):
        struct.pack_into("<f", raw, REMOTE_STICK_OFFSETS[name], getattr(state, name))
    return bytes(raw)


def _dead_zone(value: float) -> float:
    return 0.0 if abs(value) < STICK_DEAD_ZONE else value


def stick_command(state: RemoteState, ranges: np.ndarray) -> np.ndarray:
    """Velocity command ``[vx, vy, wz]`` [m/s, m/s, rad/s] from the sticks: ``ly`` forward, ``-lx`` left, ``-rx``
    turn left; full deflection reaches the end of the policy's command range on that side (``ranges`` ``[3, 2]``
    low, high)."""
    deflection = np.array([_dead_zone(state.ly), -_dead_zone(state.lx), -_dead_zone(state.rx)])
    return np.where(deflection >= 0, deflection * ranges[:, 1], -deflection * ranges[:, 0])


def sticks_active(state: RemoteState) -> bool:
    """Whether any stick used for the command is out of its dead zone."""
    return any(_dead_zone(v) != 0.0 for v in (state.lx, state.ly, state.rx))


@dataclass
class ButtonEdges:
    """Turns held buttons into presses: a button (or chord, e.g. ``L2+B``) fires once when it goes down."""

    held: frozenset[str] = field(default_factory=frozenset)

    def presses(self, state: RemoteState, chords: tuple[str, ...]) -> list[str]:
        """The chords of ``chords`` (``"start"``, ``"L2+B"``, ...) that went down since the last call."""
        fired = []
        for chord in chords:
            parts = frozenset(chord.split("+"))
            if parts <= state.buttons and not parts <= self.held:
                fired.append(chord)
        self.held = state.buttons
        return fired

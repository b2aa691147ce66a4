"""Live velocity commands during playback: one :class:`Steering` state, fed by the terminal keyboard
(:class:`TerminalKeys`, any viewer) and by the viser page (:mod:`.page`), applied to the task's command term.

The command reaches the policy only through the task's command term
(:class:`~go2_locomotion.tasks.mdp.SteerableVelocityCommand`): the ``velocity_commands`` observation it was trained
with. While a robot is steered its command is not resampled; "release" hands it back to random commands.

Keys (terminal, any viewer; type them in the terminal that runs ``play.py``)::

    w / s    forward / backward   +-0.1 m/s        space  stop (all three to zero)
    a / d    left / right         +-0.1 m/s        r      release: random commands again
    q / e    turn left / right    +-0.2 rad/s      0-9    steer robot N only;  *  all robots
    f        follow the steered robot with the camera
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading
from dataclasses import dataclass, field

STEP = (0.1, 0.1, 0.2)
"""What one key press changes: forward [m/s], lateral [m/s], yaw rate [rad/s]."""

KEYS = {
    "w": (0, +1),
    "s": (0, -1),
    "a": (1, +1),
    "d": (1, -1),
    "q": (2, +1),
    "e": (2, -1),
}
"""Key -> (command axis, direction): axis 0 forward, 1 lateral (left positive), 2 yaw rate (left turn positive)."""

AXES = ("forward", "lateral", "yaw rate")
UNITS = ("m/s", "m/s", "rad/s")


@dataclass
class SteeringState:
    """What the user asked for: a velocity, for which robots (``None``: all), whether it is engaged."""

    velocity: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    robot: int | None = None
    engaged: bool = False
    follow: bool = False

    @property
    def shown_robot(self) -> int:
        """The robot the readout shows and the camera follows: the steered one, robot 0 when all are steered."""
        return 0 if self.robot is None else self.robot

    def describe(self) -> str:
        who = "all robots" if self.robot is None else f"robot {self.robot}"
        if not self.engaged:
            return f"{who}: random commands"
        parts = ", ".join(f"{a} {v:+.2f} {u}" for a, v, u in zip(AXES, self.velocity, UNITS, strict=True))
        return f"{who}: {parts}"


class Steering:
    """The shared steering state: sources change it from any thread, :meth:`apply` writes it into the command term
    on the simulation thread (once per policy step)."""

    def __init__(self, term, num_envs: int, *, log=print):
        self.term = term
        self.num_envs = num_envs
        self.ranges = term.ranges()
        self.state = SteeringState()
        self._lock = threading.Lock()
        self._changed = False
        self._follow_changed = False
        self._released: int | None | bool = False  # robot (or None: all) to release at the next apply
        self._log = log
        self.listeners: list = []
        """``listener(state)`` after each applied change (the page mirrors keyboard changes)."""

    # -- sources -----------------------------------------------------------------------------------------------

    def set_axis(self, axis: int, value: float) -> None:
        """Set one command axis (0 forward, 1 lateral, 2 yaw rate), clamped to what the policy was trained on."""
        low, high = self.ranges[axis]
        with self._lock:
            self.state.velocity[axis] = min(max(float(value), low), high)
            self.state.engaged = True
            self._changed = True

    def nudge(self, axis: int, direction: int) -> None:
        """One key press: change ``axis`` by one :data:`STEP` in ``direction``."""
        self.set_axis(axis, self.state.velocity[axis] + direction * STEP[axis])

    def stop(self) -> None:
        """All three axes to zero (the robot stands, still steered)."""
        with self._lock:
            self.state.velocity = [0.0, 0.0, 0.0]
            self.state.engaged = True
            self._changed = True

    def release(self) -> None:
        """The steered robots go back to random commands."""
        with self._lock:
            self.state.engaged = False
            self._released = self.state.robot
            self._changed = True

    def select(self, robot: int | None) -> None:
        """Steer only ``robot`` from now on (``None``: all robots); an index out of range is ignored."""
        if robot is not None and not 0 <= robot < self.num_envs:
            return
        with self._lock:
            self.state.robot = robot
            self._changed = True

    def set_follow(self, follow: bool) -> None:
        with self._lock:
            self.state.follow = bool(follow)
            self._follow_changed = True

    def key(self, char: str) -> bool:
        """Apply one terminal key; returns whether it meant something."""
        if char in KEYS:
            axis, direction = KEYS[char]
            self.nudge(axis, direction)
        elif char == " ":
            self.stop()
        elif char == "r":
            self.release()
        elif char.isdigit():
            self.select(int(char))
        elif char == "*":
            self.select(None)
        elif char == "f":
            self.set_follow(not self.state.follow)
        else:
            return False
        return True

    # -- simulation thread ----------------------------------------------------------------------------------------

    def apply(self) -> bool:
        """Write a pending change into the command term; returns whether the command changed."""
        with self._lock:
            changed, follow_changed = self._changed, self._follow_changed
            state = SteeringState(list(self.state.velocity), self.state.robot, self.state.engaged, self.state.follow)
            released, self._released = self._released, False
            self._changed = self._follow_changed = False
        if follow_changed:
            self._log(f"[go2] camera {'follows robot ' + str(state.shown_robot) if state.follow else 'free'}")
        if not changed:
            return False
        ids = None if state.robot is None else [state.robot]
        if released is not False:
            self.term.release(None if released is None else [released])
        if state.engaged:
            self.term.steer(state.velocity, ids)
        self._log(f"[go2] steering {state.describe()}")
        for listener in self.listeners:
            listener(state)
        return True

    def followed_robot(self) -> int | None:
        """The robot the camera follows, or ``None`` when following is off."""
        return self.state.shown_robot if self.state.follow else None


class TerminalKeys:
    """Single key presses from a terminal (no Enter), without echo, for the life of the context; does nothing when
    ``fd`` is not a terminal (a job, a pipe, CI)."""

    def __init__(self, fd: int | None = None):
        self.fd = fd
        self.active = False
        self._saved = None

    def __enter__(self) -> TerminalKeys:
        with contextlib.suppress(OSError, ValueError):  # no file descriptor (pytest's stdin), a closed one
            if self.fd is None:
                self.fd = sys.stdin.fileno()
            if os.isatty(self.fd):
                import termios  # POSIX only, and only for a terminal
                import tty

                self._saved = termios.tcgetattr(self.fd)
                tty.setcbreak(self.fd)
                self.active = True
        return self

    def __exit__(self, *exc) -> None:
        if self._saved is not None:
            import termios  # POSIX only, and only for a terminal

            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
        self.active = False

    def read(self) -> str:
        """The keys pressed since the last call (never blocks)."""
        if not self.active:
            return ""
        chars = []
        while select.select([self.fd], [], [], 0)[0]:
            data = os.read(self.fd, 64)
            if not data:
                break
            chars.append(data.decode(errors="ignore"))
        return "".join(chars)

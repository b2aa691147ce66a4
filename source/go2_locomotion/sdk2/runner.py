"""The deploy controller: LowState in over DDS, the bundle's policy at its policy rate through the reference
controller, LowCmd out, with the safety of :mod:`.safety` and a clock that reports its own timing.

Threads: a DDS reader thread turns each LowState into arrays (:class:`Inbox`); the main thread runs the loop
(:meth:`Deployment.run`): wait for the period's deadline, fold the new LowStates into the velocity estimate and
the remote's buttons, read the terminal keys, decide the mode, compute the targets, write one LowCmd. Every way
out of the loop (end of a scripted run, Ctrl-C, SIGTERM, an exception) sends damping before it leaves.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..robot.bundle import NUM_JOINTS, Bundle
from ..robot.controller import ReferenceController
from ..robot.heading import HeadingHold
from ..robot.state import RobotState
from ..robot.steering import AXES, KEYS, STEP, UNITS, TerminalKeys
from ..sim2sim.loop import Segment
from .dds import Bus, is_loopback
from .estimator import VelocityEstimator
from .figures import (
    AUTOSTART_HOLD_S,
    AUTOSTART_SETTLE_S,
    DAMPING_KD,
    GIL_SWITCH_S,
    JITTER_REPORT_S,
    LOWSTATE_WAIT_S,
    MAX_BASE_LIN_VEL,
    RAMP_S,
    SPORT_SERVICE_PROBE_S,
    STALE_POLICY_PERIODS,
    STOP_DAMPING_S,
    TOPIC_LOWCMD,
    TOPIC_LOWSTATE,
    TOPIC_SPORTMODESTATE,
)
from .messages import LowCmd_, LowState_, RobotReading, leaf, lowcmd, reading
from .remote import ButtonEdges, decode, stick_command, sticks_active
from .safety import JointLimits, Mode, Supervisor, clamp_targets, is_stale, reading_fault
from .stopping import install_stop_signals
from .timing import PeriodicClock, freeze_heap

START_KEY = "g"
"""Terminal key: start (stand up; pressed again: the policy walks)."""

STOP_KEY = " "
"""Terminal key: stop (zero the walking command; pressed again or while not walking: damping)."""

REMOTE_START = "start"
"""Remote button that does what :data:`START_KEY` does."""

REMOTE_STOP = "select"
"""Remote button that does what :data:`STOP_KEY` does."""

REMOTE_DAMPING = "L2+B"
"""Remote chord: damping at once."""

PREFIX = "[go2]"

COMMAND_AXES = ("lin_vel_x", "lin_vel_y", "ang_vel_z")
"""The velocity command's ranges in ``deploy.yaml`` (``commands.base_velocity.ranges``), in command order."""


class PreflightError(RuntimeError):
    """Something on the DDS domain makes commanding unsafe; the message says what and how to fix it."""


@dataclass
class DeploySettings:
    """How :class:`Deployment` runs."""

    interface: str
    """Network interface the DDS traffic uses (``lo`` for the simulated Go2)."""
    domain: int = 0
    """DDS domain id (the Go2 uses 0)."""
    ramp_s: float = RAMP_S
    """Stand-up time [s]."""
    autostart: bool = False
    """Start without a key (loopback only): stand up, hold :data:`~.figures.AUTOSTART_HOLD_S`, walk."""
    segments: list[Segment] | None = None
    """Scripted commands once the policy runs; the run ends (damping) after the last one."""
    log: Path | None = None
    """JSON-lines log of every step and the timing summary."""
    check_lowstate_crc: bool = True
    """Ignore LowStates whose CRC does not match."""
    hold_heading: bool = False
    """While walking with a yaw rate of zero, hold the heading as training's heading command did
    (:class:`~go2_locomotion.robot.heading.HeadingHold`, the IMU's yaw)."""


def command_ranges(bundle: Bundle) -> np.ndarray:
    """``[3, 2]`` low, high of the policy's command (vx [m/s], vy [m/s], yaw rate [rad/s]) from ``deploy.yaml``.

    Raises:
        BundleError: The manifest lacks a range.
    """
    return np.array([bundle.field(f"commands.base_velocity.ranges.{k}") for k in COMMAND_AXES], dtype=np.float64)


@dataclass
class Inbox:
    """LowStates from the DDS thread to the loop, as :class:`~.messages.RobotReading`."""

    check_crc: bool = True
    crc_failures: int = 0
    """LowStates dropped because their CRC did not match."""
    received: int = 0
    """LowStates accepted."""
    newest: float = -1.0
    """When the newest accepted LowState arrived (``time.monotonic()``)."""
    fold: Callable[[RobotReading], None] | None = None
    """Called with every accepted reading on the reader thread (the velocity estimate), off the loop's path."""
    _queue: deque = field(default_factory=lambda: deque(maxlen=1024))
    _lock: threading.Condition = field(default_factory=threading.Condition)

    def handle(self, sample: LowState_, received: float) -> None:
        """Called by the reader thread for every LowState."""
        r = reading(sample, received=received)
        with self._lock:
            if self.check_crc and not r.crc_ok:
                self.crc_failures += 1
                return
            self.received += 1
            self.newest = received
            self._queue.append(r)
            self._lock.notify_all()
        if self.fold is not None:  # after the loop was woken: the loop acts at once, the fold follows
            self.fold(r)

    def wait_newer(self, than: float, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a LowState that arrived after ``than``; returns whether one did."""
        with self._lock:
            return self._lock.wait_for(lambda: self.newest > than, timeout)

    def drain(self) -> list[RobotReading]:
        """The readings since the last call, oldest first."""
        with self._lock:
            items = list(self._queue)
            self._queue.clear()
        return items


class Stop(Exception):
    """SIGTERM: leave the loop the way Ctrl-C does."""


def _raise_stop(signum, frame):
    raise Stop()


class Deployment:
    """The bundle's policy on a Go2 (or the simulated one) over DDS.

    Args:
        bundle: The loaded bundle.
        settings: Interface, domain, ramp, start and command script, log.
        log: Where messages go (one line each).
    """

    def __init__(self, bundle: Bundle, settings: DeploySettings, log=print):
        self.bundle, self.settings, self._print = bundle, settings, log
        self.controller = ReferenceController(bundle)
        self.limits = JointLimits.from_bundle(bundle)
        self.policy_dt = float(bundle.field("timing.policy_dt"))
        self.stale_s = STALE_POLICY_PERIODS * self.policy_dt
        self.ranges = command_ranges(bundle)
        self.heading_hold = HeadingHold.from_bundle(bundle) if settings.hold_heading else None
        self.estimator = VelocityEstimator()
        self._estimate_lock = threading.Lock()
        self.uses_velocity = any(t["function"] == "base_lin_vel" for t in bundle.field("observation.terms"))
        self.supervisor = Supervisor(settings.ramp_s)
        self.inbox = Inbox(check_crc=settings.check_lowstate_crc)
        self.key_command = np.zeros(3)
        self.command = np.zeros(3)
        self.latest: RobotReading | None = None
        self._buttons = ButtonEdges()
        self._sticks: np.ndarray | None = None
        self._sticks_held_off = False
        self._stand_forces: deque = deque()
        self._policy_steps = 0
        self._autostarted = False
        self._started = False
        self._fresh_since: float | None = None
        self._stale_reported = False
        self._log_file = None
        self.finished = False
        """The scripted run is over (its end reached, or a fault stopped it)."""
        self.exit_code = 0
        """What :meth:`run` returns: 1 when a fault ended a scripted run."""

    # -- messages ----------------------------------------------------------------------------------------------------
    def say(self, text: str) -> None:
        self._print(f"{PREFIX} {text}")

    def intro(self) -> str:
        """The first message: what the robot will do."""
        s = self.settings
        where = (
            f"interface {s.interface} ({'loopback: the simulated Go2' if is_loopback(s.interface) else 'A REAL ROBOT'})"
            f", DDS domain {s.domain}"
        )
        if s.autostart:
            start = f"it stands up at once over {s.ramp_s:g} s, holds it {AUTOSTART_HOLD_S:g} s, then the policy walks"
        else:
            start = (
                f"it stays limp until you press start (key '{START_KEY}' or the remote's {REMOTE_START}): it then "
                f"stands up over {s.ramp_s:g} s and holds the standing pose; press start again and the policy walks"
            )
        hold = self.heading_hold
        held = (
            f"; with the yaw rate at zero while walking it holds the heading (yaw rate {hold.stiffness:g}/s x the "
            "heading error, as in training)"
            if hold is not None
            else ""
        )
        script = (
            f"; it follows the scripted commands ({len(s.segments)} segments, "
            f"{sum(seg.duration_s for seg in s.segments):g} s) and then goes limp (damping)"
            if s.segments
            else "; commands: the remote's sticks or keys w/s a/d q/e"
        )
        return (
            f"{self.bundle.field('task')} policy at {1 / self.policy_dt:g} Hz on {where}. The robot starts in damping "
            f"(kp 0, kd {DAMPING_KD:g} N m s/rad); {start}{script}{held}. Stop: space or the remote's {REMOTE_STOP} "
            f"(walking: zero command; again: damping); the remote's {REMOTE_DAMPING}: damping at once; Ctrl-C: damping "
            f"and exit. LowState older than {1e3 * self.stale_s:.0f} ms, a reading out of range or a fall: damping."
        )

    # -- inputs ------------------------------------------------------------------------------------------------------
    def _start(self, now: float) -> None:
        if self.latest is None or is_stale(now, self.latest.received, self.stale_s):
            self.say("start refused: no fresh LowState")
            return
        fault = reading_fault(self.latest, self.limits)
        if fault is not None:
            self.say(f"start refused: {fault}")
            return
        was = self.supervisor.mode
        self.say(self.supervisor.start(now, self.latest.q))
        self._started = True
        if was is Mode.STAND and self.supervisor.mode is Mode.POLICY:
            self._policy_on()

    def _stop(self, now: float) -> None:
        outcome = self.supervisor.stop(now, walking=bool(np.any(self.command != 0)))
        if outcome == "zero command":
            self.key_command[:] = 0.0
            self._sticks_held_off = True
            self.say("stop: command zero (stop again: damping)")
        else:
            self.say(f"stop: {outcome}")

    def _damp_now(self, now: float, reason: str) -> None:
        if not self.supervisor.trip(now, reason):
            return
        if self.settings.segments is not None:
            self.say(f"DAMPING: {reason}; the scripted run ends here")
            self.finished, self.exit_code = True, 1
        else:
            self.say(f"DAMPING: {reason}; start (key '{START_KEY}' or the remote's {REMOTE_START}) stands up again")

    def key(self, char: str, now: float) -> None:
        """One terminal key: start, stop, or a change of the walking command (not in a scripted run)."""
        if char == START_KEY:
            self._start(now)
        elif char == STOP_KEY:
            self._stop(now)
        elif char in KEYS and self.settings.segments is None:
            axis, direction = KEYS[char]
            value = self.key_command[axis] + direction * STEP[axis]
            self.key_command[axis] = float(np.clip(round(value, 6), *self.ranges[axis]))
            self.say(
                "command "
                + ", ".join(f"{a} {v:+.2f} {u}" for a, v, u in zip(AXES, self.key_command, UNITS, strict=True))
            )

    def _remote(self, r: RobotReading, now: float) -> None:
        state = decode(r.remote)
        for chord in self._buttons.presses(state, (REMOTE_DAMPING, REMOTE_START, REMOTE_STOP)):
            if chord == REMOTE_DAMPING:
                self._damp_now(now, f"remote {REMOTE_DAMPING}")
            elif chord == REMOTE_START and "L2" not in state.buttons:
                self._start(now)
            elif chord == REMOTE_STOP:
                self._stop(now)
        active = sticks_active(state)
        self._sticks_held_off = self._sticks_held_off and active  # after a stop the sticks count once released
        self._sticks = stick_command(state, self.ranges) if active and not self._sticks_held_off else None

    # -- the step ----------------------------------------------------------------------------------------------------
    def _policy_on(self) -> None:
        self.controller.reset()
        self._policy_steps = 0
        if self.heading_hold is not None:
            self.heading_hold.reset()
        self.key_command[:] = 0.0
        if self._stand_forces:
            standing = np.mean(np.asarray(self._stand_forces), axis=0)
            with self._estimate_lock:
                calibrated = self.estimator.calibrate(standing)
            if not calibrated:
                self.say(f"foot_force reads {standing.round(1).tolist()} standing: contacts from leg kinematics alone")

    def _current_command(self) -> np.ndarray:
        segments = self.settings.segments
        if segments is not None:
            t = self._policy_steps * self.policy_dt
            for segment in segments:
                if t < segment.duration_s - 1e-9:
                    return np.asarray(segment.command, dtype=np.float64)
                t -= segment.duration_s
            self.finished = True
            return np.zeros(3)
        if self._sticks is None:
            return self.key_command.copy()
        return np.clip(self._sticks, self.ranges[:, 0], self.ranges[:, 1])

    def damping(self) -> tuple[np.ndarray, ...]:
        """The damping command: ``(q, dq, tau, kp, kd)``."""
        zero = np.zeros(NUM_JOINTS)
        return zero, zero, zero, zero, np.full(NUM_JOINTS, DAMPING_KD)

    def step(self, now: float, new: list[RobotReading]) -> tuple[tuple[np.ndarray, ...], dict]:
        """One period: fold in ``new`` readings, decide the mode, return the motor command and the step's record."""
        for r in new:
            if self.uses_velocity and self.inbox.fold is None:
                self.estimator.update(r)
            self._remote(r, now)
            self.latest = r
        sup, r = self.supervisor, self.latest
        if is_stale(now, None if r is None else r.received, self.stale_s):
            age = "none received" if r is None else f"newest {1e3 * (now - r.received):.0f} ms old"
            self._damp_now(now, f"LowState stale ({age}; bound {1e3 * self.stale_s:.0f} ms)")
            self._stale_reported = True
            self._fresh_since = None
            return self.damping(), {"mode": sup.mode.value}
        if self._stale_reported:
            self._stale_reported = False
            self.say("LowState flows again")
        fault = None if sup.mode is Mode.DAMPING else reading_fault(r, self.limits)
        if fault is not None:
            self._damp_now(now, fault)
        if self._fresh_since is None:
            self._fresh_since = now
        settled = now - self._fresh_since >= AUTOSTART_SETTLE_S - 1e-9
        if self.settings.autostart and settled and not self._autostarted and sup.mode is Mode.DAMPING:
            self._autostarted = True
            self._start(now)
        record = {"mode": sup.mode.value, "tick": r.tick, "received": r.received}
        kp, kd, zero = self.limits.kp, self.limits.kd, np.zeros(NUM_JOINTS)
        if sup.mode is Mode.RAMP:
            target = sup.ramp_target(now, self.limits.standing)
        elif sup.mode is Mode.STAND:
            target = self.limits.standing
            self._stand_forces.append(r.foot_force)
            while len(self._stand_forces) > round(AUTOSTART_HOLD_S / self.policy_dt):
                self._stand_forces.popleft()
            if self.settings.autostart and now - sup.since >= AUTOSTART_HOLD_S - 1e-9:
                self._start(now)
        if sup.mode is Mode.POLICY:
            self.command = self._current_command()
            if self.heading_hold is not None:
                self.command = self.heading_hold(self.command, r.quaternion)
            with self._estimate_lock:
                velocity = self.estimator.velocity
            if not np.all(np.isfinite(velocity)) or np.linalg.norm(velocity) > MAX_BASE_LIN_VEL:
                self._damp_now(now, f"estimated trunk velocity {velocity.round(2).tolist()} m/s out of range")
            else:
                state = RobotState(
                    joint_pos=r.q, joint_vel=r.dq, base_ang_vel=r.gyroscope, base_quat=r.quaternion,
                    base_lin_vel=velocity, command=self.command,
                )  # fmt: skip
                out = self.controller.act(state)
                self._policy_steps += 1
                target = out.joint_pos_target
                record.update(command=self.command.tolist(), velocity=velocity.round(4).tolist())
                if not np.all(np.isfinite(target)):
                    self._damp_now(now, f"policy output not finite ({out.action.round(3).tolist()})")
        if sup.mode is Mode.DAMPING:
            if self.settings.segments is not None and self._started and not self.finished:
                self.say("damping: the scripted run ends here")
                self.finished, self.exit_code = True, 1
            record["mode"] = sup.mode.value
            return self.damping(), record
        record["mode"] = sup.mode.value
        return (clamp_targets(target, r.q, r.dq, kp, kd, self.limits), zero, zero, kp, kd), record

    def _fold_estimate(self, r: RobotReading) -> None:
        with self._estimate_lock:
            self.estimator.update(r)

    def warm_up(self) -> None:
        """Run the policy and the estimator once before going live: their first calls are slow (ONNX Runtime
        prepares its kernels), and a first step must not overrun."""
        standing = self.limits.standing
        state = RobotState(
            joint_pos=standing, joint_vel=np.zeros(NUM_JOINTS), base_ang_vel=np.zeros(3),
            base_quat=np.array([1.0, 0.0, 0.0, 0.0]), base_lin_vel=np.zeros(3), command=np.zeros(3),
        )  # fmt: skip
        for _ in range(3):
            self.controller.act(state)
        self.controller.reset()
        self.estimator.kinematics.contacts(standing, np.zeros(NUM_JOINTS), np.array([0.0, 0.0, 1.0]))

    # -- the loop ----------------------------------------------------------------------------------------------------
    def preflight(self, bus: Bus, robot: bool) -> None:
        """Refuse to command when another program already publishes ``rt/lowcmd`` and, on a robot, while its sport
        service runs.

        Raises:
            PreflightError: Naming the topic and what to do.
        """
        wait = SPORT_SERVICE_PROBE_S if robot else 0.3
        others = bus.other_writers(TOPIC_LOWCMD, wait)
        if others:
            raise PreflightError(
                f"another program already publishes {TOPIC_LOWCMD} on {self.settings.interface}, domain "
                f"{self.settings.domain} ({len(others)} writer(s)): stop it first; two controllers would fight"
            )
        if robot and bus.other_writers(TOPIC_SPORTMODESTATE, 0.0):
            raise PreflightError(
                f"the robot's sport service is running ({TOPIC_SPORTMODESTATE} is published): switch it off first "
                "(README, 'Deploy to a real Go2'), or it fights the low-level commands"
            )

    def _write_log(self, record: dict) -> None:
        if self._log_file is not None:
            self._log_file.write(json.dumps(record) + "\n")

    def run(self, robot: bool = False) -> int:
        """Run until the script ends, Ctrl-C or SIGTERM; returns the exit code (0; 1 when a fault ended a scripted
        run).

        Raises:
            PreflightError: Another controller publishes, or the robot's sport service runs.
        """
        s = self.settings
        self.warm_up()
        sys.setswitchinterval(GIL_SWITCH_S)
        bus = Bus(s.domain, s.interface)
        writer = bus.writer(TOPIC_LOWCMD, LowCmd_)
        self.preflight(bus, robot)
        freeze_heap()
        if self.uses_velocity:  # the estimate follows every LowState on the reader thread, off the policy's path
            self.inbox.fold = self._fold_estimate
        subscription = bus.subscribe(TOPIC_LOWSTATE, LowState_, self.inbox.handle)
        if s.log is not None:
            self._log_file = s.log.open("w", buffering=1)
        self.say(self.intro())
        self.say(f"waiting for LowState on {TOPIC_LOWSTATE}")
        clock = PeriodicClock(self.policy_dt)
        restore_signals = install_stop_signals(_raise_stop)
        sent_any, reported = False, time.monotonic()
        try:
            with TerminalKeys() as keys:  # reads nothing where stdin is no terminal
                while self.inbox.received == 0:  # nothing is commanded before the robot is heard from
                    if subscription.error is not None:
                        raise subscription.error
                    time.sleep(self.policy_dt)
                self.say("LowState received")
                clock = PeriodicClock(self.policy_dt)
                while not self.finished:
                    woke = clock.wait()
                    # act on the first LowState after the deadline: a ~1 ms old state, targets in the robot's next step
                    self.inbox.wait_newer(clock.deadline, LOWSTATE_WAIT_S)
                    now = time.monotonic()
                    clock.begin(now)
                    if subscription.error is not None:
                        raise subscription.error
                    new = self.inbox.drain()
                    for char in keys.read():
                        self.key(char, now)
                    (q, dq, tau, kp, kd), record = self.step(now, new)
                    record["ready"] = time.monotonic()
                    message = lowcmd(q, dq, tau, kp, kd)
                    writer.write(message)
                    sent_any = True
                    if clock.done():
                        took, period = 1e3 * clock.total.work[-1], 1e3 * self.policy_dt
                        self.say(f"loop overran: step took {took:.1f} ms (period {period:g} ms)")
                    record.update(t=now, woke=woke, sent=time.monotonic(), crc=leaf(message, "crc"))
                    self._write_log(record)
                    if now - reported >= JITTER_REPORT_S:
                        reported = now
                        self.say(f"timing: {clock.take_window().line()}")
            if self.finished and self.exit_code == 0:
                self.say("script done: damping")
        except (KeyboardInterrupt, Stop) as stop:
            name = "Ctrl-C" if isinstance(stop, KeyboardInterrupt) else "SIGTERM"
            self.say(f"{name}: damping" if sent_any else f"{name}: nothing was sent")
        finally:
            restore_signals()
            if sent_any:
                self._send_damping(writer)
            subscription.close()
            bus.close()
            summary = {
                "timing": clock.total.summary(),
                "lowstate_received": self.inbox.received,
                "lowstate_crc_failures": self.inbox.crc_failures,
                "policy_steps": self._policy_steps,
                "final_mode": self.supervisor.mode.value,
            }
            self._write_log({"summary": summary})
            if self._log_file is not None:
                self._log_file.close()
            self.say(f"timing over the run: {clock.total.line()}")
        return self.exit_code

    def _send_damping(self, writer) -> None:
        """Damping for :data:`~.figures.STOP_DAMPING_S`, one command per period: the motors keep the last one."""
        self.supervisor.trip(time.monotonic(), "exit")
        message = lowcmd(*self.damping())
        for _ in range(max(1, round(STOP_DAMPING_S / self.policy_dt))):
            writer.write(message)
            self._write_log({"t": time.monotonic(), "mode": "damping", "exit": True, "crc": leaf(message, "crc")})
            time.sleep(self.policy_dt)

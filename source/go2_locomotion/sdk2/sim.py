"""A simulated Go2 speaking the robot's DDS topics in real time (reads ``rt/lowcmd``, publishes ``rt/lowstate``):
sim-to-sim's MuJoCo Go2 (:class:`~go2_locomotion.sim2sim.Go2Plant`), the deploy controller's test bench. Like the
robot's motor drivers, it ignores a LowCmd with a wrong CRC, gives no torque before the first valid one and keeps the
last one acting.

Why: docs/deploy_sdk2.md, *The simulated Go2*.
"""

from __future__ import annotations

import json
import math
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

from ..assets import go2_description as go2
from ..robot.bundle import SDK2_JOINT_ORDER, Bundle
from ..sim2sim.gif import GifRecorder
from ..sim2sim.plant import Go2Plant, dc_motor_clip, foot_geoms, load_model_file, trunk_body
from ..sim2sim.terrain import TerrainGeometry
from .dds import Bus
from .estimator import SDK2_LEGS
from .figures import (
    REMOTE_BUTTON_BITS,
    SIM_CATCH_UP_LIMIT_S,
    SIM_COMMAND_CUTOFF,
    SIM_LAG_WARNING_S,
    SIM_RECORD_EVERY_S,
    SIM_REMOTE_PRESS_S,
    TOPIC_LOWCMD,
    TOPIC_LOWSTATE,
)
from .messages import LowCmd_, LowState_, MotorCommand, command_arrays, leaf, lowstate
from .remote import RemoteState, encode
from .stopping import install_stop_signals
from .timing import freeze_heap

PREFIX = "[go2 sim]"


@dataclass(frozen=True)
class RemoteEvent:
    """One scripted remote action."""

    time_s: float
    """When, in simulated seconds since the start."""
    buttons: frozenset[str]
    """Buttons pressed (held :data:`SIM_REMOTE_PRESS_S`); empty for a stick move."""
    stick: tuple[str, float] | None
    """A stick set from now on: (``lx`` | ``ly`` | ``rx`` | ``ry``, position in [-1, 1])."""


def parse_remote(text: str) -> list[RemoteEvent]:
    """Parse ``"2:start 6:start 7:ly=0.8 12:ly=0 13:select 13.5:select 20:L2+B"``.

    Raises:
        ValueError: A token is malformed; the message names it and the accepted form.
    """
    events = []
    for token in text.split():
        when, _, action = token.partition(":")
        try:
            time_s = float(when)
        except ValueError:
            time_s = -1.0
        if time_s < 0 or not math.isfinite(time_s) or not action:
            raise ValueError(f"--remote: {token!r} is not seconds:action (e.g. 2:start, 7:ly=0.8, 20:L2+B)")
        if "=" in action:
            stick, _, value = action.partition("=")
            try:
                position = float(value)
            except ValueError:
                position = math.nan
            if stick not in ("lx", "ly", "rx", "ry") or not -1.0 <= position <= 1.0:
                raise ValueError(f"--remote: {token!r}: sticks are lx, ly, rx, ry, set to a value in [-1, 1]")
            events.append(RemoteEvent(time_s, frozenset(), (stick, position)))
        else:
            buttons = frozenset(action.split("+"))
            unknown = sorted(buttons - set(REMOTE_BUTTON_BITS))
            if unknown:
                raise ValueError(
                    f"--remote: {token!r}: unknown button {unknown[0]!r}; accepted: {', '.join(REMOTE_BUTTON_BITS)}"
                )
            events.append(RemoteEvent(time_s, buttons, None))
    return sorted(events, key=lambda e: e.time_s)


def remote_at(events: list[RemoteEvent], time_s: float) -> RemoteState:
    """The scripted remote at ``time_s``: buttons held within :data:`SIM_REMOTE_PRESS_S` of their press, each stick at
    its last setting."""
    buttons: set[str] = set()
    sticks = {"lx": 0.0, "ly": 0.0, "rx": 0.0, "ry": 0.0}
    for event in events:
        if event.time_s > time_s:
            break
        if event.stick is not None:
            sticks[event.stick[0]] = event.stick[1]
        elif time_s < event.time_s + SIM_REMOTE_PRESS_S:
            buttons |= event.buttons
    return RemoteState(frozenset(buttons), **sticks)


def check_model_file(path: Path) -> tuple[str, ...]:
    """Refuse an MJCF file the simulated Go2 cannot run: unreadable, a colliding geom's mesh missing, or without the
    description's names (the SDK2 joints, the feet whose contact forces LowState reports, each with a contact
    sphere) and a trunk on a free joint, the first joint (any name: Unitree's ``go2.xml`` calls it ``base_link``).
    Returns what loading changed, one line each (:func:`~go2_locomotion.sim2sim.plant.load_model_file`:
    missing visual meshes dropped).

    Raises:
        ValueError: One line naming the file and what it lacks.
    """
    loaded = load_model_file(path)
    try:
        model = loaded.spec.compile()
    except ValueError as error:  # MuJoCo's own message: a bad element, a file it cannot open
        raise ValueError(f"--model {path}: {' '.join(str(error).split())}") from None
    lacks = [f"joint {n}" for n in SDK2_JOINT_ORDER if mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, n) < 0]
    lacks += [f"body {n}" for n in go2.FOOT_BODIES if mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, n) < 0]
    problem = f"lacks {', '.join(lacks)}" if lacks else None
    if problem is None:
        try:
            trunk_body(model)
            foot_geoms(model)
        except ValueError as error:
            problem = str(error)
    if problem is None and model.jnt_type[0] != mujoco.mjtJoint.mjJNT_FREE:
        problem = "its first joint is not the trunk's free joint"
    if problem is not None:
        raise ValueError(
            f"--model {path}: {problem}; accepted: a Go2 named as this package's description (joints "
            f"{', '.join(SDK2_JOINT_ORDER[:3])}, ..., feet {', '.join(go2.FOOT_BODIES)}, each with a contact sphere "
            "on it or at its origin on the calf) whose trunk, any name, is on the first joint, a free joint"
        )
    return loaded.notes


def motor_torque(
    command: MotorCommand | None, q: np.ndarray, dq: np.ndarray, limits: dict[str, np.ndarray]
) -> np.ndarray:
    """The SDK2 PD law ``kp (q* - q) + kd (dq* - dq) + tau`` within the DC-motor limits (sim-to-sim's clip: the
    torque available falls with speed); zero torque without a command."""
    if command is None:
        return np.zeros_like(q)
    law = command.kp * (command.q - q) + command.kd * (command.dq - dq) + command.tau
    return dc_motor_clip(law, dq, limits["effort_limit"], limits["saturation_effort"], limits["velocity_limit"])


class CommandInbox:
    """LowCmds from the DDS thread: the newest valid one, counts, and arrivals for the record."""

    def __init__(self):
        self._lock = threading.Lock()
        self.latest: MotorCommand | None = None
        self.latest_at: float | None = None
        self.accepted = 0
        self.rejected = 0
        self._arrivals: list[dict] = []

    def handle(self, sample: LowCmd_, received: float) -> None:
        command = command_arrays(sample)
        arrival = {"cmd": int(leaf(sample, "crc")), "recv": received, "crc_ok": command.crc_ok}
        with self._lock:
            if command.crc_ok:
                self.latest, self.latest_at = command, received
                self.accepted += 1
                arrival["kp"] = round(float(np.mean(command.kp)), 4)
                arrival["kd"] = round(float(np.mean(command.kd)), 4)
            else:
                self.rejected += 1
            self._arrivals.append(arrival)

    def take_arrivals(self) -> list[dict]:
        with self._lock:
            out, self._arrivals = self._arrivals, []
        return out

    def newest(self) -> tuple[MotorCommand | None, float | None]:
        with self._lock:
            return self.latest, self.latest_at


class SimulatedGo2:
    """The MuJoCo Go2 on DDS.

    Args:
        bundle: Whose physics record (friction, integrator, cone, substeps) and motor limits the robot uses.
        substeps: MuJoCo steps per ``sim_dt``; ``None``: the bundle's.
        model_file: An MJCF Go2 (:func:`check_model_file`) instead of the package's description, or ``None``.
        terrain: The ground (:func:`~go2_locomotion.sim2sim.terrain.build_ground`); ``None``: a floor plane.
            The robot starts at its origin facing +x.
        remote: Scripted remote events.
        log: Where the record goes (JSON lines), or ``None``.
        video: Write an animated GIF of the run here (off-screen MuJoCo), or ``None``.
        viewer: Open MuJoCo's interactive viewer (needs a display).
        say: Where messages go.
    """

    def __init__(
        self,
        bundle: Bundle,
        *,
        substeps: int | None = None,
        model_file: Path | None = None,
        terrain: TerrainGeometry | None = None,
        remote: list[RemoteEvent] | None = None,
        log: Path | None = None,
        video: Path | None = None,
        viewer: bool = False,
        say=print,
    ):
        self.plant = Go2Plant(bundle, substeps, terrain=terrain, model_file=model_file)
        self.terrain = terrain
        self.model, self.data = self.plant.model, self.plant.data
        self.dt = float(bundle.field("timing.sim_dt"))
        """The motors' and the LowState's period [s]: the training simulator's physics step (5 ms, 200 Hz for the
        Go2 tasks), each torque held over ``substeps`` MuJoCo steps as there."""
        self.remote = remote or []
        self.inbox = CommandInbox()
        self._print = say
        self._log = log.open("w", buffering=1 << 16) if log is not None else None
        self._record_every = max(1, round(SIM_RECORD_EVERY_S / self.dt))
        policy_dt = float(bundle.field("timing.policy_dt"))
        self._frame_every = max(1, round(policy_dt / self.dt))
        self._gif = GifRecorder(video, self.model, deferred=True) if video is not None else None
        self._policy_dt = policy_dt
        self._viewer = None
        if viewer:
            import mujoco.viewer  # the GUI viewer: only with --viewer, and it needs a display

            self._viewer = mujoco.viewer.launch_passive(self.model, self.data)
        self._feet = np.array([go2.FOOT_BODIES.index(f"{leg}_foot") for leg in SDK2_LEGS])  # plant order -> SDK2's
        self._acceleration = np.zeros(6)
        self.steps = 0

    def say(self, text: str) -> None:
        self._print(f"{PREFIX} {text}")

    # -- sensors -----------------------------------------------------------------------------------------------------
    def foot_forces(self) -> np.ndarray:
        """``[4]`` vertical force on each foot's contact sphere (FR, FL, RR, RL) [N], never below 0
        (:meth:`~go2_locomotion.sim2sim.plant.Go2Plant.foot_forces`)."""
        return np.maximum(self.plant.foot_forces()[self._feet], 0.0)

    def accelerometer(self) -> np.ndarray:
        """``[3]`` specific force at the trunk origin in the trunk frame [m/s^2] (+9.81 up at rest)."""
        mujoco.mj_rnePostConstraint(self.model, self.data)
        mujoco.mj_objectAcceleration(
            self.model, self.data, mujoco.mjtObj.mjOBJ_XBODY, self.plant.base_id, self._acceleration, 1
        )
        return self._acceleration[3:].copy()

    def lowstate(self, time_s: float) -> LowState_:
        """The LowState at simulated time ``time_s``."""
        d, p = self.data, self.plant
        w, x, y, z = d.qpos[3:7]
        rpy = (
            math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y)),
            math.asin(max(-1.0, min(1.0, 2 * (w * y - z * x)))),
            math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)),
        )
        accelerometer = self.accelerometer()
        return lowstate(
            tick=round(time_s * 1000),
            q=d.qpos[p.qpos_adr],
            dq=d.qvel[p.dof_adr],
            tau=d.qfrc_applied[p.dof_adr],
            quaternion=d.qpos[3:7],
            gyroscope=d.qvel[3:6],
            accelerometer=accelerometer,
            rpy=rpy,
            foot_force=self.foot_forces(),  # newtons; a real Go2's counts are on a scale the controller calibrates
            remote=encode(remote_at(self.remote, time_s)),
        )

    # -- stepping ----------------------------------------------------------------------------------------------------
    def physics_step(self, command: MotorCommand | None) -> None:
        """One motor period: the torque from ``command``, held over the plant's MuJoCo substeps."""
        p = self.plant
        q, dq = self.data.qpos[p.qpos_adr], self.data.qvel[p.dof_adr]
        self.data.qfrc_applied[p.dof_adr] = motor_torque(command, q, dq, p.limits)
        for _ in range(p.substeps):
            mujoco.mj_step(self.model, self.data)
        self.steps += 1

    def _record(self, entry: dict) -> None:
        if self._log is not None:
            self._log.write(json.dumps(entry) + "\n")

    def _start_record(self) -> dict:
        """Where the run starts: the ground (``flat`` or the cell's label, its origin) and the trunk's position."""
        origin = self.terrain.origin if self.terrain is not None else np.zeros(3)
        return {
            "start": {
                "terrain": self.terrain.label if self.terrain is not None else "flat",
                "origin": origin.round(4).tolist(),
                "pos": self.data.qpos[:3].round(4).tolist(),
                "ground": self._ground(),
            }
        }

    def _ground(self) -> float | None:
        """World z of the ground straight under the trunk origin [m], 4 decimals; ``None`` off the ground."""
        height = self.plant.base_height()
        return round(float(self.data.qpos[2]) - height, 4) if math.isfinite(height) else None

    def _trunk_record(self, time_s: float, wall: float) -> dict:
        d = self.data
        return {
            "t": round(time_s, 4),
            "wall": wall,
            "pos": d.qpos[:3].round(4).tolist(),
            "ground": self._ground(),
            "vel": self.plant.base_lin_vel().round(4).tolist(),
            "wz": round(float(d.qvel[5]), 4),
            "height": round(float(d.qpos[2]), 4),
            "down": self.plant.is_down(),
            "accepted": self.inbox.accepted,
            "rejected": self.inbox.rejected,
        }

    def run(self, bus: Bus, duration_s: float | None = None) -> dict:
        """Serve the topics on ``bus`` in real time until ``duration_s`` simulated seconds, Ctrl-C or SIGTERM;
        returns the summary (also the record's last line)."""
        writer = bus.writer(TOPIC_LOWSTATE, LowState_)
        subscription = bus.subscribe(TOPIC_LOWCMD, LowCmd_, self.inbox.handle)
        stop = threading.Event()
        restore_signals = install_stop_signals(lambda *_: stop.set())
        self.say(
            f"Go2 on {bus.interface}, DDS domain {bus.domain_id}: LowState every {1e3 * self.dt:g} ms on "
            f"{TOPIC_LOWSTATE}, motors from {TOPIC_LOWCMD} (no torque before the first valid LowCmd)"
        )
        self._record(self._start_record())
        freeze_heap()
        start = time.monotonic()
        behind_reported, restarts, late_steps = 0.0, 0, 0
        summary: dict = {}
        try:
            step = 0
            while not stop.is_set() and (duration_s is None or step * self.dt < duration_s - 1e-9):
                deadline = start + step * self.dt
                delay = deadline - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                elif -delay > SIM_CATCH_UP_LIMIT_S:
                    start += -delay  # too far behind: restart the real-time clock here
                    restarts += 1
                    self.say(f"{-delay:.2f} s behind real time: clock restarted (the machine is too busy)")
                elif -delay > SIM_LAG_WARNING_S:
                    late_steps += 1
                    if time.monotonic() - behind_reported > 1.0:
                        behind_reported = time.monotonic()
                        self.say(f"{1e3 * -delay:.0f} ms behind real time, catching up")
                if subscription.error is not None:
                    raise subscription.error
                time_s = step * self.dt
                message = self.lowstate(time_s)
                ready = time.monotonic()
                writer.write(message)
                if self._log is not None:  # the one record of every step: kept cheap
                    self._log.write(f'{{"tick": {leaf(message, "tick")}, "ready": {ready!r}}}\n')
                cutoff = deadline + SIM_COMMAND_CUTOFF * self.dt - time.monotonic()
                if cutoff > 0:  # a command that answers this LowState in time acts on the coming step
                    time.sleep(cutoff)
                for arrival in self.inbox.take_arrivals():
                    self._record(arrival)
                command, _ = self.inbox.newest()
                self.physics_step(command)
                step += 1
                if step % self._record_every == 0:
                    self._record(self._trunk_record(step * self.dt, time.monotonic()))
                if step % self._frame_every == 0:
                    if self._gif is not None:
                        self._gif.capture(self.data)
                    if self._viewer is not None:
                        if not self._viewer.is_running():
                            break
                        self._viewer.sync()
        except KeyboardInterrupt:
            self.say("Ctrl-C")
        finally:
            restore_signals()
            subscription.close()
            bus.close()
            for arrival in self.inbox.take_arrivals():
                self._record(arrival)
            summary = {
                "simulated_s": round(self.steps * self.dt, 4),
                "wall_s": round(time.monotonic() - start, 4),
                "lowcmd_accepted": self.inbox.accepted,
                "lowcmd_rejected": self.inbox.rejected,
                "clock_restarts": restarts,
                "late_steps": late_steps,
                "final": self._trunk_record(self.steps * self.dt, time.monotonic()),
            }
            self._record({"summary": summary})
            if self._log is not None:
                self._log.close()
            if self._gif is not None and self._gif.captured:
                self.say(f"wrote {self._gif.save(self._policy_dt)}")
            if self._viewer is not None:
                self._viewer.close()
        self.say(
            f"{summary['simulated_s']:g} s simulated; LowCmd accepted {self.inbox.accepted}, rejected (CRC) "
            f"{self.inbox.rejected}; trunk at {summary['final']['pos']}"
        )
        return summary

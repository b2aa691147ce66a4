"""The SDK2 test bench: the simulated Go2 and the deploy controller as real processes on the loopback interface,
their records read back, a fake robot and a spy for the tests, and the figures ``docs/deploy_sdk2.md`` quotes.

    python -m go2_locomotion.sdk2.bench --seconds 60 --out logs/sdk2_bench   # the measurement

Each process runs in a session of its own (``start_new_session``): the kernel then schedules it as its own group,
so one process's start-up burst does not stall the other's real-time loop, and the whole group can be killed.
"""

from __future__ import annotations

# Imported inside functions: the bundle, MuJoCo and onnxruntime, only when a bench or a report runs.
import argparse
import bisect
import collections
import contextlib
import dataclasses
import json
import math
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..sim2sim.loop import Segment, parse_segments
from ..sim2sim.report import SETTLE_S
from .dds import Bus
from .figures import TOPIC_LOWCMD, TOPIC_LOWSTATE
from .messages import LowCmd_, LowState_, MotorCommand, RobotReading, command_arrays, lowstate, reading

SCRIPTS = Path(__file__).parents[3] / "scripts"
"""The repository's ``scripts/`` folder (the bench runs the scripts as a user does)."""

MEASURE_SEGMENTS = tuple(
    parse_segments(
        "stand:2:0,0,0 forward:10:0.6,0,0 lateral:8:0,0.4,0 turn:8:0,0,0.8 fast:10:1,0,0 backward:8:-0.5,0,0 "
        "arc:10:0.5,0,-0.5 stop:4:0,0,0"
    )
)
"""60 s of walking for the timing measurement: every kind of command the policy was trained on."""


DDS_PORT_BASE, DDS_DOMAIN_GAIN = 7400, 250
"""RTPS's port mapping (CycloneDDS's defaults): domain ``d`` discovers on port ``7400 + 250 d`` and its participants
listen on the ports just above it (``+10 + 2 i`` for the ``i``-th participant)."""

BENCH_DOMAINS = range(1, 101)
"""Domain ids for tests and measurements: not 0 (the Go2's own), and low enough that every port of the domain lies
below Linux's ephemeral range (32768 and up, ``ip_local_port_range``). A domain in that range can find its port
held by any program's outgoing socket, and CycloneDDS then fails to create the domain."""


def domain_port_free(domain: int) -> bool:
    """Whether domain ``domain``'s discovery port can be bound on this machine now (no DDS run and no other program
    holds it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind(("", DDS_PORT_BASE + DDS_DOMAIN_GAIN * domain))
        except OSError:
            return False
    return True


def random_domain() -> int:
    """A DDS domain id for one test or measurement whose discovery port is free, so that parallel runs do not meet.

    Raises:
        RuntimeError: Every domain in ``BENCH_DOMAINS`` is in use.
    """
    domains = list(BENCH_DOMAINS)
    random.Random(os.getpid() ^ time.monotonic_ns()).shuffle(domains)
    for domain in domains:
        if domain_port_free(domain):
            return domain
    raise RuntimeError(f"no free DDS domain among {BENCH_DOMAINS.start}-{BENCH_DOMAINS.stop - 1}")


def segments_text(segments) -> str:
    """The ``--commands`` text of ``segments``."""
    return " ".join(f"{s.name}:{s.duration_s:g}:{','.join(f'{v:g}' for v in s.command)}" for s in segments)


# --- processes --------------------------------------------------------------------------------------------------------
@dataclass
class Process:
    """A script started by the bench; its output goes to ``output``."""

    popen: subprocess.Popen
    output: Path

    def text(self) -> str:
        return self.output.read_text() if self.output.exists() else ""

    def signal(self, signum: int) -> None:
        """Send ``signum`` to the process (not to its group: a Ctrl-C reaches the program, as typed)."""
        if self.popen.poll() is None:
            self.popen.send_signal(signum)

    def kill(self) -> None:
        """SIGKILL the process and anything it started."""
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait()

    def wait(self, timeout: float) -> int:
        return self.popen.wait(timeout=timeout)

    def wait_for(self, text: str, timeout: float) -> bool:
        """Whether ``text`` appears in the output within ``timeout`` seconds (while the process lives)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.text():
                return True
            if self.popen.poll() is not None:
                return text in self.text()
            time.sleep(0.05)
        return False


class Bench:
    """Starts scripts in ``folder`` on one DDS domain and kills whatever is left when it closes."""

    def __init__(self, folder: Path, domain: int | None = None, nice: int = 0):
        self.folder, self.domain = Path(folder), random_domain() if domain is None else domain
        self.nice = nice
        self.processes: list[Process] = []

    def start(self, name: str, script: str, *args: str) -> Process:
        output = self.folder / f"{name}.out"
        command = [sys.executable, str(SCRIPTS / script), *args, "--domain", str(self.domain)]
        with output.open("w") as sink:
            popen = subprocess.Popen(
                command,
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.folder,
                start_new_session=True,
                preexec_fn=self._child_setup,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        process = Process(popen, output)
        self.processes.append(process)
        return process

    def _child_setup(self) -> None:
        """In the child before exec: SIGINT ignored, as a script's background job (``cmd &``) starts it, so every
        Ctrl-C the bench sends also checks that the program installs its own handler; the bench's niceness."""
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if self.nice:
            os.nice(self.nice)

    def sim(self, *args: str, name: str = "sim") -> Process:
        """``scripts/sim_go2.py`` with its record in ``<folder>/<name>.jsonl``."""
        return self.start(name, "sim_go2.py", "--log", f"{name}.jsonl", *args)

    def controller(self, *args: str, bundle: str = "pretrained", name: str = "controller") -> Process:
        """``scripts/deploy_sdk2.py --network lo`` with its log in ``<folder>/<name>.jsonl``."""
        return self.start(
            name, "deploy_sdk2.py", "--bundle", bundle, "--network", "lo", "--log", f"{name}.jsonl", *args
        )

    def close(self) -> None:
        for process in self.processes:
            process.kill()

    def __enter__(self) -> Bench:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_jsonl(path: Path) -> list[dict]:
    """The records of a JSON-lines file (a line cut short by a kill is left out)."""
    rows = []
    for line in Path(path).read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


# --- records ----------------------------------------------------------------------------------------------------------
@dataclass
class SimRecord:
    """What ``scripts/sim_go2.py --log`` wrote."""

    trunk: list[dict]
    """Every 20 ms: ``t`` (simulated s), ``wall`` (monotonic s), ``pos`` [m], ``vel`` (trunk frame) [m/s], ``wz``
    [rad/s], ``height`` [m], ``down``, LowCmd counts."""
    ready: dict[int, float]
    """LowState tick [ms] -> when it was ready to send (monotonic s)."""
    arrivals: list[dict]
    """Every LowCmd: ``cmd`` (its CRC field), ``recv`` (monotonic s), ``crc_ok``, ``kp`` / ``kd`` means."""
    summary: dict | None

    @classmethod
    def read(cls, path: Path) -> SimRecord:
        rows = read_jsonl(path)
        summary = next((r["summary"] for r in rows if "summary" in r), None)
        return cls(
            trunk=[r for r in rows if "pos" in r],
            ready={r["tick"]: r["ready"] for r in rows if "ready" in r},
            arrivals=[r for r in rows if "recv" in r],
            summary=summary,
        )

    def at(self, time_s: float) -> dict:
        """The trunk record nearest to simulated ``time_s``."""
        times = [r["t"] for r in self.trunk]
        k = min(bisect.bisect_left(times, time_s), len(times) - 1)
        return self.trunk[k]


@dataclass
class ControllerRecord:
    """What ``scripts/deploy_sdk2.py --log`` wrote."""

    steps: list[dict]
    summary: dict | None

    @classmethod
    def read(cls, path: Path) -> ControllerRecord:
        rows = read_jsonl(path)
        return cls(
            steps=[r for r in rows if "mode" in r], summary=next((r["summary"] for r in rows if "summary" in r), None)
        )

    def policy_start(self) -> float:
        """Simulated time [s] of the LowState the first policy step acted on."""
        first = next(r for r in self.steps if r["mode"] == "policy")
        return first["tick"] / 1000.0


def segment_velocities(sim: SimRecord, start_s: float, segments, settle_s: float = SETTLE_S) -> list[list[float]]:
    """Per segment: mean ``[vx, vy, wz]`` [m/s, m/s, rad/s] of the trunk over the segment after ``settle_s``, the
    segments laid end to end from simulated time ``start_s`` (what sim-to-sim's report computes)."""
    out, t = [], start_s
    for segment in segments:
        rows = [r for r in sim.trunk if t + settle_s <= r["t"] < t + segment.duration_s]
        out.append([*np.mean([r["vel"][:2] for r in rows], axis=0).tolist(), float(np.mean([r["wz"] for r in rows]))])
        t += segment.duration_s
    return out


def added_latency(sim: SimRecord, controller: ControllerRecord) -> dict[str, np.ndarray]:
    """Per policy step [s]: ``state`` (LowState ready in the simulator -> decoded in the controller) and
    ``command`` (targets computed in the controller -> LowCmd decoded and CRC-checked in the simulator); a LowCmd
    is found by its CRC, first arrival after it was made."""
    arrivals = collections.defaultdict(list)
    for a in sim.arrivals:
        arrivals[a["cmd"]].append(a["recv"])
    state, command = [], []
    for step in controller.steps:
        if "tick" not in step or step.get("tick") not in sim.ready:
            continue
        times = sorted(arrivals.get(step["crc"], ()))
        k = bisect.bisect_left(times, step["ready"])
        if k < len(times):
            state.append(step["received"] - sim.ready[step["tick"]])
            command.append(times[k] - step["ready"])
    return {"state": np.asarray(state), "command": np.asarray(command)}


def stall(folder: Path, bound_s: float, sim: str = "sim", controller: str = "controller") -> str | None:
    """A stall of the machine that the bench could not ride out: after the controller began commanding, the
    simulated Go2 published no LowState, or the controller did not run, for longer than half the stale bound
    ``bound_s`` (a healthy bench shows gaps of one period, 5 and 20 ms; a LowState also waits in the reader's
    queue and in transit, so half the bound of the gap alone is already a stall). ``None`` when both kept time (or,
    without the simulator's record, when the controller did): a failure is then the code's."""
    steps = (
        ControllerRecord.read(folder / f"{controller}.jsonl").steps if (folder / f"{controller}.jsonl").exists() else []
    )
    commanding = [r["t"] for r in steps if "t" in r]
    if not commanding:
        return None
    sim_log = folder / f"{sim}.jsonl"
    ready = sorted(t for t in SimRecord.read(sim_log).ready.values() if t >= commanding[0]) if sim_log.exists() else []
    for name, times in (("the simulated Go2 published no LowState", ready), ("the controller did not run", commanding)):
        gaps = np.diff(times) if len(times) > 1 else np.zeros(0)
        if gaps.size and gaps.max() > bound_s / 2:
            return f"{name} for {1e3 * gaps.max():.0f} ms (bound {1e3 * bound_s:.0f} ms)"
    return None


# --- a fake robot and a spy, in the caller's process ------------------------------------------------------------------
@dataclass
class Traffic:
    """Everything seen on one topic: arrival times (monotonic s) and the decoded samples."""

    times: list[float] = field(default_factory=list)
    samples: list = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, sample, received: float) -> None:
        with self.lock:
            self.times.append(received)
            self.samples.append(sample)

    def since(self, start: float) -> list[tuple[float, object]]:
        with self.lock:
            return [(t, s) for t, s in zip(self.times, self.samples, strict=True) if t >= start]


class Spy:
    """Records ``rt/lowcmd`` (as :class:`~.messages.MotorCommand`) and, unless ``states`` is false, ``rt/lowstate``
    (as :class:`~.messages.RobotReading`) on a bus."""

    def __init__(self, bus: Bus, states: bool = True):
        self.commands, self.states = Traffic(), Traffic()
        bus.subscribe(TOPIC_LOWCMD, LowCmd_, lambda s, t: self.commands.add(command_arrays(s), t))
        if states:
            bus.subscribe(TOPIC_LOWSTATE, LowState_, lambda s, t: self.states.add(reading(s, received=t), t))


class FakeRobot:
    """Publishes LowStates at ``rate_hz`` from a thread, made by ``state(t)`` (seconds since start -> keyword
    arguments of :func:`~.messages.lowstate`, without ``tick``); :meth:`pause` stops the flow as a dead robot
    would."""

    def __init__(self, bus: Bus, state: Callable[[float], dict], rate_hz: float = 200.0):
        self._writer = bus.writer(TOPIC_LOWSTATE, LowState_)
        self._state, self._period = state, 1.0 / rate_hz
        self._stop, self.paused = threading.Event(), threading.Event()
        self.start = time.monotonic()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        k = 0
        while not self._stop.is_set():
            t = k * self._period
            delay = self.start + t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            if not self.paused.is_set():
                self._writer.write(lowstate(tick=round(1000 * t), **self._state(t)))
            k += 1

    def pause(self) -> float:
        """Stop publishing; returns when (monotonic s)."""
        self.paused.set()
        return time.monotonic()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1.0)


def standing_state(standing: np.ndarray) -> dict:
    """A robot standing still in pose ``standing`` (SDK2 order), level, four feet loaded (N-like readings)."""
    return {
        "q": standing,
        "dq": np.zeros(len(standing)),
        "tau": np.zeros(len(standing)),
        "quaternion": [1.0, 0.0, 0.0, 0.0],
        "gyroscope": [0.0, 0.0, 0.0],
        "accelerometer": [0.0, 0.0, 9.81],
        "rpy": [0.0, 0.0, 0.0],
        "foot_force": [37.0, 37.0, 37.0, 37.0],
    }


def standing_reading(standing: np.ndarray, *, tick: int = 0, received: float = 0.0, **changes) -> RobotReading:
    """A decoded LowState (:class:`~.messages.RobotReading`) of the robot of :func:`standing_state`; ``changes``
    replace fields (``remote`` takes the 40 bytes)."""
    state = standing_state(standing)
    state.pop("rpy")
    fields = {key: np.asarray(value, dtype=np.float64) for key, value in state.items()}
    fields.update(tick=tick, received=received, remote=bytes(40), crc_ok=True)
    fields.update(changes)
    return RobotReading(**fields)


def damping_since(commands: Traffic, start: float) -> float | None:
    """Arrival time of the first command after ``start`` with kp 0 on every motor (damping), or ``None``."""
    for t, command in commands.since(start):
        if isinstance(command, MotorCommand) and not np.any(command.kp):
            return t
    return None


def scripted_run(
    folder: Path, segments, controller_args=(), sim_args=(), nice: int = 0, bundle: str = "pretrained"
) -> tuple[int | None, str]:
    """The controller walking ``segments`` (``--autostart``) with ``bundle`` against the simulated Go2, both on one
    bench in ``folder`` with their extra arguments; returns the controller's exit code (``None``: it did not finish in
    time) and its output. The simulator is stopped by Ctrl-C once the controller is done."""
    total = sum(s.duration_s for s in segments)
    with Bench(folder, nice=nice) as bench:
        controller = bench.controller(
            *controller_args, "--autostart", "--commands", segments_text(segments), bundle=bundle
        )
        if not controller.wait_for("waiting for LowState", 120):
            raise RuntimeError(f"the controller did not start:\n{controller.text()}")
        sim = bench.sim(*sim_args, "--duration", f"{total + 30:g}")
        try:
            code = controller.wait(total + 90)
        except subprocess.TimeoutExpired:
            code = None
        sim.signal(signal.SIGINT)
        sim.wait(30)
    return code, controller.text()


@dataclass
class RetriedRun:
    """What :func:`retried_run` left: the last attempt's folder, exit code and output, its stall (``None``: none
    beyond the bound) and the stalls of the attempts run again."""

    folder: Path
    code: int | None
    output: str
    stalled: str | None
    stalls: list[str]

    @property
    def attempts(self) -> int:
        return min(len(self.stalls) + 1, MEASURE_ATTEMPTS)

    @property
    def spoiled(self) -> bool:
        """The machine stalled the last attempt beyond the bound and the controller then faulted: the stall, not the
        policy, may have decided the outcome. A stall the controller rode through (exit code 0, no damping) spoils
        nothing."""
        return self.stalled is not None and (self.code != 0 or "DAMPING:" in self.output)


def retried_run(
    folder_of: Callable[[int], Path],
    segments,
    controller_args=(),
    sim_args=(),
    nice: int = 0,
    bundle: str = "pretrained",
) -> RetriedRun:
    """:func:`scripted_run` of ``bundle`` in ``folder_of(attempt)``, run again while the machine stalled a run beyond
    the bundle's stale bound and the controller then faulted, up to :data:`MEASURE_ATTEMPTS` times."""
    stalls: list[str] = []
    for attempt in range(MEASURE_ATTEMPTS):
        folder = folder_of(attempt)
        folder.mkdir(parents=True, exist_ok=True)
        code, output = scripted_run(folder, segments, controller_args, sim_args, nice, bundle=bundle)
        stalled = stall(folder, stale_s(bundle))
        run = RetriedRun(folder, code, output, stalled, stalls)
        if not run.spoiled:
            return run
        stalls.append(stalled)
    return run


# --- the measurement --------------------------------------------------------------------------------------------------
def measure(out: Path, seconds: float, nice: int) -> dict:
    """Run the simulated Go2 and the pretrained policy over DDS for ``seconds`` of walking; returns and writes
    ``bench.json``: added latency, the controller's timing, the simulator's lag, velocity per segment next to
    in-process sim-to-sim's."""
    from .. import pretrained
    from ..robot.bundle import load_bundle
    from ..sim2sim.loop import run as sim2sim_run

    segments, total = [], 0.0
    for segment in MEASURE_SEGMENTS:  # cut to ``seconds``
        duration = min(segment.duration_s, seconds - total)
        if duration <= 0:
            break
        segments.append(Segment(segment.name, duration, segment.command))
        total += duration
    out.mkdir(parents=True, exist_ok=True)
    stalls = []
    for attempt in range(MEASURE_ATTEMPTS):
        run = out / f"run_{attempt}"
        run.mkdir(exist_ok=True)
        code, _ = scripted_run(run, segments, nice=nice)
        stalled = stall(run, float(bench_stale_s()))
        if code == 0 or stalled is None:
            break
        stalls.append(stalled)
    if code != 0:
        raise RuntimeError(f"the scripted walk did not finish (exit code {code}; stalls: {stalls}); see {run}")
    sim_record, ctl_record = SimRecord.read(run / "sim.jsonl"), ControllerRecord.read(run / "controller.jsonl")
    latency = added_latency(sim_record, ctl_record)
    start = ctl_record.policy_start()
    dds = segment_velocities(sim_record, start, segments)
    in_process = [s["mean_velocity"] for s in sim2sim_run(load_bundle(pretrained.bundle()), segments)["segments"]]

    def stats(values: np.ndarray) -> dict:
        ms = 1e3 * values
        return {
            k: round(float(f(ms)), 3)
            for k, f in (("mean_ms", np.mean), ("p99_ms", lambda x: np.percentile(x, 99)), ("max_ms", np.max))
        }

    walked = np.subtract(sim_record.at(start + total)["pos"][:2], sim_record.at(start)["pos"][:2])
    figures = {
        "controller_exit_code": code,
        "runs_stopped_by_a_stall": stalls,
        "records": str(run),
        "policy_seconds": total,
        "latency": {
            key: stats(value) for key, value in {**latency, "added": latency["state"] + latency["command"]}.items()
        },
        "controller_timing": ctl_record.summary["timing"] if ctl_record.summary else None,
        "simulator": sim_record.summary,
        "walked_m": round(float(np.linalg.norm(walked)), 3),
        "segments": [
            {
                "name": s.name,
                "command": list(s.command),
                "dds": np.round(d, 3).tolist(),
                "in_process": np.round(p, 3).tolist(),
            }
            for s, d, p in zip(segments, dds, in_process, strict=True)
        ],
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
    }
    (out / "bench.json").write_text(json.dumps(figures, indent=2))
    return figures


CLIMB_SEGMENTS = tuple(parse_segments("stand:1:0,0,0 up:8:1,0,0"))
"""The climb's script: stand 1 s, then 1 m/s straight ahead for 8 s. A stairs cell's flight rises over the ~3 m from
the tile's centre to its rim; walked at ~0.8 m/s it takes ~5 s."""

CLIMB_RIM_TOLERANCE = 0.005
"""How far below the cell's highest ground the trunk's ground may end and still count as the top [m] (the record
rounds heights to 0.1 mm; a step is 5 cm or more)."""


def climb(folder: Path, task: str, terrain: str, segments=CLIMB_SEGMENTS, nice: int = 0) -> dict:
    """One start of ``task``'s shipped policy on one terrain cell over DDS, as a user runs it (``deploy_sdk2.py
    --bundle pretrained --task T --autostart --commands ...`` against ``sim_go2.py --task T --terrain CELL``).

    Returns the figures: the controller's exit code and whether it damped on a fault, the stall the machine caused
    (or ``None``), the ground under the trunk when the policy started and when the script ended, the cell's highest
    ground, whether the trunk reached it, and whether it was ever down in between (Isaac Lab's fall criterion, the
    simulator's ``down``)."""
    from ..sim2sim.terrain import build_ground

    geometry = build_ground(terrain)
    top = float(max([*geometry.boxes[:, 5], *(f.heights.max() for f in geometry.height_fields)]))
    total = sum(s.duration_s for s in segments)
    folder.mkdir(parents=True, exist_ok=True)
    code, output = scripted_run(folder, segments, ("--task", task), ("--task", task, "--terrain", terrain), nice)
    figures = {"controller_exit_code": code, "fault": "DAMPING:" in output, "stall": stall(folder, bench_stale_s(task))}
    if code != 0 or not (folder / "controller.jsonl").exists():
        return figures
    record, start = (
        SimRecord.read(folder / "sim.jsonl"),
        ControllerRecord.read(folder / "controller.jsonl").policy_start(),
    )
    end = start + total
    first, last = record.at(start), record.at(end)
    figures.update(
        policy_start_s=start,
        ground_start_m=first["ground"],
        ground_end_m=last["ground"],
        top_m=round(top, 4),
        reached_top=last["ground"] is not None and last["ground"] >= top - CLIMB_RIM_TOLERANCE,
        fell=any(r["down"] for r in record.trunk if start <= r["t"] < end),
        walked_m=round(float(np.linalg.norm(np.subtract(last["pos"][:2], first["pos"][:2]))), 3),
    )
    return figures


def climbs(out: Path, task: str, terrain: str, starts: int, nice: int = 0) -> dict:
    """``starts`` starts of :func:`climb`, each in ``out/start_<k>``; a start the machine stalled (the controller
    then rightly damps) is run again, up to :data:`MEASURE_ATTEMPTS` times. Writes and returns ``climb.json``."""
    runs = []
    for k in range(starts):
        for attempt in range(MEASURE_ATTEMPTS):
            figures = climb(out / f"start_{k}" / f"attempt_{attempt}", task, terrain, nice=nice)
            if figures["stall"] is None or (figures["controller_exit_code"] == 0 and not figures["fault"]):
                break
        runs.append({"start": k, "attempts": attempt + 1, **figures})
    clean = [r for r in runs if r["controller_exit_code"] == 0 and not r["fault"]]
    summary = {
        "task": task,
        "terrain": terrain,
        "commands": segments_text(CLIMB_SEGMENTS),
        "starts": starts,
        "climbed_without_a_fall": sum(bool(r.get("reached_top")) and not r.get("fell") for r in clean),
        "runs": runs,
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "climb.json").write_text(json.dumps(summary, indent=2))
    return summary


STRAIGHT_SEGMENTS = tuple(parse_segments("stand:2:0,0,0 half:15:0.5,0,0 full:15:1,0,0"))
"""The straight walk's script: stand 2 s, then straight ahead (yaw rate 0, as a Go2 owner's stick sends it) at 0.5
and 1.0 m/s, 15 s each: the issue's speed and heading-drift goals on a robot model over DDS."""


def straight_walk(out: Path, bundle: str, model: str | None = None, nice: int = 0, hold_heading: bool = False) -> dict:
    """A bundle walking :data:`STRAIGHT_SEGMENTS` over DDS against ``sim_go2.py`` (with ``--model``: that MJCF Go2,
    e.g. Unitree's go2.xml, instead of the package's description); a run the machine stalled is run again, up to
    :data:`MEASURE_ATTEMPTS` times. Per moving segment: the trunk's mean velocity after the settle time, the speed as
    a share of the command and the heading drift (|mean yaw rate| [rad/s]); with ``hold_heading`` the controller
    holds the heading (``--hold_heading``). Writes and returns ``straight.json``."""
    figures = {
        "bundle": str(bundle),
        "model": model,
        "hold_heading": hold_heading,
    }  # as given: the record names no machine's folders
    bundle, model = str(Path(bundle).resolve()), model and str(Path(model).resolve())  # the bench runs in its folder
    sim_args = ("--bundle", bundle, *(("--model", model) if model else ()))
    controller_args = ("--hold_heading",) if hold_heading else ()
    run = retried_run(
        lambda attempt: out / f"run_{attempt}", STRAIGHT_SEGMENTS, controller_args, sim_args, nice, bundle
    )
    code, output = run.code, run.output
    figures.update(controller_exit_code=code, fault="DAMPING:" in output, runs_stopped_by_a_stall=run.stalls)
    if code == 0:
        record = SimRecord.read(run.folder / "sim.jsonl")
        start = ControllerRecord.read(run.folder / "controller.jsonl").policy_start()
        figures.update(straight_figures(record, start, STRAIGHT_SEGMENTS))
    figures.update(load_average=os.getloadavg(), cpus=os.cpu_count())
    out.mkdir(parents=True, exist_ok=True)
    (out / "straight.json").write_text(json.dumps(figures, indent=2))
    return figures


def straight_figures(record: SimRecord, start_s: float, segments) -> dict:
    """Per moving segment of ``segments`` (laid end to end from simulated ``start_s``): the trunk's mean ``velocity``
    ``[vx, vy, wz]`` after the settle time, ``speed_share`` (vx / commanded vx) and ``heading_drift`` (|mean wz|
    [rad/s]); and whether the trunk was ever ``down`` from ``start_s`` on (``fell``)."""
    velocities = segment_velocities(record, start_s, segments)
    return {
        "segments": [
            {
                "name": segment.name,
                "command": list(segment.command),
                "velocity": np.round(velocity, 4).tolist(),
                "speed_share": round(velocity[0] / segment.command[0], 4),
                "heading_drift": round(abs(velocity[2]), 4),
            }
            for segment, velocity in zip(segments, velocities, strict=True)
            if segment.command[0]
        ],
        "fell": any(r["down"] for r in record.trunk if r["t"] >= start_s),
    }


STAIRCASE_SPEED = 0.5
"""The staircase's walking speed [m/s]: the pace a person walks a Go2 up stairs (issue 56)."""

STAIRCASE_MARGIN = 0.5
"""How far past the last riser down the trunk must get to have crossed [m]: its hind feet, ~0.2 m behind the trunk
origin, are then on the floor."""


def staircase_segments(staircase, speed: float = STAIRCASE_SPEED) -> list[Segment]:
    """What a person sends: stand 1 s, then straight ahead at ``speed`` long enough to cross at 60 % of it (the
    policies walk up to a quarter slow on Unitree's model) and 1 m more."""
    seconds = math.ceil((staircase.end + STAIRCASE_MARGIN + 1.0) / (0.6 * speed))
    return [Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("cross", float(seconds), (speed, 0.0, 0.0))]


def crossing_figures(trunk: list[dict], start_s: float, end_s: float, staircase) -> dict:
    """How one start went, from the simulator's trunk records between simulated ``start_s`` and ``end_s``:
    ``crossed`` (the trunk :data:`STAIRCASE_MARGIN` past the last riser down), the time that took from ``start_s``,
    ``fell`` (ever down before crossing), ``left_the_flight`` (the trunk beside the flight, ``|y|`` over half its
    width, while between its first and last riser), the highest ground under the trunk [m], the largest ``|y|`` [m];
    ``crossed_without_a_fall`` all of it."""
    rows = [r for r in trunk if start_s <= r["t"] <= end_s]
    goal = staircase.end + STAIRCASE_MARGIN
    crossing = next((r for r in rows if r["pos"][0] >= goal), None)
    before = [r for r in rows if crossing is None or r["t"] <= crossing["t"]]
    on_flight = [r for r in before if staircase.run_up <= r["pos"][0] <= staircase.end]
    figures = {
        "crossed": crossing is not None,
        "crossing_time_s": None if crossing is None else round(crossing["t"] - start_s, 2),
        "fell": any(r["down"] for r in before),
        "left_the_flight": any(abs(r["pos"][1]) > staircase.width / 2 for r in on_flight),
        "highest_ground_m": max((r["ground"] for r in before if r["ground"] is not None), default=None),
        "largest_abs_y_m": round(max((abs(r["pos"][1]) for r in before), default=0.0), 3),
        "furthest_x_m": round(max((r["pos"][0] for r in rows), default=0.0), 3),
    }
    figures["crossed_without_a_fall"] = figures["crossed"] and not figures["fell"] and not figures["left_the_flight"]
    return figures


def staircase_crossings(
    out: Path,
    bundle: str,
    riser: float,
    *,
    model: str | None = None,
    speed: float = STAIRCASE_SPEED,
    starts: int = 3,
    video: bool = False,
    nice: int = 0,
) -> dict:
    """``starts`` starts of ``bundle`` over a building's staircase (``staircase:RISER``) over DDS, as a person runs
    it: ``deploy_sdk2.py --hold_heading`` with :func:`staircase_segments` against ``sim_go2.py --terrain
    staircase:RISER`` (with ``model``: that MJCF Go2, e.g. Unitree's go2.xml). Each start in ``out/start_<k>``; a
    start the machine stalled is run again, up to :data:`MEASURE_ATTEMPTS` times; with ``video`` the first start
    writes ``staircase.gif``. Writes and returns ``staircase.json``."""
    from .. import pretrained
    from ..sim2sim.terrain import Staircase

    staircase = Staircase(riser)
    segments = staircase_segments(staircase, speed)
    summary = {
        "bundle": pretrained.recorded_path(Path(bundle)),  # names no machine's folders
        "model": model,
        "staircase": dataclasses.asdict(staircase),
        "speed": speed,
    }
    bundle, model = str(Path(bundle).resolve()), model and str(Path(model).resolve())  # the bench runs in its folder
    sim_args = ["--bundle", bundle, "--terrain", staircase.geometry().label, *(("--model", model) if model else ())]
    runs = []
    for k in range(starts):
        video_args = ["--video", "staircase.gif"] if video and k == 0 else []  # into the attempt's folder (its cwd)
        run = retried_run(
            lambda attempt, k=k: out / f"start_{k}" / f"attempt_{attempt}",
            segments, ("--hold_heading",), [*sim_args, *video_args], nice, bundle,
        )  # fmt: skip
        figures = {"start": k, "attempts": run.attempts, "controller_exit_code": run.code, "stall": run.stalled}
        log = run.folder / "controller.jsonl"
        controller = ControllerRecord.read(log) if log.exists() else None
        if not run.spoiled and controller is not None and any(r["mode"] == "policy" for r in controller.steps):
            # a fall ends the script in damping (exit code 1): its figures say how far the robot got
            start = controller.policy_start()
            end = start + sum(s.duration_s for s in segments)
            figures.update(crossing_figures(SimRecord.read(run.folder / "sim.jsonl").trunk, start, end, staircase))
        runs.append(figures)
    summary.update(
        commands=segments_text(segments),
        controller="--hold_heading",
        starts=starts,
        crossed_without_a_fall=sum(bool(r.get("crossed_without_a_fall")) for r in runs),
        runs=runs,
        load_average=os.getloadavg(),
        cpus=os.cpu_count(),
    )
    out.mkdir(parents=True, exist_ok=True)
    (out / "staircase.json").write_text(json.dumps(summary, indent=2))
    return summary


MEASURE_ATTEMPTS = 3
"""Runs the measurement may take when the machine stalls one beyond the stale bound (the controller then damps)."""


def bench_stale_s(task: str | None = None) -> float:
    """The stale bound [s] of the policy shipped for ``task`` (default: the default task's)."""
    from .. import pretrained

    return stale_s(pretrained.bundle() if task is None else pretrained.bundle(task))


def stale_s(bundle: Path | str) -> float:
    """The controller's stale bound [s] for ``bundle``: :data:`~.figures.STALE_POLICY_PERIODS` policy periods."""
    from ..robot.bundle import read_manifest
    from .figures import STALE_POLICY_PERIODS

    return STALE_POLICY_PERIODS * float(read_manifest(Path(bundle) / "deploy.yaml")["timing"]["policy_dt"])


def main(argv: list[str] | None = None) -> int:
    """``python -m go2_locomotion.sdk2.bench``: the timing and tracking measurement."""
    from .. import pretrained

    parser = argparse.ArgumentParser(description="Measure the DDS deploy path on the simulated Go2 (loopback).")
    parser.add_argument("--seconds", type=float, default=60.0, help="Seconds of scripted walking (at most 60).")
    parser.add_argument("--out", type=Path, default=Path("logs/sdk2_bench"), help="Folder for records and bench.json.")
    parser.add_argument("--nice", type=int, default=0, help="Niceness of the two processes (e.g. 10 on a shared box).")
    parser.add_argument(
        "--climb",
        metavar="CELL",
        help="Instead: run the shipped policy of --task on one terrain cell (e.g. stairs_up:0.10) over DDS "
        f"('{segments_text(CLIMB_SEGMENTS)}'), --starts times; writes climb.json.",
    )
    parser.add_argument("--task", default="Go2-Rough-Blind", help="With --climb or --staircase: whose shipped policy.")
    parser.add_argument("--starts", type=int, default=3, help="With --climb or --staircase: how many starts.")
    parser.add_argument(
        "--straight",
        metavar="BUNDLE",
        help=f"Instead: walk this bundle straight ahead over DDS ('{segments_text(STRAIGHT_SEGMENTS)}'); writes "
        "straight.json (speed as a share of the command, heading drift).",
    )
    parser.add_argument(
        "--staircase",
        metavar="RISER",
        type=float,
        help="Instead: cross a building's straight staircase (risers of RISER m, 6 up, a 2 m landing, 6 down, 3 m "
        "wide) over DDS with --bundle, holding the heading, --starts times; writes staircase.json.",
    )
    parser.add_argument(
        "--bundle", default=pretrained.KEYWORD, help="With --staircase: the bundle (default: --task's shipped one)."
    )
    parser.add_argument("--speed", type=float, default=STAIRCASE_SPEED, help="With --staircase: walking speed [m/s].")
    parser.add_argument("--video", action="store_true", help="With --staircase: the first start as staircase.gif.")
    parser.add_argument(
        "--hold_heading",
        action="store_true",
        help="With --straight: the controller holds the heading (--hold_heading).",
    )
    parser.add_argument(
        "--model", help="With --straight or --staircase: the MJCF Go2 the simulator runs (e.g. Unitree's go2.xml)."
    )
    args = parser.parse_args(argv)
    if args.staircase is not None:
        bundle = pretrained.bundle(args.task) if args.bundle == pretrained.KEYWORD else args.bundle
        figures = staircase_crossings(
            args.out, bundle, args.staircase, model=args.model, speed=args.speed, starts=args.starts,
            video=args.video, nice=args.nice,
        )  # fmt: skip
        print(json.dumps(figures, indent=2))
        return 0
    if args.straight:
        print(json.dumps(straight_walk(args.out, args.straight, args.model, args.nice, args.hold_heading), indent=2))
        return 0
    if args.climb:
        print(json.dumps(climbs(args.out, args.task, args.climb, args.starts, args.nice), indent=2))
        return 0
    figures = measure(args.out, min(args.seconds, sum(s.duration_s for s in MEASURE_SEGMENTS)), args.nice)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

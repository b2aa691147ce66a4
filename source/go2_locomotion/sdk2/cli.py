"""``scripts/deploy_sdk2.py`` and ``scripts/sim_go2.py``: arguments, the checks made before anything is sent (the
user's mistakes are one line with exit code 2, nothing written), then :class:`~.runner.Deployment` or
:class:`~.sim.SimulatedGo2`."""

from __future__ import annotations

# Imported inside functions: the DDS binding (cyclonedds, the optional sdk2 extra) and MuJoCo, so that --help and
# argument errors work without them.
import argparse
import importlib.metadata
from pathlib import Path

from .. import pretrained
from ..errors import UsageError, exit_on_usage_error, prepare_output_file
from ..robot.bundle import BundleError, load_bundle
from ..sim2sim.cli import check_bundle_task
from ..sim2sim.loop import parse_segments
from .figures import MIN_RAMP_S, RAMP_S, ROBOT_DDS_LINE, ROBOT_DOMAIN_ID, TOPIC_LOWSTATE

MAX_DOMAIN_ID = 232
"""Highest DDS domain id CycloneDDS's default port mapping allows."""


def _bundle(value: str, task: str | None = None):
    """``--bundle``: a folder or ``pretrained`` (the shipped policy of ``task``, default Go2-Flat), loaded and
    checked; a ``--task`` that is not a folder's own task is refused."""
    path = value
    if value == pretrained.KEYWORD:
        try:
            path = pretrained.bundle(*([task] if task else []))
        except pretrained.NoPretrainedPolicy as error:
            raise UsageError(f"--bundle pretrained: {error}") from None
    try:
        bundle = load_bundle(path)
    except (FileNotFoundError, BundleError) as error:
        raise UsageError(f"--bundle {value}: {error}") from None
    check_bundle_task(bundle, value, task)
    return bundle


def _add_task(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--task",
        default=None,
        choices=sorted(pretrained.POLICIES),
        help="With --bundle pretrained: whose shipped policy (default Go2-Flat).",
    )


def check_interface(value: str, *, loopback_only: bool, robot: bool) -> bool:
    """``--network``: an existing interface; a non-loopback one needs ``--robot`` (never for the simulator).
    Returns whether it is loopback."""
    from .dds import interfaces, is_loopback

    names = interfaces()
    if value not in names:
        raise UsageError(f"--network {value}: no such network interface; this machine has: {', '.join(names)}")
    if is_loopback(value):
        return True
    if loopback_only:
        raise UsageError(
            f"--network {value} is not a loopback interface: the simulated Go2 publishes {TOPIC_LOWSTATE} like a "
            "robot and runs on a loopback interface only (e.g. lo), where no controller mistakes it for one"
        )
    if not robot:
        raise UsageError(
            f"--network {value} is not a loopback interface: commanding a real robot needs --robot (read the README's "
            "'Deploy to a real Go2' first)"
        )
    return False


def check_cyclonedds(robot: bool) -> str:
    """The installed CycloneDDS Python binding's version; commanding a robot needs the Go2's 0.10 line."""
    try:
        version = importlib.metadata.version("cyclonedds")
    except importlib.metadata.PackageNotFoundError:
        raise UsageError(
            "CycloneDDS's Python binding is not installed: ./setup.sh installs it (go2_locomotion[sdk2], built "
            "against Debian's cyclonedds-dev; docs/deploy_sdk2.md)"
        ) from None
    if robot and not version.startswith(ROBOT_DDS_LINE):
        raise UsageError(
            f"--robot: CycloneDDS {version} is installed; a Go2 runs CycloneDDS 0.10.x, and 0.10 participants crash on "
            "the type information of later versions: install cyclonedds==0.10.2 (./setup.sh; docs/deploy_sdk2.md)"
        )
    return version


def _domain(value: int) -> None:
    if not 0 <= value <= MAX_DOMAIN_ID:
        raise UsageError(f"--domain {value}: DDS domain ids run from 0 to {MAX_DOMAIN_ID}")


def deploy_main(argv: list[str] | None = None) -> int:
    """``scripts/deploy_sdk2.py``: run a bundle's policy on a Go2 (or the simulated one) over DDS."""
    parser = argparse.ArgumentParser(
        description="Run a deploy bundle's policy on a Unitree Go2 over SDK2 (DDS): rt/lowstate in, rt/lowcmd out. "
        "Starts in damping; start (key g / remote start) stands up, start again walks; stop (space / remote select) "
        "zeroes the command, again: damping; Ctrl-C: damping and exit."
    )
    parser.add_argument("--bundle", required=True, help="Folder with deploy.yaml and policy.onnx, or 'pretrained'.")
    _add_task(parser)
    parser.add_argument(
        "--network", required=True, help="Network interface to the robot (e.g. enp3s0), or lo for scripts/sim_go2.py."
    )
    parser.add_argument(
        "--robot", action="store_true", help="Confirm that a non-loopback --network reaches a real robot to command."
    )
    parser.add_argument("--domain", type=int, default=ROBOT_DOMAIN_ID, help="DDS domain id (the Go2 uses 0).")
    parser.add_argument(
        "--ramp", type=float, default=RAMP_S, help=f"Stand-up time [s] (default {RAMP_S:g}, at least {MIN_RAMP_S:g})."
    )
    parser.add_argument(
        "--autostart", action="store_true", help="Loopback only: stand up and walk without a key (tests, demos)."
    )
    parser.add_argument(
        "--commands",
        default=None,
        help="Loopback only: scripted commands once the policy walks, 'name:seconds:vx,vy,wz ...' (as sim2sim.py); "
        "the run ends in damping after the last one.",
    )
    parser.add_argument("--log", type=Path, default=None, help="Write every step and the timing summary (JSON lines).")
    parser.add_argument(
        "--hold_heading",
        action="store_true",
        help="While walking with a yaw rate of zero, hold the heading (the yaw rate from the heading error, as the "
        "policy's training command did) instead of letting the policy's own turn add up.",
    )
    parser.add_argument(
        "--ignore_lowstate_crc",
        action="store_true",
        help="Act on LowStates whose CRC does not match (a robot firmware that leaves it unset).",
    )
    args = parser.parse_args(argv)

    def _main() -> int:
        from .runner import Deployment, DeploySettings, PreflightError

        _domain(args.domain)
        if args.ramp < MIN_RAMP_S:
            raise UsageError(f"--ramp {args.ramp:g}: the stand-up needs at least {MIN_RAMP_S:g} s")
        loopback = check_interface(args.network, loopback_only=False, robot=args.robot)
        check_cyclonedds(robot=not loopback)
        for flag, given in (("--autostart", args.autostart), ("--commands", args.commands is not None)):
            if given and not loopback:
                raise UsageError(
                    f"{flag}: only on a loopback interface (the simulated Go2); a robot starts on the key 'g' or the "
                    "remote's start and takes commands from the remote or the keys"
                )
        segments = None
        if args.commands is not None:
            try:
                segments = parse_segments(args.commands)
            except ValueError as error:
                raise UsageError(str(error)) from None
        bundle = _bundle(args.bundle, args.task)
        if any(term["function"] == "height_scan" for term in bundle.field("observation.terms")):
            raise UsageError(
                f"--bundle {args.bundle}: its policy observes a height scan ({bundle.field('task')}), and the SDK2 "
                "controller has no height source on the robot (README: a rough policy needs an elevation map); "
                "accepted: a blind policy (Go2-Flat's, Go2-Rough-Blind's)"
            )
        log = prepare_output_file(args.log, "--log") if args.log is not None else None
        settings = DeploySettings(
            interface=args.network,
            domain=args.domain,
            ramp_s=args.ramp,
            autostart=args.autostart,
            segments=segments,
            log=log,
            check_lowstate_crc=not args.ignore_lowstate_crc,
            hold_heading=args.hold_heading,
        )
        try:
            deployment = Deployment(bundle, settings)
        except BundleError as error:  # a field the SDK2 path reads and the bundle's checks do not
            raise UsageError(f"--bundle {args.bundle}: {error}") from None
        try:
            return deployment.run(robot=not loopback)
        except PreflightError as error:
            raise UsageError(str(error)) from None

    return exit_on_usage_error(_main)


def sim_main(argv: list[str] | None = None) -> int:
    """``scripts/sim_go2.py``: a simulated Go2 on the loopback interface, speaking the robot's DDS topics."""
    parser = argparse.ArgumentParser(
        description="A simulated Unitree Go2 (MuJoCo, real time) that publishes rt/lowstate and obeys rt/lowcmd on a "
        "loopback interface, for scripts/deploy_sdk2.py --network lo."
    )
    parser.add_argument(
        "--bundle",
        default=pretrained.KEYWORD,
        help="Bundle whose physics record (friction, integrator, substeps) and motor limits the robot takes "
        "(default: pretrained). The policy is not run here.",
    )
    _add_task(parser)
    parser.add_argument(
        "--model",
        type=Path,
        default=None,
        help="MJCF file of a Go2 to simulate instead of this package's description, e.g. unitree_mujoco's go2.xml: "
        "its joints (FR_hip_joint, ...) and feet (FR_foot, ...) named as the description's, its trunk (any name) on "
        "a free joint; visual meshes that cannot be found are left out.",
    )
    parser.add_argument(
        "--terrain",
        default="flat",
        help="The ground: flat (default) or one Go2-Rough terrain cell named as scripts/sim2sim.py names it, e.g. "
        "stairs_up:0.10, stairs_down:0.15, slopes_up:20 (built by Isaac Lab's terrain generator: a few seconds; the "
        "robot starts at the tile's centre facing +x, towards the steps), or a building's straight staircase, "
        "staircase:RISER (6 risers up, a 2 m landing, 6 down, 3 m wide; the robot starts 1 m before it).",
    )
    parser.add_argument("--network", default="lo", help="A loopback interface (default lo).")
    parser.add_argument("--domain", type=int, default=ROBOT_DOMAIN_ID, help="DDS domain id (default 0, as the Go2).")
    parser.add_argument("--duration", type=float, default=None, help="Stop after this many simulated seconds.")
    parser.add_argument(
        "--remote",
        default="",
        help="Scripted remote, 'seconds:action ...': a button (start, select, A, ...) or chord (L2+B) pressed for "
        "0.2 s, or a stick set (lx, ly, rx, ry = value in [-1, 1]), e.g. '2:start 6:start 7:ly=0.6 12:ly=0'.",
    )
    parser.add_argument("--log", type=Path, default=None, help="Write the record (JSON lines).")
    parser.add_argument("--video", type=Path, default=None, help="Write an animated GIF (off-screen MuJoCo).")
    parser.add_argument("--viewer", action="store_true", help="Open MuJoCo's viewer (needs a display).")
    parser.add_argument("--substeps", type=int, default=None, help="MuJoCo steps per sim_dt (default: the bundle's).")
    args = parser.parse_args(argv)

    def _main() -> int:
        from ..sim2sim.gif import VideoUnavailable
        from ..sim2sim.terrain import build_ground
        from .dds import Bus
        from .sim import PREFIX, SimulatedGo2, check_model_file, parse_remote

        _domain(args.domain)
        check_interface(args.network, loopback_only=True, robot=False)
        check_cyclonedds(robot=False)
        if args.duration is not None and not args.duration > 0:
            raise UsageError(f"--duration {args.duration:g}: give a positive number of seconds")
        if args.substeps is not None and args.substeps < 1:
            raise UsageError(f"--substeps {args.substeps}: give a positive integer")
        try:
            remote = parse_remote(args.remote)
            notes = check_model_file(args.model) if args.model is not None else ()
        except ValueError as error:
            raise UsageError(str(error)) from None
        bundle = _bundle(args.bundle, args.task)
        for flag, path in (("--log", args.log), ("--video", args.video)):
            if path is not None:
                prepare_output_file(path, flag)
        try:
            terrain = build_ground(args.terrain)
        except ValueError as error:  # the message starts with the text or the cell
            raise UsageError(f"--terrain {error}") from None
        for note in notes:
            print(f"{PREFIX} --model {args.model}: {note}")
        bus = Bus(args.domain, args.network)
        if bus.other_writers(TOPIC_LOWSTATE, 0.3):
            raise UsageError(
                f"another program already publishes {TOPIC_LOWSTATE} on {args.network}, domain {args.domain}: stop "
                "it first, or pick another --domain"
            )
        try:
            robot = SimulatedGo2(
                bundle,
                substeps=args.substeps,
                model_file=args.model,
                terrain=terrain,
                remote=remote,
                log=args.log and args.log.absolute(),
                video=args.video and args.video.absolute(),
                viewer=args.viewer,
            )
        except VideoUnavailable as error:
            raise UsageError(str(error)) from None
        robot.run(bus, args.duration)
        return 0

    return exit_on_usage_error(_main)

"""Viewers for playback: which Isaac Lab visualizers a play command runs, and the package's viser visualizer.

- :func:`plan_viewers` decides, from the command line alone (before anything starts), which visualizers run:
  ``--viz viser`` gets the package's :class:`Go2ViserVisualizer` (port, bind address, recording); ``--record``
  adds it when not asked for; ``--video`` records from a Newton viewer (``newton_gl``, headless: it renders
  off-screen through EGL on a machine without a display or GPU), added when no capture-capable viewer was asked
  for. Combinations that cannot work are a :class:`~go2_locomotion.errors.UsageError`.
- :mod:`.viser_visualizer` (imported only when the viser viewer runs): Isaac Lab's viser visualizer, selected
  through its config's ``class_type``, with the upstream defect of :mod:`go2_locomotion.compat.viser_viewer`
  repaired, its viser server public (for the command panel), and recordings that get every frame whether or not
  a browser is connected.

A visualizer whose step raised is dropped by Isaac Lab, which keeps going; playback notices it through
:class:`go2_locomotion.compat.private_api.VisualizerFailures` and fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import socket
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError, prepare_output_file

CAPTURE_VIEWERS = ("newton_gl", "newton_rtx", "kit")
"""Visualizers Isaac Lab's video recorder can read frames from (viser and rerun only stream)."""

VIEWER_PACKAGES = {
    "kit": ("isaacsim", "Isaac Sim (run with isaaclab.sh -p from an Isaac Sim install); without it use --viz viser"),
    "rerun": ("rerun", "rerun-sdk (pip install 'isaaclab[rerun]==3.0.0')"),
    "viser": ("viser", "viser (pip install 'viser>=1.0.16'; ./setup.sh installs it)"),
}
"""Viewers that need a package not every install has: name -> (module, what to install)."""

DEFAULT_PORT = 8080
DEFAULT_BIND = "127.0.0.1"
"""The viser page is served on this machine only unless ``--viser_bind 0.0.0.0`` (anyone who reaches the port can
steer the robots); from elsewhere, use an SSH tunnel (README)."""


@dataclass
class ViewerPlan:
    """What :func:`plan_viewers` decided."""

    visualizers: list[str] | None
    """The ``--viz`` selection to launch with (``None``: as the task config says, i.e. none)."""
    configs: list = field(default_factory=list)
    """Visualizer configs to put into ``env_cfg.sim.visualizer_cfgs``."""
    viser: object | None = None
    """The package viser visualizer's config (:class:`.viser_visualizer.Go2ViserVisualizerCfg`), when it runs."""
    record: Path | None = None

    def apply(self, args: argparse.Namespace, env_cfg) -> None:
        """Write the plan into the launcher arguments and the environment config (before the launch)."""
        args.visualizer = self.visualizers
        if self.configs:
            env_cfg.sim.visualizer_cfgs = [*(env_cfg.sim.visualizer_cfgs or []), *self.configs]


def add_viewer_args(parser: argparse.ArgumentParser) -> None:
    """``--viser_port``, ``--viser_bind``, ``--record``."""
    group = parser.add_argument_group("browser viewer (--viz viser)")
    group.add_argument("--viser_port", type=int, default=DEFAULT_PORT, help="Port of the viser page (default 8080).")
    group.add_argument(
        "--viser_bind",
        default=DEFAULT_BIND,
        help="Address the viser page listens on: 127.0.0.1 (default: this machine only; use an SSH tunnel from "
        "elsewhere) or 0.0.0.0 (every interface: anyone reaching the port can watch and steer).",
    )
    group.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="FILE.viser",
        help="Record the whole playback to a .viser file (with or without a browser connected; starts the viser "
        "viewer if --viz does not name it). Open it later with scripts/view_recording.py.",
    )


def plan_viewers(args: argparse.Namespace) -> ViewerPlan:
    """The visualizers a play command runs; checked before anything starts.

    Raises:
        UsageError: A combination that cannot work (named, with what to do instead).
    """
    requested = args.visualizer
    headless = requested in ([], ["none"]) or bool(getattr(args, "headless", False))
    names = [] if requested is None else [n for n in requested if n != "none"]
    for name in names:
        module, install = VIEWER_PACKAGES.get(name, (None, None))
        if module is not None and importlib.util.find_spec(module) is None:
            raise UsageError(f"--viz {name} needs {install}")
    configs = []
    viser = None
    record = args.record
    if record is not None:
        record = _check_recording_path(record)
        names = names if "viser" in names else [*names, "viser"]
    if "viser" in names:
        from .viser_visualizer import Go2ViserVisualizerCfg  # Isaac Lab's visualizers and viser: optional, heavy

        _check_port(args.viser_port, args.viser_bind)
        viser = Go2ViserVisualizerCfg(
            port=args.viser_port,
            bind_address=args.viser_bind,
            display_address="localhost" if args.viser_bind in ("127.0.0.1", "0.0.0.0") else args.viser_bind,
            record_to_viser=None if record is None else str(record),
        )
        configs.append(viser)
    if getattr(args, "video", False):
        if (getattr(args, "frontend", "torch") or "torch") != "torch":
            raise UsageError(f"--video records with the torch frontend only, not --frontend {args.frontend}")
        missing = [m for m in ("moviepy", "imageio_ffmpeg") if importlib.util.find_spec(m) is None]
        if missing:
            raise UsageError(
                f"--video needs {' and '.join(missing)} (pip install 'moviepy>=1.0.3,<2' imageio-ffmpeg; ./setup.sh "
                "installs them)"
            )
        if not any(n in CAPTURE_VIEWERS for n in names):
            from isaaclab_visualizers.newton import NewtonGLVisualizerCfg  # Isaac Lab's visualizers: heavy

            # the frames come from an off-screen Newton viewer: no window, no display needed
            configs.append(NewtonGLVisualizerCfg(headless=True))
            names = [*names, "newton_gl"]
    if headless and not names:
        return ViewerPlan(visualizers=[], configs=configs)
    return ViewerPlan(visualizers=names or requested, configs=configs, viser=viser, record=record)


def _check_recording_path(path: Path) -> Path:
    if path.suffix != ".viser":
        raise UsageError(f"--record {path}: the recording file must end in .viser")
    return prepare_output_file(path, "--record")


def _check_port(port: int, bind: str) -> None:
    if not 0 < port < 65536:
        raise UsageError(f"--viser_port {port}: accepted are 1..65535")
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((bind, port))
    except OSError as error:
        raise UsageError(
            f"--viser_port {port} --viser_bind {bind}: cannot listen there ({error.strerror}); pick a free port"
        ) from None


def viser_visualizer(env):
    """The running package viser visualizer (:class:`.viser_visualizer.Go2ViserVisualizer`) of ``env`` (wrapped or
    not), or ``None``."""
    from .viser_visualizer import Go2ViserVisualizer  # Isaac Lab's visualizers and viser: optional, heavy

    sim = env.unwrapped.sim
    return next((v for v in sim.visualizers if isinstance(v, Go2ViserVisualizer)), None)

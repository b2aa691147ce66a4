"""``scripts/export.py``: write a checkpoint's deploy bundle without playing it.

Builds one play environment (the manifest reads the live articulation and managers), loads the checkpoint and
writes ``policy.pt``, ``policy.onnx`` and ``deploy.yaml`` into ``--output`` (default ``<run>/exported``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import check_writable, exit_on_usage_error
from .cli import make_parser, parse_args
from .session import export_all, loaded_policy

# Imported inside functions: Isaac Lab (heavy; under Isaac Sim it follows Kit's start, the launch).


def build_parser() -> argparse.ArgumentParser:
    """Isaac Lab's playback flags (task, checkpoint, device, launcher) + ``--output``."""
    from isaaclab_rl.entrypoints.common import add_common_play_args

    def extra(parser):
        parser.add_argument("--output", type=Path, default=None, help="Bundle folder (default: <run>/exported).")
        parser.add_argument(
            "--symmetrise",
            action="store_true",
            help="Export the policy averaged with its left-right mirror image (exactly symmetric: it does not drift "
            "when told to walk straight, and may step shorter; docs/robot_model.md).",
        )

    return make_parser("Export a Go2 checkpoint to a deploy bundle (ONNX + deploy.yaml).", add_common_play_args, extra)


def main(argv: list[str] | None = None) -> int:
    """Export; returns the process exit code (2 for a usage error)."""
    return exit_on_usage_error(lambda: _export(argv))


def _export(argv: list[str] | None) -> int:
    args, overrides = parse_args(build_parser(), argv)
    if args.output is not None:
        check_writable(args.output)
    if args.num_envs is None:
        args.num_envs = 1  # the manifest needs a live robot, not a crowd
    with loaded_policy(args, overrides, video=False) as session:
        export_all(session, args.output or session.work_dir / "exported", symmetrise=args.symmetrise)
    return 0

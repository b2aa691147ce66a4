"""Command-line parsing shared by the training and playback workflows: Isaac Lab's argument groups, then ours."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..errors import UsageError
from .checkpoints import AGENT_ENTRY_POINT

OVERRIDES_EPILOG = "Hydra overrides (env.…=value, agent.…=value) and physics=newton_mjwarp|physx may follow the flags."


def make_parser(description: str, add_workflow_args: Callable, extra: Callable[[argparse.ArgumentParser], None]):
    """A parser with Isaac Lab's workflow arguments (``add_common_train_args`` or ``add_common_play_args``),
    RSL-RL's, then ``extra`` (ours), ``--headless`` and the simulation launcher's, in the order Isaac Lab needs."""
    from isaaclab.app import add_launcher_args
    from isaaclab_rl.entrypoints.backends import cli_args_rsl_rl

    parser = argparse.ArgumentParser(description=description, epilog=OVERRIDES_EPILOG)
    add_workflow_args(parser, agent_default=AGENT_ENTRY_POINT, agent_help="Agent configuration entry point.")
    cli_args_rsl_rl.add_rsl_rl_args(parser)
    extra(parser)
    parser.add_argument("--headless", action="store_true", help="Run without a visualizer (for clusters).")
    add_launcher_args(parser)
    return parser


def parse_args(parser: argparse.ArgumentParser, argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    """Parse flags; return them and the remaining Hydra overrides / preset selectors.

    ``--headless`` selects no visualizer (Isaac Lab 3.0 opens none unless ``--viz`` asks for one).
    """
    from isaaclab_tasks.utils import setup_preset_cli

    args, overrides = setup_preset_cli(parser, argv)
    unknown_flags = [token for token in overrides if token.startswith("--")]
    if unknown_flags:
        raise UsageError(f"unrecognised option {unknown_flags[0]} (see --help)")
    if args.headless:
        if args.visualizer and args.visualizer != ["none"]:
            raise UsageError(f"--headless contradicts --viz {','.join(args.visualizer)}")
        args.visualizer = ["none"]
    return args, overrides

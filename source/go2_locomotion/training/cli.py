"""Command-line parsing shared by the training and playback workflows: Isaac Lab's argument groups, then ours."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Callable

from ..dotted import MissingField, fields, lookup
from ..errors import UsageError
from .checkpoints import AGENT_ENTRY_POINT

# Imported inside functions: Isaac Lab (heavy; under Isaac Sim it follows Kit's start, the launch).

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


def resolve_configs(task: str, agent: str | None, *, play_mode: bool = False, overrides: list[str] = ()):
    """Isaac Lab's ``resolve_task_config``, refusing a Hydra override whose key is not a field of the configs (a
    misspelt ``env.`` key makes Isaac Lab raise ``AttributeError``; a misspelt ``agent.`` key is silently added):
    one-line :class:`UsageError` naming the key and the nearest existing fields."""
    from isaaclab_tasks.utils import resolve_task_config

    fields = [o for o in overrides if o.split("=", 1)[0].lstrip("+~").startswith(("env.", "agent."))]
    try:
        resolved = resolve_task_config(task, agent, play_mode=play_mode, overrides=list(overrides))
    except AttributeError:
        resolved = None
    if fields or resolved is None:
        # the configs as the preset selectors alone make them, to look the field keys up in
        selectors = [o for o in overrides if o not in fields]
        plain = resolve_task_config(task, agent, play_mode=play_mode, overrides=selectors)
        problem = unknown_override(dict(zip(("env", "agent"), plain, strict=True)), fields)
        if problem is not None:
            raise UsageError(problem)
    if resolved is None:
        return resolve_task_config(task, agent, play_mode=play_mode, overrides=list(overrides))  # raises again
    return resolved


def unknown_override(roots: dict, overrides: list[str]) -> str | None:
    """The first ``env.…=`` / ``agent.…=`` override whose dotted key is not a field of the configs in ``roots``,
    described in one line with the closest field names; ``None`` if every key exists. Keys inside a dictionary
    field (a term's ``params``) may be new: they are not checked."""
    for override in overrides:
        key = override.split("=", 1)[0].lstrip("+~")
        head, _, rest = key.partition(".")
        if head not in roots or not rest:
            continue
        try:
            lookup(roots, key, stop=lambda node: node is None or (isinstance(node, dict) and node is not roots))
        except MissingField as missing:
            walked = missing.path.rpartition(".")[0]
            close = difflib.get_close_matches(missing.part, fields(missing.parent), n=3, cutoff=0.6)
            hint = f"; closest: {', '.join(f'{walked}.{c}' for c in close)}" if close else ""
            return f"{key}: {walked} ({type(missing.parent).__name__}) has no field '{missing.part}'{hint}"
    return None

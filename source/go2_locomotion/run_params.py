"""Reading a run's resolved configs (``params/env.yaml``, ``params/agent.yaml``, written by Isaac Lab): a base
module (PyYAML only), so the MuJoCo side reads the terrain a bundle's policy trained on from its folder too.

Isaac Lab dumps them with PyYAML's Python tags: tuples (``!!python/tuple``) and index slices
(``!!python/object/apply:builtins.slice``). :func:`load` builds exactly those and refuses every other Python tag, so
reading a run folder from someone else never imports or calls anything (``yaml.unsafe_load`` would).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


class _RunParamsLoader(yaml.SafeLoader):
    """PyYAML's safe loader plus the two Python tags Isaac Lab's dumps contain."""


def _tuple(loader: yaml.SafeLoader, node: yaml.Node) -> tuple:
    return tuple(loader.construct_sequence(node, deep=True))


def _slice(loader: yaml.SafeLoader, node: yaml.Node) -> slice:
    return slice(*loader.construct_sequence(node, deep=True))


_RunParamsLoader.add_constructor("tag:yaml.org,2002:python/tuple", _tuple)
_RunParamsLoader.add_constructor("tag:yaml.org,2002:python/object/apply:builtins.slice", _slice)


def load_text(text: str) -> Any:
    """Parse a config dump; a Python tag other than tuple and slice raises ``yaml.constructor.ConstructorError``."""
    return yaml.load(text, Loader=_RunParamsLoader)  # noqa: S506 - a SafeLoader subclass


def load(path: Path) -> Any:
    """Parse the config dump at ``path``."""
    return load_text(Path(path).read_text())


PARAMS_ENV = Path("params") / "env.yaml"
"""A run folder's resolved environment config, as Isaac Lab's train entrypoint writes it (and ``ship`` copies it
beside a shipped checkpoint)."""


def trained_terrain(folder: Path) -> dict | None:
    """The terrain generator the policy of ``folder`` (a run folder, or a shipped policy's folder) trained on, as a
    dict of its config; ``None`` without ``params/env.yaml`` there or for a run on flat ground."""
    path = Path(folder) / PARAMS_ENV
    if not path.is_file():
        return None
    return load(path)["scene"]["terrain"].get("terrain_generator")

"""Dotted paths (``agent.algorithm.gamma``, ``timing.policy_dt``) through nested configs and mappings: the one walker
behind the preflight checks, the Hydra-override key check and the deploy manifest's fields.

A node's children are a mapping's keys or an object's public instance attributes (``vars``, names without a
leading underscore): the fields of a config class, not its methods.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


class MissingField(LookupError):
    """A dotted path that leaves the tree."""

    def __init__(self, path: str, parent: Any, part: str):
        super().__init__(f"field '{path}' is missing")
        self.path = path
        """The path up to and including the missing part."""
        self.parent = parent
        """The node that lacks it."""
        self.part = part
        """The missing name."""


def fields(node: Any) -> list[str]:
    """The children of ``node``: a mapping's keys, an object's public instance attributes, none for a leaf."""
    if isinstance(node, Mapping):
        return list(node)
    try:
        names = vars(node)
    except TypeError:  # numbers, strings, lists, None
        return []
    return [name for name in names if not name.startswith("_")]


def lookup(root: Any, dotted: str, *, stop: Callable[[Any], bool] | None = None) -> Any:
    """The value at ``dotted`` below ``root``. Where ``stop(node)`` holds the walk ends early and returns that node
    (what lies below it is not checked).

    Raises:
        MissingField: A part of the path is not a child of the node above it.
    """
    node = root
    parts = dotted.split(".")
    for index, part in enumerate(parts):
        if stop is not None and stop(node):
            return node
        if part not in fields(node):
            raise MissingField(".".join(parts[: index + 1]), node, part)
        node = node[part] if isinstance(node, Mapping) else getattr(node, part)
    return node


def assign(root: Any, dotted: str, value: Any) -> None:
    """Set the existing field at ``dotted`` below ``root`` to ``value``.

    Raises:
        MissingField: The path does not exist.
    """
    parent_path, _, leaf = dotted.rpartition(".")
    parent = lookup(root, parent_path) if parent_path else root
    if leaf not in fields(parent):
        raise MissingField(dotted, parent, leaf)
    if isinstance(parent, Mapping):
        parent[leaf] = value
    else:
        setattr(parent, leaf, value)

"""How an observation group stacks its history (Isaac Lab's ``ObservationGroupCfg.history_*``)."""

from __future__ import annotations

from isaaclab_tasks.utils import PresetCfg


def history_frames(group_cfg) -> int:
    """Frames of a group's time-major history (Isaac Lab's ``history_order="time"``: the group is ``H`` frames of
    all its terms, oldest first; after a reset every frame holds the first reading), 1 for any other layout (a
    term's own history is tiled per term). A length still an unresolved preset (``presets=long_memory``) counts as
    its ``default``, as an unresolved term does in :mod:`go2_locomotion.training.preflight.widths`."""
    time_major = group_cfg.history_order == "time" and group_cfg.flatten_history_dim and group_cfg.concatenate_terms
    length = group_length(group_cfg)
    return length if length and time_major else 1


def group_length(group_cfg) -> int | None:
    """The group's ``history_length`` (which overrides its terms'), an unresolved preset's ``default``."""
    length = group_cfg.history_length
    return length.default if isinstance(length, PresetCfg) else length

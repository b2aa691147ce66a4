"""How an observation group stacks its history (Isaac Lab's ``ObservationGroupCfg.history_*``)."""

from __future__ import annotations


def history_frames(group_cfg) -> int:
    """Frames of a group's time-major history (Isaac Lab's ``history_order="time"``: the group is ``H`` frames of
    all its terms, oldest first; after a reset every frame holds the first reading), 1 for any other layout (a
    term's own history is tiled per term)."""
    time_major = group_cfg.history_order == "time" and group_cfg.flatten_history_dim and group_cfg.concatenate_terms
    return group_cfg.history_length if group_cfg.history_length and time_major else 1

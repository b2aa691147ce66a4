"""The robustness grid: the command grid run again with one figure of the robot or its world changed at a time.

A cell names what changes and by how much (:class:`Cell`, parsed by :func:`parse_cells`): the targets' delay, the
PD gains, a payload, the feet's friction, pushes, the observation noise, the joints' rotor inertia and friction (or
the rotor inertia alone, scaled). How a
cell changes an Isaac Lab task lives with the tasks (:mod:`go2_locomotion.tasks.robustness`); this module names the
cells and turns each cell's command-grid report into the grid's figures (:func:`summary`), a table and a plot.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from ..plotting import figure
from .terrain_report import interval_text

KINDS = {
    "nominal": ("", "the play robot unchanged"),
    "latency": ("ms", "joint targets reach the motors this late"),
    "gains": ("x", "Kp and Kd of every joint times this"),
    "payload": ("kg", "this mass added to the trunk"),
    "friction": ("", "the feet's static and dynamic friction (the ground's 1.0 multiplies it)"),
    "push": ("m/s", "trunk velocity set to a uniform +-v on x and y every 4-6 s"),
    "noise": ("x", "the training's observation noise, times this"),
    "joint_model": ("", "rotor inertia and joint friction of presets=real_go2 on, or none (off)"),
    "armature": ("x", "rotor inertia of every joint times this (Unitree's go2.xml: x0.5 at the calf)"),
}
"""Cell kinds: (unit of the value, what the cell changes)."""

PUSH_INTERVAL_S = (4.0, 6.0)
"""How often a push cell pushes [s]: three or four pushes in a 20 s evaluation episode, after the settling time."""

SWITCHES = ("on", "off")
"""The values of a ``joint_model`` cell."""

REPORT_FILE = "robustness.json"
PLOT_FILE = "robustness.png"
FORMAT = "go2-robustness/1"

FORMS = "nominal, latency:MS, gains:X, payload:KG, friction:MU, push:M/S, noise:X, joint_model:on|off, armature:X"


@dataclass(frozen=True)
class Cell:
    """One change of the robustness grid."""

    kind: str
    """A :data:`KINDS` key."""
    value: float | str | None = None
    """How much (in the kind's unit); ``on`` / ``off`` for ``joint_model``; ``None`` for ``nominal``."""

    @property
    def push_interval_s(self) -> tuple[float, float]:
        """A push cell's time between pushes [s] (:data:`PUSH_INTERVAL_S`)."""
        return PUSH_INTERVAL_S

    def _value(self) -> str:
        return f"{self.value:g}" if isinstance(self.value, float) else str(self.value)

    def label(self) -> str:
        """``kind`` or ``kind:value``, as :func:`parse_cells` reads it (and a folder name)."""
        return self.kind if self.value is None else f"{self.kind}:{self._value()}"

    def describe(self) -> str:
        """What the cell changes, with its value and unit."""
        unit, what = KINDS[self.kind]
        if self.value is None:
            return what
        return f"{what}: x{self._value()}" if unit == "x" else f"{what}: {self._value()} {unit}".rstrip()


DEFAULT = (
    Cell("nominal"),
    Cell("latency", 20.0),
    Cell("latency", 40.0),
    Cell("gains", 0.8),
    Cell("gains", 1.2),
    Cell("payload", 3.0),
    Cell("payload", 6.0),
    Cell("friction", 0.3),
    Cell("friction", 0.2),
    Cell("push", 0.8),
    Cell("push", 1.2),
    Cell("noise", 2.0),
    Cell("noise", 4.0),
    Cell("joint_model", "off"),
    Cell("joint_model", "on"),
)
"""``--robustness default``: issue 55's grid."""


def _cell(token: str) -> Cell | None:
    kind, _, value = token.partition(":")
    if kind not in KINDS:
        return None
    if kind == "nominal":
        return Cell(kind) if not value else None
    if kind == "joint_model":
        return Cell(kind, value) if value in SWITCHES else None
    try:
        number = float(value)
    except ValueError:
        return None
    if not math.isfinite(number) or number < 0 or (kind in ("gains", "noise") and number == 0):
        return None
    return Cell(kind, number)


def parse_cells(text: str) -> list[Cell]:
    """``default`` (:data:`DEFAULT`) or cells ``"latency:40 payload:3 ..."`` (:data:`FORMS`).

    Raises:
        ValueError: A cell is malformed or repeats; the message names it and the accepted forms.
    """
    if text.strip() == "default":
        return list(DEFAULT)
    cells = []
    for token in text.split():
        cell = _cell(token)
        if cell is None:
            raise ValueError(f"--robustness: cell {token!r} is not one of {FORMS} (values >= 0; gains, noise > 0)")
        if cell in cells:
            raise ValueError(f"--robustness: cell {token!r} appears twice")
        cells.append(cell)
    if not cells:
        raise ValueError(f"--robustness: no cell given; accepted: default, or {FORMS}")
    return cells


def summary(cell: Cell, report: dict, folder: str) -> dict:
    """One row of the robustness grid from a cell's command-grid report: falls, xy and yaw error, heading drift."""
    s = report["summary"]
    robots = sum(c["robots"] for c in report["commands"])
    falls = sum(round((c["fall_rate"] or 0.0) * c["robots"]) for c in report["commands"])
    return {
        "cell": cell.label(),
        "changes": cell.describe(),
        "robots": robots,
        "falls": falls,
        "xy_error_moving": s["xy_error_moving"],
        "yaw_error_moving": s["yaw_error_moving"],
        "heading_drift": s.get("heading_drift"),
        "report": folder,
    }


def terrain_summary(cell: Cell, report: dict, folder: str) -> dict:
    """One row of a robustness grid over terrain cells (``--robustness`` with ``--terrain``) from the cell's terrain
    report: per terrain cell its success with the 95 % interval and its falls."""
    terrain = [
        {
            "label": c["label"],
            "robots": c["robots"],
            "success_rate": c["success_rate"],
            "success_interval": c.get("success_interval"),
            "fall_rate": c["fall_rate"],
        }
        for c in report["terrain"]
    ]
    return {"cell": cell.label(), "changes": cell.describe(), "terrain": terrain, "report": folder}


def is_terrain_grid(rows: list[dict]) -> bool:
    """Whether the rows are :func:`terrain_summary`'s (else :func:`summary`'s)."""
    return bool(rows) and "terrain" in rows[0]


def _fmt(value, width=7, digits=3) -> str:
    return f"{'–':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def _success_text(c: dict) -> str:
    """``0.75 (0.63-0.84)``: success with the terrain report's interval text, the rate alone without an interval."""
    rate = f"{c['success_rate']:.2f}"
    return rate if c["success_interval"] is None else f"{rate} ({interval_text(c)})"


def table(rows: list[dict]) -> str:
    """The grid as printed: one line a cell; over terrain cells, each terrain cell's success with its interval."""
    if is_terrain_grid(rows):
        labels = [c["label"] for c in rows[0]["terrain"]]
        lines = [f"{'cell':18s} " + " ".join(f"{label:>22s}" for label in labels)]
        for r in rows:
            lines.append(f"{r['cell']:18s} " + " ".join(f"{_success_text(c):>22s}" for c in r["terrain"]))
        lines.append("success (95 % interval) per terrain cell")
        return "\n".join(lines)
    lines = [f"{'cell':18s} {'falls':>9s} {'xy err':>7s} {'yaw err':>7s} {'drift':>7s}"]
    for r in rows:
        lines.append(
            f"{r['cell']:18s} {r['falls']:>4d} of {r['robots']:<2d} {_fmt(r['xy_error_moving'])} "
            f"{_fmt(r['yaw_error_moving'])} {_fmt(r['heading_drift'])}"
        )
    return "\n".join(lines)


def plot_terrain(rows: list[dict], title: str, path: Path) -> None:
    """Success with its 95 % interval per robustness cell, one group of bars per terrain cell."""
    labels = [c["label"] for c in rows[0]["terrain"]]
    width = 0.8 / len(rows)
    with figure(path, dpi=80, figsize=(max(8, 2.5 * len(labels)), 4.5)) as (fig, ax):
        for i, r in enumerate(rows):
            x = [j + (i - (len(rows) - 1) / 2) * width for j in range(len(labels))]
            values = [c["success_rate"] for c in r["terrain"]]
            errors = [
                (v - c["success_interval"][0], c["success_interval"][1] - v) if c["success_interval"] else (0, 0)
                for v, c in zip(values, r["terrain"], strict=True)
            ]
            ax.bar(x, values, width, yerr=list(zip(*errors, strict=True)), capsize=2, label=r["cell"])
        ax.set_xticks(range(len(labels)), labels)
        ax.set_ylabel("success (95 % interval)")
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8, ncols=2)
        fig.suptitle(title)


def plot(rows: list[dict], title: str, path: Path) -> None:
    """Falls, xy error and heading drift per cell (over terrain cells: :func:`plot_terrain`)."""
    if is_terrain_grid(rows):
        plot_terrain(rows, title, path)
        return
    names = [r["cell"] for r in rows]
    x = list(range(len(rows)))
    panels = (
        ("falls [share of robots]", [r["falls"] / max(r["robots"], 1) for r in rows], "tab:red"),
        ("xy error, moving [m/s]", [r["xy_error_moving"] or 0.0 for r in rows], "tab:blue"),
        ("heading drift, straight [rad/s]", [r["heading_drift"] or 0.0 for r in rows], "tab:green"),
    )
    with figure(path, dpi=80, nrows=1, ncols=3, figsize=(18, 4.5)) as (fig, axes):
        for ax, (name, values, colour) in zip(axes, panels, strict=True):
            ax.bar(x, values, color=colour)
            ax.set_title(name)
            ax.set_xticks(x, names, rotation=60, ha="right", fontsize=8)
            ax.grid(alpha=0.3, axis="y")
        fig.suptitle(title)


def write(rows: list[dict], out: Path, title: str, robots: int) -> tuple[Path, Path]:
    """Write the grid's :data:`REPORT_FILE` and :data:`PLOT_FILE` into ``out`` (beside the cells' folders); ``robots``
    per command (a command grid) or per terrain cell."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    per = "robots_per_cell" if is_terrain_grid(rows) else "robots_per_command"
    payload = {"format": FORMAT, "title": title, per: robots, "cells": rows}
    (out / REPORT_FILE).write_text(json.dumps(payload, indent=2) + "\n")
    plot(rows, title, out / PLOT_FILE)
    return out / REPORT_FILE, out / PLOT_FILE


def folder(cell: Cell) -> str:
    """The cell's report folder: its label with ``_`` for ``:``."""
    return cell.label().replace(":", "_")

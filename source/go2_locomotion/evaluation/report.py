"""Evaluation reports: ``evaluation.json``, its plot, the printed table, and the side-by-side comparison of two
reports (two checkpoints, or the same policy in Isaac Lab and in MuJoCo)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..errors import UsageError
from ..plotting import figure
from .metrics import FIGURES, SUMMARY

REPORT_FILE = "evaluation.json"
PLOT_FILE = "evaluation.png"
FORMAT = "go2_locomotion/evaluation/1"
TERRAIN_FORMAT = "go2_locomotion/terrain_evaluation/1"
"""The terrain evaluation's format (:mod:`.terrain_report`), read by :func:`load` too."""


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def header(report_format: str, simulator: str, settings: dict, source: dict, summary: dict) -> dict:
    """What every report (command grid, terrain grid) begins with."""
    return {"format": report_format, "simulator": simulator, **source, "settings": settings, "summary": summary}


def assemble(figures: dict, *, simulator: str, settings: dict, source: dict) -> dict:
    """A report: the grid's figures (:meth:`GridRecorder.report`) with what produced them."""
    return {
        **header(FORMAT, simulator, settings, source, figures["summary"]),
        "commands": figures["commands"],
        "figures": FIGURES,
        "summary_figures": SUMMARY,
    }


def write(report: dict, out_dir: Path, draw=None) -> tuple[Path, Path]:
    """Write ``evaluation.json`` and ``evaluation.png`` (drawn by ``draw``, default :func:`plot`) into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / REPORT_FILE
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    png_path = out_dir / PLOT_FILE
    (draw or plot)(report, png_path)
    return json_path, png_path


def fmt(value, width=6, digits=2) -> str:
    return f"{'–':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def table(report: dict) -> str:
    """The printed table: per command, commanded and achieved velocity, errors, falls, height; then the summary."""
    lines = [
        f"{'command':16s} {'cmd vx':>6s} {'vy':>5s} {'wz':>5s} | {'got vx':>6s} {'vy':>5s} {'wz':>5s} | "
        f"{'xy err':>6s} {'yaw err':>7s} {'drift':>6s} {'falls':>5s} {'height':>6s}"
    ]
    for c in report["commands"]:
        cmd, got = c["command"], c["achieved"]
        lines.append(
            f"{c['name']:16s} {cmd[0]:6.2f} {cmd[1]:5.2f} {cmd[2]:5.2f} | {fmt(got['vx'])} {fmt(got['vy'], 5)} "
            f"{fmt(got['wz'], 5)} | {fmt(c['xy_error'])} {fmt(c['yaw_error'], 7)} "
            f"{fmt(c.get('heading_drift'), 6, 3)} {fmt(c['fall_rate'], 5)} {fmt(c['height'], 6, 3)}"
        )
    s = report["summary"]
    lines.append(
        f"summary: xy error (moving) {fmt(s['xy_error_moving'], 0, 3)} m/s, yaw error (moving) "
        f"{fmt(s['yaw_error_moving'], 0, 3)} rad/s, falls {fmt(s['fall_rate'], 0, 3)}, standing drift "
        f"{fmt(s['standing_drift'], 0, 3)} m/s, heading drift (straight) {fmt(s.get('heading_drift'), 0, 3)} rad/s"
    )
    if "standing_all_feet_down" in s:  # reports written before the standing figures lack them
        lines.append(
            f"standing: all four feet down {fmt(s['standing_all_feet_down'], 0, 3)} of the time, joint speed "
            f"{fmt(s['standing_joint_speed'], 0, 3)} rad/s; stop from full speed: standing after "
            f"{fmt(s['stop_time_s'], 0, 2)} s (slowest), {fmt(s['stop_stood_rate'], 0, 2)} within 1 s"
        )
    return "\n".join(lines)


def plot(report: dict, path: Path) -> None:
    """Commanded against achieved velocity per axis, and the fall rate, per command."""
    commands = report["commands"]
    names = [c["name"] for c in commands]
    x = range(len(commands))
    with figure(path, dpi=80, nrows=1, ncols=4, figsize=(20, 4.5)) as (fig, axes):
        for ax, (axis, key, unit) in zip(
            axes[:3], [(0, "vx", "m/s"), (1, "vy", "m/s"), (2, "wz", "rad/s")], strict=True
        ):
            ax.bar([i - 0.2 for i in x], [c["command"][axis] for c in commands], width=0.4, label="commanded")
            got = [c["achieved"][key] if c["achieved"][key] is not None else 0.0 for c in commands]
            ax.bar([i + 0.2 for i in x], got, width=0.4, label="achieved")
            ax.set_title(f"{key} [{unit}]")
            ax.set_xticks(list(x), names, rotation=60, ha="right", fontsize=8)
            ax.axhline(0.0, color="black", linewidth=0.5)
            ax.grid(alpha=0.3, axis="y")
            ax.legend(fontsize=8)
        axes[3].bar(list(x), [c["fall_rate"] or 0.0 for c in commands], color="tab:red")
        axes[3].set_ylim(0, 1)
        axes[3].set_title("fall rate")
        axes[3].set_xticks(list(x), names, rotation=60, ha="right", fontsize=8)
        s = report["summary"]
        fig.suptitle(
            f"{report.get('task')} on {report['simulator']}: {Path(str(report.get('checkpoint'))).name}; "
            f"xy error {fmt(s['xy_error_moving'], 0, 3)} m/s, yaw error {fmt(s['yaw_error_moving'], 0, 3)} rad/s, "
            f"falls {fmt(s['fall_rate'], 0, 2)}, heading drift {fmt(s.get('heading_drift'), 0, 3)} rad/s"
        )


def load(path: Path | str) -> dict:
    """A report from ``evaluation.json`` or the folder holding it."""
    path = Path(path)
    if path.is_dir():
        path = path / REPORT_FILE
    if not path.is_file():
        raise UsageError(f"{path}: no evaluation report (evaluation.json written by evaluate.py or sim2sim.py)")
    try:
        report = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise UsageError(f"{path}: not a JSON evaluation report ({error.msg} at line {error.lineno})") from None
    accepted = (FORMAT, TERRAIN_FORMAT)
    if report.get("format") not in accepted:
        raise UsageError(f"{path}: format is {report.get('format')!r}, expected one of {', '.join(accepted)}")
    return report


def compare(a: dict, b: dict, labels: tuple[str, str] = ("A", "B")) -> str:
    """Two reports side by side, per command present in both (by name) and for the summary; B - A differences."""
    by_name = {c["name"]: c for c in b["commands"]}
    lines = [
        f"A = {labels[0]} ({a['simulator']}), B = {labels[1]} ({b['simulator']})",
        f"{'command':16s} {'xy err A':>8s} {'B':>6s} {'B-A':>6s} | {'yaw err A':>9s} {'B':>6s} {'B-A':>6s} | "
        f"{'falls A':>7s} {'B':>5s}",
    ]

    def diff(x, y):
        return None if x is None or y is None else y - x

    for ca in a["commands"]:
        cb = by_name.get(ca["name"])
        if cb is None:
            lines.append(f"{ca['name']:16s} only in A")
            continue
        if ca["command"] != cb["command"]:
            lines.append(f"{ca['name']:16s} differs: command {ca['command']} vs {cb['command']}")
            continue
        xy, yaw = (diff(ca[k], cb[k]) for k in ("xy_error", "yaw_error"))
        lines.append(
            f"{ca['name']:16s} {fmt(ca['xy_error'], 8)} {fmt(cb['xy_error'])} {fmt(xy)}"
            f" | {fmt(ca['yaw_error'], 9)} {fmt(cb['yaw_error'])} {fmt(yaw)}"
            f" | {fmt(ca['fall_rate'], 7)} {fmt(cb['fall_rate'], 5)}"
        )
    for name in by_name.keys() - {c["name"] for c in a["commands"]}:
        lines.append(f"{name:16s} only in B")
    for key in SUMMARY:
        x, y = a["summary"].get(key), b["summary"].get(key)
        lines.append(f"summary {key:22s} A {fmt(x, 7, 3)}  B {fmt(y, 7, 3)}  B-A {fmt(diff(x, y), 7, 3)}")
    return "\n".join(lines)

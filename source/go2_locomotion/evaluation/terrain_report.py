"""Terrain evaluation reports: ``evaluation.json`` with the cells under ``terrain``, a plot of success over size
per terrain, the printed table, and the comparison of two reports (two checkpoints, or Isaac Lab and MuJoCo)."""

from __future__ import annotations

from pathlib import Path

from ..plotting import figure
from . import report as reports
from .report import TERRAIN_FORMAT as FORMAT
from .report import fmt

UNITS = {
    "height_cm": "cm (step height; box height +-; random rough: highest noise)",
    "slope_deg": "degrees",
    "difficulty": "the size's place in the training range: 0 its low end, 1 its hardest, above 1 beyond",
    "success_rate": "fraction of the cell's robots that got half a tile (the curriculum's criterion) from the "
    "centre without falling",
    "success_interval": "95 % Wilson score interval of success_rate [low, high]",
    "fall_rate": "fraction of the cell's robots that fell first",
    "time_to_fall_s": "s, mean over the robots that fell",
    "time_to_success_s": "s, mean over the robots that succeeded",
    "xy_error": "m/s, |commanded - achieved| horizontal trunk velocity while walking, after settling",
}


def assemble(figures: dict, *, simulator: str, settings: dict, source: dict) -> dict:
    """A report: :meth:`~.terrain.TerrainRecorder.report`'s figures with what produced them."""
    return {
        **reports.header(FORMAT, simulator, settings, source, figures["summary"]),
        "terrain": figures["terrain"],
        "units": UNITS,
    }


def is_terrain_report(report: dict) -> bool:
    return report.get("format") == FORMAT


def write(report: dict, out_dir: Path) -> tuple[Path, Path]:
    """Write ``evaluation.json`` and ``evaluation.png`` (success over size per terrain) into ``out_dir``."""
    return reports.write(report, out_dir, draw=plot)


def size_text(cell: dict) -> str:
    """``10.0 cm`` or ``20.0 deg``."""
    return f"{cell['slope_deg']:.1f} deg" if "slope_deg" in cell else f"{cell['height_cm']:.1f} cm"


def interval_text(cell: dict) -> str:
    """``0.73-0.91``: the cell's success interval; a dash for a report written before intervals were recorded."""
    interval = cell.get("success_interval")
    return "–" if interval is None else f"{interval[0]:.2f}-{interval[1]:.2f}"


def table(report: dict) -> str:
    """Per cell: size, difficulty, robots, success with its 95 % interval, falls, time to fall, tracking error; then
    the summary."""
    lines = [
        f"{'terrain':14s} {'size':>9s} {'diff':>5s} {'robots':>6s} | {'success':>7s} {'95 % int':>9s} {'falls':>5s} "
        f"{'t fall':>6s} {'xy err':>6s}"
    ]
    for c in report["terrain"]:
        lines.append(
            f"{c['name']:14s} {size_text(c):>9s} {c['difficulty']:5.2f} {c['robots']:6d} | "
            f"{fmt(c['success_rate'], 7)} {interval_text(c):>9s} {fmt(c['fall_rate'], 5)} {fmt(c['time_to_fall_s'])} "
            f"{fmt(c['xy_error'])}"
        )
    s = report["summary"]
    lines.append(
        f"summary: success {fmt(s['success_rate'], 0, 3)}, falls {fmt(s['fall_rate'], 0, 3)} (mean over cells)"
    )
    return "\n".join(lines)


def plot(report: dict, path: Path) -> None:
    """Success with its 95 % interval (shaded) and falls (dashed) over the obstacle size, one panel per terrain (the
    summary's order)."""
    names = list(report["summary"]["largest_size"])
    with figure(path, dpi=80, nrows=1, ncols=max(len(names), 1), figsize=(3.6 * max(len(names), 1), 3.6)) as (
        fig,
        axes,
    ):
        axes = axes if hasattr(axes, "__len__") else [axes]
        for ax, name in zip(axes, names, strict=False):
            cells = sorted((c for c in report["terrain"] if c["name"] == name), key=lambda c: c["difficulty"])
            sizes = [c.get("slope_deg", c.get("height_cm")) for c in cells]
            ax.plot(sizes, [c["success_rate"] for c in cells], "o-", label="success")
            if all(c.get("success_interval") for c in cells):
                low, high = zip(*(c["success_interval"] for c in cells), strict=True)
                ax.fill_between(sizes, low, high, alpha=0.2, label="95 % interval")
            ax.plot(sizes, [c["fall_rate"] for c in cells], "x--", color="tab:red", label="falls")
            ax.set_ylim(-0.05, 1.05)
            ax.set_title(name)
            ax.set_xlabel("slope [deg]" if "slope_deg" in cells[0] else f"{cells[0]['what']} [cm]")
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=8)
        fig.suptitle(
            f"{report.get('task')} on {report['simulator']}: {Path(str(report.get('checkpoint'))).name}; "
            f"forward {report['settings']['command'][0]:.1f} m/s"
        )


def compare(a: dict, b: dict, labels: tuple[str, str] = ("A", "B")) -> str:
    """Two terrain reports side by side, per cell present in both (by label); B - A differences of success."""
    by_label = {c["label"]: c for c in b["terrain"]}
    lines = [
        f"A = {labels[0]} ({a['simulator']}), B = {labels[1]} ({b['simulator']})",
        f"{'cell':22s} {'success A':>9s} {'95 % int':>9s} {'B':>5s} {'95 % int':>9s} {'B-A':>6s} | "
        f"{'falls A':>7s} {'B':>5s}",
    ]
    for ca in a["terrain"]:
        cb = by_label.get(ca["label"])
        if cb is None:
            lines.append(f"{ca['label']:22s} only in A")
            continue
        lines.append(
            f"{ca['label']:22s} {fmt(ca['success_rate'], 9)} {interval_text(ca):>9s} {fmt(cb['success_rate'], 5)} "
            f"{interval_text(cb):>9s} {fmt(cb['success_rate'] - ca['success_rate'])} | {fmt(ca['fall_rate'], 7)} "
            f"{fmt(cb['fall_rate'], 5)}"
        )
    for label in by_label.keys() - {c["label"] for c in a["terrain"]}:
        lines.append(f"{label:22s} only in B")
    return "\n".join(lines)

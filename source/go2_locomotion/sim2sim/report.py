"""The sim-to-sim report: per-segment figures (velocity-tracking error, trunk height, fall) from the run's time
series, written as ``sim2sim.json`` with its plot, and printed as a table."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import numpy as np

from .plot import plot

SETTLE_S = 0.5
"""Seconds at the start of each segment left out of the tracking error (the command just changed)."""


def segment_report(index: int, segment, series: dict) -> dict:
    """Figures of segment ``index`` (a :class:`~.loop.Segment`) from the run's time series."""
    rows = [i for i, s in enumerate(series["segment"]) if s == index]
    settled = [i for i in rows if series["time"][i] - series["time"][rows[0]] >= SETTLE_S - 1e-9] or rows

    def mean(key, idx):
        return float(np.mean([series[key][i] for i in idx]))

    vx_err = np.array([series["vx"][i] - series["cmd_vx"][i] for i in settled])
    vy_err = np.array([series["vy"][i] - series["cmd_vy"][i] for i in settled])
    wz_err = np.array([series["wz"][i] - series["cmd_wz"][i] for i in settled])
    fall_times = [series["time"][i] for i in rows if series["down"][i]]
    return {
        **asdict(segment),
        "mean_velocity": [mean("vx", settled), mean("vy", settled), mean("wz", settled)],
        "xy_error_rms": float(np.sqrt(np.mean(vx_err**2 + vy_err**2))),
        "yaw_rate_error_rms": float(np.sqrt(np.mean(wz_err**2))),
        "base_height_mean": mean("height", rows),
        "base_height_min": float(min(series["height"][i] for i in rows)),
        "fell": bool(fall_times),
        "fallen_at_s": fall_times[0] if fall_times else None,
    }


def write_report(report: dict, out_dir: Path) -> tuple[Path, Path]:
    """Write ``sim2sim.json`` and ``sim2sim.png`` (commanded vs measured velocity, trunk height)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, png_path = out_dir / "sim2sim.json", out_dir / "sim2sim.png"
    json_path.write_text(json.dumps(report, indent=2))

    plot(report, png_path)
    return json_path, png_path


def table(report: dict) -> str:
    """The per-segment figures as a text table."""
    lines = [
        f"{'segment':<10} {'cmd (vx, vy, wz)':<20} {'measured':<22} {'xy err':>7} {'wz err':>7} {'height':>7}  fell"
    ]
    for seg in report["segments"]:
        cmd = ", ".join(f"{v:.2f}" for v in seg["command"])
        got = ", ".join(f"{v:+.2f}" for v in seg["mean_velocity"])
        lines.append(
            f"{seg['name']:<10} {cmd:<20} {got:<22} {seg['xy_error_rms']:7.3f} {seg['yaw_rate_error_rms']:7.3f} "
            f"{seg['base_height_mean']:7.3f}  {'yes' if seg['fell'] else 'no'}"
        )
    return "\n".join(lines)

"""The sim-to-sim plot: commanded against measured velocity per axis, and the trunk height, over the run."""

from __future__ import annotations

from pathlib import Path

from ..plotting import figure


def plot(report: dict, path: Path) -> None:
    """Write the plot of a :func:`~.loop.run` report to ``path`` (PNG)."""
    s = report["series"]
    with figure(path, dpi=100, nrows=4, ncols=1, figsize=(9, 9), sharex=True) as (fig, axes):
        for ax, (measured, commanded, label) in zip(
            axes,
            (("vx", "cmd_vx", "lin x [m/s]"), ("vy", "cmd_vy", "lin y [m/s]"), ("wz", "cmd_wz", "yaw rate [rad/s]")),
            strict=False,  # the fourth panel is the trunk height
        ):
            ax.plot(s["time"], s[commanded], "k--", label="commanded")
            ax.plot(s["time"], s[measured], label="measured (trunk frame)")
            ax.set_ylabel(label)
        axes[0].legend(loc="upper right")
        axes[3].plot(s["time"], s["height"])
        axes[3].set_ylabel("trunk height [m]")
        axes[3].set_xlabel("time [s]")
        start = 0.0
        for segment in report["segments"]:
            for ax in axes:
                ax.axvline(start, color="0.8", lw=0.8)
            axes[0].text(start + 0.05, axes[0].get_ylim()[1], segment["name"], va="top", fontsize=8)
            start += segment["duration_s"]
        fig.suptitle(
            f"sim2sim (MuJoCo {report['settings']['mujoco_version']}): {report['task']}"
            + (" - fell" if report["fell"] else "")
        )

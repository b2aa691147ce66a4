"""Learning curves of a training run, read from its TensorBoard events: a CSV of every scalar per iteration and a
PNG of the ones that say whether the loop learns (reward, episode length, termination causes, tracking error,
per-term episode rewards)."""

from __future__ import annotations

import csv
from pathlib import Path

from ..errors import UsageError

PANELS = {
    "mean reward": ["Train/mean_reward"],
    "mean episode length [steps]": ["Train/mean_episode_length"],
    "episode endings [fraction]": ["Episode_Termination/base_contact", "Episode_Termination/time_out"],
    "velocity tracking error": ["Metrics/base_velocity/error_vel_xy", "Metrics/base_velocity/error_vel_yaw"],
}
"""Panels of the PNG: title -> scalar tags."""

SMOOTHING = 10
"""Iterations in the trailing mean drawn over each (faint) raw curve."""


def rolling_mean(values: list[float], window: int) -> list[float]:
    """Trailing mean over up to ``window`` values (fewer at the start)."""
    out, total = [], 0.0
    for i, value in enumerate(values):
        total += value
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def read_scalars(run_dir: Path) -> dict[str, dict[int, float]]:
    """All scalars of the run's TensorBoard events: tag -> {iteration: value}."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    if not list(Path(run_dir).glob("events.out.tfevents.*")):
        raise UsageError(f"{run_dir} has no TensorBoard events (events.out.tfevents.*)")
    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    return {tag: {e.step: e.value for e in events.Scalars(tag)} for tag in events.Tags()["scalars"]}


def write_csv(scalars: dict[str, dict[int, float]], path: Path) -> None:
    """One row per iteration, one column per tag (empty where a tag has no value)."""
    tags = sorted(tag for tag in scalars if not tag.endswith("/time"))
    iterations = sorted({it for tag in tags for it in scalars[tag]})
    with open(path, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["iteration", *tags])
        for it in iterations:
            writer.writerow([it, *(scalars[tag].get(it, "") for tag in tags)])


def plot(scalars: dict[str, dict[int, float]], path: Path, title: str) -> None:
    """The learning panels plus the per-term episode rewards; raw values faint, trailing means bold."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = dict(PANELS)
    panels["episode reward per term"] = sorted(tag for tag in scalars if tag.startswith("Episode_Reward/"))
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4))
    for ax, (name, tags) in zip(axes, panels.items()):
        for tag in tags:
            if tag in scalars:
                its = sorted(scalars[tag])
                values = [scalars[tag][i] for i in its]
                (line,) = ax.plot(its, values, alpha=0.3, linewidth=0.8)
                ax.plot(its, rolling_mean(values, SMOOTHING), color=line.get_color(), label=tag.split("/")[-1])
        ax.set_title(name)
        ax.set_xlabel("iteration")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def export_curves(run_dir: Path, out_dir: Path | None = None) -> tuple[Path, Path]:
    """Write ``curves.csv`` and ``curves.png`` of a run (into ``out_dir``, default the run folder)."""
    run_dir = Path(run_dir)
    out_dir = Path(out_dir) if out_dir else run_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    scalars = read_scalars(run_dir)
    csv_path, png_path = out_dir / "curves.csv", out_dir / "curves.png"
    write_csv(scalars, csv_path)
    plot(scalars, png_path, title=run_dir.name)
    return csv_path, png_path

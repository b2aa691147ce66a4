"""Learning curves of a training run, read from its TensorBoard events: a CSV of every scalar per iteration and a
PNG of the ones that say whether the loop learns (reward, episode length, termination causes, tracking error,
per-term episode rewards)."""

from __future__ import annotations

import argparse
import csv
import json
import re
from itertools import pairwise
from pathlib import Path

from .. import run_params
from ..errors import UsageError, check_writable, exit_on_usage_error
from ..plotting import figure

PANELS = {
    "mean reward": ["Train/mean_reward"],
    "mean episode length [steps]": ["Train/mean_episode_length"],
    "episode endings [fraction]": ["Episode_Termination/base_contact", "Episode_Termination/time_out"],
    "velocity tracking error": ["Metrics/base_velocity/error_vel_xy", "Metrics/base_velocity/error_vel_yaw"],
    "mean terrain level": ["Curriculum/terrain_levels"],
}
"""Panels of the PNG: title -> scalar tags; a panel none of whose tags a run logged (the terrain level of a task
without a terrain curriculum) is left out."""


def logged_panels(*runs: dict[str, dict[int, float]]) -> dict[str, list[str]]:
    """:data:`PANELS` with at least one tag logged by one of ``runs`` (their scalars)."""
    return {name: tags for name, tags in PANELS.items() if any(tag in run for tag in tags for run in runs)}


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
    """All scalars of a run: tag -> {iteration: value}, from its TensorBoard events, or where it has none from the
    ``curves.csv`` :func:`write_csv` left (a run recorded in docs/, whose events stayed on the machine that ran it)."""
    run_dir = Path(run_dir)
    if not list(run_dir.glob("events.out.tfevents.*")):
        if (run_dir / "curves.csv").is_file():
            return read_csv(run_dir / "curves.csv")
        raise UsageError(f"{run_dir} has no TensorBoard events (events.out.tfevents.*) and no curves.csv")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # heavy, read-only use

    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    return {tag: {e.step: e.value for e in events.Scalars(tag)} for tag in events.Tags()["scalars"]}


def read_csv(path: Path) -> dict[str, dict[int, float]]:
    """The scalars of a ``curves.csv`` (:func:`write_csv`): tag -> {iteration: value}, empty cells left out."""
    with open(path, newline="") as file:
        rows = list(csv.DictReader(file))
    tags = [tag for tag in (rows[0] if rows else {}) if tag != "iteration"]
    return {tag: {int(row["iteration"]): float(row[tag]) for row in rows if row[tag] != ""} for tag in tags}


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
    panels = logged_panels(scalars)
    panels["episode reward per term"] = sorted(tag for tag in scalars if tag.startswith("Episode_Reward/"))
    with figure(path, dpi=90, nrows=1, ncols=len(panels), figsize=(5 * len(panels), 4)) as (fig, axes):
        for ax, (name, tags) in zip(axes, panels.items(), strict=True):
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


TABLE_METRICS = {
    "episode length": "Train/mean_episode_length",
    "base contact": "Episode_Termination/base_contact",
    "xy error": "Metrics/base_velocity/error_vel_xy",
    "yaw error": "Metrics/base_velocity/error_vel_yaw",
    "mean reward": "Train/mean_reward",
    "terrain level": "Curriculum/terrain_levels",
}
"""Columns of the per-sample comparison table: label -> scalar tag."""


def samples_per_iteration(run_dir: Path) -> int:
    """Transitions per iteration of a run, from its resolved configs: envs x steps per env (global over ranks is
    not recorded there, so a distributed run counts one rank); a run recorded in docs/ without its configs, from
    its ``run_summary.json`` (global)."""
    params, summary = Path(run_dir) / "params", Path(run_dir) / "run_summary.json"
    if not (params / "env.yaml").is_file() and summary.is_file():
        return int(json.loads(summary.read_text())["samples_per_iteration_global"])
    try:
        env = run_params.load(params / "env.yaml")
        agent = run_params.load(params / "agent.yaml")
    except FileNotFoundError as error:
        raise UsageError(f"{run_dir} has no params/env.yaml or params/agent.yaml: {error.filename}") from None
    return int(env["scene"]["num_envs"]) * int(agent["num_steps_per_env"])


def windowed_by_samples(
    scalars: dict[str, dict[int, float]], per_iteration: int, windows: list[tuple[int, int]]
) -> list[dict[str, float | None]]:
    """Per window ``[start, end)`` of transitions collected, the mean of each table metric over the iterations
    whose samples end inside the window (iteration i has collected ``(i + 1) x per_iteration``)."""
    rows = []
    for start, end in windows:
        row = {}
        for label, tag in TABLE_METRICS.items():
            values = [v for it, v in scalars.get(tag, {}).items() if start < (it + 1) * per_iteration <= end]
            row[label] = sum(values) / len(values) if values else None
        rows.append(row)
    return rows


def compare_by_samples(run_dirs: list[Path], labels: list[str], out_dir: Path, windows: int = 5) -> tuple[Path, Path]:
    """Learning of several runs against transitions collected (not iterations): ``by_samples.png`` (the learning
    panels) and ``by_samples.md`` (a table of windowed means at equal sample counts, over the samples every run
    reached)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = [
        (label, read_scalars(Path(d)), samples_per_iteration(Path(d)))
        for d, label in zip(run_dirs, labels, strict=True)
    ]
    reached = min((max(sc["Train/mean_reward"]) + 1) * per for _, sc, per in runs)
    edges = [round(reached * k / windows) for k in range(windows + 1)]
    bounds = list(pairwise(edges))
    metrics = [m for m, tag in TABLE_METRICS.items() if any(tag in sc for _, sc, _ in runs)]
    lines = [
        "| samples | " + " | ".join(f"{metric} ({' / '.join(labels)})" for metric in metrics) + " |",
        "|---" * (len(metrics) + 1) + "|",
    ]
    tables = [windowed_by_samples(sc, per, bounds) for _, sc, per in runs]
    for k, (start, end) in enumerate(bounds):
        cells = []
        for metric in metrics:
            values = [table[k][metric] for table in tables]
            cells.append(" / ".join("–" if v is None else f"{v:.3g}" for v in values))
        lines.append(f"| {start:,}–{end:,} | " + " | ".join(cells) + " |")
    table_path = out_dir / "by_samples.md"
    table_path.write_text("\n".join(lines) + "\n")

    png_path = out_dir / "by_samples.png"
    panels = logged_panels(*(sc for _, sc, _ in runs))
    with figure(png_path, dpi=90, nrows=1, ncols=len(panels), figsize=(5 * len(panels), 4)) as (_, axes):
        for ax, (name, tags) in zip(axes, panels.items(), strict=True):
            for label, scalars, per in runs:
                for tag in tags:
                    if tag in scalars:
                        its = sorted(scalars[tag])
                        values = rolling_mean([scalars[tag][i] for i in its], SMOOTHING)
                        ax.plot([(i + 1) * per for i in its], values, label=f"{label}: {tag.split('/')[-1]}")
            ax.set_title(name)
            ax.set_xlabel("transitions collected")
            ax.set_xlim(0, reached)  # the budget every run reached: a longer run's rest is not compared
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
    return table_path, png_path


EVALUATED = {
    "xy error, moving [m/s]": "xy_error_moving",
    "yaw error, moving [rad/s]": "yaw_error_moving",
    "fall rate": "fall_rate",
}
"""Figures of the evaluation grid compared across evaluated runs: label -> key of a report's ``summary``."""

TIMING_TAGS = ("Perf/collection_time", "Perf/learning_time")
"""TensorBoard scalars whose sum is an iteration's wall-clock (RSL-RL's own timing)."""


def evaluated_points(run_dir: Path) -> list[dict]:
    """Per checkpoint the ``evaluate.py --run`` report of a run folder holds: iteration, transitions collected until
    it, training wall-clock until it (the iterations' collection + learning time) and the grid's summary. A run
    recorded in docs/ holds the report beside its ``curves.csv`` and ``run_summary.json``."""
    report = next(
        (p for p in (Path(run_dir) / "evaluation" / "evaluation_run.json", Path(run_dir) / "evaluation_run.json")
         if p.is_file()),
        None,
    )  # fmt: skip
    if report is None:
        raise UsageError(f"{run_dir} has no evaluation/evaluation_run.json: run scripts/evaluate.py --run {run_dir}")
    scalars = read_scalars(Path(run_dir))
    per_iteration = samples_per_iteration(Path(run_dir))
    iteration_s = {it: sum(scalars[tag].get(it, 0.0) for tag in TIMING_TAGS) for it in scalars[TIMING_TAGS[0]]}
    points = []
    for entry in json.loads(report.read_text())["checkpoints"]:
        iteration = int(re.fullmatch(r"model_(\d+)\.pt", Path(entry["checkpoint"]).name).group(1))
        wall = sum(t for it, t in iteration_s.items() if it <= iteration)
        points.append(
            {
                "iteration": iteration,
                "samples": (iteration + 1) * per_iteration,
                "wall_clock_s": wall,
                **entry["summary"],
            }
        )
    return sorted(points, key=lambda p: p["iteration"])


def compare_evaluated(run_dirs: list[Path], labels: list[str], out_dir: Path) -> tuple[Path, Path]:
    """The evaluation grid's tracking errors and fall rate of several evaluated runs against transitions collected and
    against training wall-clock: ``evaluated.png`` and ``evaluated.md`` (one row per evaluated checkpoint)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = [(label, evaluated_points(Path(d))) for d, label in zip(run_dirs, labels, strict=True)]
    lines = [
        "| run | iteration | transitions | training wall-clock [s] | " + " | ".join(EVALUATED) + " |",
        "|---" * (4 + len(EVALUATED)) + "|",
    ]
    for label, points in runs:
        for p in points:
            figures = " | ".join(f"{p[key]:.3f}" for key in EVALUATED.values())
            lines.append(f"| {label} | {p['iteration']} | {p['samples']:,} | {p['wall_clock_s']:.0f} | {figures} |")
    table_path = out_dir / "evaluated.md"
    table_path.write_text("\n".join(lines) + "\n")
    png_path = out_dir / "evaluated.png"
    axes_x = {"transitions collected": "samples", "training wall-clock [s]": "wall_clock_s"}
    with figure(png_path, dpi=90, nrows=len(EVALUATED), ncols=2, figsize=(10, 4 * len(EVALUATED))) as (_, axes):
        for row, (name, key) in enumerate(EVALUATED.items()):
            for col, (x_name, x_key) in enumerate(axes_x.items()):
                ax = axes[row][col]
                for label, points in runs:
                    ax.plot([p[x_key] for p in points], [p[key] for p in points], marker="o", label=label)
                ax.set_xlabel(x_name)
                ax.set_ylabel(name)
                ax.grid(alpha=0.3)
                ax.legend(fontsize=7)
    return table_path, png_path


def write_curves(
    run_dirs: list[str], labels: list[str] | None, out: str | None, evaluated: bool = False
) -> tuple[Path, Path]:
    """One run: its curves (:func:`export_curves`); several: their comparison by samples
    (:func:`compare_by_samples`, or with ``evaluated`` their evaluation grids by samples and wall-clock,
    :func:`compare_evaluated`), which needs ``out`` and one label per run (default 0, 1, ...)."""
    if out is not None:
        check_writable(Path(out), "--out")
    if len(run_dirs) == 1 and not evaluated:
        return export_curves(Path(run_dirs[0]), Path(out) if out else None)
    labels = labels or [str(i) for i in range(len(run_dirs))]
    if len(labels) != len(run_dirs):
        raise UsageError(f"--labels needs one label per run ({len(run_dirs)}), got {len(labels)}")
    if out is None:
        raise UsageError("--out is required when comparing runs")
    if evaluated:
        return compare_evaluated([Path(d) for d in run_dirs], labels, Path(out))
    return compare_by_samples([Path(d) for d in run_dirs], labels, Path(out))


def main(argv: list[str] | None = None) -> int:
    """``scripts/curves.py``: write one run's curves, or compare runs by samples; prints the files written. Exit
    code 2 for a usage error."""
    parser = argparse.ArgumentParser(
        description="Write curves.csv and curves.png (reward, episode length, termination causes, tracking error, "
        "reward terms)"
    )
    parser.add_argument("run_dir", nargs="+", help="A run folder, logs/rsl_rl/<experiment>/<run>; several compare.")
    parser.add_argument("--labels", nargs="+", help="One name per run, when comparing runs.")
    parser.add_argument("--out", default=None, help="Output folder (default for one run: the run folder).")
    evaluated = "Compare the runs' evaluation grids (scripts/evaluate.py --run) by samples and by training wall-clock."
    parser.add_argument("--evaluated", action="store_true", help=evaluated)
    args = parser.parse_args(argv)

    def write() -> int:
        for path in write_curves(args.run_dir, args.labels, args.out, args.evaluated):
            print(path)
        return 0

    return exit_on_usage_error(write)

"""Side-by-side throughput of this package's Go2 tasks and Isaac Lab's, measured by Isaac Lab's own benchmark
commands (``isaaclab benchmark runtime`` and ``isaaclab benchmark training --rl_library rsl_rl``).

Each measurement runs in a fresh process; ours and upstream alternate (their order flips at every size), so
slow drifts of the machine hit both. Reports are paired and every figure gets the ratio ours / upstream.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..catalog import GO2_FLAT, GO2_ROUGH
from ..plotting import figure
from ..versions import package_versions
from . import registration

RECORDED_PACKAGES = (
    "go2_locomotion",
    "isaaclab",
    "rsl-rl-lib",
    "torch",
    "newton",
    "warp-lang",
    "mujoco-warp",
    "ovphysx",
)
"""Distributions whose versions a benchmark result records."""

PAIRS = {
    "flat": (GO2_FLAT.id, "Go2-Upstream-Flat-Offline"),
    "rough": (GO2_ROUGH.id, "Go2-Upstream-Rough-Offline"),
}
"""Task pairs: name -> (ours, upstream comparator)."""

STARTUP_METRICS = ("Scene Creation Time", "Simulation Start Time")
"""Startup phases that make up environment creation [ms]."""
RUNTIME_METRICS = {"env_steps_per_s": "Mean Total FPS", "iteration_time_ms": "Mean Iteration Time"}
TRAINING_METRICS = {"training_env_steps_per_s": "Mean Total FPS"}
"""Our figure name -> Isaac Lab benchmark measurement name."""
HIGHER_IS_BETTER = {"env_steps_per_s", "training_env_steps_per_s"}


def parse_report(path: Path) -> dict[str, dict[str, float]]:
    """An Isaac Lab benchmark JSON report as ``{phase: {measurement: value}}``."""
    phases = {}
    for phase in json.loads(Path(path).read_text()):
        name = phase["phase_name"]
        prefix_len = None
        values = {}
        for m in phase.get("measurements", []):
            # names read "<workflow> <phase> <measurement>"
            parts = m["name"].split(" ", 2)
            prefix_len = len(parts)
            if prefix_len == 3 and isinstance(m["value"], (int, float, str)):
                try:
                    values[parts[2]] = float(m["value"])
                except ValueError:
                    continue  # a label, not a number
        for m in phase.get("metadata", []):
            parts = m["name"].split(" ", 2)
            if len(parts) == 3:
                values.setdefault(parts[2], m["data"])
        phases[name] = values
    return phases


def _find_metric(values: dict, name: str) -> float | None:
    """A measurement by name; Isaac Lab truncates long names, so a unique prefix match also counts."""
    if name in values:
        return values[name]
    matches = [v for k, v in values.items() if k.startswith(name) or name.startswith(k)]
    return matches[0] if len(matches) == 1 else None


@dataclass
class Measurement:
    task: str
    kind: str  # "runtime" or "training"
    num_envs: int
    figures: dict[str, float | None]
    report: str


MEASUREMENT_TIMEOUT_S = 1800.0
"""Default bound on one measurement's process [s]: the longest default measurement takes a few minutes on a 2-core
CPU; OvPhysX's step can hang on rough terrain (docs/performance.md), and a hung process is killed at the bound."""


class MeasurementStalled(RuntimeError):
    """A measurement's process gave no report within the bound and was killed."""


def run_isaaclab_benchmark(
    kind: str, task: str, num_envs: int, args: list[str], out_dir: Path, log, timeout_s: float = MEASUREMENT_TIMEOUT_S
) -> Path:
    """Run ``isaaclab benchmark <kind>`` in a new process, killed after ``timeout_s`` seconds (0: no bound); return
    its JSON report.

    Raises:
        MeasurementStalled: The process ran past the bound.
        RuntimeError: The process failed or wrote no report.
    """
    report_dir = Path(tempfile.mkdtemp(prefix=f"{kind}_{task}_{num_envs}_", dir=out_dir))
    command = [
        sys.executable,
        "-m",
        "isaaclab",
        "benchmark",
        kind,
        "--task",
        task,
        "--num_envs",
        str(num_envs),
        "--output_path",
        str(report_dir),
        "--benchmark_formatter",
        "json",
        *args,
    ]
    log(f"$ {' '.join(command)}")
    environment = {**os.environ, registration.ENV_VAR: "1"}  # registers the Go2-Upstream-* comparators
    try:
        result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=timeout_s or None)
    except subprocess.TimeoutExpired as expired:
        (report_dir / "output.log").write_text(_text(expired.stdout) + _text(expired.stderr))
        raise MeasurementStalled(
            f"isaaclab benchmark {kind} --task {task} stalled: no report in {timeout_s:g} s (--stall_timeout), "
            f"killed; see {report_dir / 'output.log'}"
        ) from None
    (report_dir / "output.log").write_text(result.stdout + result.stderr)
    reports = sorted(report_dir.glob("*.json"))
    if result.returncode != 0 or not reports:
        raise RuntimeError(
            f"isaaclab benchmark {kind} --task {task} failed (exit {result.returncode}); "
            f"see {report_dir / 'output.log'}"
        )
    return reports[-1]


def _text(output: bytes | str | None) -> str:
    return output.decode(errors="replace") if isinstance(output, bytes) else output or ""


def measure(
    kind: str, task: str, num_envs: int, args: list[str], out_dir: Path, log, timeout_s: float = MEASUREMENT_TIMEOUT_S
) -> Measurement:
    report = run_isaaclab_benchmark(kind, task, num_envs, args, out_dir, log, timeout_s=timeout_s)
    phases = parse_report(report)
    startup = phases.get("startup", {})
    creation = [_find_metric(startup, name) for name in STARTUP_METRICS]
    figures = {"env_creation_s": sum(creation) / 1000 if None not in creation else None}
    runtime = phases.get("runtime", {})
    for ours, theirs in (RUNTIME_METRICS if kind == "runtime" else TRAINING_METRICS).items():
        figures[ours] = _find_metric(runtime, theirs)
    if kind == "training":
        # an iteration = collection (steps / collection FPS) + learning (the rest)
        iteration_ms = _find_metric(runtime, "Mean Iteration Time")
        steps = _find_metric(runtime, "Steps per Iteration")
        collection_fps = _find_metric(runtime, "Mean Collection FPS")
        if None not in (iteration_ms, steps, collection_fps) and collection_fps > 0:
            figures["iteration_time_s"] = iteration_ms / 1000
            figures["collection_time_s"] = steps / collection_fps
            figures["learning_time_s"] = iteration_ms / 1000 - steps / collection_fps
    return Measurement(task, kind, num_envs, figures, str(report))


def median_figures(measurements: list[Measurement]) -> dict[str, float | None]:
    """Per figure, the median over repeated measurements (None if any repeat lacks it)."""
    keys = measurements[0].figures.keys()
    medians = {}
    for key in keys:
        values = [m.figures.get(key) for m in measurements]
        medians[key] = None if None in values else statistics.median(values)
    return medians


def ratio(ours: float | None, upstream: float | None) -> float | None:
    return ours / upstream if ours is not None and upstream else None


def compare(
    pairs: list[str],
    num_envs: list[int],
    num_steps: int,
    training_envs: int | None,
    training_iterations: int,
    device: str,
    preset_args: list[str],
    out_dir: Path,
    log=print,
    repeats: int = 1,
    timeout_s: float = MEASUREMENT_TIMEOUT_S,
) -> dict:
    """Measure every pair at every size ``repeats`` times; return the medians, their ratios, every sample, the
    machine and the versions."""
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for pair in pairs:
        ours_task, upstream_task = PAIRS[pair]
        jobs = [("runtime", n, ["--num_steps", str(num_steps), "--device", device, *preset_args]) for n in num_envs]
        if training_iterations > 0 and training_envs:
            # Isaac Lab's RSL-RL configs default the learner to cuda:0; keep it on the simulation device
            training_args = ["--rl_library", "rsl_rl", "--max_iterations", str(training_iterations)]
            training_args += ["--device", device, f"agent.device={device}", *preset_args]
            jobs.append(("training", training_envs, training_args))
        for index, (kind, n, args) in enumerate(jobs):
            samples = {ours_task: [], upstream_task: []}
            try:
                for repeat in range(repeats):
                    # alternate who goes first, across sizes and across repeats
                    first_ours = (index + repeat) % 2 == 0
                    for task in [ours_task, upstream_task] if first_ours else [upstream_task, ours_task]:
                        samples[task].append(measure(kind, task, n, args, out_dir, log, timeout_s))
            except RuntimeError as error:  # one failed measurement must not lose the others
                log(f"FAILED: {error}")
                row = {"pair": pair, "kind": kind, "num_envs": n, "error": str(error)}
                rows.append(row | ({"stalled": True} if isinstance(error, MeasurementStalled) else {}))
                continue
            ours, upstream = median_figures(samples[ours_task]), median_figures(samples[upstream_task])
            rows.append(
                {
                    "pair": pair,
                    "kind": kind,
                    "num_envs": n,
                    "repeats": repeats,
                    "ours": ours,
                    "upstream": upstream,
                    "ratio": {k: ratio(ours[k], upstream.get(k)) for k in ours},
                    "samples": {
                        "ours": [m.figures for m in samples[ours_task]],
                        "upstream": [m.figures for m in samples[upstream_task]],
                    },
                }
            )
            log(format_row(rows[-1]))
    return {
        "date": datetime.now().isoformat(timespec="seconds"),
        "device": device,
        "presets": preset_args,
        "machine": {"platform": platform.platform(), "processor": platform.processor(), "cpus": _cpu_count()},
        "versions": package_versions(*RECORDED_PACKAGES),
        "num_steps": num_steps,
        "repeats": repeats,
        "rows": rows,
        "note": "ratio = ours / upstream; above 1 is better for env_steps_per_s, below 1 for times",
    }


@dataclass(frozen=True)
class TrainingSetup:
    """One side of a training-throughput comparison: a task, its env count and its preset selectors."""

    name: str
    task: str
    num_envs: int
    presets: tuple[str, ...] = ()


def cpu_recipe_setups(baseline_envs: int = 64) -> list[TrainingSetup]:
    """The CPU training recipe against today's default and upstream's task with upstream's defaults, both at
    ``baseline_envs`` (Newton / MuJoCo-Warp: the default physics of both)."""
    from ..tasks.velocity_env_cfg import CPU_RECIPE_NUM_ENVS  # Isaac Lab's configs: the driver imports none else

    ours, upstream = PAIRS["flat"]
    return [
        TrainingSetup("cpu_recipe", ours, CPU_RECIPE_NUM_ENVS, ("presets=cpu",)),
        TrainingSetup("ours_default", ours, baseline_envs),
        TrainingSetup("upstream_default", upstream, baseline_envs),
    ]


def compare_training(
    setups: list[TrainingSetup],
    iterations: int,
    device: str,
    out_dir: Path,
    log=print,
    repeats: int = 1,
    timeout_s: float = MEASUREMENT_TIMEOUT_S,
) -> dict:
    """Training throughput (collection + learning over whole iterations) of each setup, measured by
    ``isaaclab benchmark training``, the setups in rotating order at every repeat so machine drift hits all;
    medians, and every setup's ratio to the others."""
    out_dir.mkdir(parents=True, exist_ok=True)
    samples: dict[str, list[Measurement]] = {s.name: [] for s in setups}
    errors: dict[str, str] = {}
    stalled: list[str] = []
    for repeat in range(repeats):
        order = setups[repeat % len(setups) :] + setups[: repeat % len(setups)]
        for setup in order:
            if setup.name in errors:
                continue
            args = ["--rl_library", "rsl_rl", "--max_iterations", str(iterations), "--device", device]
            args += [f"agent.device={device}", *setup.presets]
            try:
                samples[setup.name].append(
                    measure("training", setup.task, setup.num_envs, args, out_dir, log, timeout_s)
                )
            except RuntimeError as error:
                log(f"FAILED: {error}")
                errors[setup.name] = str(error)
                stalled += [setup.name] if isinstance(error, MeasurementStalled) else []
    medians = {name: median_figures(ms) for name, ms in samples.items() if ms}
    throughput = {name: m.get("training_env_steps_per_s") for name, m in medians.items()}
    ratios = {f"{a}/{b}": ratio(throughput[a], throughput[b]) for a in throughput for b in throughput if a != b}
    return {
        "date": datetime.now().isoformat(timespec="seconds"),
        "device": device,
        "iterations": iterations,
        "repeats": repeats,
        "setups": [vars(s) | {"presets": list(s.presets)} for s in setups],
        "medians": medians,
        "samples": {name: [m.figures for m in ms] for name, ms in samples.items()},
        "ratios": ratios,
        "errors": errors,
        "stalled": stalled,
        "machine": {"platform": platform.platform(), "processor": platform.processor(), "cpus": _cpu_count()},
        "versions": package_versions(*RECORDED_PACKAGES),
        "note": "training_env_steps_per_s = envs x steps per iteration / (collection + learning time)",
    }


def stalled_measurements(result: dict) -> int:
    """How many measurements of a :func:`compare` or :func:`compare_training` result were killed at the bound."""
    return len(result.get("stalled", [])) + sum(1 for row in result.get("rows", []) if row.get("stalled"))


def format_training(result: dict) -> str:
    """One line per setup, then the ratios of the first setup to the others."""
    lines = []
    for setup in result["setups"]:
        name = setup["name"]
        figures = result["medians"].get(name)
        presets = " ".join(setup["presets"])
        head = f"{name:16s} {setup['task']} N={setup['num_envs']} {presets}".rstrip()
        if figures is None:
            lines.append(f"{head}: FAILED {result['errors'].get(name, '')}")
            continue
        lines.append(
            f"{head}: {figures['training_env_steps_per_s']:.0f} env-steps/s "
            f"(iteration {figures.get('iteration_time_s') or float('nan'):.2f} s)"
        )
    first = result["setups"][0]["name"]
    for key, value in result["ratios"].items():
        if key.startswith(f"{first}/") and value is not None:
            lines.append(f"ratio {key}: {value:.2f}x")
    return "\n".join(lines)


def _cpu_count() -> int | None:
    return os.cpu_count()


def format_row(row: dict) -> str:
    if "error" in row:
        return f"{row['pair']:5s} {row['kind']:8s} N={row['num_envs']:<5d} FAILED: {row['error']}"
    parts = []
    for key, value in row["ours"].items():
        theirs, r = row["upstream"].get(key), row["ratio"].get(key)
        if value is None:
            continue
        parts.append(f"{key} {value:.3g} vs {theirs:.3g} ({r:.2f}x)" if r else f"{key} {value:.3g}")
    return f"{row['pair']:5s} {row['kind']:8s} N={row['num_envs']:<5d} " + "; ".join(parts)


def plot(result: dict, path: Path) -> None:
    """env-steps/s against num_envs, ours and upstream, one panel per pair."""
    pairs = sorted({row["pair"] for row in result["rows"]})
    with figure(path, dpi=90, nrows=1, ncols=len(pairs), figsize=(5 * len(pairs), 4), squeeze=False) as (_, axes):
        for ax, pair in zip(axes[0], pairs, strict=True):
            rows = [r for r in result["rows"] if r["pair"] == pair and r["kind"] == "runtime" and "error" not in r]
            sizes = [r["num_envs"] for r in rows]
            for side in ("ours", "upstream"):
                ax.plot(sizes, [r[side]["env_steps_per_s"] for r in rows], marker="o", label=side)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("num_envs")
            ax.set_ylabel("env-steps/s (random actions)")
            ax.set_title(f"{pair} ({result['device']})")
            ax.grid(alpha=0.3)
            ax.legend()

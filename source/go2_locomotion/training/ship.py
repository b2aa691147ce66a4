"""Make a trained checkpoint the shipped pretrained policy of its task (a maintainer's command, run from the
repository root):

    python -m go2_locomotion.training.ship --task Go2-Flat --checkpoint logs/rsl_rl/go2_flat/<run>/model_<it>.pt

Copies the checkpoint and its run's ``params/`` into the task's pretrained folder (replacing the previous ones; the
terrain it trained on sets its default terrain grid), writes ``provenance.json``
(the run's command line as recorded by Isaac Lab's run manifest and the resolved configs, seed, commit, wall-clock
and samples from ``run_summary.json``), then runs, in new processes, the same commands a user runs: the export
(``exported/``), the evaluation in Isaac Lab on both physics backends and in MuJoCo (``evaluation/``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import torch

from .. import run_params
from ..catalog import TRAINING_TASKS
from ..errors import STALLED_EXIT_CODE, UsageError, exit_on_usage_error
from ..pretrained import FOLDER, FOLDERS, KEYWORD, POLICIES
from . import curves, warm_start

SCRIPTS = Path("scripts")
"""The user-facing scripts, relative to the repository root."""

EVALUATIONS = {
    # report folder -> extra arguments of scripts/evaluate.py
    "isaaclab_newton": ["physics=newton_mjwarp"],
    "isaaclab_physx": ["physics=physx"],
}
"""The Isaac Lab evaluations shipped with every policy: the default command grid on each physics backend."""

TERRAIN_EVALUATIONS = {
    "terrain_newton": ["--terrain", "default", "physics=newton_mjwarp"],
    "terrain_physx": ["--terrain", "default", "physics=physx"],
}
"""Shipped with a policy of a task with generated terrain (Go2-Rough): the default terrain grid on each backend (and
in MuJoCo from the bundle, ``evaluation/mujoco_terrain``)."""

TERRAIN_TASKS = tuple(task.id for task in TRAINING_TASKS.values() if task.terrain)
"""Tasks with generated terrain: their shipped policy gets :data:`TERRAIN_EVALUATIONS` too."""

MUJOCO_TASKS = tuple(TRAINING_TASKS)
"""Tasks whose shipped policy is also evaluated in plain MuJoCo (the command grid on a plane, ``evaluation/mujoco``;
for Go2-Rough its level ground)."""


def evaluations(task: str) -> dict[str, list[str]]:
    """Report folder -> extra arguments of scripts/evaluate.py, for the shipped policy of ``task``."""
    return {**EVALUATIONS, **(TERRAIN_EVALUATIONS if task in TERRAIN_TASKS else {})}


TERRAIN_LEVEL_TAG = "Curriculum/terrain_levels"
"""Isaac Lab's terrain curriculum term as RSL-RL logs it: the mean terrain level of the robots."""


def terrain_level_record(run: Path, every: int = 10) -> dict | None:
    """The run's mean terrain level: its last value and the curve at every ``every``-th iteration, or ``None`` for
    a run without a terrain curriculum (or without TensorBoard events)."""
    if not list(run.glob("events.out.tfevents.*")):
        return None
    levels = curves.read_scalars(run).get(TERRAIN_LEVEL_TAG)
    if not levels:
        return None
    last = max(levels)
    return {
        "tag": TERRAIN_LEVEL_TAG,
        "last_iteration": last,
        "last": round(levels[last], 4),
        "by_iteration": {str(it): round(v, 4) for it, v in sorted(levels.items()) if it % every == 0},
    }


def provenance(run: Path, checkpoint_path: Path, command: str | None = None, earlier: tuple[Path, ...] = ()) -> dict:
    """What produced a checkpoint: its run's summary, resolved agent settings and manifest. ``earlier``: summaries of
    the same run's earlier attempts in another folder (a run continued on a new machine from a committed checkpoint
    starts a new run folder); their attempts come first and their wall-clock counts."""
    summary = json.loads((run / "run_summary.json").read_text()) if (run / "run_summary.json").is_file() else {}
    if earlier:
        summary = with_earlier_attempts(summary, [json.loads(Path(path).read_text()) for path in earlier])
    agent = run_params.load(run / "params" / "agent.yaml")
    manifest = json.loads((run / "run.json").read_text()) if (run / "run.json").is_file() else {}
    data = torch_load(checkpoint_path)
    if summary.get("attempts") and summary.get("last_iteration", -1) > data["iter"]:
        # a checkpoint from the middle of the run: its lineage ends there
        summary = _cut_at(summary, data["iter"], f"came after this checkpoint (iteration {data['iter']})")
    return {
        "task": summary.get("task"),
        "checkpoint": checkpoint_path.name,
        "iteration": data["iter"],
        "run": run.name,
        "command": command or [a.get("command") for a in summary.get("attempts", [])],
        "seed": agent.get("seed"),
        "package_commit": summary.get("package_commit"),
        "versions": summary.get("versions"),
        "device": summary.get("device"),
        "physics": summary.get("physics"),
        "num_envs_per_rank": summary.get("num_envs_per_rank"),
        "world_size": summary.get("world_size"),
        "samples_per_iteration": summary.get("samples_per_iteration_global"),
        "samples_to_this_checkpoint": (data["iter"] + 1) * summary.get("samples_per_iteration_global", 0),
        "wall_clock_s_whole_run": summary.get("wall_clock_s"),
        "attempts": summary.get("attempts"),
        "terrain_level": terrain_level_record(run),
        "run_manifest": manifest,
    }


def with_earlier_attempts(summary: dict, earlier: list[dict]) -> dict:
    """``summary`` with the attempts of ``earlier`` summaries of the same run before its own, in iteration order, and
    its wall-clock the sum over all of them. Each earlier summary must end where the next one starts, or the next
    must have branched off it: its first attempt loaded the earlier run's checkpoint of the iteration before it
    (``model_<first - 1>.pt``), and the earlier attempts are cut there (:func:`_cut_at`). A gap, an unproven overlap
    or another task is refused by name."""
    chain = sorted([*earlier, summary], key=lambda s: s.get("first_iteration") or 0)
    for i, (before, after) in enumerate(zip(chain, chain[1:], strict=False)):
        start, end = after.get("first_iteration"), before.get("last_iteration", -2)
        chained = before.get("task") == after.get("task") and start is not None
        if (
            chained
            and end + 1 > start
            and _branched_at(after) == start - 1
            and before.get("first_iteration", 0) < start
        ):
            chain[i] = before = _cut_at(
                before, start - 1, f"went on past the branch (a later run started from {start - 1})"
            )
        elif not chained or end + 1 != start:
            raise UsageError(
                "--earlier_summary: the run summaries do not chain: "
                f"{before.get('task')} iterations {before.get('first_iteration')}-{before.get('last_iteration')} "
                f"then {after.get('task')} from {after.get('first_iteration')}"
            )
    attempts = [attempt for part in chain for attempt in part.get("attempts", [])]
    return {
        **summary,
        "first_iteration": chain[0].get("first_iteration"),
        "attempts": attempts,
        "wall_clock_s": round(sum(a["wall_clock_s"] for a in attempts), 3),
    }


def _branched_at(summary: dict) -> int | None:
    """The iteration of the checkpoint the run's first attempt loaded (``--checkpoint .../model_<N>.pt``), or
    ``None``."""
    attempts = summary.get("attempts") or [{}]
    match = re.search(r"--checkpoint\s+\S*model_(\d+)\.pt", attempts[0].get("command") or "")
    return int(match.group(1)) if match else None


def _cut_at(summary: dict, last: int, why: str) -> dict:
    """``summary`` up to iteration ``last``: attempts after it dropped, the one across it cut, its wall-clock (and
    iteration and sample counts) prorated by iterations and marked with ``why`` the later iterations do not count."""
    attempts = []
    for attempt in summary.get("attempts", []):
        first, end = attempt["first_iteration"], attempt["last_iteration"]
        if first > last:
            continue
        if end > last:
            share = (last - first + 1) / (end - first + 1)
            attempt = {
                **attempt,
                "last_iteration": last,
                "wall_clock_s": round(attempt["wall_clock_s"] * share, 3),
                **{key: round(attempt[key] * share) for key in ("iterations_completed", "samples") if key in attempt},
                "wall_clock_prorated": f"{share:.3f} of the attempt's {attempt['wall_clock_s']} s: iterations "
                f"{last + 1}-{end} {why}",
            }
        attempts.append(attempt)
    return {
        **summary,
        "last_iteration": last,
        "attempts": attempts,
        "wall_clock_s": round(sum(a["wall_clock_s"] for a in attempts), 3),
    }


def _shipped_record(folder: Path) -> dict:
    """The shipped policy a warm start began from: its checkpoint's name and SHA-256 and its provenance."""
    (shipped,) = folder.glob("model_*.pt")
    return {
        "checkpoint": shipped.name,
        "sha256": hashlib.sha256(shipped.read_bytes()).hexdigest(),
        "provenance": json.loads((folder / "provenance.json").read_text()),
    }


def _embedded_record(run: Path) -> dict | None:
    """A cross-task warm start (``train.py --warm_start``, its ``warm_start.json``): the source checkpoint's hash
    and task, with that task's shipped provenance when the source was the shipped policy."""
    path = run / warm_start.RECORD_FILE
    if not path.is_file():
        return None
    record = {"kind": "embedded", **json.loads(path.read_text())}
    source = POLICIES.get(record["source_task"])
    if source is not None and (FOLDER / source / "provenance.json").is_file():
        shipped = _shipped_record(FOLDER / source)
        if shipped["sha256"] == record["sha256"]:
            record["checkpoint"] = f"pretrained {record['source_task']} ({shipped['checkpoint']})"
            record["provenance"] = shipped["provenance"]
    return record


PACKAGE_PARENT = Path(__file__).resolve().parents[2]
"""The folder holding the ``go2_locomotion`` package on this machine: a path under it in a run's config (the ground
plane's USD) is recorded package-relative when shipped."""


def copy_params(run: Path, target: Path) -> None:
    """The run's resolved configs (``params/``) into the shipped policy's folder, replacing the previous ones: the
    terrain it trained on sets its default terrain grid. Isaac Lab's top-level ``log_dir`` (the run folder on the
    training machine) is left out and a path into the package is written package-relative (``go2_locomotion/...``);
    the rest is the dump as written."""
    params = target / run_params.PARAMS_ENV.parent
    shutil.rmtree(params, ignore_errors=True)
    if not (run / run_params.PARAMS_ENV.parent).is_dir():
        return
    params.mkdir()
    for source in sorted((run / run_params.PARAMS_ENV.parent).glob("*.yaml")):
        lines = source.read_text().splitlines(keepends=True)
        text = "".join(line for line in lines if not line.startswith("log_dir:"))
        (params / source.name).write_text(text.replace(f"{PACKAGE_PARENT}/", ""))


def torch_load(path: Path) -> dict:
    return torch.load(path, map_location="cpu", weights_only=True)


def run_script(*command: str) -> None:
    """Run a script; a hung simulation step in it (exit 75, the script named the hang) ends shipping the same way."""
    print("[ship]", " ".join(command), flush=True)
    code = subprocess.run([sys.executable, *command]).returncode
    if code == STALLED_EXIT_CODE:
        print(f"[ship] {Path(command[0]).name} stalled (exit {code}); rerun the same command", flush=True)
        raise SystemExit(code)
    if code:
        raise subprocess.CalledProcessError(code, command)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Ship a checkpoint as the task's pretrained policy.")
    parser.add_argument("--task", required=True, choices=sorted(FOLDERS))
    parser.add_argument("--checkpoint", type=Path, required=True, help="model_<it>.pt of a training run folder")
    parser.add_argument("--skip_evaluation", action="store_true", help="Copy and export only.")
    parser.add_argument("--command", default=None, help="The training command, if run_summary.json lacks it.")
    parser.add_argument(
        "--wall_clock_s",
        type=float,
        default=None,
        help="The run's wall-clock in seconds, when run_summary.json lacks attempts (a run killed with SIGKILL, e.g. "
        "by a supervisor, writes no summary); recorded as given.",
    )
    parser.add_argument(
        "--earlier_summary",
        type=Path,
        action="append",
        default=[],
        help="run_summary.json of the same run's earlier iterations, recorded in another folder (the run continued on "
        "a new machine from a committed checkpoint, or branched off one of its checkpoints); repeatable. Their "
        "attempts and wall-clock go into provenance, cut at the branch.",
    )
    parser.add_argument(
        "--warm_start",
        action="store_true",
        help="The run resumed from the task's own shipped policy (train.py --checkpoint pretrained --resume): the "
        "shipped policy's provenance and checkpoint hash go into the new provenance as 'warm_start'. A run started "
        "with train.py --warm_start (another task's policy) is recorded from its warm_start.json without this flag.",
    )
    args = parser.parse_args(argv)
    return exit_on_usage_error(lambda: ship(args))


def ship(args) -> int:
    """Ship ``args.checkpoint`` as ``args.task``'s pretrained policy (see the module)."""
    source = args.checkpoint.absolute()
    target = FOLDER / FOLDERS[args.task]
    target.mkdir(parents=True, exist_ok=True)
    warm_start = {"kind": "resumed", **_shipped_record(target)} if args.warm_start else _embedded_record(source.parent)
    # the provenance first: a summary that does not chain is refused before anything is replaced
    record = provenance(source.parent, source, args.command, tuple(args.earlier_summary))
    for old in target.glob("model_*.pt"):
        old.unlink()
    shutil.copy2(source, target / source.name)
    copy_params(source.parent, target)
    if args.wall_clock_s is not None:
        record["wall_clock_s_from_summary"] = record["wall_clock_s_whole_run"]
        record["wall_clock_s_whole_run"] = args.wall_clock_s
        record["wall_clock_source"] = "given to the ship command: attempts killed with SIGKILL wrote no summary"
    if warm_start is not None:
        record["warm_start"] = warm_start
        earlier = warm_start.get("provenance")
        if earlier is not None:  # the policy it started from was shipped: its time counts too
            record["wall_clock_s_including_warm_start"] = (record["wall_clock_s_whole_run"] or 0.0) + (
                earlier.get("wall_clock_s_including_warm_start") or earlier["wall_clock_s_whole_run"]
            )
    (target / "provenance.json").write_text(json.dumps(record, indent=2) + "\n")
    # the shipped checkpoint is the only one in the folder (POLICIES was read at import: a first ship is not in it)
    assert [p.name for p in target.glob("model_*.pt")] == [source.name]

    common = ["--task", args.task, "--checkpoint", KEYWORD, "--device", "cpu", "--headless"]
    run_script(str(SCRIPTS / "export.py"), *common, "--output", str(target / "exported"))
    if not args.skip_evaluation:
        for name, extra in evaluations(args.task).items():
            run_script(str(SCRIPTS / "evaluate.py"), *common, "--out", str(target / "evaluation" / name), *extra)
    if not args.skip_evaluation and args.task in MUJOCO_TASKS:
        run_script(
            str(SCRIPTS / "sim2sim.py"),
            "--bundle",
            KEYWORD,
            "--task",
            args.task,
            "--grid",
            "default",
            "--output",
            str(target / "evaluation" / "mujoco"),
        )
    if not args.skip_evaluation and args.task in TERRAIN_TASKS:
        terrain_grid = ["--bundle", KEYWORD, "--task", args.task, "--terrain", "default"]
        run_script(
            str(SCRIPTS / "sim2sim.py"), *terrain_grid, "--output", str(target / "evaluation" / "mujoco_terrain")
        )
    print(f"[ship] {args.task}: {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

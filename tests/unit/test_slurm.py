"""The SLURM templates' shell logic (``scripts/slurm``), run by bash with ``SLURM_*`` variables set and stub
``torchrun`` / ``srun`` / ``scontrol`` commands on PATH that record how they were called. The stub torchrun starts
two "ranks" (shell processes) that run until told to stop by SIGUSR1 or until a release file appears; no scheduler
and no training are involved (tests/unit/test_runner.py covers what a real rank does with the signal)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
SLURM = REPO / "scripts" / "slurm"

STUB_TORCHRUN = r"""#!/usr/bin/env bash
echo "torchrun $*" >> "$STUB_LOG"
ranks=1
for arg in "$@"; do case $arg in --nproc_per_node=*) ranks=${arg#*=};; esac; done
for ((r = 0; r < ranks; r++)); do
    bash -c '
        trap "echo \"rank $0 USR1\" >> \"$STUB_LOG\"; exit 0" USR1
        echo "rank $0 started cache=$GO2_LOCOMOTION_CACHE_DIR warp=$WARP_CACHE_PATH" >> "$STUB_LOG"
        while [ ! -e "$STUB_RELEASE" ]; do sleep 0.05; done
        echo "rank $0 finished" >> "$STUB_LOG"
    ' "$r" &
done
wait
"""

STUB_SRUN = r"""#!/usr/bin/env bash
# Like srun: run the task (options dropped) and forward signals to it.
echo "srun $*" >> "$STUB_LOG"
while [[ $1 == -* ]]; do shift; done
"$@" &
task=$!
trap 'kill -USR1 $task' USR1
trap 'kill -TERM $task' TERM
wait $task; status=$?
while kill -0 $task 2>/dev/null; do wait $task; status=$?; done
exit $status
"""

STUB_SCONTROL = r"""#!/usr/bin/env bash
echo "scontrol $*" >> "$STUB_LOG"
if [ "$1 $2" = "show hostnames" ]; then printf 'gpu-node-07\ngpu-node-08\n'; fi
"""


@pytest.fixture
def cluster(tmp_path):
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for name, text in {"torchrun": STUB_TORCHRUN, "srun": STUB_SRUN, "scontrol": STUB_SCONTROL}.items():
        (stubs / name).write_text(text)
        (stubs / name).chmod(0o755)
    env = {
        "PATH": f"{stubs}:{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "STUB_LOG": str(tmp_path / "calls.log"),
        "STUB_RELEASE": str(tmp_path / "release"),
        "SLURM_JOB_ID": "4242",
        "SLURM_SUBMIT_DIR": str(REPO),
        "SLURM_GPUS_ON_NODE": "2",
        "SLURM_NNODES": "2",
        "SLURM_JOB_NODELIST": "gpu-node-[07-08]",
        "SLURM_TMPDIR": str(tmp_path / "node_local"),
        "RANKS": "2",
    }
    return tmp_path, env


def _run(template: str, env: dict, tmp_path: Path, stop: signal.Signals | None):
    batch = subprocess.Popen(
        ["bash", str(SLURM / template), "--max_iterations", "1500"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    log = tmp_path / "calls.log"
    deadline = time.time() + 30
    while not log.exists() or log.read_text().count("started") < 2:
        assert batch.poll() is None, batch.communicate()[0]
        assert time.time() < deadline, "the ranks never started"
        time.sleep(0.05)
    if stop is None:
        (tmp_path / "release").touch()
    else:
        batch.send_signal(stop)
    output = batch.communicate(timeout=30)[0]
    return batch.returncode, output, log.read_text().splitlines()


TRAIN_ARGS = "--headless --distributed --run_name Go2-Rough_4242 --resume auto"


@pytest.mark.parametrize("stop", [signal.SIGUSR1, signal.SIGTERM])
def test_single_node_signal_reaches_every_rank_then_requeues(cluster, stop):
    tmp_path, env = cluster
    status, output, calls = _run("train_single_node.sbatch", env, tmp_path, stop)
    assert status == 0, output
    torchrun = [c for c in calls if c.startswith("torchrun ")]
    assert torchrun == [
        f"torchrun --standalone --nproc_per_node=2 scripts/train.py --task Go2-Rough {TRAIN_ARGS} --max_iterations 1500"
    ]
    assert sorted(c for c in calls if c.endswith("USR1")) == ["rank 0 USR1", "rank 1 USR1"]
    assert [c for c in calls if c.startswith("scontrol")] == ["scontrol requeue 4242"]
    assert f"SIG{stop.name[3:]}: training saved and stopped" in output
    # caches on node-local disk, per job
    node_local = tmp_path / "node_local" / "go2_4242"
    assert f"cache={node_local}/asset_cache warp={node_local}/warp_cache" in calls[1]


def test_single_node_that_finishes_is_not_requeued(cluster):
    tmp_path, env = cluster
    status, output, calls = _run("train_single_node.sbatch", env, tmp_path, None)
    assert status == 0, output
    assert sorted(c for c in calls if c.startswith("rank") and "finished" in c) == [
        "rank 0 finished",
        "rank 1 finished",
    ]
    assert not [c for c in calls if c.startswith("scontrol")]


def test_multi_node_rendezvous_on_the_first_node_and_signal_through_srun(cluster):
    tmp_path, env = cluster
    status, output, calls = _run("train_multi_node.sbatch", env, tmp_path, signal.SIGUSR1)
    assert status == 0, output
    assert calls[0] == "scontrol show hostnames gpu-node-[07-08]"
    srun = next(c for c in calls if c.startswith("srun "))
    assert srun.startswith("srun --kill-on-bad-exit=1 scripts/slurm/launch_ranks.sh torchrun --nnodes=2")
    torchrun = next(c for c in calls if c.startswith("torchrun "))
    assert "--rdzv_id=4242 --rdzv_backend=c10d --rdzv_endpoint=gpu-node-07:29500" in torchrun
    assert sorted(c for c in calls if c.endswith("USR1")) == ["rank 0 USR1", "rank 1 USR1"]
    assert calls[-1] == "scontrol requeue 4242"


def test_cpu_node_runs_cpu_ranks_with_the_recipe(cluster):
    tmp_path, env = cluster
    status, output, calls = _run("train_cpu.sbatch", env, tmp_path, signal.SIGUSR1)
    assert status == 0, output
    torchrun = next(c for c in calls if c.startswith("torchrun "))
    assert torchrun == (
        "torchrun --standalone --nproc_per_node=2 scripts/train.py --task Go2-Flat --device cpu --headless "
        "--distributed --num_envs 512 --run_name Go2-Flat_4242 --resume auto presets=cpu --max_iterations 1500"
    )
    assert calls[-1] == "scontrol requeue 4242"

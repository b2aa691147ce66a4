# shellcheck shell=bash
# Sourced by this folder's job templates: run a job step so that it survives the scheduler.
#
#   go2_run_requeueable COMMAND...
#
# Runs COMMAND in the background. When the batch shell gets SIGUSR1 (`#SBATCH --signal=B:USR1@<seconds>`, sent that
# long before the time limit) or SIGTERM (preemption), the signal goes on to COMMAND as SIGUSR1 -- srun forwards
# signals to its tasks, launch_ranks.sh to the training ranks -- so every rank saves after its current iteration
# and exits; then the job requeues itself with `scontrol requeue $SLURM_JOB_ID` and re-runs the very same command,
# which `scripts/train.py --resume auto --run_name NAME` continues. Returns COMMAND's exit status.

go2_run_requeueable() {
    GO2_STOP_SIGNAL=""
    "$@" &
    GO2_STEP_PID=$!
    trap 'GO2_STOP_SIGNAL=USR1; kill -USR1 "$GO2_STEP_PID" 2>/dev/null' USR1
    trap 'GO2_STOP_SIGNAL=TERM; kill -USR1 "$GO2_STEP_PID" 2>/dev/null' TERM
    local status
    go2_wait_for "$GO2_STEP_PID"
    status=$GO2_WAIT_STATUS
    trap - USR1 TERM
    if [ -n "$GO2_STOP_SIGNAL" ]; then
        echo "[go2] SIG$GO2_STOP_SIGNAL: training saved and stopped (exit $status); requeueing job $SLURM_JOB_ID"
        scontrol requeue "$SLURM_JOB_ID"
    fi
    return "$status"
}

# Wait for PID through any number of trapped signals; its exit status ends up in GO2_WAIT_STATUS.
go2_wait_for() {
    local pid=$1
    wait "$pid"
    GO2_WAIT_STATUS=$?
    while kill -0 "$pid" 2>/dev/null; do
        wait "$pid"
        GO2_WAIT_STATUS=$?
    done
}

# Node-local caches: the Go2 asset, Warp's kernels and PhysX's cooked colliders are built once per node and job,
# not read from (or written to) a shared file system by every rank.
go2_node_local_caches() {
    local base="${SLURM_TMPDIR:-${TMPDIR:-/tmp}}/go2_${SLURM_JOB_ID:-job}"
    export GO2_LOCOMOTION_CACHE_DIR="$base/asset_cache"
    export WARP_CACHE_PATH="$base/warp_cache"
    export TMPDIR="$base/tmp"
    mkdir -p "$GO2_LOCOMOTION_CACHE_DIR" "$WARP_CACHE_PATH" "$TMPDIR"
}

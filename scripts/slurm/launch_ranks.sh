#!/usr/bin/env bash
# One node's share of a training job: runs the torchrun command given as arguments and turns a SIGUSR1 or SIGTERM
# it receives (from the batch script, or from srun, which forwards signals to its tasks) into SIGUSR1 for every
# training rank that torchrun started. torchrun itself is not signalled: it would stop the ranks before they save.
# Each rank then saves after its current iteration (all at the same one) and exits; so does torchrun.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/requeue.sh"

"$@" &
launcher=$!
trap 'pkill -USR1 -P "$launcher"' USR1 TERM
go2_wait_for "$launcher"
exit "$GO2_WAIT_STATUS"

#!/usr/bin/env bash
# The two-core figures of docs/PERFORMANCE.md "erode2c" (issue 17): `strata bench erode --size
# 1024` with the Go reference (--cpu), with the evaluator it chooses by default and, once, with
# the GPU kernels forced (--gpu: lavapipe on this machine); then the live loop's dunes sample
# against the same sample with an aspect rule in its stack (`bench live --case sample|aspect`,
# the editor's viewport, 30 drag steps), alternating, RUNS times. Every run is timed with
# /usr/bin/time (wall, user, sys) and preceded by the load average and the UTC time, since the
# machine is shared: a quiet-machine estimate of a parallel run is (user + sys) / 2.
#   STRATA=./bin/strata BASE=/path/to/an/older/strata RUNS=2 bash scripts/erode-live-2core.sh
# BASE (optional) adds that build's `bench erode --size 1024 --cpu` beside each run.
set -u
S=${STRATA:-./bin/strata}
BASE=${BASE:-}
RUNS=${RUNS:-2}
t() {
	echo "## $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg): $*"
	/usr/bin/time -f "  time: wall %e s, user %U s, sys %S s" "$@" 2>&1 | grep -v '^preparing'
}
for r in $(seq "$RUNS"); do
	t "$S" bench erode --size 1024 --cpu
	if [ -n "$BASE" ]; then t "$BASE" bench erode --size 1024 --cpu; fi
	t "$S" bench erode --size 1024
	t "$S" bench live --case sample --frame 968x704 --steps 30
	t "$S" bench live --case aspect --frame 968x704 --steps 30
done
t "$S" bench erode --size 1024 --gpu
echo "## done $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# Issue 15 item 3 (progressive open) on the 2-core machine: strata bench open of the same DEM at
# 1024² and 8192² (scripts/dem.sh makes them) by two builds, alternating build by build and size
# by size, RUNS times, so both builds meet the same load; one line a run: the load before it, the
# first and settled frames, the open's steps and the process's CPU time.
# Usage: BASE=/tmp/strata-main NEW=./bin/strata DEM=/tmp/dem RUNS=3 bash scripts/open-ab.sh
set -u
D=${DEM:-/tmp/dem}
runs=${RUNS:-3}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= runs; r++)); do
	for build in BASE NEW; do
		S=${!build}
		for n in 1024 8192; do
			l=$(cut -d' ' -f1 /proc/loadavg)
			out=$(/usr/bin/time -f "cpu %U+%S s, wall %e s" "$S" bench open "$D/dem$n.png" --frame 968x704 --steps 0 2>&1)
			first=$(echo "$out" | grep "first frame" | awk '{print $5}')
			settled=$(echo "$out" | grep "settled view" | awk '{print $5}')
			steps=$(echo "$out" | grep "open's steps" | sed 's/.*steps *//')
			echo "run $r $build ${n}² load $l: first $first ms, settled $settled ms | $steps | $(echo "$out" | grep '^cpu')"
		done
	done
done

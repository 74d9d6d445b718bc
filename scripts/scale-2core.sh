#!/usr/bin/env bash
# Issue 15 on the 2-core machine: strata bench open of the same DEM at 1024² and 8192² (PNG16,
# the topobathy sample resized with ImageMagick: scripts/dem.sh makes them), RUNS times each,
# alternating, so the 8192²/1024² ratios of the first frame and of a stack edit come from one
# run; then the small cases: bench live of the dunes sample at the editor's viewport (968×704).
# Usage: STRATA=./bin/strata DEM=/tmp/dem RUNS=3 bash scripts/scale-2core.sh
set -u
S=${STRATA:-./bin/strata}
D=${DEM:-/tmp/dem}
runs=${RUNS:-3}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= runs; r++)); do
	for n in 1024 8192; do
		echo "## run $r, ${n}²"
		/usr/bin/time -f "  max RSS %M kB, wall %e s" "$S" bench open "$D/dem$n.png" --frame 968x704 --steps 20 2>&1 | grep -v '^strata bench:'
	done
done
echo "## the dunes sample, bench live --size 256 --frame 968x704 --steps 30"
"$S" bench live --size 256 --frame 968x704 --steps 30 2>&1 | sed -n '/live sample/,/device memory/p'
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/bin/bash
# Times the editor's start: runs STRATA (default: ./strata) on the sample under the X display
# DISPLAY (default :99, e.g. `Xvfb :99 -screen 0 1600x1000x24 &`) RUNS times (default 5) and
# prints, per run, the editor's "first frame after N ms" line (the sample evaluated and drawn) and
# its "settled version 1" line (STRATA_TRACE=frames; docs/editor.md). See docs/PERFORMANCE.md.
set -u
bin=${STRATA:-./strata}
runs=${RUNS:-5}
export DISPLAY=${DISPLAY:-:99}
for ((r = 1; r <= runs; r++)); do
	home=$(mktemp -d)
	(cd "$home" && HOME=$home LANGUAGE=en STRATA_TRACE=frames exec timeout 120 "$bin" 2>"$home/err") &
	pid=$!
	for ((i = 0; i < 1200; i++)); do
		grep -q "settled version 1" "$home/err" 2>/dev/null && break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "run $r: $(grep -h "first frame\|settled version 1\|strata:" "$home/err" | tr '\n' ' ')"
	rm -rf "$home"
done

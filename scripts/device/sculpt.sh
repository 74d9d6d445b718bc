#!/usr/bin/env bash
# Issue 16 on the H200: sculpt strokes through the editor's session at production scale —
# strata bench sculpt --size 4096 (stress16: the stress stack's 8 layers, 16 rules and its
# populations over a 4096² dunes field; and the sample's stack) on the GPU evaluator, then the
# Go reference for comparison, then the session and bake tests of this work on the real device.
# Target: stress16 dab → final frame p95 ≤ 16 ms (the touched tiles' weights and instances
# placed in the same frame).
#
# Run from the repository root on the device machine; carry .gl and .device/sculpt:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
# .device/sculpt/bins.tar.xz holds strata and the test binaries, built here with
#   go build -ldflags='-s -w' -o strata .
#   go test -c -ldflags='-s -w' -o P.test ./P/   (P = session, bake)
# Figures go to stdout and $OUT/sculpt.txt; the sculpted stress16 landscape is validated and
# removed.
set -uo pipefail
B=/tmp/sculptbins
mkdir -p $B
if ! tar -xJf .device/sculpt/bins.tar.xz -C $B 2>/dev/null; then
  python3 -c "import lzma,tarfile; tarfile.open(fileobj=lzma.open('.device/sculpt/bins.tar.xz')).extractall('$B')"
fi
chmod +x $B/*
S=$B/strata
OUT=${OUT:-/tmp}
exec > >(tee "$OUT/sculpt.txt") 2>&1

step() { echo; echo "### $* ($(date -u +%H:%M:%S) UTC)"; }
step "machine"
nproc; free -g | head -2; uname -r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.used --format=csv 2>/dev/null || true

T=$(mktemp -d /tmp/sculpt.XXXXXX)
step "bench sculpt --size 4096 --strokes 12 (GPU evaluator where it is the faster), 968x704, saved"
/usr/bin/time -v $S bench sculpt --size 4096 --strokes 12 --out $T/s.terrainData 2>&1 | grep -Ev '^\s+(Average|Exit|Page size|Signals|Swaps|Socket|File system|Involuntary|Voluntary|Minor|Major|Percent|System time|User time)'
/usr/bin/time -f "validate: %e s, %M kB" $S validate $T/s.terrainData 2>&1 | tail -2
rm -rf $T

step "bench sculpt --size 4096 --frame 1280x720 --case stress16"
$S bench sculpt --size 4096 --strokes 12 --frame 1280x720 --case stress16 2>&1

step "bench sculpt --size 4096 --cpu --case stress16 (the Go reference, for comparison)"
timeout ${CPU_TIMEOUT:-300} $S bench sculpt --size 4096 --strokes 6 --cpu --case stress16 2>&1

step "GPU tests of this work"
(cd session && timeout 200 $B/session.test -test.count=1 -test.run 'TestSculpt|TestPaint|TestGPU' 2>&1 | tail -15)
(cd bake && timeout 100 $B/bake.test -test.count=1 -test.run 'TestSlopes' 2>&1 | tail -5)

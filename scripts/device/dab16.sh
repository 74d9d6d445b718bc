#!/usr/bin/env bash
# Issue 16 on the H200, a dab's path (branch dab16): strata bench sculpt --size 4096 for stress16
# (the target: dab → final frame p95 ≤ 16 ms) and the sample, with each dab's work part by part
# (the passes, the frames, the device's submissions and waits) and a CPU profile of the stress16
# run; then the scatter and sculpt tests of gpu and session on the real device.
#
# Run from the repository root on the device machine; carry .gl and .device/dab16:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
#   bash .device/dab16/run.sh        (a copy of this script)
# .device/dab16/bins.tar.xz holds strata, gpu.test and session.test, built here with
#   go build -ldflags='-s -w' -o strata .
#   go test -c -ldflags='-s -w' -o P.test ./P/   (P = gpu, session)
# Figures go to stdout and $OUT/dab16.txt, the profile to $OUT/stress16.pprof.
set -uo pipefail
D=${DEVDIR:-.device/dab16}
B=/tmp/dab16bins
mkdir -p $B
if ! tar -xJf $D/bins.tar.xz -C $B 2>/dev/null; then
  python3 -c "import lzma,tarfile; tarfile.open(fileobj=lzma.open('$D/bins.tar.xz')).extractall('$B')"
fi
chmod +x $B/*
S=$B/strata
OUT=${OUT:-/tmp}
exec > >(tee "$OUT/dab16.txt") 2>&1

step() { echo; echo "### $* ($(date -u +%H:%M:%S) UTC)"; }
step "machine"
nproc; uptime; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.used --format=csv 2>/dev/null || true

step "bench sculpt --size 4096 --case stress16 (profiled)"
timeout 120 $S bench sculpt --size 4096 --strokes 12 --case stress16 --cpuprofile $OUT/stress16.pprof 2>&1
step "bench sculpt --size 4096 --case stress16 (again, not profiled)"
timeout 90 $S bench sculpt --size 4096 --strokes 12 --case stress16 2>&1
step "bench sculpt --size 4096 --case stress16 --frame 1280x720"
timeout 90 $S bench sculpt --size 4096 --strokes 12 --case stress16 --frame 1280x720 2>&1
step "bench sculpt --size 4096 --case sample"
timeout 90 $S bench sculpt --size 4096 --strokes 12 --case sample 2>&1

step "tests: gpu scatter, session sculpt/paint/scatter/GPU"
(cd gpu && timeout 60 $B/gpu.test -test.count=1 -test.run 'TestScatter' 2>&1 | tail -8)
(cd session && timeout 150 $B/session.test -test.count=1 -test.run 'TestSculpt|TestPaint|TestScatter|TestGPU' 2>&1 | tail -12)
step "done"

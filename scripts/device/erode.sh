#!/usr/bin/env bash
# Issue 17 on the H200: the GPU erosion (strata bench erode --size 4096, target: the default
# hydraulic preset ≤ 0.5 s) and the GPU flow routing of the same 4096² ground (target ≤ 50 ms,
# the "flow" line of bench erode), beside the Go reference on the machine's cores; then the GPU
# tests of this work (gpu: the erosion and flow twins; bake: the evaluators' Erode and the flow
# case of bench weights) on the real device. Builds nothing.
#
# Run from the repository root on the device machine; carry .gl and .device/erode:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
# .device/erode/bins.tar.xz holds strata and the test binaries, built here with
#   go build -ldflags='-s -w' -o strata .
#   go test -c -ldflags='-s -w' -o P.test ./P/   (P = gpu, bake)
# Figures go to stdout and $OUT/erode.txt.
set -uo pipefail
B=/tmp/erodebins
mkdir -p $B
if ! tar -xJf .device/erode/bins.tar.xz -C $B 2>/dev/null; then
  python3 -c "import lzma,tarfile; tarfile.open(fileobj=lzma.open('.device/erode/bins.tar.xz')).extractall('$B')"
fi
chmod +x $B/*
S=$B/strata
OUT=${OUT:-/tmp}
exec > >(tee "$OUT/erode.txt") 2>&1

step() { echo; echo "### $* ($(date -u +%H:%M:%S) UTC)"; }
step "machine"
nproc; free -g | head -2; uname -r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.used --format=csv 2>/dev/null || true

step "bench erode --size 4096 (GPU; the default preset; then the flow routing of the ground)"
$S bench erode --size 4096 2>&1
step "bench erode --size 4096 again (warm driver cache)"
$S bench erode --size 4096 2>&1
step "bench erode --size 2048 and 8192 (scaling)"
$S bench erode --size 2048 2>&1
$S bench erode --size 8192 2>&1
step "bench erode --size 4096 --preset 'old mountains'"
$S bench erode --size 4096 --preset "old mountains" 2>&1
step "bench erode --size 4096 --cpu (the Go reference on every core)"
timeout ${CPU_TIMEOUT:-300} $S bench erode --size 4096 --cpu 2>&1

step "GPU tests of the erosion and flow twins"
(cd gpu && timeout 300 $B/gpu.test -test.count=1 -test.v -test.run 'TestErodeGPU|TestFlowGPU' 2>&1 | grep -E '^(---|ok|FAIL|PASS)|erode_test|flow_test' | tail -60)
(cd bake && timeout 300 $B/bake.test -test.count=1 -test.v -test.run 'TestEvaluatorErode|TestBenchWeightsFlow' 2>&1 | grep -E '^(---|ok|FAIL|PASS)' | tail -20)

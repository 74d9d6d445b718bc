#!/usr/bin/env bash
# Issue 17 on the H200: the GPU flow routing (target: 4096² ≤ 50 ms, the "flow" line of
# strata bench erode; its "flow again, its phases" line says where the time goes), at 4096² and
# 8192²; routeFront's tile side and sweep cap varied (gpu's BenchmarkFlowRoute, 4096²);
# then the flow tests on the real device (gpu: the twins, the worklist against route; bake: the
# evaluator's flow). Builds nothing.
#
# Run from the repository root on the device machine; carry .gl and .device/<branch>:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
#   BRANCH=<branch> bash .device/<branch>/run.sh
# .device/<branch>/bins.tar.xz holds strata and the test binaries, built here with
#   go build -ldflags='-s -w' -o strata .
#   go test -c -ldflags='-s -w' -o P.test ./P/   (P = gpu, bake)
# Figures go to stdout and $OUT/flow.txt.
set -uo pipefail
BRANCH=${BRANCH:-flow17}
B=/tmp/flowbins
mkdir -p $B
if ! tar -xJf .device/$BRANCH/bins.tar.xz -C $B 2>/dev/null; then
  python3 -c "import lzma,tarfile; tarfile.open(fileobj=lzma.open('.device/$BRANCH/bins.tar.xz')).extractall('$B')"
fi
chmod +x $B/*
S=$B/strata
OUT=${OUT:-/tmp}
exec > >(tee "$OUT/flow.txt") 2>&1

step() { echo; echo "### $* ($(date -u +%H:%M:%S) UTC)"; }
step "machine"
nproc; free -g | head -2; uname -r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.used --format=csv 2>/dev/null || true

step "bench erode --size 4096 (GPU; the flow line and its phases at the end)"
$S bench erode --size 4096 2>&1
step "bench erode --size 4096 again"
$S bench erode --size 4096 2>&1
step "bench erode --size 8192"
$S bench erode --size 8192 2>&1

step "GPU flow tests"
(cd gpu && timeout 200 $B/gpu.test -test.count=1 -test.v -test.run 'Flow' 2>&1 | grep -E '^(---|ok|FAIL|PASS)|flow' | tail -60)
(cd bake && timeout 120 $B/bake.test -test.count=1 -test.v -test.run 'Flow' 2>&1 | grep -E '^(---|ok|FAIL|PASS)' | tail -30)

step "routeFront's tiles and sweep cap (4096², BenchmarkFlowRoute)"
(cd gpu && timeout 200 $B/gpu.test -test.run XXX -test.bench BenchmarkFlowRoute -test.benchtime ${BENCHTIME:-5x} 2>&1 | tail -20)

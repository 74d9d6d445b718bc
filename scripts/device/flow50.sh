#!/usr/bin/env bash
# flow50 on the H200 (issue 17: warm flow routing of a 4096² field ≤ 50 ms): gpu's
# BenchmarkFlowRoute before (base/gpu.test, built at the commit before flow50) and after
# (new/gpu.test: routeFront's tile side, threads, sweep cap and read-back bands varied),
# the flow tests on the real device (gpu, bake), and strata bench erode's flow line at 4096² and
# 8192². Builds nothing.
#
# Run from the repository root on the device machine; carry .gl and .device/flow50:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
#   mkdir -p /tmp/b; tar -xJf .device/flow50/bins.tar.xz -C /tmp/b; bash .device/flow50/run.sh
# .device/flow50/bins.tar.xz holds base/gpu.test and new/{strata,gpu.test,bake.test}, built here
# with go build -ldflags='-s -w' and go test -c -ldflags='-s -w'. Figures to $OUT/flow50.txt.
set -uo pipefail
B=/tmp/b
chmod +x $B/*/* 2>/dev/null
OUT=${OUT:-/tmp}
exec > >(tee "$OUT/flow50.txt") 2>&1
step() { echo; echo "### $* ($(date -u +%H:%M:%S) UTC)"; }
step "machine"
nproc; free -g | head -2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.used --format=csv 2>/dev/null || true
if [ -x $B/base/gpu.test ]; then
  step "before: base gpu.test BenchmarkFlowRoute tiles=32/sweep=16 (5x)"
  (cd gpu && timeout 60 $B/base/gpu.test -test.run XXX -test.bench 'BenchmarkFlowRoute/tiles=32/sweep=16$' -test.benchtime 5x 2>&1 | grep Benchmark)
fi
step "after: BenchmarkFlowRoute (${BENCHTIME:-5x})"
(cd gpu && timeout 150 $B/new/gpu.test -test.run XXX -test.bench BenchmarkFlowRoute -test.benchtime ${BENCHTIME:-5x} 2>&1 | grep -E 'Benchmark|FAIL|panic')
step "GPU flow tests"
(cd gpu && timeout 100 $B/new/gpu.test -test.count=1 -test.v -test.run 'Flow' 2>&1 | grep -E '^(---|ok|FAIL|PASS)|512 fbm|hash' | tail -80)
(cd bake && timeout 60 $B/new/bake.test -test.count=1 -test.v -test.run 'Flow' 2>&1 | grep -E '^(---|ok|FAIL|PASS)' | tail -30)
step "bench erode --size 4096"
timeout 60 $B/new/strata bench erode --size 4096 2>&1 | tail -6
step "bench erode --size 8192"
timeout 60 $B/new/strata bench erode --size 8192 2>&1 | tail -6
step "done"

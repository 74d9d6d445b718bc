#!/usr/bin/env bash
# Every H200 target of issues 15, 16 and 17 in one device call (device time is short: one start,
# one transfer): the live loop at 16384² and 8192², the sculpt dab at 4096², erosion and flow at
# 4096² (and flow at 8192²), the 16384² bake, then the GPU test packages on the real device.
#
# Run from the repository root on the device machine; carry .gl and .device/all:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
#   bash scripts/device/all.sh
# .device/all/bins.tar.xz holds strata and the test binaries, built here with
#   go build -ldflags='-s -w' -o strata .
#   go test -c -ldflags='-s -w' -o P.test ./P/   (P = gpu, bake, viewport, session, …)
# SKIP_TESTS=1 leaves the tests out; TEST_TIMEOUT (default 120) bounds each package.
# Figures go to stdout and $OUT/all.txt.
set -uo pipefail
B=/tmp/allbins
mkdir -p $B
if ! tar -xJf .device/all/bins.tar.xz -C $B 2>/dev/null; then
  python3 -c "import lzma,tarfile; tarfile.open(fileobj=lzma.open('.device/all/bins.tar.xz')).extractall('$B')"
fi
chmod +x $B/*
S=$B/strata
OUT=${OUT:-/tmp}
exec > >(tee "$OUT/all.txt") 2>&1
step() { echo; echo "### $* ($(date -u +%H:%M:%S) UTC)"; }
rss='^\s+(Average|Exit|Page size|Signals|Swaps|Socket|File system|Involuntary|Voluntary|Minor|Major|Percent|System time|User time)'

step "machine"
nproc; free -g | head -2; uname -r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.used --format=csv 2>/dev/null || true

step "bench live --size 16384 (cold driver cache), 1280x720, 40 steps"
/usr/bin/time -v timeout 150 $S bench live --size 16384 --frame 1280x720 --steps 40 2>&1 | grep -Ev "$rss"
step "bench live --size 16384 again (warm driver cache)"
timeout 150 $S bench live --size 16384 --frame 1280x720 --steps 40 2>&1 | grep -A12 "stress16"
step "bench live --size 8192"
timeout 100 $S bench live --size 8192 --frame 1280x720 --steps 20 2>&1 | grep -A12 "stress16"

step "bench sculpt --size 4096 --case stress16, 968x704 and 1280x720"
T=$(mktemp -d /tmp/all.XXXXXX)
timeout 150 $S bench sculpt --size 4096 --strokes 12 --case stress16 --out $T/s.terrainData 2>&1
/usr/bin/time -f "validate: %e s, %M kB" $S validate $T/s.terrainData 2>&1 | tail -2
rm -rf $T/s.terrainData
timeout 150 $S bench sculpt --size 4096 --strokes 12 --case stress16 2>&1 | grep -E "dab →|slowest|waits"
timeout 150 $S bench sculpt --size 4096 --strokes 12 --frame 1280x720 --case stress16 2>&1

step "bench erode --size 4096 twice (default preset; flow routing line), 8192"
timeout 100 $S bench erode --size 4096 2>&1
timeout 100 $S bench erode --size 4096 2>&1
timeout 150 $S bench erode --size 8192 2>&1

step "flow routing 4096², warm (BenchmarkFlowRoute, the defaults: 16² tiles, 256 threads, 16 sub-waves, 4 read bands)"
(cd gpu && timeout 120 $B/gpu.test -test.run XXX -test.bench 'FlowRoute/tiles=16/group=256/sweep=16/pieces=4$' -test.benchtime 10x 2>&1 | tail -6)

step "bench bake --size 16384 twice, then validate"
timeout 100 $S bench bake --size 16384 --out $T/g1.terrainData 2>&1 | grep -E "total, wall|read back|peak RSS|GPU"
rm -rf $T/g1.terrainData
timeout 100 $S bench bake --size 16384 --out $T/g2.terrainData 2>&1 | grep -E "total, wall|read back|peak RSS"
/usr/bin/time -f "validate: %e s, %M kB" $S validate $T/g2.terrainData 2>&1 | tail -2
rm -rf $T

step "BenchmarkReadback: 256 MiB as eight 32 MiB requests, one at a time and through Readers"
(cd gpu && timeout 100 $B/gpu.test -test.run XXX -test.bench Readback -test.benchtime 5x 2>&1 | grep -E "^Benchmark|^ok|FAIL")

[ -n "${SKIP_TESTS:-}" ] && exit 0
step "GPU tests"
for t in $B/*.test; do
  p=$(basename $t .test)
  [ -d "$p" ] || continue
  (cd $p && timeout ${TEST_TIMEOUT:-120} $t -test.count=1 >/tmp/$p.log 2>&1; rc=$?; tail -12 /tmp/$p.log; echo "$p: rc=$rc")
done

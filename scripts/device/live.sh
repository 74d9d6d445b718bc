#!/usr/bin/env bash
# Issue 15 on the H200: the editor's live loop at production scale (strata bench live at 16384²
# and 8192², the stress stack and the sample), strata bench open of an 8192² PNG16 DEM, the weights
# kernel's figures for comparison with earlier runs, and the GPU tests of this work (gpu, bake,
# viewport, session, landscape, world, procgen) on the real device.
#
# Run from the repository root on the device machine; carry .gl and .device/live:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
# .device/live/bins.tar.xz holds strata and the test binaries, built here with
#   go build -ldflags='-s -w' -o strata .
#   go test -c -ldflags='-s -w' -o P.test ./P/   (P = gpu, bake, viewport, session, landscape, world, procgen)
# and .device/live/dem8192.png the DEM (README: the topobathy sample resized with ImageMagick).
# Figures go to stdout and $OUT/live.txt.
set -uo pipefail
B=/tmp/livebins
mkdir -p $B
if ! tar -xJf .device/live/bins.tar.xz -C $B 2>/dev/null; then
  python3 -c "import lzma,tarfile; tarfile.open(fileobj=lzma.open('.device/live/bins.tar.xz')).extractall('$B')"
fi
chmod +x $B/*
S=$B/strata
OUT=${OUT:-/tmp}
exec > >(tee "$OUT/live.txt") 2>&1

step() { echo; echo "### $* ($(date -u +%H:%M:%S) UTC)"; }
step "machine"
nproc; free -g | head -2; uname -r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.used --format=csv 2>/dev/null || true

step "bench live --size 16384 (stress16 over a 16384² field; the sample), 1280x720, 40 steps"
/usr/bin/time -v $S bench live --size 16384 --frame 1280x720 --steps 40 2>&1 | grep -Ev '^\s+(Average|Exit|Page size|Signals|Swaps|Socket|File system|Involuntary|Voluntary|Minor|Major|Percent|System time|User time)'

step "bench live --size 8192"
$S bench live --size 8192 --frame 1280x720 --steps 20 2>&1

step "bench open dem8192.png (the starter stack)"
$S bench open .device/live/dem8192.png --frame 1280x720 --steps 20 2>&1


step "bench bake --size 16384, twice (the first run warms the driver's shader cache), then validate"
T=$(mktemp -d /tmp/live.XXXXXX)
$S bench bake --size 16384 --out $T/g1.terrainData 2>&1 | tail -25
rm -rf $T/g1.terrainData
$S bench bake --size 16384 --out $T/g2.terrainData 2>&1 | tail -25
/usr/bin/time -f "validate: %e s, %M kB" $S validate $T/g2.terrainData 2>&1 | tail -2
rm -rf $T

step "gpu BenchmarkUpload (256 MiB: 4 MiB WriteBuffer calls against Uploader rings)"
(cd gpu && $B/gpu.test -test.run XXX -test.bench Upload -test.benchtime 5x 2>&1 | grep -E 'Benchmark|ok|FAIL')

step "GPU tests"
for p in gpu bake viewport session landscape world procgen export; do
  (cd $p && timeout 100 $B/$p.test -test.count=1 2>&1 | tail -15)
done

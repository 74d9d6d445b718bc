#!/usr/bin/env bash
# Issue 15, item 4 ("Bakes that keep up") on the H200: the read back alone (gpu.test's
# BenchmarkReadback: one request at a time against gpu.Reader with several staging buffers and
# copying goroutines, into fresh and into warm memory), whole 16384² bakes of the sample on the GPU
# — this build twice, the build before it (strata-base) once, on the same machine — and on the Go
# reference with the controls compared, strata validate of the GPU container (the decoding in
# order, for comparison with the save's read back side by side), strata bake --from of it (the
# controls must come out byte for byte), 4096² both ways, and the GPU tests of this work.
#
# Run from the repository root on the device machine; carry .gl and .device/bakes:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
# .device/bakes/bins.tar.xz holds strata, strata-base, gpu.test and bake.test, built here with
#   go build -ldflags='-s -w' -o strata .   (strata-base: the same at the commit before)
#   go test -c -ldflags='-s -w' -o gpu.test ./gpu/; go test -c -ldflags='-s -w' -o bake.test ./bake/
# (xz: the four binaries are 100 MB, the carry limit 64 MiB). Figures go to stdout and
# $OUT/bakes.txt; containers are written under /tmp and removed.
set -uo pipefail
B=/tmp/bakebins
mkdir -p $B
if ! tar -xJf .device/bakes/bins.tar.xz -C $B 2>/dev/null; then
  python3 -c "import lzma,tarfile,sys; tarfile.open(fileobj=lzma.open('.device/bakes/bins.tar.xz')).extractall('$B')"
fi
chmod +x $B/*
S=$B/strata
BIG=${BIG:-16384} MID=${MID:-4096}
T=$(mktemp -d /tmp/bakes.XXXXXX)
trap 'rm -rf "$T"' EXIT
OUT=${OUT:-$T}
exec > >(tee "$OUT/bakes.txt") 2>&1

step() { echo; echo "### $* ($(date -u +%H:%M:%S) UTC)"; }
step "machine"
nproc; free -g | head -2; df -h /tmp | tail -1; uname -r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>/dev/null || true

step "read back alone: 256 MiB as eight 32 MiB requests (gpu.test -bench Readback)"
(cd gpu && $B/gpu.test -test.run '^$' -test.bench Readback -test.benchtime 4x 2>&1 | grep -E 'Benchmark|ok|FAIL')

step "warm-up (the driver's shader cache), untimed"
$S bench bake --size 1024 --out "$T/w.terrainData" >/dev/null 2>&1; rm -rf "$T/w.terrainData"

step "bench bake --size $BIG: this build"
$S bench bake --size $BIG --out "$T/g16k.terrainData"
for run in 2 3; do
  step "bench bake --size $BIG: this build again ($run)"
  rm -rf "$T/g2.terrainData"; $S bench bake --size $BIG --out "$T/g2.terrainData" | grep -E 'total, wall|read back|validate|encode|peak|evaluate|scatter|fsync|load|gpu start'
  rm -rf "$T/g2.terrainData"
done
step "bench bake --size $BIG: the build before (strata-base)"
$B/strata-base bench bake --size $BIG --out "$T/b16k.terrainData"
rm -rf "$T/b16k.terrainData"

step "strata validate of the GPU container (the decoding in order)"
time $S validate "$T/g16k.terrainData"
du -sh "$T/g16k.terrainData"

step "strata bake --from the GPU container (controls byte for byte)"
time $S bake --from "$T/g16k.terrainData" --out "$T/f16k.terrainData" 2>&1 | grep -vE '^(load|gpu start|evaluate|read back|scatter|encode|validate)'
for c in control0.texture/data.png scatter_trees.texture/data.exr height.texture/data.exr; do
  cmp -s "$T/g16k.terrainData/$c" "$T/f16k.terrainData/$c" && echo "$c: byte for byte" || echo "$c: DIFFERS"
done
rm -rf "$T/f16k.terrainData"

step "bench bake --size $BIG --cpu, controls compared with the GPU's"
$S bench bake --size $BIG --cpu --out "$T/c16k.terrainData" --compare "$T/g16k.terrainData" | grep -E 'total, wall|compare|equal|peak|bake:'
rm -rf "$T/g16k.terrainData" "$T/c16k.terrainData"

step "bench bake --size $MID, GPU then --cpu"
$S bench bake --size $MID --out "$T/g4.terrainData" | grep -E 'total, wall|read back|peak|bake:'
$S bench bake --size $MID --cpu --out "$T/c4.terrainData" --compare "$T/g4.terrainData" | grep -E 'total, wall|equal|bake:'
rm -rf "$T/g4.terrainData" "$T/c4.terrainData"

step "GPU tests of this work"
(cd gpu && $B/gpu.test -test.run 'Reader|ReadIntoStrides|ReadBuffer|ReadTexture|WeightsMatchReference' 2>&1 | tail -3)
(cd bake && $B/bake.test -test.run 'GPUBake|BakeFrom|Rebake|PlanBands|GPUWeightsMatchReference|ScatterGPU' 2>&1 | tail -3)

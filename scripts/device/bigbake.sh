#!/usr/bin/env bash
# Issue 10 on the H200: whole bakes of the sample at 1024², 4096² and 16384² weights on the GPU
# and on the Go reference (--cpu), each in its own process (peak RSS is the process's), the
# GPU's controls compared with the reference's, the 16384² container validated; then the
# weights kernels (the sample stack now takes the plain kernel) and the GPU tests of this issue.
#
# Run from the repository root on the device machine after the Vulkan set-up of the README:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
# Needs .device/strata, .device/gpu.test and .device/bake.test:
#   go build -ldflags='-s -w' -o .device/strata .
#   go test -c -ldflags='-s -w' -o .device/gpu.test ./gpu/
#   go test -c -ldflags='-s -w' -o .device/bake.test ./bake/
# Figures go to stdout (and bigbake.txt under $OUT); containers are written under /tmp and removed.
set -uo pipefail
S=$PWD/.device/strata
T=$(mktemp -d /tmp/bigbake.XXXXXX)
trap 'rm -rf "$T"' EXIT
OUT=${OUT:-$T}
exec > >(tee "$OUT/bigbake.txt") 2>&1

step() { echo; echo "### $*"; }
step "machine"
nproc; free -g | head -2; df -h /tmp | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>/dev/null || true

for n in 1024 4096; do
  step "bench bake --size $n: GPU (twice: the first run compiles the driver's shader cache), then --cpu"
  $S bench bake --size $n --out "$T/g$n.terrainData" >/dev/null 2>&1
  rm -rf "$T/g$n.terrainData"
  $S bench bake --size $n --out "$T/g$n.terrainData"
  $S bench bake --size $n --cpu --out "$T/c$n.terrainData" --compare "$T/g$n.terrainData"
  rm -rf "$T/g$n.terrainData" "$T/c$n.terrainData"
done

step "bench bake --size 16384: GPU, validate, --cpu with the comparison"
$S bench bake --size 16384 --out "$T/g16k.terrainData"
time $S validate "$T/g16k.terrainData"
du -sh "$T/g16k.terrainData"
$S bench bake --size 16384 --cpu --out "$T/c16k.terrainData" --compare "$T/g16k.terrainData"
rm -rf "$T/g16k.terrainData" "$T/c16k.terrainData"

step "the same bake as the command line runs it (strata bake, the issue's --resolution 0.25: 16000²)"
time $S bake --sample dunes --resolution 0.25 --out "$T/r.terrainData" 2>&1 | grep -Ev '^(load|gpu start|evaluate|read back|scatter|encode|validate):'
rm -rf "$T/r.terrainData"

step "bench weights --size 4096 (item 4: the sample stack on the plain kernel, was 0.470 ms with the cache)"
$S bench weights --size 4096

step "GPU tests of this issue"
(cd gpu && ../.device/gpu.test -test.run 'KernelsIdentical|TargetOrigin|DensityBands|ReadIntoStrides|RequestableLimits|WeightsMatchReference|WeightsTilingsIdentical' -test.v 2>&1 | grep -E '^(--- |ok|FAIL|PASS)|equal')
(cd bake && ../.device/bake.test -test.run 'GPUBake|PlanBands|GPUWeightsMatchReference|ScatterGPUMatchesReference' -test.v 2>&1 | grep -E '^(--- |ok|FAIL|PASS)')

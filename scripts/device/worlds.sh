#!/usr/bin/env bash
# Worlds on the H200 (issue 11): the per-cell figures docs/worlds.md scales to a 128K² world.
# A 4096² cell (N; a sixteenth of the plan's 16K² cells: everything a cell does is linear in its
# texels but the device's start, so ×16 gives the 16K² figure; N=8192 takes about four minutes)
# of a 2×1 world of the dunes' ground: baked with the Go
# reference on the host's cores (BenchmarkBakeCell, which also writes the world), then as array
# tasks run it, `strata world bake NAME.world --cell I` on the GPU, with each phase's wall time and
# the process's peak memory; the world validated (both cells and their seam); the plan's
# whole-world density pass (`strata world plan --spacing measured`: evaluation only, no write);
# and the world drawn as one picture.
#
# Run from the repository root on the device machine after the README's loader setup
# (.gl/*.deb unpacked, ldconfig, VK_DRIVER_FILES → the NVIDIA ICD). Needs:
#   go build -ldflags='-s -w' -o .device/strata .
#   go test -c -ldflags='-s -w' -o .device/world.test ./world/
# Prints its figures on stdout and writes them to $OUT/worlds.log. About a minute and a half at N=4096.
set -u
N=${N:-4096}
tmp=$(mktemp -d)
log=${OUT:-/tmp}/worlds.log
timed() { # label, command…: the command's own output, then wall time and peak RSS
  echo "== $1"
  shift
  /usr/bin/time -f 'wall %e s, peak RSS %M kB' "$@" 2>&1 | grep -vE 'Fyne|Cause:|At:|: [0-9]+% \('
}
{
  echo "== host: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null)"
  # The world's source: a 2N×N float32 heightmap of the dunes' ground and the sample stack,
  # planned 2×1 (declared spacing); the benchmark writes it (STRATA_BENCH_KEEP) and bakes cell 0
  # with the Go reference once through the package API.
  echo "== BenchmarkBakeCell/cell$N/cpu (writes the world; Go reference, $(nproc) cores)"
  (cd world && STRATA_BENCH_KEEP=$tmp STRATA_BENCH_CELL=$N ../.device/world.test -test.run '^$' \
    -test.bench "BakeCell/cell$N/cpu" -test.benchtime 1x -test.timeout 10m 2>&1 | grep -E 'Benchmark|GPU|Go ref|FAIL|warning')
  w=$tmp/bench$N.world
  ls -la "$tmp" | grep -E 'f32|world'
  timed "strata world bake --cell 0 (GPU)" .device/strata world bake "$w" --cell 0
  timed "strata world bake --cell 1 (GPU, the other cell; SLURM_ARRAY_TASK_ID=1)" env SLURM_ARRAY_TASK_ID=1 .device/strata world bake "$w"
  timed "strata world validate (both cells, their seam)" .device/strata world validate "$w"
  du -sh "$w"/x0_z0.terrainData
  timed "strata world plan --spacing measured (density pass over both cells, GPU)" .device/strata world plan \
    --stack samples/dunes.yaml --height "$tmp/dunes$((2 * N))x$N.f32" --height-size "$((2 * N))x$N" \
    --size "$((4 * N))x$((2 * N))" --cells 2x1 --out "$tmp/measured.world"
  timed "strata render NAME.world (the two cells as one scene, box-filtered)" .device/strata render "$w" --out "$tmp/w.png" --view top
} 2>&1 | tee "$log"
rm -rf "$tmp"

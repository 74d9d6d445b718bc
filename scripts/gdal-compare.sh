#!/usr/bin/env bash
# Issue 15's two-core target: a whole `strata bake --cpu` of a slope rule over a 4096×3496 DEM
# against GDAL doing the same job — `gdaldem slope` then a `gdal_calc.py` threshold (the rock
# mask) — on the same DEM file, run side by side, alternating, each its own process under
# /usr/bin/time. Prints every run and the medians.
#
# Needs GDAL for the comparison only (the test suite does not): apt-get install gdal-bin
# python3-gdal python3-numpy. STRATA is the binary to time (default bin/strata: make bin/strata or
# go build -o bin/strata .). RUNS alternating pairs (default 5). Work files go to a temporary
# folder, removed at the end (KEEP=1 keeps it).
#
# The DEM: the 120×91 float32 topobathy sample in testdata/maps resampled (cubic spline) to
# 4096×3496 with gdalwarp and written as raw float32 (dem.f32) with an ENVI header (dem.hdr) that
# places it at 10 m texels, so both tools read the very same file: Strata with --height-size and
# --size, GDAL through the header. (ImageMagick's float import, the other way to resample it,
# maps floats onto 0…1 and clamps the heights.) At 10 m the slopes reach 70° and a fifth of the
# ground is over 30°.
set -euo pipefail
cd "$(dirname "$0")/.."
STRATA=${STRATA:-$PWD/bin/strata}
RUNS=${RUNS:-5}
DATA=${DATA:-$PWD/testdata/maps/topobathy_120x91_f32le.raw}
for tool in gdalwarp gdal_translate gdaldem gdal_calc.py /usr/bin/time; do
  command -v $tool >/dev/null || { echo "gdal-compare: $tool is missing (apt-get install gdal-bin python3-gdal python3-numpy time)" >&2; exit 1; }
done
[ -x "$STRATA" ] || { echo "gdal-compare: $STRATA is not built (go build -o bin/strata .)" >&2; exit 1; }
W=$(mktemp -d /tmp/gdal-compare.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$W"' EXIT
cd "$W"

cp "$DATA" src.bil
printf 'ENVI\nsamples = 120\nlines = 91\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 4\ninterleave = bsq\nbyte order = 0\n' > src.hdr
gdalwarp -q -to SRC_METHOD=NO_GEOTRANSFORM -to DST_METHOD=NO_GEOTRANSFORM -ts 4096 3496 -r cubicspline -ot Float32 src.bil resampled.tif
gdal_translate -q -of ENVI -a_ullr 0 34960 40960 0 resampled.tif dem.f32
rm -f resampled.tif src.bil src.hdr
cat > slope.yaml <<'YAML'
version: 1
layers:
  - {name: ground, tint: "#8a7a5a"}
  - name: rock
    tint: "#777777"
    rules:
      - {input: slope, min: 30}
YAML
cat > gdal.sh <<'SH'
gdaldem slope -q dem.f32 slope.tif
gdal_calc.py --quiet -A slope.tif --calc='A>30' --type=Byte --outfile=rock.tif --overwrite
SH

echo "machine: $(nproc) cores, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +'%F %H:%M UTC')"
echo "strata:  $STRATA bake --cpu --stack slope.yaml --height dem.f32 --height-size 4096x3496 --size 40960x34960 --out s.terrainData"
echo "gdal:    gdaldem slope dem.f32 slope.tif && gdal_calc.py -A slope.tif --calc='A>30' --type=Byte --outfile=rock.tif"
s=() g=()
for i in $(seq "$RUNS"); do
  /usr/bin/time -f '%e %U %S %M' -o t.strata "$STRATA" bake --cpu --stack slope.yaml --height dem.f32 --height-size 4096x3496 \
    --size 40960x34960 --out s.terrainData >/dev/null 2>&1
  /usr/bin/time -f '%e %U %S %M' -o t.gdal bash gdal.sh
  read -r se su ss sm < t.strata
  read -r ge gu gs gm < t.gdal
  printf 'run %d: strata %5.2f s wall (user %5.2f, sys %5.2f, %4d MB)   gdal %5.2f s wall (user %5.2f, sys %5.2f, %4d MB)   load %s\n' \
    "$i" "$se" "$su" "$ss" $((sm / 1024)) "$ge" "$gu" "$gs" $((gm / 1024)) "$(cut -d' ' -f1 /proc/loadavg)"
  s+=("$se") g+=("$ge")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
ms=$(median "${s[@]}") mg=$(median "${g[@]}")
echo "median of $RUNS: strata $ms s, gdal $mg s: strata/gdal = $(awk -v a="$ms" -v b="$mg" 'BEGIN {printf "%.2f", a/b}')"
rock=$(gdalinfo -stats rock.tif 2>/dev/null | sed -n 's/.*STATISTICS_MEAN=//p' | head -1)
echo "gdal's rock share: $rock (Horn's slope; Strata's is central differences, docs/stack.md)"

#!/usr/bin/env bash
# Makes the test DEMs of issue 15 from the topobathy sample in testdata/maps (120×91 float32 metres):
# PNG16 heightmaps of N×N texels for each N given (default 1024 8192), resized with ImageMagick
# (Catmull-Rom), the codes spanning the sample's range. Usage: bash scripts/dem.sh OUTDIR [N...]
set -eu
out=${1:-/tmp/dem}
shift || true
sizes=${*:-1024 8192}
src=$(cd "$(dirname "$0")/.." && pwd)/testdata/maps/topobathy_120x91_f32le.raw
mkdir -p "$out"
for n in $sizes; do
	convert -size 120x91 -depth 32 -define quantum:format=floating-point -endian LSB "gray:$src" \
		-auto-level -filter Catrom -resize "${n}x${n}!" -depth 16 "$out/dem$n.png"
	echo "$out/dem$n.png"
done

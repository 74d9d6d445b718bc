#!/usr/bin/env bash
# Makes the test DEMs of issue 15 from the topobathy sample in testdata/maps (120×91 float32 metres,
# −1437 … 2205): PNG16 heightmaps of N×N texels for each N given (default 1024 8192), resized with
# ImageMagick (Catmull-Rom), the codes 0 … 65535 spanning the sample's range linearly.
# Usage: bash scripts/dem.sh OUTDIR [N...]
#
# The metres are mapped to 16-bit codes before ImageMagick reads them (a 16-bit PGM written here):
# a Q16 ImageMagick clamps floating-point input to 0 … 1, so reading the float32 metres directly
# (as this script did before 2026-12-03) gave a land/sea mask — every texel 0 or 65535 — whose
# resize was plateaus and walls.
set -eu
out=${1:-/tmp/dem}
shift || true
sizes=${*:-1024 8192}
src=$(cd "$(dirname "$0")/.." && pwd)/testdata/maps/topobathy_120x91_f32le.raw
mkdir -p "$out"
pgm="$out/topobathy16.pgm"
python3 - "$src" "$pgm" <<'PY'
import struct, sys
raw = open(sys.argv[1], "rb").read()
v = struct.unpack("<%df" % (len(raw) // 4), raw)
lo, hi = min(v), max(v)
codes = [round((x - lo) / (hi - lo) * 65535) for x in v]
with open(sys.argv[2], "wb") as f:
    f.write(b"P5\n120 91\n65535\n")
    f.write(struct.pack(">%dH" % len(codes), *codes))
PY
for n in $sizes; do
	convert "$pgm" -filter Catrom -resize "${n}x${n}!" -depth 16 "$out/dem$n.png"
	echo "$out/dem$n.png"
done
rm -f "$pgm"

#!/usr/bin/env bash
# procgen on the H200 (issue 9): GPU = Go reference on a graph of every node type, the seed's
# dunes and valley.lua end to end on both evaluators, and BenchmarkRun.
#
# Run from the repository root on the device machine after the README's loader setup
# (.gl/*.deb unpacked, ldconfig, VK_DRIVER_FILES → the NVIDIA ICD). Needs:
#   go build -ldflags='-s -w' -o .device/strata .
#   go test -c -ldflags='-s -w' -o .device/procgen.test ./procgen/
# Prints its figures on stdout; writes nothing under $OUT but the log. About a minute.
set -u
out=$(mktemp -d)
log=${OUT:-/tmp}/procgen.log
{
  echo "== host: $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader 2>/dev/null)"
  echo "== procgen tests on the GPU (from procgen/, as go test runs them)"
  (cd procgen && ../.device/procgen.test -test.run 'TestGPUMatchesReference|TestDunesSeedExample|TestValleyScript|TestEveryNodeType' -test.v 2>&1 |
    grep -E '^(=== RUN|--- |PASS|FAIL|ok)|GPU|covers|sand-only')
  for script in testdata/dunes.lua testdata/valley.lua; do
    for flag in "" --cpu; do
      echo "== strata run $script $flag"
      start=$(date +%s%N)
      .device/strata run "$script" --out "$out" $flag 2>/dev/null | tail -1
      echo "wall $(( ($(date +%s%N) - start) / 1000000 )) ms"
    done
    .device/strata validate "$out"/*.terrainData | tail -2
  done
  echo "== BenchmarkRun"
  (cd procgen && ../.device/procgen.test -test.run '^$' -test.bench 'BenchmarkRun' -test.benchtime 5x 2>&1 | grep -E 'Benchmark|GPU|Go ref')
} 2>&1 | tee "$log"
rm -rf "$out"

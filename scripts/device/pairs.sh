#!/usr/bin/env bash
# Issue 10's "GPU bake faster than --cpu at every size": RUNS alternating pairs of `strata bench
# bake --size N` on the GPU and with --cpu for each N in SIZES (after one untimed GPU run that
# fills the driver's shader cache), each in its own process; every run's wall and largest phases,
# then the medians. Run from the repository root on the device machine after the Vulkan set-up
# of the README, with .device/strata built as scripts/device/bigbake.sh says.
set -u
S=$PWD/.device/strata
SIZES=${SIZES:-"1024 4096"}
RUNS=${RUNS:-7}
T=$(mktemp -d /tmp/pairs.XXXXXX)
trap 'rm -rf "$T"' EXIT
median() { sort -n | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else printf "%.1f\n", (v[NR/2]+v[NR/2+1])/2}'; }
for n in $SIZES; do
  echo "### $n²: $RUNS alternating pairs"
  $S bench bake --size "$n" --out "$T/warm.terrainData" >/dev/null 2>&1
  : >"$T/gpu" && : >"$T/cpu"
  for i in $(seq "$RUNS"); do
    for m in gpu cpu; do
      flag=""
      [ "$m" = cpu ] && flag=--cpu
      out=$($S bench bake --size "$n" $flag --out "$T/$m.terrainData" 2>&1)
      wall=$(awk '/total, wall/ {print $3}' <<<"$out")
      echo "$wall" >>"$T/$m"
      phases=$(awk '/^  (load|gpu start|evaluate|scatter|encode height|validate height|validate|fsync) / {name=$1; for (i=2; i<NF-1; i++) name=name" "$i; printf "%s %s, ", name, $(NF-1)}' <<<"$out")
      printf '%s %-4s %8s ms   %s\n' "$n" "$m" "$wall" "$phases"
      rm -rf "$T/$m.terrainData"
    done
  done
  echo "$n² medians: GPU $(median <"$T/gpu") ms, --cpu $(median <"$T/cpu") ms (GPU $(sort -n "$T/gpu" | head -1)–$(sort -n "$T/gpu" | tail -1), --cpu $(sort -n "$T/cpu" | head -1)–$(sort -n "$T/cpu" | tail -1))"
done

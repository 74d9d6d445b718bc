#!/usr/bin/env bash
# Installs the Debian packages Strata needs (SPEC "System packages"), only those missing.
# Idempotent and quiet when everything is present; called by `make run` and `make test`.
set -euo pipefail
pkgs=(
  libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev
  libvulkan1 mesa-vulkan-drivers
  xvfb xdotool
  imagemagick libmagickcore-6.q16-6-extra openexr
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v go >/dev/null || { echo "setup: Go 1.26 is required (https://go.dev/dl)" >&2; exit 1; }

#!/usr/bin/env bash
# Installs the Debian 12 packages Strata needs (SPEC "System packages"), only those missing, then
# checks the capabilities the test suite and the editor use — not package names, since a package
# can be present without what a test needs (Debian's imagemagick without recommends has no EXR
# coder). Idempotent and quiet when everything is there; called by `make run`, `make test` and
# .ci/run. A missing capability fails with one line naming it and how to get it.
set -euo pipefail
pkgs=(
  make gcc libc6-dev pkg-config libdeflate-dev
  libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev
  libvulkan1 mesa-vulkan-drivers
  xvfb xauth xdotool
  imagemagick libmagickcore-6.q16-6-extra openexr
)
missing=()
for p in "${pkgs[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

fail() { echo "setup: $*" >&2; exit 1; }
# has PATTERN TEXT: whether TEXT has a line matching PATTERN. Checks capture a command's output
# first and then look in it: `cmd | grep -q` under pipefail fails whenever grep finds its line and
# exits before cmd has finished writing (cmd dies of SIGPIPE), which depends on how much cmd
# prints — `ldconfig -p` on a machine with more libraries than ours did exactly that in CI.
has() { grep -q -- "$1" <<<"$2"; }

command -v go >/dev/null || fail "Go 1.26 is required (https://go.dev/dl)"
command -v make >/dev/null || fail "make is missing (apt-get install make)"
# cgo (the editor's GLFW, wgpu-native) needs a C compiler and the C library's headers.
command -v gcc >/dev/null || fail "gcc is missing: cgo needs a C compiler (apt-get install gcc)"
pkg-config --exists gl x11 2>/dev/null || fail "pkg-config cannot find gl and x11, which the editor's cgo build asks it for (apt-get install pkg-config libgl1-mesa-dev libx11-dev)"
[ "$(go env CGO_ENABLED)" = 1 ] || fail "cgo is disabled (CGO_ENABLED=$(go env CGO_ENABLED)): the GPU and the editor need it"
# The PNG import inflates whole images with libdeflate, linked statically (internal/zinflate).
[ -f "$(gcc -print-file-name=libdeflate.a)" ] && echo '#include <libdeflate.h>' | gcc -E -x c - >/dev/null 2>&1 ||
  fail "libdeflate's static library and header are missing (apt-get install libdeflate-dev)"

tmp=$(mktemp -d)
xpid=""
cleanup() {
  if [ -n "$xpid" ]; then kill "$xpid" 2>/dev/null || true; wait "$xpid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# ImageMagick: 16-bit PNG and EXR, both ways (exr/ and terraindata/ third-party tests).
for t in convert identify import; do
  command -v "$t" >/dev/null || fail "ImageMagick's $t is missing (apt-get install imagemagick)"
done
convert -size 4x3 gradient:black-white -depth 16 "$tmp/g16.png" 2>/dev/null &&
  [ "$(identify -format %z "$tmp/g16.png" 2>/dev/null)" = 16 ] ||
  fail "ImageMagick cannot write a 16-bit PNG (apt-get install imagemagick)"
has '65535' "$(convert "$tmp/g16.png" -depth 16 txt:- 2>/dev/null)" ||
  fail "ImageMagick cannot read a 16-bit PNG (apt-get install imagemagick)"
# Without its EXR coder ImageMagick writes the input's format under the .exr name and exits 0:
# look at the magic number, then read the file back as EXR.
convert "$tmp/g16.png" "$tmp/g.exr" 2>/dev/null && [ "$(od -An -N4 -tx1 "$tmp/g.exr" | tr -d ' ')" = 762f3101 ] ||
  fail "ImageMagick cannot write EXR: its EXR coder is missing (apt-get install libmagickcore-6.q16-6-extra)"
[ "$(identify -format %m "$tmp/g.exr" 2>/dev/null)" = EXR ] && has '^3,2:' "$(convert "$tmp/g.exr" txt:- 2>/dev/null)" ||
  fail "ImageMagick cannot read EXR: its EXR coder is missing (apt-get install libmagickcore-6.q16-6-extra)"

# OpenEXR's own tools read what ImageMagick wrote (exr/ third-party tests).
for t in exrheader exrmaketiled; do
  command -v "$t" >/dev/null || fail "OpenEXR's $t is missing (apt-get install openexr)"
done
has 'dataWindow' "$(exrheader "$tmp/g.exr" 2>/dev/null)" || fail "OpenEXR's exrheader does not run (apt-get install openexr)"
exrmaketiled "$tmp/g.exr" "$tmp/t.exr" >/dev/null 2>&1 || fail "OpenEXR's exrmaketiled does not run (apt-get install openexr)"

# Vulkan: the loader and Mesa's lavapipe ICD, so GPU tests run on a machine without a GPU.
# The dynamic loader finds it through its cache (what wgpu's dlopen uses), or it lies in a library
# directory the loader always searches.
ldcache=$(ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || true)
vk=""
has 'libvulkan\.so\.1 ' "$ldcache" && vk=yes
for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /lib64 /usr/lib64 /lib /usr/lib; do
  [ -e "$d/libvulkan.so.1" ] && vk=yes
done
[ -n "$vk" ] || fail "the Vulkan loader libvulkan.so.1 is missing (apt-get install libvulkan1)"
icd=""
for f in /usr/share/vulkan/icd.d/lvp_icd.*.json; do
  [ -e "$f" ] || continue
  lib=$(sed -n 's/.*"library_path": *"\([^"]*\)".*/\1/p' "$f")
  if [ -n "$lib" ] && [ -e "$lib" ]; then icd=$f; fi
done
[ -n "$icd" ] || fail "Mesa's lavapipe Vulkan ICD (lvp_icd.*.json and its library) is missing (apt-get install mesa-vulkan-drivers)"

# X: a virtual display starts, xdotool talks to it and ImageMagick's import grabs it (the editor's
# real-window test).
command -v Xvfb >/dev/null || fail "Xvfb is missing (apt-get install xvfb)"
command -v xvfb-run >/dev/null || fail "xvfb-run is missing (apt-get install xvfb)"
command -v xauth >/dev/null || fail "xauth is missing, xvfb-run needs it (apt-get install xauth)"
command -v xdotool >/dev/null || fail "xdotool is missing (apt-get install xdotool)"
exec 3>"$tmp/display"
Xvfb -displayfd 3 -screen 0 64x48x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
xpid=$!
exec 3>&-
for _ in $(seq 50); do
  [ -s "$tmp/display" ] && break
  kill -0 "$xpid" 2>/dev/null || break
  sleep 0.1
done
[ -s "$tmp/display" ] || fail "Xvfb does not start: $(tail -n 1 "$tmp/xvfb.log" 2>/dev/null)"
disp=":$(head -n 1 "$tmp/display")"
has '^64 48$' "$(DISPLAY=$disp xdotool getdisplaygeometry 2>/dev/null)" || fail "xdotool cannot reach the Xvfb display $disp"
DISPLAY=$disp import -window root "$tmp/shot.png" 2>/dev/null && [ -s "$tmp/shot.png" ] ||
  fail "ImageMagick's import cannot grab the Xvfb display $disp"

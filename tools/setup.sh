#!/usr/bin/env bash
# Installs what vkskin needs from Debian 12's packages. Idempotent, no prompts; run as root (or it
# re-runs itself through sudo).
#   tools/setup.sh           build and run: cmake, a C compiler, pkg-config; assimp, cglm, stb
#                            (PNG/JPEG), cJSON and meshoptimizer (the glTF reader: JSON,
#                            EXT_meshopt_compression decoders); the Vulkan headers and loader,
#                            volk, GLFW and glslang; mesa-vulkan-drivers (lavapipe), so that it runs
#                            without a GPU
#   tools/setup.sh --test    and the tests: gltfpack (packs models to test the glTF reader on real
#                            optimizer output), the Khronos validation layers, Xvfb and xauth
#                            (xvfb-run needs it; xvfb only recommends it)
#   tools/setup.sh --bench   and tools/bench_matrix.sh's plot: gnuplot-nox (png and pngcairo
#                            terminals without X11 or Qt)
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  libassimp-dev libcglm-dev libstb-dev libcjson-dev libmeshoptimizer-dev
  libvulkan-dev libvulkan-volk-dev libglfw3-dev glslang-tools mesa-vulkan-drivers
)
for arg in "$@"; do
  case $arg in
  --test) packages+=(gltfpack vulkan-validationlayers xvfb xauth) ;;
  --bench) packages+=(gnuplot-nox) ;;
  *)
    echo "usage: tools/setup.sh [--test] [--bench]" >&2
    exit 2
    ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "setup: ${missing[*]} missing; run this as root (there is no sudo)" >&2
    exit 1
  fi
  exec sudo "$0" "$@"
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"

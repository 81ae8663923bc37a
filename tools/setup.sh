#!/usr/bin/env bash
# Installs what vkskin builds, runs and tests with, from Debian 12's packages. Idempotent, no
# prompts; run as root (or it re-runs itself through sudo).
#   build:   cmake, a C compiler, pkg-config; assimp, cglm, stb (PNG/JPEG decode), cJSON and
#            meshoptimizer (the glTF reader in front of assimp: JSON, EXT_meshopt_compression
#            decoders), and for the GPU
#            path the Vulkan headers and loader, volk, GLFW and glslang
#   test:    gltfpack (packs models to test the glTF reader on real optimizer output)
#   run/test without a GPU: mesa-vulkan-drivers (lavapipe), the Khronos validation layers, Xvfb
#            and xauth (xvfb-run needs it; xvfb only recommends it)
#   bench:   gnuplot-nox (tools/bench_matrix.sh plots the benchmark matrix to a PNG; the -nox
#            build has the png and pngcairo terminals without pulling in X11 or Qt)
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
  exec sudo "$0" "$@"
fi
packages=(
  build-essential cmake pkg-config
  libassimp-dev libcglm-dev libstb-dev libcjson-dev libmeshoptimizer-dev gltfpack
  libvulkan-dev libvulkan-volk-dev libglfw3-dev glslang-tools
  mesa-vulkan-drivers vulkan-validationlayers xvfb xauth
  gnuplot-nox
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# gltfpack's output drawn: each model, packed with gltfpack's defaults (quantized positions,
# normals and UVs, KHR_texture_transform on the base colour texture, i16 rotation keys) and with
# -c (EXT_meshopt_compression), renders at 0.5 s into the image its original renders, by
# compare_png's criteria (the comment at its top). Texture coordinates that ignored the transform
# would put the texture elsewhere, and misread rotations or positions would move the silhouette.
# Every render runs with --validate.
#   cli_gltfpack_render.sh VKSKIN COMPARE_PNG GLTFPACK MODEL...
# Missing models are skipped; exits 77 (skipped) when gltfpack is missing or no model exists.
set -u
vk=$1 cmp=$2 pack=$3
shift 3
if ! [ -x "$pack" ]; then
  echo "skipped: gltfpack not found ('$pack'; tools/setup.sh --test installs it)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
for model in "$@"; do
  [ -f "$model" ] || { echo "skipped: $model is absent (set VKS_SAMPLE_MODELS; docs/testing.md)"; continue; }
  name=$(basename "$model" .glb)
  if ! "$vk" render --validate --lod 0 "$model" --time 0.5 --size 320x320 --out "$tmp/$name.png" >"$tmp/log" 2>&1; then
    echo "FAIL $name: the original does not render:"; cat "$tmp/log"; failed=$((failed + 1)); continue
  fi
  for opt in default -c; do
    args=()
    [ "$opt" = default ] || args=("$opt")
    if ! "$pack" -i "$model" -o "$tmp/$name$opt.glb" "${args[@]}" >"$tmp/log" 2>&1; then
      echo "FAIL $name: gltfpack $opt failed:"; cat "$tmp/log"; failed=$((failed + 1)); continue
    fi
    if ! "$vk" render --validate --lod 0 "$tmp/$name$opt.glb" --time 0.5 --size 320x320 --out "$tmp/$name$opt.png" >"$tmp/log" 2>&1 || grep -q . <(grep -v '^wrote\|^gpu:\|^culling:\|^levels of detail:\|^animation:\|^raster:' "$tmp/log"); then
      echo "FAIL $name ($opt): the packed model does not render cleanly:"; cat "$tmp/log"; failed=$((failed + 1)); continue
    fi
    if "$cmp" "$tmp/$name$opt.png" "$tmp/$name.png" >"$tmp/cmp" 2>&1; then
      echo "ok   $name ($opt): $(grep 'differing' "$tmp/cmp")"; passed=$((passed + 1))
    else
      echo "FAIL $name ($opt): the packed model draws another image:"; cat "$tmp/cmp"; failed=$((failed + 1))
    fi
  done
done
if [ $((passed + failed)) -eq 0 ]; then
  echo "skipped: none of the models exists: $*"
  exit 77
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

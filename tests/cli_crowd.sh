#!/usr/bin/env bash
# Crowds through the command line, validation on everywhere (a validation message makes vkskin
# exit 1; any stderr output fails a case too):
#   - a crowd is skinned in one dispatch and drawn with one instanced draw per mesh: the GPU's own
#     counts (pipeline statistics) equal visible instances x the model's triangles and workgroups;
#   - culling: with the camera closer, fewer instances are visible and the GPU draws and skins
#     exactly those (counts from the query), none of the others;
#   - the vertex-shader mode draws the image compute skinning draws, and a split output
#     (--max-buffer) the very same, also for 4- and 8-influence models mixed; two models mixed,
#     and the ring layout, render;
#   - a crowd too big for the device says how many instances fit;
#   - bench runs (smoke test: no timing is asserted) and its JSON has every figure.
#   cli_crowd.sh VKSKIN COMPARE_PNG DEFAULT.glb FIXTURES_DIR
set -u
vk=$1 cmp=$2 default=$3 fixtures=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}

# run NAME ARGS...: runs vkskin, which must succeed with nothing on stderr but the one import
# warning the MD5 fixture has (its material names a texture, strip_d.tga, that does not exist);
# output in $tmp/NAME.
md5_warning="^vkskin render: warning: .*figure.md5mesh: material 'strip': texture '.*strip_d.tga' not loaded"
run() {
  local name=$1
  shift
  if ! "$vk" "$@" >"$tmp/$name" 2>"$tmp/$name.err" || grep -qv "$md5_warning" "$tmp/$name.err"; then
    fail "vkskin $*:"
    cat "$tmp/$name" "$tmp/$name.err"
    return 1
  fi
  return 0
}

# The default character's triangles and vertices, from vkskin info (nothing hard-coded).
"$vk" info >"$tmp/info" || fail "vkskin info"
triangles=$(sed -n 's/.*indices: [0-9]* (\([0-9]*\) triangles).*/\1/p' "$tmp/info")
vertices=$(sed -n 's/^meshes: [0-9]*, vertices: \([0-9]*\),.*/\1/p' "$tmp/info")
[ -n "$triangles" ] && [ -n "$vertices" ] || { fail "no counts in vkskin info"; exit 1; }
per_instance=$(( (vertices + 63) / 64 * 64 )) # skinning invocations: whole workgroups of 64

# culling NAME: checks the culling line of a render against the visible count it reports.
# Sets $visible.
counts() {
  local line
  line=$(grep '^culling: ' "$tmp/$1")
  visible=$(printf '%s\n' "$line" | sed -n 's/^culling: \([0-9]*\) of \([0-9]*\) instances.*/\1/p')
  local total drawn invocations
  total=$(printf '%s\n' "$line" | sed -n 's/^culling: [0-9]* of \([0-9]*\) instances.*/\1/p')
  drawn=$(printf '%s\n' "$line" | sed -n 's/.*drew \([0-9]*\) triangles.*/\1/p')
  invocations=$(printf '%s\n' "$line" | sed -n 's/.*ran \([0-9]*\) skinning invocations.*/\1/p')
  if [ -z "$visible" ] || [ -z "$drawn" ]; then
    fail "$1: no culling line"
    visible=0
    return
  fi
  [ "$drawn" -eq $((visible * triangles)) ] ||
    fail "$1: drew $drawn triangles for $visible visible instances of $triangles"
  if [ "$2" = compute ]; then
    [ "$invocations" -eq $((visible * per_instance)) ] ||
      fail "$1: $invocations skinning invocations for $visible instances of $per_instance"
  else
    [ "$invocations" -eq 0 ] || fail "$1: vertex mode ran $invocations skinning invocations"
  fi
  echo "$1: $visible of $total visible, $drawn triangles, $invocations invocations"
}

# Every instance in view.
if run all render --validate --instances 16 --size 320x240 --out "$tmp/all.png"; then
  counts all compute
  [ "$visible" -eq 16 ] || fail "all: $visible of 16 visible with the crowd framed"
fi

# Closer: some instances out of view are neither skinned nor drawn.
if run near render --validate --instances 64 --zoom 0.35 --size 320x240 --out "$tmp/near.png"; then
  counts near compute
  { [ "$visible" -gt 0 ] && [ "$visible" -lt 64 ]; } || fail "near: $visible of 64 visible"
  near_visible=$visible
fi
if run near_vertex render --validate --instances 64 --zoom 0.35 --size 320x240 --mode vertex \
  --out "$tmp/near_vertex.png"; then
  counts near_vertex vertex
  [ "$visible" -eq "${near_visible:-0}" ] || fail "near_vertex: $visible visible, compute had ${near_visible:-?}"
  "$cmp" "$tmp/near_vertex.png" "$tmp/near.png" >"$tmp/cmp_vertex" ||
    { fail "vertex-shader skinning draws another image than compute skinning"; cat "$tmp/cmp_vertex"; }
fi

# A split output (chunks of 256 KiB: three instances each) draws the very same image.
if run split render --validate --instances 16 --size 320x240 --max-buffer 262144 --out "$tmp/split.png"; then
  cmp -s "$tmp/split.png" "$tmp/all.png" || fail "a split output draws another image"
fi

# 4- and 8-influence models alternating (wide, 4, wide): three runs along the visible list, each
# skinned by its own pipeline variant (three dispatches); vertex mode binds its variant per
# model. Both draw the same image; a variant given the wrong models would not.
wide=(--instances 9 --size 320x240 "$fixtures/wide_influences.glb" --model "$default"
      --model "$fixtures/wide_influences.glb")
if run mixed_wide render --validate "${wide[@]}" --out "$tmp/mixed_wide.png" &&
   run mixed_wide_vertex render --validate "${wide[@]}" --mode vertex --out "$tmp/mixed_wide_vertex.png"; then
  cmp -s "$tmp/mixed_wide.png" "$tmp/mixed_wide_vertex.png" ||
    fail "4- and 8-influence models: vertex mode draws another image than compute"
fi

# Two models on a ring (MODEL, then --model), each instance with its own clip.
if run mixed render "$default" --validate --instances 12 --layout ring --model "$fixtures/figure.md5mesh" \
  --size 320x240 --out "$tmp/mixed.png"; then
  grep -q "12 instances, 12 visible" "$tmp/mixed" || fail "mixed: $(cat "$tmp/mixed")"
  "$cmp" --silhouette "$tmp/mixed.png" --min-cover 0.1 >"$tmp/cmp_mixed" ||
    { fail "the mixed ring is not drawn inside the frame"; cat "$tmp/cmp_mixed"; }
fi

# Too big: the message says how many fit. (On a device with room for 100 000 characters this
# case has nothing to check; lavapipe has a 2 GiB heap.)
if "$vk" render --validate --instances 100000 --size 64x64 --out "$tmp/big.png" >"$tmp/big" 2>"$tmp/big.err"; then
  echo "big: 100000 instances fit this device; nothing to check"
else
  grep -Eq "^vkskin render: a crowd of 100000 instances needs .*: at most [0-9]+ instances fit$" "$tmp/big.err" ||
    { fail "big: unexpected message"; cat "$tmp/big.err"; }
  fits=$(sed -n 's/.*at most \([0-9]*\) instances fit$/\1/p' "$tmp/big.err")
  { [ -n "$fits" ] && [ "$fits" -gt 0 ] && [ "$fits" -lt 100000 ]; } || fail "big: fits '$fits'"
  echo "big: $(cat "$tmp/big.err")"
fi

# bench: runs, prints every figure; the JSON is one object with numbers (no timing asserted).
for mode in compute vertex; do
  if run "bench_$mode" bench --validate --instances 4 --frames 3 --size 160x120 --mode $mode --json; then
    for key in instances visible cpu_anim_ms gpu_draw_ms frame_ms skinned_vertices_per_s \
      joints_per_s_per_core copy_gb_per_s; do
      grep -Eq "^  \"$key\": [0-9.e+-]+,?$" "$tmp/bench_$mode" || fail "bench $mode: no number for $key"
    done
    if [ $mode = compute ]; then
      grep -Eq '^  "gpu_skin_ms": [0-9.e+-]+,$' "$tmp/bench_$mode" || fail "bench compute: no skinning time"
      grep -Eq '^  "roofline_ratio": [0-9.e+-]+$' "$tmp/bench_$mode" || fail "bench compute: no ratio"
    else
      grep -q '^  "gpu_skin_ms": null,$' "$tmp/bench_$mode" || fail "bench vertex: a skinning pass time"
    fi
    grep -q '^  "visible": 4,$' "$tmp/bench_$mode" || fail "bench $mode: not every instance visible"
    [ "$(head -c1 "$tmp/bench_$mode")" = "{" ] && [ "$(tail -n1 "$tmp/bench_$mode")" = "}" ] ||
      fail "bench $mode: not one JSON object"
  fi
done
if run bench_text bench --validate --instances 2 --frames 2 --size 160x120; then
  for key in visible "cpu animation" "gpu skinning" "gpu draw" frame bandwidth; do
    grep -q "^  $key " "$tmp/bench_text" || fail "bench: no '$key' line"
  done
fi

if [ $failed -ne 0 ]; then
  echo "$failed crowd check(s) failed"
  exit 1
fi
echo "every crowd check passed"

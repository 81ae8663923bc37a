#!/usr/bin/env bash
# Crowds through the command line, validation on everywhere (a validation message makes vkskin
# exit 1; any stderr output fails a case too):
#   - a crowd is skinned by a dispatch per model and drawn with one instanced draw per mesh: the
#     GPU's own counts (pipeline statistics) equal visible instances x the model's triangles and
#     workgroups;
#   - culling: with the camera closer, fewer instances are visible and the GPU draws and skins
#     exactly those (counts from the query), none of the others;
#   - the vertex-shader mode draws the image compute skinning draws, and a split output
#     (--max-buffer) the very same, also for 4- and 8-influence models mixed; two models mixed,
#     and the ring layout, render;
#   - 1 000 000 instances with a few in view render (the palette store holds what is in view);
#     a store too small for what is in view leaves the rest out and warns, in render and in
#     bench (whose JSON says how many: `dropped`);
#   - skinned output is sized by what is drawn: 100 000 instances with a few in view render, a
#     frame whose visible vertices exceed --max-skinned-vertices renders the same image with the
#     rest skinned in the vertex shader and says so in one warning, and a crowd too big for a
#     --max-memory cap says how many instances fit;
#   - bench runs (smoke test: no timing is asserted), its JSON has every figure, and its traffic
#     figures (bytes per vertex, logical and memory bytes) match the layout; --warmup is parsed;
#     bench --anim-only counts every visible instance's skin bones and palette entries.
# Every run here is at level of detail 0 (--lod 0): the counts are the full meshes'. The levels
# have their own test, cli_lod.sh.
# The expected counts come from the files themselves (tests/glb_counts.c), not from the program.
#   cli_crowd.sh VKSKIN COMPARE_PNG DEFAULT.glb FIXTURES_DIR GLB_COUNTS
set -u
vk=$1 cmp=$2 default=$3 fixtures=$4 glb_counts=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# These checks count the graphics pipeline's triangles and draws and compare images it drew: the
# hardware rasterizer throughout (tests/test_raster_frames.c covers the compute and hybrid ones).
real_vk=$vk
vk=$tmp/vkskin
printf '#!/bin/sh\ncase "$1" in render|bench|view) c=$1; shift; exec "%s" "$c" --raster hardware "$@";; esac\nexec "%s" "$@"\n' \
  "$real_vk" "$real_vk" >"$vk"
chmod +x "$vk"
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

# The default character's counts, read from its file (nothing hard-coded, nothing from vkskin).
# count FILE NAME: glb_counts' NAME line for FILE (a failure said, and fatal).
count() {
  local all
  all=$("$glb_counts" "$1") || { fail "glb_counts $1"; exit 1; }
  printf '%s\n' "$all" | sed -n "s/^$2 //p"
}
triangles=$(count "$default" triangles) vertices=$(count "$default" vertices) || exit 1
materials=$(count "$default" materials) || exit 1
[ -n "$triangles" ] && [ -n "$vertices" ] || { fail "glb_counts could not count $default"; exit 1; }
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
  # One draw per material at level 0 (all here: the loader merges each material's meshes), each
  # instanced over every visible instance it covers; twice where some are pulled from the compute
  # pass and some skinned in the vertex shader.
  draws=$(printf '%s\n' "$line" | sed -n 's/.* in \([0-9]*\) draws.*/\1/p')
  if [ "$2" = compute_or_vertex ]; then
    { [ "$draws" = "$materials" ] || [ "$draws" = $((2 * materials)) ]; } ||
      fail "$1: $draws draws for $materials materials"
  else
    [ "$draws" = "$materials" ] || fail "$1: $draws draws for $materials materials"
  fi
  if [ "$2" = compute ]; then
    [ "$invocations" -eq $((visible * per_instance)) ] ||
      fail "$1: $invocations skinning invocations for $visible instances of $per_instance"
  elif [ "$2" = compute_or_vertex ]; then # some past the output's room: fewer, whole instances
    { [ "$invocations" -le $((visible * per_instance)) ] && [ $((invocations % per_instance)) -eq 0 ]; } ||
      fail "$1: $invocations skinning invocations for $visible instances of $per_instance"
  else
    [ "$invocations" -eq 0 ] || fail "$1: vertex mode ran $invocations skinning invocations"
  fi
  echo "$1: $visible of $total visible, $drawn triangles in $draws draws, $invocations invocations"
}

# A character of 520 meshes in 4 materials (the default one cut up: tools/gen_character.c
# --pieces 130): its triangles drawn in one draw per material, instanced over every visible
# instance.
tiny=$fixtures/tiny_meshes.glb
if run tiny render "$tiny" --validate --lod 0 --instances 16 --size 320x240 --out "$tmp/tiny.png"; then
  line=$(grep '^culling: ' "$tmp/tiny")
  tiny_meshes=$(count "$tiny" meshes) want_draws=$(count "$tiny" materials)
  want_triangles=$(count "$tiny" triangles)
  [ "$tiny_meshes" -ge 500 ] || fail "tiny_meshes.glb has $tiny_meshes meshes, not 500 or more"
  [ "$want_draws" -ge 2 ] || fail "tiny_meshes.glb has $want_draws materials, not several"
  visible=$(printf '%s\n' "$line" | sed -n 's/^culling: \([0-9]*\) of.*/\1/p')
  printf '%s\n' "$line" | grep -q "drew $((visible * want_triangles)) triangles in $want_draws draws" &&
    echo "tiny: $line" || fail "tiny: $line (want $want_draws draws of $want_triangles triangles an instance)"
fi

# Every instance in view.
if run all render --validate --lod 0 --instances 16 --size 320x240 --out "$tmp/all.png"; then
  counts all compute
  [ "$visible" -eq 16 ] || fail "all: $visible of 16 visible with the crowd framed"
fi

# Closer: some instances out of view are neither skinned nor drawn.
if run near render --validate --lod 0 --instances 64 --zoom 0.5 --size 320x240 --out "$tmp/near.png"; then
  counts near compute
  { [ "$visible" -gt 0 ] && [ "$visible" -lt 64 ]; } || fail "near: $visible of 64 visible"
  near_visible=$visible
fi
if run near_vertex render --validate --lod 0 --instances 64 --zoom 0.5 --size 320x240 --mode vertex \
  --out "$tmp/near_vertex.png"; then
  counts near_vertex vertex
  [ "$visible" -eq "${near_visible:-0}" ] || fail "near_vertex: $visible visible, compute had ${near_visible:-?}"
  "$cmp" "$tmp/near_vertex.png" "$tmp/near.png" >"$tmp/cmp_vertex" ||
    { fail "vertex-shader skinning draws another image than compute skinning"; cat "$tmp/cmp_vertex"; }
fi

# A split output (chunks of 256 KiB: three instances each) draws the very same image.
if run split render --validate --lod 0 --instances 16 --size 320x240 --max-buffer 262144 --out "$tmp/split.png"; then
  cmp -s "$tmp/split.png" "$tmp/all.png" || fail "a split output draws another image"
fi

# 4- and 8-influence models alternating (wide, 4, wide): three runs along the visible list, each
# skinned by its own pipeline variant (three dispatches); vertex mode binds its variant per
# model. Both draw the same image; a variant given the wrong models would not.
wide=(--instances 9 --size 320x240 "$fixtures/wide_influences.glb" --model "$default"
      --model "$fixtures/wide_influences.glb")
if run mixed_wide render --validate --lod 0 "${wide[@]}" --out "$tmp/mixed_wide.png" &&
   run mixed_wide_vertex render --validate --lod 0 "${wide[@]}" --mode vertex --out "$tmp/mixed_wide_vertex.png"; then
  "$cmp" --any-framing "$tmp/mixed_wide.png" "$tmp/mixed_wide_vertex.png" >"$tmp/cmp_wide" ||
    { fail "4- and 8-influence models: vertex mode draws another image than compute"; cat "$tmp/cmp_wide"; }
fi

# Two models on a ring (MODEL, then --model), each instance with its own clip.
if run mixed render "$default" --validate --instances 12 --layout ring --model "$fixtures/figure.md5mesh" \
  --size 320x240 --out "$tmp/mixed.png"; then
  grep -q "12 instances, 12 visible" "$tmp/mixed" || fail "mixed: $(cat "$tmp/mixed")"
  "$cmp" --silhouette "$tmp/mixed.png" --min-cover 0.1 >"$tmp/cmp_mixed" ||
    { fail "the mixed ring is not drawn inside the frame"; cat "$tmp/cmp_mixed"; }
fi

# 100 000 instances with the camera close: culled instances take no output
# memory, so this renders; should what is in view exceed the output's room (it does not on
# lavapipe's 2 GiB today), the rest is skinned in the vertex shader, with one warning that says
# so (the budget case below is the one that checks that path).
if "$vk" render --validate --lod 0 --instances 100000 --zoom 0.05 --size 320x240 --out "$tmp/big.png" \
  >"$tmp/big" 2>"$tmp/big.err"; then
  counts big compute_or_vertex
  { [ "$visible" -gt 0 ] && [ "$visible" -lt 100000 ]; } || fail "big: $visible of 100000 visible"
  grep -q "100000 instances, $visible visible" "$tmp/big" || fail "big: $(cat "$tmp/big")"
  grep -qv "^vkskin render: warning: in 1 frame(s) the visible instances did not all fit the skinned output" \
    "$tmp/big.err" && { fail "big: unexpected stderr"; cat "$tmp/big.err"; }
  echo "big: $(cat "$tmp/big.err")"
else
  fail "big: 100000 instances, camera close: render failed"
  cat "$tmp/big" "$tmp/big.err"
fi

# 1 000 000 instances with the camera close: the palette store holds what is in view (its
# capacity the largest buffer's, 128 MiB on lavapipe), not the crowd, so this fits lavapipe's
# 2 GiB heap; host palettes, a buffer of every instance's a frame, do not where the largest
# buffer is smaller than the crowd's palettes, and say how many fit. Levels of detail on: the
# far instances' full meshes would take minutes on a CPU.
if "$vk" render --validate --instances 1000000 --zoom 0.05 --size 320x240 --out "$tmp/million.png" \
  >"$tmp/million" 2>"$tmp/million.err"; then
  visible=$(sed -n 's/^culling: \([0-9]*\) of 1000000 instances visible.*/\1/p' "$tmp/million")
  { [ -n "$visible" ] && [ "$visible" -gt 0 ] && [ "$visible" -lt 1000000 ]; } ||
    fail "million: '$visible' of 1000000 visible"
  [ -s "$tmp/million.err" ] && { fail "million: unexpected stderr"; cat "$tmp/million.err"; }
  echo "million: $visible of 1000000 visible, rendered with the palette store"
  if "$vk" render --validate --instances 1000000 --zoom 0.05 --size 320x240 --palettes host \
    --out "$tmp/million_host.png" >"$tmp/million_host" 2>&1; then
    echo "million: host palettes fit this device too"
  else
    grep -Eq "needs [0-9]+ MiB of palettes per frame .* at most [0-9]+ instances fit" \
      "$tmp/million_host" || fail "million, host palettes: $(cat "$tmp/million_host")"
    echo "million, host palettes: $(cat "$tmp/million_host")"
  fi
else
  fail "million: 1000000 instances, camera close: render failed"
  cat "$tmp/million" "$tmp/million.err"
fi

# A palette store too small for what is in view (--max-buffer caps its pages: 65536 / 48 = 1365,
# as a multiple of 64 1344 entries, and it grows to four, page 0's first entry its table, no palette across a page's
# end): the first instances of the list that fit are drawn, the rest left out, and one warning
# says how many.
page=$((65536 / 48 / 64 * 64)) joints=$(count "$default" joints)
placed=$(((page - 1) / joints + 3 * (page / joints)))
if "$vk" render --validate --lod 0 --instances 300 --size 320x240 --max-buffer 65536 \
  --out "$tmp/dropped.png" >"$tmp/dropped" 2>"$tmp/dropped.err"; then
  grep -q "300 instances, $placed visible" "$tmp/dropped" || fail "dropped: $(cat "$tmp/dropped")"
  grep -q "^vkskin render: warning: in 1 frame(s) the palette store .* up to $((300 - placed)) instances were left out$" \
    "$tmp/dropped.err" || { fail "dropped: no warning for $((300 - placed))"; cat "$tmp/dropped.err"; }
  echo "dropped: $(cat "$tmp/dropped.err")"
else
  fail "dropped: render failed"
  cat "$tmp/dropped" "$tmp/dropped.err"
fi

# bench, the same store: its JSON says how many were left out (visible + dropped = every
# instance, framed), and the same warning is on stderr.
if "$vk" bench --validate --lod 0 --instances 300 --size 320x240 --max-buffer 65536 --frames 1 \
  --warmup 0 --json >"$tmp/bench_dropped" 2>"$tmp/bench_dropped.err"; then
  grep -q "^  \"visible\": $placed,$" "$tmp/bench_dropped" &&
    grep -q "^  \"dropped\": $((300 - placed)),$" "$tmp/bench_dropped" &&
    grep -q "^  \"dropped_frames\": 1,$" "$tmp/bench_dropped" &&
    grep -q '^  "palette_store_pages": 4,$' "$tmp/bench_dropped" ||
    fail "bench dropped: $(grep -E 'visible|dropped|store_pages' "$tmp/bench_dropped" | tr -d '\n')"
  grep -q "^vkskin bench: warning: in 1 frame(s) the palette store .* up to $((300 - placed)) instances were left out$" \
    "$tmp/bench_dropped.err" || { fail "bench dropped: no warning"; cat "$tmp/bench_dropped.err"; }
else
  fail "bench dropped: bench failed"
  cat "$tmp/bench_dropped" "$tmp/bench_dropped.err"
fi
# Every frame of a bench that fits: nothing dropped, and no warning.
if "$vk" bench --validate --lod 0 --instances 100 --size 320x240 --frames 1 --warmup 0 --json \
  >"$tmp/bench_whole" 2>"$tmp/bench_whole.err"; then
  grep -q '^  "visible": 100,$' "$tmp/bench_whole" && grep -q '^  "dropped": 0,$' "$tmp/bench_whole" ||
    fail "bench whole: $(grep -E 'visible|dropped' "$tmp/bench_whole" | tr -d '\n')"
  [ ! -s "$tmp/bench_whole.err" ] || { fail "bench whole: stderr"; cat "$tmp/bench_whole.err"; }
else
  fail "bench whole: bench failed"
fi

# Room for 2.5 characters' vertices, 16 in view: two go through the compute pass, the other 14
# through the vertex shader, one warning says so, and the image is the unlimited one (within
# compare_png's tolerance: the compute pass stores normals octahedral, the vertex shader does
# not).
room=$((vertices * 5 / 2))
if "$vk" render --validate --lod 0 --instances 16 --size 320x240 --max-skinned-vertices $room \
  --out "$tmp/budget.png" >"$tmp/budget" 2>"$tmp/budget.err"; then
  want="^vkskin render: warning: in 1 frame(s) the visible instances did not all fit the skinned output (room for $room vertices; --max-skinned-vertices): up to 14 instances ($((14 * vertices)) vertices) were skinned in the vertex shader instead\$"
  { [ "$(wc -l <"$tmp/budget.err")" -eq 1 ] && grep -q "$want" "$tmp/budget.err"; } ||
    { fail "budget: not the one warning expected"; cat "$tmp/budget.err"; }
  ran=$(sed -n 's/.*ran \([0-9]*\) skinning invocations.*/\1/p' "$tmp/budget")
  [ "$ran" = $((2 * per_instance)) ] || fail "budget: $ran skinning invocations, not 2 instances' worth"
  "$cmp" --any-framing "$tmp/budget.png" "$tmp/all.png" >"$tmp/cmp_budget" ||
    { fail "budget: another image than the unlimited render"; cat "$tmp/cmp_budget"; }
  echo "budget: $(cat "$tmp/budget.err")"
else
  fail "budget: render failed"
  cat "$tmp/budget" "$tmp/budget.err"
fi

# Too big for a 64 MiB cap: the message says how many fit (tests/test_crowd_gpu.c builds exactly
# that many and one more).
if "$vk" render --validate --lod 0 --instances 100000 --max-memory 64 --size 64x64 --out "$tmp/cap.png" \
  >"$tmp/cap" 2>"$tmp/cap.err"; then
  fail "cap: 100000 instances fit in 64 MiB"
else
  grep -Eq "^vkskin render: a crowd of 100000 instances needs .*: at most [0-9]+ instances fit$" "$tmp/cap.err" ||
    { fail "cap: unexpected message"; cat "$tmp/cap.err"; }
  fits=$(sed -n 's/.*at most \([0-9]*\) instances fit$/\1/p' "$tmp/cap.err")
  { [ -n "$fits" ] && [ "$fits" -gt 0 ] && [ "$fits" -lt 100000 ]; } || fail "cap: fits '$fits'"
  [ ! -e "$tmp/cap.png" ] || fail "cap: an image was written"
  echo "cap: $(cat "$tmp/cap.err")"
fi

# bench: runs, prints every figure; the JSON is one object with numbers (no timing asserted).
# The traffic figures are exact and checked against the compact layout: per vertex, the bind
# streams read (positions 8, normals 4, joints 4 (8 bits each, up to 256 joints), weights 8; a
# wide model 4 + 8 more) and the output written (16); per instance its palette (joints x 48
# bytes) and visible-list entry (24: the instance, its level's first vertex, its output's
# address, its palette's place and its model; the pass reads nothing of the instance table).
# skin_bytes counts every instance's bind streams, memory_bytes each model's once. The default
# character has no tangents (else 4 read + 4 written a vertex).
joints=$(count "$default" joints) || exit 1
[ -n "$joints" ] || fail "glb_counts gave no joint count"
[ "$(count "$default" influences)" = 4 ] || fail "the default character is not a 4-influence model"
bind=$((8 + 4 + 4 + 8)) out=16 own=$((joints * 48 + 24))
[ $((bind + out)) -le 40 ] || fail "the layout moves more than 40 bytes a vertex"
# json FILE KEY: the value of KEY in bench's JSON.
json() { sed -n "s/^  \"$2\": \(.*\)\$/\1/p" "$1" | sed 's/,$//'; }
for mode in compute vertex; do
  if run "bench_$mode" bench --validate --lod 0 --instances 10 --frames 3 --size 160x120 --mode $mode --json; then
    f=$tmp/bench_$mode
    for key in instances visible warmup_frames cpu_anim_ms cpu_record_ms cpu_wait_ms gpu_draw_ms frame_ms skinned_vertices_per_s \
      skinned_vertices_per_ms joints_per_s_per_core copy_bytes copy_gb_per_s; do
      grep -Eq "^  \"$key\": [0-9.e+-]+,?$" "$f" || fail "bench $mode: no number for $key"
    done
    grep -q '^  "visible": 10,$' "$f" || fail "bench $mode: not every instance visible"
    [ "$(json "$f" draws)" = "$materials" ] || fail "bench $mode: $(json "$f" draws) draws, not $materials"
    grep -q '^  "warmup_frames": 3,$' "$f" || fail "bench $mode: not 3 warm-up frames by default"
    if [ $mode = compute ]; then
      for key in gpu_skin_ms bytes_per_vertex skin_bytes memory_bytes skin_gb_per_s memory_gb_per_s \
        roofline_ratio logical_roofline_ratio; do
        grep -Eq "^  \"$key\": [0-9.e+-]+,?$" "$f" || fail "bench compute: no number for $key"
      done
      [ "$(json "$f" bytes_per_vertex)" = $((bind + out)) ] ||
        fail "bench: bytes_per_vertex $(json "$f" bytes_per_vertex), the layout says $((bind + out))"
      [ "$(json "$f" skin_bytes)" = $((10 * (vertices * (bind + out) + own))) ] ||
        fail "bench: skin_bytes $(json "$f" skin_bytes), expected $((10 * (vertices * (bind + out) + own)))"
      [ "$(json "$f" memory_bytes)" = $((vertices * bind + 10 * (vertices * out + own))) ] ||
        fail "bench: memory_bytes $(json "$f" memory_bytes), expected $((vertices * bind + 10 * (vertices * out + own)))"
      [ "$(json "$f" memory_bytes)" -lt "$(json "$f" skin_bytes)" ] ||
        fail "bench: memory_bytes not below skin_bytes for 10 instances of one model"
      echo "bench: $(json "$f" bytes_per_vertex) bytes per vertex, $(json "$f" skin_bytes) logical," \
        "$(json "$f" memory_bytes) to memory"
    else
      for key in gpu_skin_ms bytes_per_vertex skin_bytes memory_bytes memory_gb_per_s roofline_ratio; do
        grep -q "^  \"$key\": null,\?$" "$f" || fail "bench vertex: $key is not null (no skinning pass)"
      done
    fi
    [ "$(head -c1 "$f")" = "{" ] && [ "$(tail -n1 "$f")" = "}" ] || fail "bench $mode: not one JSON object"
  fi
done
# A mixed crowd's bytes_per_vertex is the average over its visible vertices: one default
# character (4 influences) and one wide fixture (8: 12 bytes more a vertex).
wide_vertices=$(count "$fixtures/wide_influences.glb" vertices) || exit 1
if run bench_mixed bench --validate --lod 0 "$default" --model "$fixtures/wide_influences.glb" --instances 2 \
  --frames 1 --size 160x120 --json; then
  grep -q '^  "visible": 2,$' "$tmp/bench_mixed" || fail "bench mixed: not both instances visible"
  awk -v got="$(json "$tmp/bench_mixed" bytes_per_vertex)" -v a="$vertices" -v b="${wide_vertices:-0}" \
    -v pa=$((bind + out)) -v pb=$((bind + 12 + out)) 'BEGIN {
      want = (a * pa + b * pb) / (a + b); d = got - want
      exit !(got != "" && (d < 0 ? -d : d) <= 1e-12 * want) }' ||
    fail "bench mixed: bytes_per_vertex $(json "$tmp/bench_mixed" bytes_per_vertex), not the vertex-weighted average"
fi
# bench --anim-only: the CPU animation alone, no device; its counts are exact: per frame every
# visible instance's skin bones and palette entries (the file's joints and bones); --phases
# only with --anim-only; an unknown --clip refused.
bones=$(count "$default" bones) || exit 1
if run anim bench --anim-only --phases --instances 10 --frames 3 --clip 0 --json; then
  f=$tmp/anim
  for key in ms_1_thread ms_all_threads ns_per_skin_joint_1_thread ns_per_skin_joint_all_threads \
    skin_joints_per_s_1_thread parallel_efficiency phase_sample_ns phase_model_ns phase_palette_ns; do
    grep -Eq "^  \"$key\": [0-9.e+-]+,?$" "$f" || fail "bench --anim-only: no number for $key"
  done
  [ "$(json "$f" visible)" = 10 ] || fail "bench --anim-only: $(json "$f" visible) visible, not 10"
  [ "$(json "$f" skin_joints)" = $((10 * bones)) ] ||
    fail "bench --anim-only: $(json "$f" skin_joints) skin joints, expected $((10 * bones))"
  [ "$(json "$f" palette_entries)" = $((10 * joints)) ] ||
    fail "bench --anim-only: $(json "$f" palette_entries) palette entries, expected $((10 * joints))"
  echo "bench --anim-only: $(json "$f" ns_per_skin_joint_1_thread) ns per skin joint on 1 thread"
fi
"$vk" bench --phases --frames 1 >"$tmp/phases" 2>"$tmp/phases.err"
[ $? -eq 2 ] && grep -q -- "--phases goes with --anim-only" "$tmp/phases.err" ||
  { fail "bench --phases without --anim-only"; cat "$tmp/phases.err"; }
"$vk" bench --anim-only --clip nosuch --frames 1 >"$tmp/noclip" 2>"$tmp/noclip.err"
[ $? -eq 1 ] && grep -q "has no clip 'nosuch'" "$tmp/noclip.err" ||
  { fail "bench --anim-only --clip nosuch"; cat "$tmp/noclip.err"; }
# Animation level of detail: a framed 400-character grid is far, so after the first frame only
# some instances are posed each frame (the rest keep their last pose); --anim-lod off poses all;
# another value is a usage error.
if run anim_lod render --validate --lod 0 --instances 400 --size 320x240 --frames 3 --out "$tmp/al.png" &&
   run anim_lod_off render --validate --lod 0 --instances 400 --size 320x240 --frames 3 --anim-lod off \
     --out "$tmp/al_off.png"; then
  posed=$(sed -n 's/^animation: \([0-9]*\) of \([0-9]*\) visible.*/\1 \2/p' "$tmp/anim_lod")
  read -r p_posed p_visible <<<"$posed"
  { [ -n "${p_posed:-}" ] && [ "$p_posed" -gt 0 ] && [ "$p_posed" -lt "$p_visible" ]; } ||
    fail "anim lod: '$posed' posed of visible in the third frame"
  grep -q "^animation: 400 of 400 visible instances posed in the last frame (--anim-lod off)$" \
    "$tmp/anim_lod_off" || fail "anim lod off: $(grep '^animation' "$tmp/anim_lod_off")"
  echo "anim lod: $(grep '^animation' "$tmp/anim_lod")"
fi
"$vk" render --anim-lod maybe --out "$tmp/x.png" >"$tmp/al_bad" 2>"$tmp/al_bad.err"
[ $? -eq 2 ] && grep -q "anim-lod needs on or off, not 'maybe'" "$tmp/al_bad.err" ||
  { fail "--anim-lod maybe"; cat "$tmp/al_bad.err"; }
# --warmup: 0 is allowed; a negative or non-numeric count is a usage error (exit 2, one line).
if run bench_text bench --validate --lod 0 --instances 2 --frames 2 --warmup 0 --size 160x120; then
  for key in visible "cpu animation" "gpu skinning" "gpu draw" frame traffic bandwidth; do
    grep -q "^  $key " "$tmp/bench_text" || fail "bench: no '$key' line"
  done
  grep -q "after 0 warm-up frame(s)" "$tmp/bench_text" || fail "bench: --warmup 0 not taken"
fi
for bad in -1 x; do
  "$vk" bench --warmup "$bad" --frames 1 >"$tmp/warmup" 2>"$tmp/warmup.err"
  rc=$?
  { [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/warmup.err")" -eq 1 ] && grep -q -- "--warmup" "$tmp/warmup.err"; } ||
    { fail "bench --warmup $bad: exit $rc, not one usage line"; cat "$tmp/warmup.err"; }
done

if [ $failed -ne 0 ]; then
  echo "$failed crowd check(s) failed"
  exit 1
fi
echo "every crowd check passed"

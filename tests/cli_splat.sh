#!/usr/bin/env bash
# The far splat through the command line, validation on (a validation message makes vkskin exit 1;
# any stderr output fails a case too):
#   - a framed crowd of 100 000 at 1920x1080 sends at most 4 primitives per covered pixel plus one
#     per drawn instance (bench's JSON: triangles to both rasterizers and splats against the
#     pixels the compute rasterizer covered, which are every covered pixel when the graphics
#     pipeline drew none), draws every instance (dropped 0), and draws most of them as splats;
#     without splats (--splat-density 0) the same crowd is far past the bound (the check can fail);
#   - the image: 4 000 framed at 400x225 (characters of one or two pixels, as 100 000 at
#     1920x1080) against level 0, by tools/lod_study.sh's measure (a 2x2 box filter, pixels
#     differing by more than 24/255 as a share of the characters'), differs from level 0 in no
#     more than the levels of detail alone do, plus 5 points. (Neither is within a frame of
#     motion at this size: which pixel centers a one-pixel character covers is chance.)
#   - the same 4 000 with the palette store split into pages (--max-buffer 128 KiB): the same image
#     byte for byte, the store in two pages or more, none dropped;
#   - a million framed at 1920x1080 (the MILLION models: the default character and a 65-joint
#     rig), every one drawn (dropped 0: a far splat's palette block is its carrier's entry
#     alone), within the same bound, every skinned instance in the skinned output and that
#     output a tenth or less of the room every instance at level 0 would take.
#   cli_splat.sh VKSKIN COMPARE_PNG MODEL... [--million MODEL...]
set -u
vk=$1 cmp=$2
shift 2
models=() million=()
while [ $# -gt 0 ]; do
  if [ "$1" = --million ]; then
    shift
    million=("$@")
    break
  fi
  models+=("$1")
  shift
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}
run() { # run NAME COMMAND ARGS...: vkskin COMMAND --validate ARGS must succeed with nothing on
  # stderr; output in $tmp/NAME
  local name=$1 cmd=$2
  shift 2
  if ! "$vk" "$cmd" --validate "$@" >"$tmp/$name" 2>"$tmp/$name.err" || [ -s "$tmp/$name.err" ]; then
    fail "vkskin $cmd $*:"
    cat "$tmp/$name" "$tmp/$name.err"
    return 1
  fi
}
field() { sed -n "s/^ *\"$2\": \([-0-9.e+]*\),*$/\1/p" "$tmp/$1"; }

for model in "${million[@]}"; do
  name=$(basename "$model")
  run million bench "$model" --instances 1000000 --frames 1 --warmup 0 --size 1920x1080 --json ||
    continue
  prims=$(field million primitives) pixels=$(field million pixels_resolved)
  visible=$(field million visible) dropped=$(field million dropped)
  echo "$name x 1000000 framed: $visible drawn, $dropped dropped, $prims primitives on $pixels" \
    "covered pixels: bound $((4 * pixels + visible))"
  [ "$visible" = 1000000 ] && [ "$dropped" = 0 ] || fail "$name: a million framed, $visible drawn"
  [ "$prims" -le $((4 * pixels + visible)) ] || fail "$name: $prims primitives at a million"
  # The skinned output as large as the frame draws, not as every instance at level 0 would.
  room=$(field million skinned_output_vertices) most=$(field million skinned_output_most_vertices)
  skinned=$(field million skinned_vertices) over=$(field million overflow_instances)
  echo "$name x 1000000 framed: output room $room vertices for $skinned skinned (at most $most)," \
    "$over past it"
  [ "$over" = 0 ] && [ "$room" -ge "$skinned" ] || fail "$name: $over instances past the output"
  [ $((room * 10)) -le "$most" ] || fail "$name: an output of $room vertices for $skinned skinned"
done
for model in "${models[@]}"; do
  name=$(basename "$model")
  # The bound at 100 000 framed, with splats and without.
  for splat in 4 0; do
    run bench "bench" "$model" --instances 100000 --frames 1 --warmup 0 --size 1920x1080 \
      --splat-density "$splat" --json || continue
    prims=$(field bench primitives) pixels=$(field bench pixels_resolved)
    visible=$(field bench visible) dropped=$(field bench dropped) splats=$(field bench splats)
    hardware=$(field bench triangles_hardware)
    [ -n "$prims" ] && [ -n "$pixels" ] && [ -n "$visible" ] || {
      fail "$name: bench's JSON lacks primitives, pixels_resolved or visible"
      cat "$tmp/bench"
      continue
    }
    bound=$((4 * pixels + visible))
    echo "$name x 100000 framed, --splat-density $splat: $prims primitives ($splats splats) on $pixels" \
      "covered pixels, $visible drawn, $dropped dropped: bound $bound"
    [ "$dropped" = 0 ] && [ "$visible" = 100000 ] || fail "$name: $visible drawn, $dropped dropped"
    [ "$(field bench overflow_instances)" = 0 ] || fail "$name: instances past the skinned output"
    [ "$hardware" = 0 ] || fail "$name: $hardware triangles to the graphics pipeline (covered pixels unknown)"
    if [ "$splat" = 4 ]; then
      [ "$prims" -le "$bound" ] || fail "$name: $prims primitives, past the bound $bound"
      [ "$splats" -ge 50000 ] || fail "$name: only $splats splats of 100000"
    else
      [ "$splats" = 0 ] || fail "$name: --splat-density 0 drew $splats splats"
      [ "$prims" -gt "$bound" ] || fail "$name: without splats $prims primitives are within the bound $bound: the check cannot fail"
    fi
  done
  # The image against level 0.
  base=(render "$model" --instances 4000 --size 400x225 --clip 0 --time 0.5)
  run ref "${base[@]}" --lod 0 --out "$tmp/ref.png" &&
    run splat "${base[@]}" --out "$tmp/splat.png" &&
    run levels "${base[@]}" --splat-density 0 --out "$tmp/levels.png" || continue
  share() { # share IMAGE: percent of the silhouettes differing from level 0
    "$cmp" --any-framing --downsample 2 --of-silhouette "$1" "$tmp/ref.png" >"$tmp/cmp"
    sed -n 's/.*(\([0-9.]*\)% of the silhouettes).*/\1/p' "$tmp/cmp"
  }
  with=$(share "$tmp/splat.png") without=$(share "$tmp/levels.png")
  drawn=$(sed -n 's/.*, \([0-9]*\) far splats,.*/\1/p' "$tmp/splat")
  [ "${drawn:-0}" -gt 2000 ] || fail "$name: render drew ${drawn:-no} far splats of 4000"
  echo "$name x 4000 at 400x225 against level 0: splats $with% of the characters' pixels" \
    "(${drawn:-0} splats), the levels alone $without%"
  awk -v a="$with" -v b="$without" 'BEGIN { exit !(a != "" && b != "" && a <= b + 5) }' ||
    fail "$name: splats differ from level 0 in $with% (the levels alone: $without%)"
  # The palette store in pages (--max-buffer 128 KiB: 2 688 entries a buffer, fewer than the
  # 4 000 splats' one each): the same image, byte for byte, every instance drawn.
  run paged "${base[@]}" --max-buffer 131072 --out "$tmp/paged.png" || continue
  cmp -s "$tmp/paged.png" "$tmp/splat.png" || fail "$name: the paged store's image differs"
  run pages bench "$model" --instances 4000 --frames 2 --warmup 0 --size 400x225 \
    --max-buffer 131072 --json || continue
  pages=$(field pages palette_store_pages) dropped=$(field pages dropped)
  echo "$name x 4000 at 400x225, --max-buffer 131072: the store in ${pages:-no} pages" \
    "($(field pages palette_store_entries) entries), $dropped dropped, the image the same"
  [ "${pages:-0}" -ge 2 ] && [ "$dropped" = 0 ] || fail "$name: ${pages:-no} pages, $dropped dropped"
done
[ "$failed" = 0 ] || { echo "$failed check(s) failed"; exit 1; }
echo "cli_splat: all checks passed"

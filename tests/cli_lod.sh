#!/usr/bin/env bash
# Levels of detail through the command line, validation on everywhere (any stderr output fails).
# The measure of an image (docs/performance.md, "Levels of detail against level 0"): automatic
# levels against level 0 at the same time, compared after a 2x box filter, differ in no larger
# share of the characters' pixels (by more than 24/255) than level 0 does from itself one frame
# (1/60 s) later, plus MARGIN points: what a viewer sees change anyway.
#   cli_lod.sh crowd VKSKIN COMPARE_PNG SHARED_MODELS_DIR
#     4 000 CesiumMan (exit 77, saying why, when the shared models are absent) at 1920x1080 with
#     the default --lod-error, within the measure, while the GPU draws at least 5x fewer
#     triangles (its own count); vertex mode draws exactly the triangles compute mode draws at
#     the same levels, and the same image.
#   cli_lod.sh levels VKSKIN COMPARE_PNG FIXTURES_DIR
#     the default character in crowds of 4 000, 1 000 and 250 at 1920x1080 (about 6, 14 and 30
#     pixels tall) within the measure; a close-up picks level 0 and a far one a coarser level
#     (render's "levels of detail" line); --lod N forces level N (its last past it); every level
#     is drawn where level 0 is, within its own error; the 520-mesh character draws one draw per
#     material and level.
set -u
what=$1 vk=$2 cmp=$3 dir=${4:-}
MARGIN=1 # percentage points over a frame of motion
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
# run NAME ARGS...: vkskin must succeed with nothing on stderr; its output in $tmp/NAME.
run() {
  local name=$1
  shift
  if ! "$vk" "$@" >"$tmp/$name" 2>"$tmp/$name.err" || [ -s "$tmp/$name.err" ]; then
    fail "vkskin $*:"
    cat "$tmp/$name" "$tmp/$name.err"
    return 1
  fi
}
triangles() { sed -n 's/.*the GPU drew \([0-9]*\) triangles.*/\1/p' "$tmp/$1"; }
draws() { sed -n 's/.* in \([0-9]*\) draws.*/\1/p' "$tmp/$1"; }
levels() { sed -n 's/^levels of detail: \(.*\) (.*$/\1/p' "$tmp/$1"; }
# share ACTUAL REFERENCE: the share (percent) of the silhouettes' pixels that differ after the box
# filter; the comparison's output in $tmp/cmp.
share() {
  "$cmp" --any-framing --downsample 2 --of-silhouette --figures "$1" "$2" >"$tmp/cmp"
  sed -n 's/.*(\([0-9.]*\)% of the silhouettes).*/\1/p' "$tmp/cmp"
}
# measure NAME N ARGS...: renders ARGS (a crowd of N) at level 0 at time 0.5 and 1/60 s later,
# and with automatic levels at 0.5; the automatic image must be within the measure. The outputs
# are $tmp/NAME_0, NAME_next and NAME_auto.
measure() {
  local name=$1 n=$2
  shift 2
  run "${name}_0" render --validate "$@" --time 0.5 --lod 0 --out "$tmp/${name}_0.png" &&
    run "${name}_next" render --validate "$@" --time 0.516667 --lod 0 --out "$tmp/${name}_next.png" &&
    run "${name}_auto" render --validate "$@" --time 0.5 --out "$tmp/${name}_auto.png" || return 1
  local motion lod
  motion=$(share "$tmp/${name}_next.png" "$tmp/${name}_0.png")
  lod=$(share "$tmp/${name}_auto.png" "$tmp/${name}_0.png")
  local figures count
  figures=$(sed -n 's/^figures: \(.*\)/\1/p' "$tmp/cmp")
  count=$(sed -n 's/^figures: \([0-9]*\).*/\1/p' "$tmp/cmp")
  { [ -n "$motion" ] && [ -n "$lod" ]; } || { fail "$name: no comparison"; cat "$tmp/cmp"; return 1; }
  # Two blank images would differ in nothing: the crowd must be there, one figure a character
  # or so (a far one may split in two, two near ones join).
  [ "${count:-0}" -ge $((n / 2)) ] || fail "$name: $count figures in level 0's image for $n characters"
  awk -v l="$lod" -v m="$motion" -v k="$MARGIN" 'BEGIN { exit !(l <= m + k) }' ||
    fail "$name: automatic levels differ from level 0 in $lod% of the characters' pixels, one frame of motion in $motion% (+ $MARGIN allowed)"
  echo "$name ($figures): $(levels "${name}_auto"), $(triangles "${name}_auto") of $(triangles "${name}_0") triangles; differing $lod% (a frame of motion: $motion%)"
}

if [ "$what" = crowd ]; then
cesium=$dir/CesiumMan.glb
if [ -r "$cesium" ]; then
  crowd=("$cesium" --size 1920x1080)
  if measure cesium 4000 "${crowd[@]}" --instances 4000 &&
     run auto_vertex render --validate "${crowd[@]}" --instances 4000 --time 0.5 --mode vertex --out "$tmp/auto_vertex.png"; then
    full=$(triangles cesium_0) auto=$(triangles cesium_auto)
    { [ -n "$full" ] && [ -n "$auto" ] && [ $((auto * 5)) -le "$full" ]; } ||
      fail "CesiumMan x 4000: $auto triangles with automatic levels, $full at level 0: not 5x fewer"
    [ "$(triangles auto_vertex)" = "$auto" ] && [ "$(levels auto_vertex)" = "$(levels cesium_auto)" ] ||
      fail "vertex mode drew $(triangles auto_vertex) triangles ($(levels auto_vertex)), compute $auto ($(levels cesium_auto))"
    "$cmp" --any-framing "$tmp/auto_vertex.png" "$tmp/cesium_auto.png" >"$tmp/cmp_vertex" ||
      { fail "vertex mode draws another image than compute at the same levels"; cat "$tmp/cmp_vertex"; }
  fi
else
  echo "skipped: $cesium is absent (set VKS_SAMPLE_MODELS; docs/testing.md)"
  exit 77
fi

else
# The default character's crowds, from about 6 to 30 pixels tall, within the measure.
for n in 4000 1000 250; do
  measure "default_$n" $n --instances $n --size 1920x1080 --clip walk
done

# One default character: a close-up is full detail; far away (a small image) it is coarser.
if run near render --validate --zoom 0.4 --size 640x480 --out "$tmp/near.png"; then
  [ "$(levels near)" = "level 0: 1" ] || fail "close-up: $(levels near), not level 0"
fi
if run far render --validate --zoom 4 --size 64x48 --out "$tmp/far.png"; then
  case "$(levels far)" in
  "level 0: 1" | "") fail "far away: $(levels far), not a coarser level" ;;
  esac
  echo "one default character: close-up $(levels near), 64x48 from 4 times as far $(levels far)"
fi
if run forced render --validate --lod 2 --size 64x48 --out "$tmp/forced.png"; then
  [ "$(levels forced)" = "level 2: 1" ] || fail "--lod 2: $(levels forced)"
fi
run info info >/dev/null
last=$(sed -n 's/^levels: \([0-9]*\).*/\1/p' "$tmp/info")
if run forced_past render --validate --lod 7 --size 64x48 --out "$tmp/forced_past.png"; then
  { [ -n "$last" ] && [ "$(levels forced_past)" = "level $((last - 1)): 1" ]; } ||
    fail "--lod 7: $(levels forced_past), not the last of '$last' levels"
fi

# Every level draws the figure where level 0 does: the same bounding box within the level's own
# error in pixels (from info's errors, in palette units, and the figure's height in units and in
# pixels at level 0) and 2 pixels, and not an empty image. A wrong index range or vertex range
# throws triangles out of the figure's box. (Its pixels are not compared: a coarse level at this
# size is not meant to look like level 0.)
height=$(sed -n 's/^bounds (bind pose, palette space): min ([^,]*, \([^,]*\),.*max ([^,]*, \([^,]*\),.*/\1 \2/p' "$tmp/info" |
  awk '{ print $2 - $1 }')
{ [ -n "$height" ] && [ -n "$last" ]; } || fail "info: no bounds or level count to check the levels against"
if [ -n "$height" ] && [ -n "$last" ] &&
   run level0 render --validate --lod 0 --bind-pose --size 320x320 --out "$tmp/level0.png"; then
  "$cmp" --silhouette "$tmp/level0.png" >"$tmp/sil0"
  px=$(sed -n 's/.*bbox x [0-9]*\.\.[0-9]* y \([0-9]*\)\.\.\([0-9]*\).*/\1 \2/p' "$tmp/sil0" | awk '{ print $2 - $1 + 1 }')
  for l in $(seq 1 $((last - 1))); do
    error=$(awk -v l=$l '/^levels: / { on = 1; next } on && $1 == l { print $4; exit }' "$tmp/info")
    tol=$(awk -v e="$error" -v px="$px" -v h="$height" 'BEGIN { printf "%d", e * px / h + 2.999 }')
    run level$l render --validate --lod $l --bind-pose --size 320x320 --out "$tmp/level$l.png" || continue
    "$cmp" --any-framing --count-tolerance 99 --max-differing 100 --max-mean 255 --bbox-tolerance "$tol" \
      "$tmp/level$l.png" "$tmp/level0.png" >"$tmp/cmp_level$l" ||
      { fail "the default character at level $l is not drawn where level 0 is (within $tol px)"; cat "$tmp/cmp_level$l"; }
  done
  echo "default character: levels 1 to $((last - 1)) drawn in level 0's place, each within its error"
fi

# The 520-mesh character (4 materials): one draw per material at each level drawn.
tiny=$dir/tiny_meshes.glb
if run tiny render --validate "$tiny" --instances 1000 --size 960x540 --out "$tmp/tiny.png"; then
  used=$(levels tiny | tr ',' '\n' | grep -c 'level')
  [ "$(draws tiny)" -le $((4 * used)) ] ||
    fail "520 meshes in 4 materials: $(draws tiny) draws for $used level(s) ($(levels tiny))"
  echo "520-mesh character x 1000: $(draws tiny) draws ($(levels tiny))"
fi

fi

[ $failed -eq 0 ] && echo "lod: all passed" || echo "$failed lod check(s) failed"
[ $failed -eq 0 ]

#!/usr/bin/env bash
# Levels of detail through the command line, validation on everywhere (any stderr output fails).
#   cli_lod.sh crowd VKSKIN COMPARE_PNG SHARED_MODELS_DIR
#     400 CesiumMan (exit 77, saying why, when the shared models are absent) at 1920x1080 with
#     the default --lod-error against the same crowd at --lod 0: at most 1% of the pixels differ
#     by more than 24/255 and the silhouettes' pixel counts agree within 2% (compare_png), while
#     the GPU draws at least 5x fewer triangles (its own count); vertex mode draws exactly the
#     triangles compute mode draws at the same levels, and the same image.
#   cli_lod.sh levels VKSKIN COMPARE_PNG
#     a close-up of one default character picks level 0 and the same character far away a
#     coarser one (render's "levels of detail" line); --lod N forces level N (its last past it);
#     every level of the four-mesh default character is drawn where level 0 is.
set -u
what=$1 vk=$2 cmp=$3 shared=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
levels() { sed -n 's/^levels of detail: \(.*\) (.*$/\1/p' "$tmp/$1"; }

if [ "$what" = crowd ]; then
cesium=$shared/CesiumMan.glb
if [ -r "$cesium" ]; then
  crowd=(render --validate "$cesium" --instances 400 --size 1920x1080)
  if run full "${crowd[@]}" --lod 0 --out "$tmp/full.png" &&
     run auto "${crowd[@]}" --out "$tmp/auto.png" &&
     run auto_vertex "${crowd[@]}" --mode vertex --out "$tmp/auto_vertex.png"; then
    full=$(triangles full) auto=$(triangles auto)
    { [ -n "$full" ] && [ -n "$auto" ] && [ $((auto * 5)) -le "$full" ]; } ||
      fail "CesiumMan x 400: $auto triangles with automatic levels, $full at level 0: not 5x fewer"
    "$cmp" --any-framing --max-differing 1 --count-tolerance 2 "$tmp/auto.png" "$tmp/full.png" \
      >"$tmp/cmp" || { fail "automatic levels draw another image than level 0"; cat "$tmp/cmp"; }
    [ "$(triangles auto_vertex)" = "$auto" ] && [ "$(levels auto_vertex)" = "$(levels auto)" ] ||
      fail "vertex mode drew $(triangles auto_vertex) triangles ($(levels auto_vertex)), compute $auto ($(levels auto))"
    "$cmp" --any-framing "$tmp/auto_vertex.png" "$tmp/auto.png" >"$tmp/cmp_vertex" ||
      { fail "vertex mode draws another image than compute at the same levels"; cat "$tmp/cmp_vertex"; }
    echo "CesiumMan x 400, 1920x1080: $full triangles at level 0, $auto with automatic levels" \
      "($(levels auto)): $(grep -h 'pixels differing' "$tmp/cmp")"
  fi
else
  echo "skipped: $cesium is absent (set VKS_SAMPLE_MODELS; docs/testing.md)"
  exit 77
fi

else
# One default character: a close-up is full detail; far away (a small image) it is coarser.
if run near render --validate --zoom 0.4 --size 640x480 --out "$tmp/near.png"; then
  [ "$(levels near)" = "level 0: 1" ] || fail "close-up: $(levels near), not level 0"
fi
if run far render --validate --size 64x48 --out "$tmp/far.png"; then
  case "$(levels far)" in
  "level 0: 1" | "") fail "far away: $(levels far), not a coarser level" ;;
  esac
  echo "one default character: close-up $(levels near), 64x48 $(levels far)"
fi
if run forced render --validate --lod 2 --size 64x48 --out "$tmp/forced.png"; then
  [ "$(levels forced)" = "level 2: 1" ] || fail "--lod 2: $(levels forced)"
fi
if run forced_past render --validate --lod 7 --size 64x48 --out "$tmp/forced_past.png"; then
  last=$(sed -n 's/^levels: \([0-9]*\).*/\1/p' <("$vk" info))
  { [ -n "$last" ] && [ "$(levels forced_past)" = "level $((last - 1)): 1" ]; } ||
    fail "--lod 7: $(levels forced_past), not the last of '$last' levels"
fi

# Every level of the default character (four meshes: each level's indices and vertex ranges per
# mesh) draws the figure where level 0 does: the same bounding box within 4 pixels, the
# silhouette within 30% (its capsules thin out level by level: 4%, 16%, 24% at levels 2 to 4).
# A wrong index range or base vertex throws triangles out of the figure.
if run level0 render --validate --lod 0 --size 320x320 --out "$tmp/level0.png" && [ -n "${last:-}" ]; then
  for l in $(seq 1 $((last - 1))); do
    run level$l render --validate --lod $l --size 320x320 --out "$tmp/level$l.png" || continue
    "$cmp" --count-tolerance 30 --max-differing 20 --max-mean 20 --bbox-tolerance 4 \
      "$tmp/level$l.png" "$tmp/level0.png" >"$tmp/cmp_level$l" ||
      { fail "the default character at level $l is not drawn where level 0 is"; cat "$tmp/cmp_level$l"; }
  done
  echo "default character: levels 1 to $((last - 1)) drawn in level 0's place"
fi

fi

[ $failed -eq 0 ] && echo "lod: all passed" || echo "$failed lod check(s) failed"
[ $failed -eq 0 ]

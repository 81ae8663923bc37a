#!/usr/bin/env bash
# Headless renders checked as images; every render runs with --validate (a validation error or
# warning makes vkskin exit 1, and any stderr output fails the check too).
#   cli_render.sh match VKSKIN COMPARE_PNG REFERENCE.png [RENDER_ARGS...]
#       the render must match the reference (criteria: the comment at the top of compare_png.c)
#   cli_render.sh differ VKSKIN COMPARE_PNG REFERENCE.png [RENDER_ARGS...]
#       the render must NOT match the reference (compare_png exits 1, not 2): the comparison
#       is strict enough to tell another pose apart
#   cli_render.sh silhouette VKSKIN COMPARE_PNG [RENDER_ARGS...]
#       the model is drawn (more than 1% of the pixels are not background) and not cut off by
#       the frame (its silhouette touches no border)
# Regenerate the reference of the default character, after looking at the new image:
#   vkskin render --clip walk --time 0.5 --size 320x240 --out tests/reference/default_walk_0.5.png
set -u
mode=$1 vk=$2 cmp=$3
shift 3
ref=
if [ "$mode" = match ] || [ "$mode" = differ ]; then
  ref=$1
  shift
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s.%N)
# Level 0 (full detail): the reference pictures and the oracle comparisons are of the imported
# mesh (the levels of detail have their own image test in cli_lod.sh).
if ! "$vk" render --validate --lod 0 "$@" --out "$tmp/out.png" >"$tmp/log" 2>"$tmp/err" || [ -s "$tmp/err" ]; then
  echo "FAIL vkskin render $*:"
  cat "$tmp/log" "$tmp/err"
  exit 1
fi
cat "$tmp/log"

case $mode in
match)
  "$cmp" "$tmp/out.png" "$ref"
  rc=$?
  ;;
differ)
  "$cmp" "$tmp/out.png" "$ref"
  case $? in
  1) echo "ok: the render differs from $ref, as it must"; rc=0 ;;
  0) echo "FAIL: the render matches $ref, but it shows another pose"; rc=1 ;;
  *) echo "FAIL: compare_png could not compare"; rc=1 ;;
  esac
  ;;
silhouette)
  "$cmp" --silhouette "$tmp/out.png"
  rc=$?
  ;;
*)
  echo "usage: cli_render.sh match|differ|silhouette VKSKIN COMPARE_PNG [REFERENCE.png] [RENDER_ARGS...]"
  exit 2
  ;;
esac
if [ "$rc" -ne 0 ] && [ -n "${VKS_KEEP_RENDER:-}" ]; then
  cp "$tmp/out.png" "$VKS_KEEP_RENDER" && echo "kept the render as $VKS_KEEP_RENDER"
fi
echo "$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }') s"
exit "$rc"

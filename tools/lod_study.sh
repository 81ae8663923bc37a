#!/usr/bin/env bash
# The image comparison behind --lod-error's default (docs/performance.md, "Levels of detail
# against level 0"). A crowd of N characters framed at 1920x1080 (the fewer, the taller each:
# 4 000 are about 7 pixels tall, 4 about 220), drawn at level 0 and with automatic levels at each
# bound, at several times of a clip. Each pair is compared after a 2x2 box filter (what a viewer
# sees: a shift under a pixel or two blends away), counting the pixels that differ by more than
# 24/255 as a share of the characters' pixels. Beside it, the same share for level 0 against
# itself one frame later (1/60 s): what a viewer sees change anyway.
#   tools/lod_study.sh VKSKIN COMPARE_PNG [--model FILE] [--clip C] [--times "T ..."]
#                      [--crowds "N ..."] [--bounds "PX ..."] [--size WxH]
# Prints one line per (crowd, bound): the characters' median height and range (compare_png
# --figures), the levels chosen, triangles drawn against level 0's, the worst share over the
# times, the worst silhouette change, and the motion baseline. Exit 1 when a run fails.
set -u
vk=$1 cmp=$2
shift 2
model=() clip=walk times="0.2 0.5 0.8" crowds="4000 1000 250 64 16 4" bounds="0.5 1 2" size=1920x1080
while [ $# -gt 0 ]; do
  case $1 in
  --model) model=("$2"); shift 2 ;;
  --clip) clip=$2; shift 2 ;;
  --times) times=$2; shift 2 ;;
  --crowds) crowds=$2; shift 2 ;;
  --bounds) bounds=$2; shift 2 ;;
  --size) size=$2; shift 2 ;;
  *) echo "lod_study: unknown option $1" >&2; exit 1 ;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
render() { "$vk" render "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }; }
drew() { sed -n 's/.*the GPU drew \([0-9]*\) triangles.*/\1/p' "$tmp/out"; }
compare() { # compare ACTUAL REFERENCE: prints "share count" (percent of the silhouettes)
  "$cmp" --any-framing --downsample 2 --of-silhouette --figures "$1" "$2" >"$tmp/cmp"
  local share count
  share=$(sed -n 's/.*(\([0-9.]*\)% of the silhouettes).*/\1/p' "$tmp/cmp")
  count=$(sed -n 's/^FAIL silhouette: silhouette pixel counts differ by \([0-9.]*\)%.*/\1/p' "$tmp/cmp")
  [ -n "$share" ] || { cat "$tmp/cmp" >&2; exit 1; }
  echo "$share ${count:-0}"
}
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > a ? b : a) }'; }
for n in $crowds; do
  base=(render "${model[@]}" --instances "$n" --size "$size" --clip "$clip")
  motion=0 tri0=0 heights=""
  for t in $times; do
    "${base[@]}" --time "$t" --lod 0 --out "$tmp/ref$t.png"
    tri0=$((tri0 + $(drew)))
    "${base[@]}" --time "$(awk -v t="$t" 'BEGIN { print t + 1 / 60 }')" --lod 0 --out "$tmp/next.png"
    read -r share _ < <(compare "$tmp/next.png" "$tmp/ref$t.png")
    motion=$(max "$motion" "$share")
    [ -n "$heights" ] || heights=$(sed -n 's/^figures: .*heights: median \([0-9]*\) px, from \([0-9]*\) to \([0-9]*\)/\1 (\2-\3)/p' "$tmp/cmp")
  done
  for e in $bounds; do
    worst=0 worst_count=0 tri=0 levels=""
    for t in $times; do
      "${base[@]}" --time "$t" --lod-error "$e" --out "$tmp/lod.png"
      tri=$((tri + $(drew)))
      [ -n "$levels" ] || levels=$(sed -n 's/^levels of detail: \(.*\) (chosen.*/\1/p' "$tmp/out")
      read -r share count < <(compare "$tmp/lod.png" "$tmp/ref$t.png")
      worst=$(max "$worst" "$share")
      worst_count=$(max "$worst_count" "$count")
    done
    printf '%6d characters, %-14s px tall | %4s px: %-42s | triangles %5.1f%% | differing %5.2f%% | silhouette %5.2f%% | a frame of motion %5.2f%%\n' \
      "$n" "$heights" "$e" "$levels" "$(awk -v a="$tri" -v b="$tri0" 'BEGIN { print 100 * a / b }')" \
      "$worst" "$worst_count" "$motion"
  done
done

#!/usr/bin/env bash
# The soak: `vkskin view` in a window under Xvfb for MINUTES minutes, a mixed crowd of 9 (the
# default character with tangents.glb and wide_influences.glb: three models, 4 and 8 influences,
# tangents), with scripted input every 2 seconds (view --script, repeated every 24 s: clip
# switches both ways, speed up and down, pause and resume, bind pose on and off, resizes, a
# minimise and a restore, a reset), validation on unless --no-validate. Resident memory is
# sampled each second from /proc. It fails on any validation message, on an exit code other
# than 0, on a crash, and when the resident memory grows by more than LIMIT MiB (default 16)
# past its level at the end of the first minute.
#
# Minimising is simulated: a bare Xvfb has no window manager to iconify the window, so `view`
# also draws nothing while its script says the window is minimised (what a minimised window
# gets: a zero framebuffer, no frames), and asks GLFW to iconify it for when there is one.
#
#   usage: soak.sh MINUTES VKSKIN DEFAULT.glb FIXTURES_DIR [--no-validate] [--limit MIB]
#                  [--csv FILE] [--steady]
#   --steady: the script without its resizes, minimise and restore (no swapchain rebuilds), to
#   tell the memory they cost apart.
#   --no-validate: the same without the layer, to tell its memory apart from the program's.
#   prints: the frames drawn, resident memory first / after 1 min / peak / last (MiB) and the
#   growth; --csv writes "seconds,rss_kib" per sample. It also fails when it did not soak: no
#   frame, fewer script steps or memory samples than the minutes allow, no swapchain rebuild
#   (unless --steady), or no sample after the first minute.
set -u
minutes=$1 vk=$2 default=$3 fx=$4
shift 4
validate=--validate limit=16 csv= steady=
while [ $# -gt 0 ]; do
  case $1 in
    --no-validate) validate= ;;
    --limit) limit=$2; shift ;;
    --csv) csv=$2; shift ;;
    --steady) steady=1 ;;
    *) echo "soak: unknown argument '$1'"; exit 2 ;;
  esac
  shift
done
if ! command -v Xvfb >/dev/null 2>&1; then
  echo "skipped: Xvfb is not installed (Debian package xvfb)"
  exit 77
fi
tmp=$(mktemp -d)
xvfb_pid= view_pid=
cleanup() {
  [ -n "$view_pid" ] && kill "$view_pid" 2>/dev/null
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# A display of its own: Xvfb picks a free number and writes it (-displayfd), so that soaks can
# run side by side.
exec 3>"$tmp/display"
Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
xvfb_pid=$!
exec 3>&-
for _ in $(seq 100); do [ -s "$tmp/display" ] && break; sleep 0.1; done
display=:$(head -n 1 "$tmp/display")
if [ "$display" = ":" ] || ! kill -0 "$xvfb_pid" 2>/dev/null; then
  echo "FAIL: Xvfb did not start"; cat "$tmp/xvfb.log"; exit 1
fi

seconds=$(awk "BEGIN { print $minutes * 60 }")
script="0:next,2:faster,4:pause,6:pause,8:resize=800x600,10:minimise,12:restore,14:prev"
script="$script,16:slower,18:bind,20:bind,22:resize=640x480,23:reset"
[ -n "$steady" ] && script="0:next,2:faster,4:pause,6:pause,14:prev,16:slower,18:bind,20:bind,23:reset"
DISPLAY=$display "$vk" view $validate --size 640x480 --instances 9 --model "$default" \
  --model "$fx/tangents.glb" --model "$fx/wide_influences.glb" --seconds "$seconds" \
  --script "$script" --script-period 24 >"$tmp/out" 2>"$tmp/err" &
view_pid=$!
: >"$tmp/rss"
start=$(date +%s.%N)
while kill -0 "$view_pid" 2>/dev/null; do
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$view_pid/status" 2>/dev/null)
  [ -n "$rss" ] && echo "$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }"),$rss" >>"$tmp/rss"
  sleep 1
done
wait "$view_pid"
rc=$?
view_pid=
[ -n "$csv" ] && { echo "seconds,rss_kib"; cat "$tmp/rss"; } >"$csv"

failed=0
cat "$tmp/out"
if [ "$rc" -ne 0 ]; then
  echo "FAIL: view exited $rc"; tail -n 20 "$tmp/err"; failed=1
fi
if grep -qi "validation" "$tmp/err"; then
  echo "FAIL: validation spoke:"; grep -i "validation" "$tmp/err" | head -n 5; failed=1
fi
[ -s "$tmp/err" ] && { echo "stderr:"; head -n 5 "$tmp/err"; }
# It soaked: frames were drawn, the script ran its steps (all but a tenth of what its period
# allows), the resizes rebuilt the swapchain (unless --steady), and memory was sampled for the
# whole run (most seconds) and past the first minute.
frames=$(sed -n 's/^view: \([0-9]*\) frames.*/\1/p' "$tmp/out")
rebuilds=$(sed -n 's/.*swapchain rebuilt \([0-9]*\) time.*/\1/p' "$tmp/out")
steps=$(sed -n 's/^view: the script ran \([0-9]*\) step.*/\1/p' "$tmp/out")
samples=$(wc -l <"$tmp/rss")
late=$(awk -F, '$1 > 60' "$tmp/rss" | wc -l)
per_period=$(echo "$script" | tr ',' '\n' | wc -l) # steps every 24 s
want_steps=$(awk "BEGIN { print int($per_period * $seconds / 24 * 0.9) }")
want_samples=$(awk "BEGIN { print int($seconds * 0.9) }")
if [ "${frames:-0}" -lt 1 ] || [ "${steps:-0}" -lt "$want_steps" ] ||
   { [ -z "$steady" ] && [ "${rebuilds:-0}" -lt 1 ]; } || [ "$samples" -lt "$want_samples" ] ||
   [ "$late" -lt 1 ]; then
  echo "FAIL: it did not soak: ${frames:-no} frames, ${steps:-no} script steps (want $want_steps)," \
    "${rebuilds:-no} swapchain rebuilds, $samples memory samples (want $want_samples), $late after the first minute"
  failed=1
fi
# Resident memory: first sample, the last sample of the first minute, the peak after it, the last.
awk -F, -v limit="$limit" '
  NR == 1 { first = $2 }
  $1 <= 60 { minute = $2 }
  $1 > 60 && $2 > peak { peak = $2 }
  { last = $2; if ($2 > top) top = $2; n++ }
  END {
    if (!minute) minute = first
    growth = (peak ? peak : minute) - minute
    printf "rss MiB: first %.1f, after 1 min %.1f, peak %.1f, last %.1f; growth after the first minute %.1f MiB (limit %d); %d samples\n",
      first / 1024, minute / 1024, top / 1024, last / 1024, growth / 1024, limit, n
    exit growth > limit * 1024 ? 1 : 0
  }' "$tmp/rss" || { echo "FAIL: resident memory grew past the limit"; failed=1; }
[ "$failed" -eq 0 ] && echo "soak passed ($minutes min${validate:+, validation on})"
exit "$failed"

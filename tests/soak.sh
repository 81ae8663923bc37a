#!/usr/bin/env bash
# The soak: `vkskin view` in a window under Xvfb for MINUTES minutes, a mixed crowd of 9 (the
# default character with tangents.glb and wide_influences.glb: three models, 4 and 8 influences,
# tangents), with scripted input every 2 seconds (view --script, repeated every 24 s: clip
# switches both ways, speed up and down, pause and resume, bind pose on and off, resizes, a
# minimise and a restore, a reset), validation on unless --no-validate. Resident memory is
# sampled each second from /proc. It fails on any validation message, on an exit code other
# than 0, on a crash, and when the resident memory grows past its warm-up level (the median of
# the minute after the first) by more than LIMIT MiB (default 8: allocator and driver noise, a
# swapchain's images) plus RATE MiB per hour of run (default 4): a bound for any length. A leak
# of a kilobyte a frame crosses it within three minutes at 137 fps (480 MiB an hour), within six
# at the 40 fps of a loaded machine (140 MiB an hour); slower leaks need longer runs. It also
# prints the growth per hour, fitted by least squares after the warm-up, and the anonymous
# memory apart (what malloc and the driver hold, as opposed to mapped files).
#
# Minimising is simulated: a bare Xvfb has no window manager to iconify the window, so `view`
# also draws nothing while its script says the window is minimised (what a minimised window
# gets: a zero framebuffer, no frames), and asks GLFW to iconify it for when there is one.
#
#   usage: soak.sh MINUTES VKSKIN DEFAULT.glb FIXTURES_DIR [--no-validate] [--limit MIB]
#                  [--rate MIB_PER_HOUR] [--csv FILE] [--steady]
#   --steady: the script without its resizes, minimise and restore (no swapchain rebuilds), to
#   tell the memory they cost apart.
#   --no-validate: the same without the layer, to tell its memory apart from the program's.
#   prints: the frames drawn, resident memory first / at warm-up / peak / last (MiB), the
#   growth and its rate; --csv writes "seconds,rss_kib,anon_kib" per sample. It also fails when it did not soak: no
#   frame, fewer script steps or memory samples than the minutes allow, no swapchain rebuild
#   (unless --steady), or no sample after the first minute.
set -u
minutes=$1 vk=$2 default=$3 fx=$4
shift 4
validate=--validate limit=8 rate=4 csv= steady=
while [ $# -gt 0 ]; do
  case $1 in
    --no-validate) validate= ;;
    --limit) limit=$2; shift ;;
    --rate) rate=$2; shift ;;
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
  mem=$(awk '/^Rss:/ { r = $2 } /^Anonymous:/ { a = $2 } END { if (r) print r "," a }' \
    "/proc/$view_pid/smaps_rollup" 2>/dev/null)
  [ -n "$mem" ] && echo "$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }"),$mem" >>"$tmp/rss"
  sleep 1
done
wait "$view_pid"
rc=$?
view_pid=
[ -n "$csv" ] && { echo "seconds,rss_kib,anon_kib"; cat "$tmp/rss"; } >"$csv"

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
# Resident memory after the warm-up (the first minute): its level (the median of the second
# minute, or of what there is after the first), its peak, its growth per hour (least squares),
# and the bound: LIMIT + RATE x hours of run.
awk -F, -v limit="$limit" -v rate="$rate" -v seconds="$seconds" '
  NR == 1 { first = $2 }
  $1 > 60 { n++; t[n] = $1; r[n] = $2; a[n] = $3; if ($2 > peak) peak = $2
            if ($1 <= 120) { m++; w[m] = $2 } }
  { last = $2; lasta = $3; if ($2 > top) top = $2; all++ }
  END {
    if (!n) { print "no sample after the first minute"; exit 1 }
    if (!m) { m = 1; w[1] = r[1] }
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (w[j] < w[i]) { x = w[i]; w[i] = w[j]; w[j] = x }
    level = w[int((m + 1) / 2)]
    for (i = 1; i <= n; i++) { st += t[i]; sr += r[i]; sa += a[i] }
    for (i = 1; i <= n; i++) { vt += (t[i] - st / n) ^ 2; cr += (t[i] - st / n) * (r[i] - sr / n)
                               ca += (t[i] - st / n) * (a[i] - sa / n) }
    per_hour = vt > 0 ? cr / vt * 3600 / 1024 : 0
    anon_per_hour = vt > 0 ? ca / vt * 3600 / 1024 : 0
    growth = peak - level
    bound = limit + rate * seconds / 3600
    printf "rss MiB: first %.1f, warm %.1f, peak %.1f, last %.1f (anonymous %.1f); growth after the warm-up %.1f MiB (bound %.1f: %d + %g per hour); trend %+.1f MiB per hour (anonymous %+.1f); %d samples\n",
      first / 1024, level / 1024, top / 1024, last / 1024, lasta / 1024, growth / 1024, bound, limit, rate, per_hour, anon_per_hour, all
    exit growth > bound * 1024 ? 1 : 0
  }' "$tmp/rss" || { echo "FAIL: resident memory grew past the bound"; failed=1; }
[ "$failed" -eq 0 ] && echo "soak passed ($minutes min${validate:+, validation on})"
exit "$failed"

#!/bin/sh
# vkskin view in a real window under Xvfb, with validation on: 60 frames, a resize half-way
# (the swapchain must be rebuilt at the new size), no validation message. Also: without any
# display, view says so in one line and names `render`. And a crowd of two models.
# The heads-up display, the skeletons and the screenshot key, scripted by frame so that the
# machine's speed does not matter (pause, F12, then faster, H and K, then F12 again): the HUD's
# text is in both screenshots and changes between them (the speed it shows; the crowd is paused,
# so the characters behind stay), the amber skeleton lines are in the second only, and the help
# panel below the HUD appears. A second view into the same folder numbers its screenshots after
# the first one's, which stay as they were, and takes the one asked for with the script's quit.
#   usage: view_xvfb.sh VKSKIN DEFAULT.glb PNG_PROBE
vkskin=$1 default=$2 probe=$3
fail() { echo "FAIL: $*"; exit 1; }

err=$(env -u DISPLAY -u WAYLAND_DISPLAY "$vkskin" view 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 1 ] || fail "view without a display exited $rc"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "view without a display said: $err"
printf '%s\n' "$err" | grep -q "no display.*vkskin render" || fail "unexpected message: $err"
echo "ok: without a display: $err"

if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "skipped: xvfb-run is not installed (Debian package xvfb)"
    exit 77
fi
out=$(xvfb-run -a -s "-screen 0 1280x1024x24" "$vkskin" view --validate --frames 60 \
    --size 640x480 --resize 800x500 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || fail "view exited $rc"
if printf '%s\n' "$out" | grep -qi "validation"; then fail "validation spoke"; fi
printf '%s\n' "$out" | grep -Eq "^view: 60 frames, last 800x500, swapchain rebuilt [1-9]" ||
    fail "the window was not resized to 800x500 with a rebuilt swapchain"

out=$(xvfb-run -a -s "-screen 0 1280x1024x24" "$vkskin" view --validate --frames 20 \
    --no-vsync --clip wave 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || fail "view --no-vsync exited $rc"
if printf '%s\n' "$out" | grep -qi "validation"; then fail "validation spoke"; fi
# A crowd of two models, skinned in the vertex shader, in a window.
out=$(xvfb-run -a -s "-screen 0 1280x1024x24" "$vkskin" view "$default" --validate --frames 20 \
    --instances 9 --model "$default" --mode vertex 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || fail "view --instances 9 exited $rc"
if printf '%s\n' "$out" | grep -qi "validation"; then fail "validation spoke"; fi
printf '%s\n' "$out" | grep -Eq "^view: 20 frames, .*; 9 of 9 instances visible$" ||
    fail "the crowd was not shown whole"
# The bind pose from the start, host palettes (the default is the store): runs clean.
out=$(xvfb-run -a -s "-screen 0 1280x1024x24" "$vkskin" view --validate --frames 20 \
    --bind-pose --instances 4 --palettes host 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || fail "view --bind-pose exited $rc"
if printf '%s\n' "$out" | grep -qi "validation"; then fail "validation spoke"; fi

# The HUD and skeletons, by screenshots (F12) of the window itself.
shots=$(mktemp -d)
trap 'rm -rf "$shots"' EXIT
out=$(xvfb-run -a -s "-screen 0 1280x1024x24" "$vkskin" view --validate --size 960x540 \
    --instances 4 --frames 6 --screenshots "$shots" \
    --script "1f:pause,2f:screenshot,3f:faster,3f:help,3f:skeleton,4f:screenshot" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || fail "view with the script exited $rc"
if printf '%s\n' "$out" | grep -qi "validation"; then fail "validation spoke"; fi
[ -f "$shots/vkskin_0001.png" ] && [ -f "$shots/vkskin_0002.png" ] || fail "F12 wrote no screenshots"
printf '%s\n' "$out" | grep -q "^view: 6 frames, " || fail "not 6 frames"
hud1=$("$probe" "$shots/vkskin_0001.png" 0 0 960 150) whole1=$("$probe" "$shots/vkskin_0001.png" 0 0 960 540)
hud2=$("$probe" "$shots/vkskin_0002.png" 0 0 960 150) whole2=$("$probe" "$shots/vkskin_0002.png" 0 0 960 540)
# The HUD's fourth line (18 + 3 x 24 px down: stb_easy_font's 12-px lines at scale 2), from where
# "speed x1" starts: its only text that changes between the shots is the speed. Elsewhere the
# frame rate and times change by the clock, and the panel's width with them.
speed1=$("$probe" "$shots/vkskin_0001.png" 540 90 700 114) speed2=$("$probe" "$shots/vkskin_0002.png" 540 90 700 114)
help1=$("$probe" "$shots/vkskin_0001.png" 0 180 500 540)
help2=$("$probe" "$shots/vkskin_0002.png" 0 180 500 540)
echo "HUD first: $hud1; second: $hud2; whole first: $whole1; second: $whole2; help: $help2"
bright() { printf '%s' "$1" | awk '{ print $2 }'; }
amber() { printf '%s' "$1" | awk '{ print $4 }'; }
hash() { printf '%s' "$1" | awk '{ print $6 }'; }
[ "$(bright "$hud1")" -gt 500 ] && [ "$(bright "$hud2")" -gt 500 ] || fail "no HUD text: $hud1 / $hud2"
[ "$(bright "$speed1")" -gt 100 ] && [ "$(hash "$speed1")" != "$(hash "$speed2")" ] ||
  fail "the HUD's speed did not change between the screenshots: $speed1 / $speed2"
[ "$(amber "$whole1")" -lt 20 ] || fail "skeleton-coloured pixels before K: $whole1"
[ "$(amber "$whole2")" -gt 100 ] || fail "no skeleton lines after K: $whole2"
[ "$(bright "$help1")" -lt 100 ] && [ "$(bright "$help2")" -gt 1000 ] ||
  fail "the help panel: before H $help1, after $help2"

before=$(cksum "$shots"/vkskin_0001.png "$shots"/vkskin_0002.png)
out=$(xvfb-run -a -s "-screen 0 1280x1024x24" "$vkskin" view --validate --size 320x200 \
    --screenshots "$shots" --frames 10 --script "0f:screenshot,1f:screenshot,1f:quit" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || fail "the second view exited $rc"
if printf '%s\n' "$out" | grep -qi "validation"; then fail "validation spoke"; fi
[ "$(cksum "$shots"/vkskin_0001.png "$shots"/vkskin_0002.png)" = "$before" ] ||
  fail "the second view overwrote the first one's screenshots"
printf '%s\n' "$out" | grep -q "^view: wrote $shots/vkskin_0003.png (320x200)$" &&
  printf '%s\n' "$out" | grep -q "^view: wrote $shots/vkskin_0004.png (320x200)$" &&
  [ "$(ls "$shots" | wc -l)" -eq 4 ] ||
  fail "the second view's screenshots are not vkskin_0003.png and vkskin_0004.png: $(ls "$shots")"
printf '%s\n' "$out" | grep -q "^view: 2 frames, " || fail "the script's quit did not end the view after frame 1"
# The clip keys (the viewer's own, over vkskin_crowd_play): where each script leaves instance 0
# of the default character (idle, walk, wave), said by the summary's last line.
for case in "1f:next,2f:next,3f:prev|walk (2/3)" "1f:prev|wave (3/3)" "1f:bind|bind pose (0/3)" \
  "1f:bind,2f:bind|idle (1/3)" "1f:next,2f:bind,3f:next|idle (1/3)" "1f:bind,2f:reset|bind pose (0/3)" \
  "1f:next,2f:bind,3f:reset,4f:bind|idle (1/3)" "1f:next,2f:bind,3f:bind|walk (2/3)"; do
  out=$(xvfb-run -a -s "-screen 0 1280x1024x24" "$vkskin" view --validate --size 320x200 \
    --frames 6 --script "${case%|*}" 2>&1); rc=$?
  [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -qx "view: at the end, default character - ${case#*|}" ||
    fail "the clip keys '${case%|*}': exit $rc, $(printf '%s\n' "$out" | grep 'at the end'), not ${case#*|}"
done
# A palette store too small for what is in view (--max-buffer 65536: pages of 1 344 palette
# entries, four at most, about 244 palettes of 22 entries; whole palettes: no far splats, whose
# blocks are one entry): the summary says how many were left out, and the warning ends the run.
out=$(xvfb-run -a -s "-screen 0 1280x1024x24" "$vkskin" view --validate --size 320x200 \
  --instances 300 --max-buffer 65536 --splat-density 0 --frames 3 2>&1); rc=$?
line=$(printf '%s\n' "$out" | grep '^view: at the end, ')
shown=$(printf '%s\n' "$line" | sed -n 's/^view: at the end, 300 instances, \([0-9]*\) visible, \([0-9]*\) more left out .*/\1 \2/p')
[ "$rc" -eq 0 ] && [ -n "$shown" ] && [ $((${shown% *} + ${shown#* })) -eq 300 ] && [ "${shown#* }" -gt 0 ] &&
  printf '%s\n' "$out" | grep -q "^vkskin view: warning: in [0-9]* frame(s) the palette store" ||
  fail "a full palette store: exit $rc, '$line'"
echo "ok"

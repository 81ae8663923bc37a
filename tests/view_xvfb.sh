#!/bin/sh
# vkskin view in a real window under Xvfb, with validation on: 60 frames, a resize half-way
# (the swapchain must be rebuilt at the new size), no validation message. Also: without any
# display, view says so in one line and names `render`. And a crowd of two models.
#   usage: view_xvfb.sh VKSKIN DEFAULT.glb
vkskin=$1 default=$2
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
# The bind pose from the start, device-local palettes: runs clean.
out=$(xvfb-run -a -s "-screen 0 1280x1024x24" "$vkskin" view --validate --frames 20 \
    --bind-pose --instances 4 --palettes device 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || fail "view --bind-pose exited $rc"
if printf '%s\n' "$out" | grep -qi "validation"; then fail "validation spoke"; fi
echo "ok"

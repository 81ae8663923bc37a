#!/usr/bin/env bash
# Nothing lost: every output whole or not at all, runs that end early on a signal, and requests
# too large for the device refused before the memory is taken. Validation on wherever a device is
# opened.
#   A full filesystem (a 48 KiB tmpfs in a mount namespace of its own: root, or an unprivileged
#   user namespace; else this part skips, saying why): an existing image survives a failed
#   overwrite byte for byte; a sequence that fails at frame k leaves frames 0 .. k-1 whole, none
#   after, and says so; a JPEG and a dump that do not fit leave nothing; no temporary is left.
#   A file-size limit (ulimit -f: EFBIG, no mount needed): the same for an overwrite.
#   A full standard output (/dev/full): render --out -, info and bench --json exit 1.
#   SIGTERM and SIGINT during a render sequence, SIGTERM during bench (and view, under Xvfb): the
#   summary is printed, every file present is a whole image, and the exit status is the
#   signal's (143, 130).
#   Requests past the device (or, for bench --anim-only, the machine): the answer comes from the
#   plan on counts, with the peak resident memory of the whole run under 400 MiB (lavapipe and the
#   loader take about 70).
#   usage: cli_durable.sh VKSKIN COMPARE_PNG PEAK_RSS [--full-disk DIR]
set -u
vk=$1 compare=$2 peak=$3
passed=0 failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
# A whole image: it decodes (compared with itself).
whole() { "$compare" "$1" "$1" >/dev/null 2>&1; }
# Temporaries left in a folder (output.h names them .vkskin-XXXXXX).
temporaries() { find "$1" -maxdepth 1 -name '.vkskin-*' | wc -l; }

# ---- The full filesystem, run inside its own mount namespace (see below) ----
if [ "${4:-}" = --full-disk ]; then
  fs=$5 keep=$6
  mount -t tmpfs -o size=48k tmpfs "$fs" || { echo "FAIL cannot mount a tmpfs"; exit 1; }
  "$vk" render --validate --size 320x240 --out "$fs/a.png" >/dev/null 2>&1 || fail "a first image did not fit"
  cp "$fs/a.png" "$keep/a.png"
  # 800x600 is about 50 KB: more than the whole filesystem.
  "$vk" render --validate --size 800x600 --time 0.5 --out "$fs/a.png" >"$keep/o.out" 2>"$keep/o.err"
  rc=$?
  if [ "$rc" -eq 1 ] && cmp -s "$fs/a.png" "$keep/a.png" && [ "$(temporaries "$fs")" -eq 0 ] &&
     grep -q "^vkskin render: cannot write '$fs/a.png': No space left on device$" "$keep/o.err" &&
     ! grep -q "^wrote" "$keep/o.out"; then
    ok "full disk: a failed overwrite leaves the old image byte for byte, no temporary, exit 1: $(cat "$keep/o.err")"
  else
    fail "full disk overwrite: rc $rc, $(temporaries "$fs") temporaries, $(cat "$keep/o.err")"
  fi
  # A sequence of 10 frames of about 10 KB: some fit, then one does not.
  "$vk" render --validate --size 320x240 --frames 10 --out "$fs/s.png" >"$keep/s.out" 2>"$keep/s.err"
  rc=$?
  k=$(sed -n "s|^vkskin render: cannot write '$fs/s_\\([0-9]*\\).png': No space left on device\$|\\1|p" "$keep/s.err")
  k=$((10#${k:-0}))
  good=1
  for i in $(seq 0 9); do
    f=$(printf '%s/s_%04d.png' "$fs" "$i")
    if [ "$i" -lt "$k" ]; then whole "$f" || good=0; else [ ! -e "$f" ] || good=0; fi
  done
  said=$(printf "^vkskin render: %d of 10 frames were written, each whole: %s/s_0000.png to %s/s_%04d.png\$" \
    "$k" "$fs" "$fs" $((k - 1)))
  if [ "$rc" -eq 1 ] && [ "$k" -ge 2 ] && [ "$k" -lt 10 ] && [ "$good" -eq 1 ] &&
     [ "$(temporaries "$fs")" -eq 0 ] && grep -q "$said" "$keep/s.err" &&
     [ "$(grep -c '^wrote' "$keep/s.out")" -eq "$k" ]; then
    ok "full disk: a sequence that fails at frame $k leaves frames 0 to $((k - 1)) whole and none after, and says so"
  else
    fail "full disk sequence: rc $rc, k $k, whole $good, $(temporaries "$fs") temporaries: $(cat "$keep/s.err")"
  fi
  "$vk" render --validate --size 640x480 --out "$fs/c.jpg" >/dev/null 2>"$keep/j.err"
  rc=$?
  [ "$rc" -eq 1 ] && [ ! -e "$fs/c.jpg" ] && [ "$(temporaries "$fs")" -eq 0 ] &&
    grep -q "cannot write '$fs/c.jpg': No space left on device" "$keep/j.err" &&
    ok "full disk: a JPEG that does not fit is not written, exit 1" ||
    fail "full disk JPEG: rc $rc: $(cat "$keep/j.err")"
  "$vk" dump --validate --out "$fs/d.txt" >/dev/null 2>"$keep/d.err"
  rc=$?
  [ "$rc" -eq 1 ] && [ ! -e "$fs/d.txt" ] && [ "$(temporaries "$fs")" -eq 0 ] &&
    grep -q "^vkskin dump: cannot write '$fs/d.txt': No space left on device$" "$keep/d.err" &&
    ok "full disk: a dump that does not fit leaves no file, exit 1" ||
    fail "full disk dump: rc $rc: $(cat "$keep/d.err")"
  umount "$fs"
  echo "passed=$passed failed=$failed"
  exit $((failed > 0))
fi

tmp=$(mktemp -d)
xvfb_pid=
trap '[ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

# ---- The full filesystem: in a mount namespace of its own, as root or as a mapped user ----
mkdir -p "$tmp/fs" "$tmp/keep"
if unshare -m --propagation private true 2>/dev/null; then ns=(unshare -m --propagation private)
elif unshare -rm true 2>/dev/null; then ns=(unshare -rm)
else ns=(); fi
if [ ${#ns[@]} -gt 0 ] && "${ns[@]}" mount -t tmpfs -o size=4k tmpfs "$tmp/fs" 2>/dev/null; then
  "${ns[@]}" bash "$0" "$vk" "$compare" "$peak" --full-disk "$tmp/fs" "$tmp/keep" >"$tmp/ns.log" 2>&1
  grep -E '^(ok|FAIL)' "$tmp/ns.log"
  p=$(sed -n 's/^passed=\([0-9]*\) failed=\([0-9]*\)$/\1/p' "$tmp/ns.log")
  f=$(sed -n 's/^passed=\([0-9]*\) failed=\([0-9]*\)$/\2/p' "$tmp/ns.log")
  [ -n "$p" ] || { fail "the full-disk checks did not finish:"; tail -n 5 "$tmp/ns.log"; }
  passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0}))
else
  echo "skipped: the full-disk checks: no mount namespace with a tmpfs here (needs root or unprivileged user namespaces)"
fi

# ---- A file-size limit: EFBIG, with no mount ----
"$vk" render --validate --size 320x240 --out "$tmp/keep.png" >/dev/null 2>&1 || fail "render keep.png"
cp "$tmp/keep.png" "$tmp/keep.orig"
(ulimit -f 20; exec "$vk" render --validate --size 640x480 --time 0.5 --out "$tmp/keep.png") >/dev/null 2>"$tmp/fsize.err"
rc=$?
if [ "$rc" -eq 1 ] && cmp -s "$tmp/keep.png" "$tmp/keep.orig" && [ "$(temporaries "$tmp")" -eq 0 ] &&
   grep -q "^vkskin render: cannot write '$tmp/keep.png': File too large$" "$tmp/fsize.err"; then
  ok "file-size limit: the old image survives byte for byte, no temporary, exit 1: $(cat "$tmp/fsize.err")"
else
  fail "file-size limit: rc $rc, $(temporaries "$tmp") temporaries: $(cat "$tmp/fsize.err")"
fi

# Through a symbolic link the same: the file at its end is replaced whole or not at all.
ln -s keep.png "$tmp/keeplink.png"
(ulimit -f 20; exec "$vk" render --validate --size 640x480 --out "$tmp/keeplink.png") >/dev/null 2>"$tmp/fsize.err"
rc=$?
[ "$rc" -eq 1 ] && [ -L "$tmp/keeplink.png" ] && cmp -s "$tmp/keep.png" "$tmp/keep.orig" &&
  [ "$(temporaries "$tmp")" -eq 0 ] &&
  ok "file-size limit through a symbolic link: the file at its end survives, the link stays" ||
  fail "file-size limit through a link: rc $rc: $(cat "$tmp/fsize.err")"

# ---- A symbolic link is written through, not replaced ----
ln -s real.png "$tmp/link.png"
"$vk" render --validate --size 64x64 --out "$tmp/link.png" >/dev/null 2>"$tmp/link.err"
rc=$?
[ "$rc" -eq 0 ] && [ -L "$tmp/link.png" ] && whole "$tmp/real.png" &&
  ok "a symbolic link as --out stays a link; its target gets the image" ||
  fail "--out through a symbolic link: rc $rc: $(cat "$tmp/link.err")"

# ---- Standard output that fills ----
for args in "render --validate --size 64x64 --out -" "info" "bench --validate --frames 1 --warmup 0 --size 64x64 --json"; do
  # shellcheck disable=SC2086
  "$vk" $args >/dev/full 2>"$tmp/full.err"
  rc=$?
  name=${args%% *}
  [ "$rc" -eq 1 ] && grep -q "^vkskin $name: cannot write to standard output: No space left on device$" "$tmp/full.err" &&
    ok "$name onto a full standard output: exit 1, said" || fail "$name > /dev/full: rc $rc: $(cat "$tmp/full.err")"
done

# ---- Signals ----
# A render sequence stopped when three frames are written: SIGTERM (143), SIGINT (130; a shell's
# background job ignores SIGINT, env --default-signal gives it back its default first).
for sig in TERM INT; do
  rm -f "$tmp"/q_*.png
  env --default-signal=INT "$vk" render --validate --size 160x120 --frames 10000 --out "$tmp/q.png" >"$tmp/q.out" 2>"$tmp/q.err" &
  pid=$!
  for _ in $(seq 600); do [ -e "$tmp/q_0002.png" ] && break; sleep 0.1; done
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  want=$((128 + $(kill -l "$sig")))
  n=$(find "$tmp" -maxdepth 1 -name 'q_*.png' | wc -l)
  all=1
  for f in "$tmp"/q_*.png; do whole "$f" || all=0; done
  if [ "$rc" -eq "$want" ] && [ "$n" -ge 3 ] && [ "$all" -eq 1 ] && [ "$(temporaries "$tmp")" -eq 0 ] &&
     grep -q "^render: stopped by SIG$sig: $n of 10000 frames were written, each whole: $tmp/q_0000.png to " "$tmp/q.out" &&
     grep -q "^levels of detail:" "$tmp/q.out"; then
    ok "SIG$sig during a sequence: exit $rc, $n whole images, the summary printed"
  else
    fail "SIG$sig during a sequence: rc $rc (want $want), $n files, whole $all: $(tail -n 3 "$tmp/q.out") $(cat "$tmp/q.err")"
  fi
done
# Two signals: the second, sent while the first's clean stop still finishes its frame (large
# frames: a second or more each), kills at once: no summary, and no temporary left. When the run
# was already gone at the second (the first came as a file was done), it is tried again.
tried=0 rc=0 all=0 summary=1
while [ $tried -lt 3 ]; do
  tried=$((tried + 1))
  rm -f "$tmp"/q_*.png
  "$vk" render --validate --size 2048x2048 --frames 10000 --out "$tmp/q.png" >"$tmp/q2.out" 2>&1 &
  pid=$!
  for _ in $(seq 600); do [ -e "$tmp/q_0001.png" ] && break; sleep 0.1; done
  kill -s TERM "$pid"
  sleep 0.2
  second=0
  kill -s TERM "$pid" 2>/dev/null && second=1
  wait "$pid"
  rc=$?
  [ $second -eq 1 ] || continue
  all=1
  for f in "$tmp"/q_*.png; do whole "$f" || all=0; done
  summary=$(grep -c "^render: stopped by" "$tmp/q2.out")
  break
done
[ "$rc" -eq 143 ] && [ "$all" -eq 1 ] && [ "$summary" -eq 0 ] && [ "$(temporaries "$tmp")" -eq 0 ] &&
  ok "two SIGTERMs: the second kills at once (143, no summary), no temporary left, every file whole" ||
  fail "two SIGTERMs: rc $rc, whole $all, summary lines $summary, $tried tries, $(temporaries "$tmp") temporaries"
# bench: stopped while measuring, it reports what it measured.
"$vk" bench --validate --progress --frames 100000 --size 160x120 >"$tmp/b.out" 2>"$tmp/b.err" &
pid=$!
for _ in $(seq 600); do grep -Eq "bench: frame [0-9]+ of 100000" "$tmp/b.err" 2>/dev/null && break; sleep 0.1; done
kill -s TERM "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 143 ] && grep -Eq "^vkskin bench: stopped by SIGTERM after [0-9]+ of 100000 measured frames: their medians follow" "$tmp/b.err" &&
   grep -Eq "^bench: .*median of [0-9]+ frames" "$tmp/b.out" && grep -q "^  frame " "$tmp/b.out"; then
  ok "SIGTERM during bench: exit 143, the medians of what was measured printed"
else
  fail "SIGTERM during bench: rc $rc: $(tail -n 2 "$tmp/b.err") $(head -n 1 "$tmp/b.out")"
fi
# view, in a window under Xvfb when there is one.
if command -v Xvfb >/dev/null 2>&1; then
  exec 3>"$tmp/display"
  Xvfb -displayfd 3 -screen 0 640x480x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb_pid=$!
  exec 3>&-
  for _ in $(seq 100); do [ -s "$tmp/display" ] && break; sleep 0.1; done
  # Signalled once its loop runs: when the screenshot its script takes at frame 2 is there.
  mkdir "$tmp/shots"
  DISPLAY=:$(head -n 1 "$tmp/display") "$vk" view --validate --size 160x120 --seconds 600 \
    --script 2f:screenshot --screenshots "$tmp/shots" >"$tmp/v.out" 2>"$tmp/v.err" &
  pid=$!
  for _ in $(seq 600); do [ -e "$tmp/shots/vkskin_0001.png" ] && break; sleep 0.1; done
  kill -s TERM "$pid"
  wait "$pid"
  rc=$?
  [ "$rc" -eq 143 ] && grep -q "^view: stopped by SIGTERM$" "$tmp/v.out" && grep -Eq "^view: [0-9]+ frames" "$tmp/v.out" &&
    ok "SIGTERM during view: exit 143, its summary printed" ||
    fail "SIGTERM during view: rc $rc: $(cat "$tmp/v.out" "$tmp/v.err" | tail -n 3)"
else
  echo "skipped: SIGTERM during view: Xvfb is not installed (Debian package xvfb)"
fi

# ---- Requests past the device, refused from counts ----
refuse() { # NAME REGEX COMMAND...
  local name=$1 regex=$2
  shift 2
  "$peak" "$@" >/dev/null 2>"$tmp/r.err"
  local rc=$? kib
  kib=$(sed -n 's/^peak_rss_kib //p' "$tmp/r.err")
  if [ "$rc" -eq 1 ] && grep -Eq -- "$regex" "$tmp/r.err" && [ -n "$kib" ] && [ "$kib" -lt $((400 * 1024)) ]; then
    ok "$name: refused at a peak of $((kib / 1024)) MiB resident: $(grep -v peak_rss "$tmp/r.err")"
  else
    fail "$name: rc $rc, peak ${kib:-?} KiB: $(cat "$tmp/r.err")"
  fi
}
refuse "render 16777216 instances" "at most [0-9]+ instances fit$" \
  "$vk" render --validate --instances 16777216 --out "$tmp/r.png"
refuse "bench 16777216 instances" "at most [0-9]+ instances fit$" \
  "$vk" bench --validate --instances 16777216 --frames 1
# (6144 MiB where the compute rasterizer's two visibility buffers come with it, 2 x 2048 MiB)
refuse "render 16384x16384 in 1 GiB" "a 16384x16384 image needs (2048 MiB of GPU memory \\(color and depth\\)|6144 MiB of GPU memory \\(color, depth and the compute rasterizer's visibility buffers\\)) and 2048 MiB to read it back, more than .* \\(1024 MiB" \
  "$vk" render --validate --size 16384x16384 --max-memory 1024 --out "$tmp/r.png"
[ ! -e "$tmp/r.png" ] || fail "a refused render wrote an image"
# --anim-only has no device: its bound is this machine's memory (about 48 GiB for these).
if [ "$(awk '/^MemTotal:/ { print int($2 / 1048576) }' /proc/meminfo)" -lt 47 ]; then
  refuse "bench --anim-only 16777216 instances" "of this machine's memory .*: at most [0-9]+ instances fit$" \
    "$vk" bench --anim-only --instances 16777216 --frames 1
else
  echo "skipped: bench --anim-only past the machine's memory: this machine has 47 GiB or more"
fi

echo "passed=$passed failed=$failed"
[ "$failed" -eq 0 ]

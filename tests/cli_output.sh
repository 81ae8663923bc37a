#!/usr/bin/env bash
# What render writes and where, and what bench says while it runs; validation on throughout.
#   --out -: a PNG on standard output, byte for byte the one --out FILE.png writes, and the
#            render's lines on stderr instead;
#   --out FILE.jpg / .JPEG: a JPEG (its signature), matching the PNG as an image (compare_png);
#   the default size of every command is 1280x720 (the PNG's header says so); --name=value works;
#   bench --progress says how far it is on stderr at once; without it, and with stderr not a
#   terminal, bench says nothing there; under taskset -c 0, bench --anim-only animates on one
#   thread (one per core the process may run on);
#   the GPU times of render and bench are of every frame they measured;
#   dump says how many lines it wrote (on stderr when the lines go to standard output);
#   every subcommand's --help keeps its options apart from their descriptions.
#   usage: cli_output.sh VKSKIN COMPARE_PNG
set -u
vk=$1 compare=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
# The PNG's width and height from its header (IHDR: bytes 16 to 23, big-endian).
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{printf "%dx%d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}'; }
signature() { od -An -tx1 -N"$2" "$1" | tr -d ' \n'; }

"$vk" render --validate --clip walk --time 0.5 --size=96x64 --out "$tmp/file.png" >"$tmp/file.log" 2>&1 ||
  fail "render --out file.png: $(cat "$tmp/file.log")"
"$vk" render --validate --clip walk --time 0.5 --size 96x64 --out - >"$tmp/stdout.png" 2>"$tmp/stdout.err"
rc=$?
if [ "$rc" -eq 0 ] && cmp -s "$tmp/stdout.png" "$tmp/file.png" &&
   grep -q "^wrote standard output (96x64, walk at 0.500 s)" "$tmp/stdout.err"; then
  ok "--out - writes the same PNG to standard output ($(wc -c <"$tmp/stdout.png") bytes), its lines on stderr"
else
  fail "--out - (rc $rc): $(head -c 300 "$tmp/stdout.err")"
fi
[ "$(png_size "$tmp/file.png")" = 96x64 ] && ok "--size=96x64 gives a 96x64 PNG" ||
  fail "--size=96x64 gave $(png_size "$tmp/file.png")"

# JPEG against PNG: its ringing spreads into the background near the edges, hence the image size
# and a background tolerance of 16/255 for the silhouette.
"$vk" render --validate --clip walk --time 0.5 --size 320x240 --out "$tmp/big.png" >"$tmp/big.log" 2>&1 ||
  fail "render --out big.png: $(cat "$tmp/big.log")"
for name in out.jpg OUT.JPEG; do
  if "$vk" render --validate --clip walk --time 0.5 --size 320x240 --out "$tmp/$name" >"$tmp/jpg.log" 2>&1 &&
     [ "$(signature "$tmp/$name" 3)" = ffd8ff ] &&
     "$compare" "$tmp/$name" "$tmp/big.png" --background-tolerance 16 >"$tmp/cmp.log" 2>&1; then
    ok "--out $name writes a JPEG that matches the PNG: $(tail -n 1 "$tmp/cmp.log")"
  else
    fail "--out $name: $(cat "$tmp/jpg.log" "$tmp/cmp.log" 2>/dev/null | tail -n 3)"
  fi
done

if "$vk" render --validate --out "$tmp/default.png" >"$tmp/default.log" 2>&1 &&
   [ "$(png_size "$tmp/default.png")" = 1280x720 ] && grep -q "(1280x720," "$tmp/default.log"; then
  ok "render's default size is 1280x720"
else
  fail "render's default size: $(png_size "$tmp/default.png") $(head -n 1 "$tmp/default.log")"
fi
"$vk" bench --validate --frames 2 --warmup 1 --json >"$tmp/bench.json" 2>"$tmp/bench.err"
grep -q '"width": 1280' "$tmp/bench.json" && grep -q '"height": 720' "$tmp/bench.json" &&
  grep -q '"models": \["default character"\]' "$tmp/bench.json" && [ ! -s "$tmp/bench.err" ] &&
  ok "bench's default size is 1280x720, its models a JSON array, and stderr silent without --progress" ||
  fail "bench defaults: $(cat "$tmp/bench.err") $(grep -E 'width|height|models' "$tmp/bench.json")"

"$vk" bench --validate --frames 2 --warmup 1 --progress >"$tmp/progress.out" 2>"$tmp/progress.err"
rc=$?
# Exit 0, the progress lines on stderr and nothing else there (a validation message, say).
if [ "$rc" -eq 0 ] && grep -q "^vkskin bench: warm-up frame 1 of 1 (" "$tmp/progress.err" &&
   ! grep -qv "^vkskin bench: " "$tmp/progress.err" && grep -q "^bench: " "$tmp/progress.out"; then
  ok "bench --progress: $(head -n 1 "$tmp/progress.err")"
else
  fail "bench --progress said: $(cat "$tmp/progress.err")"
fi

# Every measured frame's GPU times count, the last two's too (no later frame reports them; a
# warm-up frame's never do): bench's gpu_frames equals its frames, and render says so of each.
for n in 1 2 3; do
  "$vk" bench --frames $n --warmup 1 --size 64x48 --json >"$tmp/gpu_frames.json" 2>&1
  grep -q "^  \"gpu_frames\": $n,$" "$tmp/gpu_frames.json" &&
    ok "bench --frames $n --warmup 1: the GPU times of all $n" ||
    fail "bench --frames $n: $(grep -E '"(frames|gpu_frames)"' "$tmp/gpu_frames.json" | tr -d '\n')"
done
"$vk" render --validate --frames 3 --size 64x48 --out "$tmp/seq.png" >"$tmp/seq.log" 2>&1
grep -Eq "^gpu: skinning [0-9.]+ ms, drawing [0-9.]+ ms \(.*\), median of 3 frames$" "$tmp/seq.log" &&
  ok "render --frames 3: the GPU times of all 3" || fail "render's GPU times: $(grep "^gpu" "$tmp/seq.log")"
"$vk" render --validate --size 64x48 --out "$tmp/one.png" >"$tmp/one.log" 2>&1
grep -Eq "^gpu: skinning .*, median of 1 frame$" "$tmp/one.log" &&
  ok "render of one frame: its GPU times are that frame's" || fail "render's GPU times: $(grep "^gpu" "$tmp/one.log")"

# dump says how many vertices (lines) and meshes it wrote, counted here from the file and info.
meshes=$("$vk" info | sed -n 's/^meshes: \([0-9]*\),.*/\1/p')
"$vk" dump --cpu --clip walk --out "$tmp/dump.txt" >"$tmp/dump.out" 2>"$tmp/dump.err"
lines=$(wc -l <"$tmp/dump.txt")
if [ "$(cat "$tmp/dump.out")" = "dump: wrote $lines vertices ($meshes meshes) to $tmp/dump.txt" ] &&
   [ ! -s "$tmp/dump.err" ] && [ "$lines" -gt 0 ]; then
  ok "dump says it wrote $lines vertices ($meshes meshes)"
else
  fail "dump said '$(cat "$tmp/dump.out" "$tmp/dump.err")' for $lines lines and $meshes meshes"
fi
"$vk" dump --cpu --clip walk --out - >"$tmp/dump_stdout.txt" 2>"$tmp/dump_stdout.err"
"$vk" dump --cpu --clip walk --out /dev/stdout >"$tmp/dev_stdout.txt" 2>"$tmp/dev_stdout.err"
if cmp -s "$tmp/dump.txt" "$tmp/dump_stdout.txt" && cmp -s "$tmp/dump.txt" "$tmp/dev_stdout.txt" &&
   [ "$(cat "$tmp/dump_stdout.err")" = "dump: wrote $lines vertices ($meshes meshes) to standard output" ] &&
   [ "$(cat "$tmp/dev_stdout.err")" = "dump: wrote $lines vertices ($meshes meshes) to /dev/stdout" ]; then
  ok "dump to standard output (- or /dev/stdout): the lines alone there, what it wrote on stderr"
else
  fail "dump to standard output: $(cat "$tmp/dump_stdout.err" "$tmp/dev_stdout.err") $(wc -l <"$tmp/dump_stdout.txt") lines"
fi

# --help: each option line has its option, then two spaces or more and its description, or the
# option alone with the description on the lines below; no line runs past 80 columns.
for sub in info dump render view bench devices; do
  "$vk" $sub --help >"$tmp/help" 2>&1 || fail "$sub --help exited non-zero"
  verdict=$(awk '
    /^options:/ { on = 1; next }
    !on { if (length > 80) bad = bad " long:" NR; next }
    length > 80 { bad = bad " long:" NR }
    want_text && !/^                          [^ ]/ { bad = bad " no-description:" NR }
    { want_text = 0 }
    /^  --/ {
      options++
      rest = $0; sub(/^  --[^ ]+( [^ ]+)?/, "", rest)
      if (rest == "") want_text = 1
      else if (rest !~ /^  +[^ ]/) bad = bad " joined:" NR
      next
    }
    !/^                          [^ ]/ { bad = bad " stray:" NR }
    END { if (want_text) bad = bad " no-description:end"; if (!options) bad = bad " no-options"; print bad ? "bad" bad : "ok " options }' "$tmp/help")
  case $verdict in
    ok*) ok "$sub --help: ${verdict#ok } options, each apart from its description" ;;
    *) fail "$sub --help ($verdict):"; sed -n '/^options:/,$p' "$tmp/help" ;;
  esac
done

# One thread per core this process may run on: its CPU affinity, not the machine's count (the
# animation alone: no GPU).
if command -v taskset >/dev/null 2>&1; then
  taskset -c 0 "$vk" bench --anim-only --frames 1 --warmup 0 --json >"$tmp/one_core.json" 2>&1
  grep -q '"threads": 1,' "$tmp/one_core.json" &&
    ok "bench on one allowed core (taskset -c 0) animates on 1 thread" ||
    fail "bench under taskset -c 0: $(grep threads "$tmp/one_core.json" | head -n 1)"
else
  echo "skipped: taskset (util-linux) is not installed: the one-core check"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# tools/gpu_check.sh --quick on this machine's device (lavapipe in CI): every check runs and
# writes what a lease brings back, and a failing run makes the whole check fail, naming it.
#   tests/gpu_check_quick.sh VKSKIN SOURCE_DIR [CESIUMMAN.glb]
set -u
vk=$1 src=$2 cesium=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
"$vk" devices >"$tmp/devices" 2>&1 ||
  { echo "skipped: no Vulkan device: $(head -n1 "$tmp/devices")"; exit 77; }
args=(--quick --vkskin "$vk" --out "$tmp/out")
[ -n "$cesium" ] && [ -f "$cesium" ] && args+=("$cesium") || cesium=''
[ -n "$cesium" ] || echo "skipped: the CesiumMan rows: no CesiumMan.glb (VKS_SAMPLE_MODELS)"

"$src/tools/gpu_check.sh" "${args[@]}" >"$tmp/stdout" 2>&1
rc=$?
[ $rc -eq 0 ] || { fail "gpu_check --quick exit $rc"; tail -n 30 "$tmp/stdout"; }

# At most 8 files, all named as the device tool brings them back.
n=$(find "$tmp/out" -type f | wc -l)
[ "$n" -le 8 ] || fail "$n files in the output folder (the device brings back 8)"
for f in summary.md results.jsonl log.txt device.txt crowd.png matrix_series.tar; do
  [ -s "$tmp/out/$f" ] || fail "no $f"
done
# Every run's JSON, by check: the matrix's 2 counts x 2 modes x 2 scenes x its series, the walk's
# 2 counts x 2 cameras, the animation's
# models x 2, the staging's models x 4, 3 morph cases, 2 counts x 2 rasterizers.
models=2 series=2
[ -z "$cesium" ] || { models=3 series=3; }
count() { grep -c "^{\"check\": \"$1\"" "$tmp/out/results.jsonl"; }
[ "$(count matrix)" -eq $((8 * series)) ] || fail "matrix: $(count matrix) runs, expected $((8 * series))"
[ "$(count walk)" -eq 4 ] || fail "walk: $(count walk) runs, expected 4"
# Every walker moved (each instance's place record uploaded), the still matrix runs none.
grep '"check": "walk"' "$tmp/out/results.jsonl" | grep -v '"instances": \([0-9]*\),.*"moved_instances": \1,' |
  grep -q . && fail "a walk run where not every instance moved"
grep '"check": "matrix", "case": "[^"]* none x' "$tmp/out/results.jsonl" |
  grep -vq '"moved_instances": 0,' && fail "a still matrix run moved instances"
grep -q '"check": "matrix", "case": "[^"]* street wander x' "$tmp/out/results.jsonl" ||
  fail "no walking crowd at eye level in the matrix"
[ "$(count anim)" -eq $((2 * models)) ] || fail "anim: $(count anim) runs, expected $((2 * models))"
[ "$(count stage)" -eq $((4 * (models + 1))) ] || fail "stage: $(count stage) runs, expected $((4 * (models + 1)))"
[ "$(count morph)" -eq 3 ] || fail "morph: $(count morph) runs, expected 3"
[ "$(count raster)" -eq 4 ] || fail "raster: $(count raster) runs, expected 4"
# The staged runs staged, the unstaged did not; --lod 0 drew level 0 at both rasterizers.
[ "$(grep '"check": "stage"' "$tmp/out/results.jsonl" | grep -c '"staged_palette_vec4s": ')" -eq "$(count stage)" ] ||
  fail "a staging run's JSON lacks staged_palette_vec4s"
grep '"check": "stage", "case": "[^"]*, --stage-palette"' "$tmp/out/results.jsonl" |
  grep -q '"staged_palette_vec4s": 0[,}]' && fail "a --stage-palette run staged nothing"
grep '"check": "stage", "case": "[^"]*, without' "$tmp/out/results.jsonl" |
  grep -vq '"staged_palette_vec4s": 0[,}]' && fail "a run without --stage-palette staged"
grep '"check": "raster", "case": "[^"]*, compute"' "$tmp/out/results.jsonl" |
  grep -q '"triangles_compute": 0[,}]' && fail "a --raster compute run sent nothing to compute"
# The renders ran under validation and were clean; the summary has every table and the tally.
grep -q '^| default x 100, descriptors | 100 | [0-9.]* | clean |$' "$tmp/out/summary.md" ||
  fail "the validated render's row: $(grep 'descriptors' "$tmp/out/summary.md" | head -n1)"
[ "$(grep -c -- '--validate' "$tmp/out/log.txt")" -ge 3 ] || fail "fewer than 3 validated renders"
for c in matrix walk renders anim stage morph raster; do
  grep -q "^## $c\$" "$tmp/out/summary.md" || fail "no $c table in the summary"
done
grep -q ' 0 failed, 0 cut short or skipped' "$tmp/out/summary.md" || fail "the tally: $(tail -n1 "$tmp/out/summary.md")"

# A vkskin that fails one command: the check says which and exits 1.
cat >"$tmp/broken" <<EOF
#!/usr/bin/env bash
case " \$* " in *" --stage-palette "*) echo "vkskin: broken on purpose" >&2; exit 3 ;; esac
exec "$vk" "\$@"
EOF
chmod +x "$tmp/broken"
mkdir -p "$tmp/tests" && ln -s "$(dirname "$vk")/tests/fixtures" "$tmp/tests/fixtures"
"$src/tools/gpu_check.sh" --quick --vkskin "$tmp/broken" --out "$tmp/broken_out" >"$tmp/b.stdout" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "a failing run gave exit $rc, not 1"
grep -q '^- stage: default, --stage-palette: exit 3$' "$tmp/broken_out/summary.md" ||
  fail "the summary does not name the failed run: $(tail -n3 "$tmp/broken_out/summary.md")"
# A vkskin whose every run prints its JSON and then hangs: each run is cut at its share of a
# 12 s budget, the measured JSON kept and marked cut (the matrix's through bench_matrix.sh), the
# tally says so, and it exits 1.
cat >"$tmp/hangs" <<EOF
#!/usr/bin/env bash
case " \$* " in *" devices "*|*" --version "*) exec "$vk" "\$@" ;; esac
echo '{"frame_ms": 1.5, "instances": 7, "visible": 7}'
exec sleep 300
EOF
chmod +x "$tmp/hangs"
SECONDS=0
"$src/tools/gpu_check.sh" --quick --budget 12 --vkskin "$tmp/hangs" --out "$tmp/hung" >"$tmp/h.stdout" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "runs cut short gave exit $rc, not 1"
[ "$SECONDS" -le 40 ] || fail "a 12 s budget took $SECONDS s"
grep -q '^{"check": "matrix", "case": "[^"]*", "series": "[^"]*", "cut": true, "frame_ms": 1.5' \
  "$tmp/hung/results.jsonl" || fail "the cut matrix run's JSON was not kept: $(head -c 300 "$tmp/hung/results.jsonl")"
grep -q '^{"check": "renders", "case": "[^"]*", "cut": true' "$tmp/hung/results.jsonl" ||
  fail "the cut render's output was not kept"
grep -q '^- renders: [^:]*: cut short$' "$tmp/hung/summary.md" || fail "the cut render is not named"
! grep -q ' 0 cut short or skipped' "$tmp/hung/summary.md" ||
  fail "the tally of cut checks: $(tail -n1 "$tmp/hung/summary.md")"
# Stopped by a signal mid-run: it stops within seconds, exit 1, the run in flight kept and the
# summary written, the checks not reached marked so.
"$src/tools/gpu_check.sh" --quick --budget 200 --vkskin "$tmp/hangs" --out "$tmp/stopped" >"$tmp/s.stdout" 2>&1 &
pid=$!
sleep 3
kill -TERM $pid
SECONDS=0
wait $pid
rc=$?
[ $rc -eq 1 ] || fail "stopped by SIGTERM: exit $rc, not 1"
[ "$SECONDS" -le 15 ] || fail "SIGTERM took $SECONDS s to stop it"
grep -q 'stopped by a signal' "$tmp/stopped/log.txt" || fail "the log does not say it was stopped"
[ "$(grep -c '^(not run)$' "$tmp/stopped/summary.md")" -eq 6 ] ||
  fail "the summary after SIGTERM: $(head -n 20 "$tmp/stopped/summary.md" 2>&1)"
grep -q '^{"check": "matrix", "case": "[^"]*", "series": "[^"]*", "cut": true, "frame_ms": 1.5' \
  "$tmp/stopped/results.jsonl" || fail "the matrix run in flight at SIGTERM was not kept"
grep -q '^| [^|]* (cut) | 7 | 1.5 |' "$tmp/stopped/summary.md" || fail "no cut row in the matrix table"

# Bad usage: exit 2 and one line.
"$src/tools/gpu_check.sh" --budget x >"$tmp/u" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$tmp/u")" = "gpu_check: --budget needs a whole number of seconds, not 'x'" ] ||
  fail "bad --budget: exit $rc, '$(cat "$tmp/u")'"

[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "gpu_check --quick: every check ran, a failing run is named, cut runs keep their figures"

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
# Every run's JSON, by check: the matrix's 2 counts x 2 modes x its series, the animation's
# models x 2, the staging's models x 4, 3 morph cases, 2 counts x 2 rasterizers.
models=2 series=2
[ -z "$cesium" ] || { models=3 series=3; }
count() { grep -c "^{\"check\": \"$1\"" "$tmp/out/results.jsonl"; }
[ "$(count matrix)" -eq $((4 * series)) ] || fail "matrix: $(count matrix) runs, expected $((4 * series))"
[ "$(count anim)" -eq $((2 * models)) ] || fail "anim: $(count anim) runs, expected $((2 * models))"
[ "$(count stage)" -eq $((4 * (models + 1))) ] || fail "stage: $(count stage) runs, expected $((4 * (models + 1)))"
[ "$(count morph)" -eq 3 ] || fail "morph: $(count morph) runs, expected 3"
[ "$(count raster)" -eq 4 ] || fail "raster: $(count raster) runs, expected 4"
# The staged runs staged, the unstaged did not; --lod 0 drew level 0 at both rasterizers.
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
for c in matrix renders anim stage morph raster; do
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
# Bad usage: exit 2 and one line.
"$src/tools/gpu_check.sh" --budget x >"$tmp/u" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$tmp/u")" = "gpu_check: --budget needs a whole number of seconds, not 'x'" ] ||
  fail "bad --budget: exit $rc, '$(cat "$tmp/u")'"

[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "gpu_check --quick: every check ran, and a failing run is named"

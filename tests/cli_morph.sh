#!/usr/bin/env bash
# Morph targets at the command line, on robot.glb (tests/make_fixtures.c):
#   info lists the targets (name, mesh, vertices moved, default weight, what they move) and each
#   clip's weight tracks and keys;
#   dump says the weights its pose applied, restated from the fixture's keys: Talk at 0.25 s
#   (LINEAR: open 1 on the face and the teeth), Blink at 0.15 s (STEP: blink 1 from 0.1 s) and
#   Smile at 0.5 s (CUBICSPLINE from 0 with out-tangent 3 to 1: 0.5 * 0 + 0.125 * 3 + 0.5 * 1 =
#   0.875), on the GPU (validation on: the weights its crowd's instance posed with,
#   vkskin_crowd_get_weights) and on the CPU (the model's at that time, vkskin_model_weights)
#   alike.
#   usage: cli_morph.sh VKSKIN ROBOT_GLB
set -u
vk=$1 robot=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

"$vk" info "$robot" >"$tmp/info" 2>&1 || fail "info: $(cat "$tmp/info")"
if grep -q "^morph targets: 5 " "$tmp/info" &&
   grep -Eq "^ +0  smile +2 +561  0.1 +positions, normals, tangents$" "$tmp/info" &&
   grep -Eq "^ +1  blink +2 +5  0 +positions$" "$tmp/info" &&
   grep -Eq "^ +1  Talk .*; 2 weight tracks, 10 keys$" "$tmp/info" &&
   grep -Eq "^ +2  Blink .*; 1 weight track, 4 keys$" "$tmp/info"; then
  ok "info lists the targets and the clips' weight tracks"
else
  fail "info: $(grep -A6 -E '^(morph|clips)' "$tmp/info")"
fi

check_dump() { # clip time expected-weights
  for how in --validate --cpu; do
    if "$vk" dump "$robot" --clip "$1" --time "$2" $how --out "$tmp/lines" >"$tmp/said" 2>&1 &&
       grep -qx "dump: morph-target weights: $3" "$tmp/said" &&
       [ "$(wc -l <"$tmp/lines")" -eq 744 ]; then
      ok "dump $1 at $2 s ($how): $3"
    else
      fail "dump $1 at $2 s ($how): $(cat "$tmp/said")"
    fi
  done
}
check_dump Talk 0.25 "smile 0, blink 0, open 1, open 1, smile 0"
check_dump Blink 0.15 "smile 0, blink 1, open 0, open 0, smile 0"
check_dump Smile 0.5 "smile 0.875, blink 0, open 0.875, open 0, smile 0.875"

echo "cli_morph: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

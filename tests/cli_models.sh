#!/usr/bin/env bash
# `vkskin info` and `vkskin dump --cpu` on the default character and on every model given:
# exit 0, one well-formed line per vertex, looping time, and --help on every subcommand.
#   usage: cli_models.sh VKSKIN [MODEL...]
set -u
vk=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1"; failed=$((failed + 1)); }

for sub in info dump; do
  if "$vk" $sub --help >"$tmp/help" 2>&1 && grep -q "usage: vkskin $sub" "$tmp/help"; then
    ok "$sub --help"
  else
    bad "$sub --help"
  fi
done
"$vk" --help >/dev/null 2>&1 && ok "vkskin --help" || bad "vkskin --help"

# Checks one model ("" = the default character).
check_model() {
  local name=${1:-default character} args=()
  [ -n "$1" ] && args=("$1")
  if ! "$vk" info "${args[@]}" >"$tmp/info" 2>"$tmp/err"; then
    bad "$name: info failed: $(cat "$tmp/err")"
    return
  fi
  local vertices clips
  vertices=$(sed -n 's/^meshes: [0-9]*, vertices: \([0-9]*\),.*/\1/p' "$tmp/info")
  clips=$(sed -n 's/^clips: \([0-9]*\)$/\1/p' "$tmp/info")
  if [ -z "$vertices" ] || [ -z "$clips" ] || ! grep -q "^joints: " "$tmp/info"; then
    bad "$name: info lacks vertices, clips or joints"
    return
  fi
  ok "$name: info ($vertices vertices, $clips clips)"
  local c
  for ((c = 0; c < (clips > 0 ? clips : 1); c++)); do
    local clip=()
    [ "$clips" -gt 0 ] && clip=(--clip "$c")
    if ! "$vk" dump "${args[@]}" "${clip[@]}" --time 0.37 --cpu --out "$tmp/a.txt" 2>"$tmp/err"; then
      bad "$name: dump clip $c failed: $(cat "$tmp/err")"
      continue
    fi
    # 11 fields per line, all numbers finite, as many lines as vertices.
    if ! awk -v n="$vertices" 'NF != 11 { bad = 1 } /nan|inf/ { bad = 1 } END { exit bad || NR != n }' "$tmp/a.txt"; then
      bad "$name: dump clip $c is malformed or has $(wc -l <"$tmp/a.txt") lines, want $vertices"
      continue
    fi
    # Standard output gives the same lines.
    "$vk" dump "${args[@]}" "${clip[@]}" --time 0.37 --cpu --out - >"$tmp/b.txt" 2>/dev/null
    if cmp -s "$tmp/a.txt" "$tmp/b.txt"; then ok "$name: dump clip $c"; else bad "$name: dump to - differs"; fi
  done
}

check_model ""
# Time loops within the clip: walk at t and at t + its duration give the same vertices.
duration=$("$vk" info | awk '$2 == "walk" { print $3 }')
if [ -n "$duration" ]; then
  "$vk" dump --clip walk --time 0.25 --cpu --out "$tmp/t0.txt"
  "$vk" dump --clip walk --time "$(awk -v d="$duration" 'BEGIN { printf "%.6f", 0.25 + 2 * d }')" --cpu --out "$tmp/t1.txt"
  "$vk" dump --clip walk --time 0.6 --cpu --out "$tmp/t2.txt"
  # Equal within float rounding of the wrapped time; a different time must differ.
  if paste "$tmp/t0.txt" "$tmp/t1.txt" | awk '{ for (i = 6; i <= 11; i++) { d = $i - $(i + 11); if (d < 0) d = -d; if (d > 1e-4) bad = 1 } } END { exit bad }' &&
     ! cmp -s "$tmp/t0.txt" "$tmp/t2.txt"; then
    ok "dump time loops within the clip"
  else
    bad "dump time does not loop within the clip"
  fi
else
  bad "default character has no clip named walk"
fi
for m in "$@"; do check_model "$m"; done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

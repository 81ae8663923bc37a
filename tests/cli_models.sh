#!/usr/bin/env bash
# `vkskin info` and `vkskin dump --cpu` on the default character and on every model given:
# exit 0, one well-formed line per vertex, looping time, and --help on every subcommand.
# `vkskin dump --validate` (the GPU's skinning pass, read back, validation on) agrees with
# `dump --cpu` on every clip of every model and on three clip/time pairs of the default character:
# positions (columns 6-8) within 1e-4 x the radius of the bind-pose bounds that `info` prints,
# normals (9-11) and tangents (12-15, when present) within 1e-4.
# `dump --skinning dual-quaternion` (--twist TWIST.glb): GPU against --cpu on twist.glb and the
# default character; twist.glb's tube turned 180 degrees keeps radius 0.25 on every ring (a closed
# form: each vertex turns about the axis), where linear blending's mid-tube ring collapses; a model
# that scales a joint non-uniformly is refused in one line; a bad --skinning word is a usage error.
#   usage: cli_models.sh VKSKIN [MODEL | --folder DIR | --twist TWIST.glb | --scaled GLB]...
set -u
vk=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1"; failed=$((failed + 1)); }

for sub in info dump render; do
  if "$vk" $sub --help >"$tmp/help" 2>&1 && grep -q "usage: vkskin $sub" "$tmp/help"; then
    ok "$sub --help"
  else
    bad "$sub --help"
  fi
done
"$vk" --help >/dev/null 2>&1 && ok "vkskin --help" || bad "vkskin --help"

# Half the diagonal of the bind-pose bounds in `info`'s output (file $1).
bind_radius() {
  sed -n 's/^bounds (bind pose, palette space): min (\(.*\), \(.*\), \(.*\)) max (\(.*\), \(.*\), \(.*\))$/\1 \2 \3 \4 \5 \6/p' "$1" |
    awk '{ r = sqrt(($4 - $1) ^ 2 + ($5 - $2) ^ 2 + ($6 - $3) ^ 2) / 2; printf "%.9g\n", (r > 0 ? r : 1) }'
}

# GPU against CPU: NAME RADIUS DUMP_ARGS... (model, clip and time).
gpu_matches_cpu() {
  local name=$1 radius=$2
  shift 2
  if ! awk -v r="$radius" 'BEGIN { exit !(r + 0 > 0) }'; then
    bad "$name: no bind-pose radius from info ('$radius')"
    return
  fi
  if ! "$vk" dump "$@" --validate --out "$tmp/gpu.txt" 2>"$tmp/err" || [ -s "$tmp/err" ]; then
    bad "$name: GPU dump failed: $(cat "$tmp/err")"
    return
  fi
  if ! "$vk" dump "$@" --cpu --out "$tmp/cpu.txt" 2>"$tmp/err"; then
    bad "$name: CPU dump failed: $(cat "$tmp/err")"
    return
  fi
  local verdict
  verdict=$(paste -d ' ' "$tmp/cpu.txt" "$tmp/gpu.txt" | awk -v r="$radius" '
    { n = NF / 2
      if (n != 11 && n != 15) bad = "malformed line " NR
      for (i = 1; i <= 5; i++) if ($i != $(i + n)) bad = "mesh, vertex or bind position differ on line " NR
      for (i = 6; i <= n; i++) {
        d = $i - $(i + n); if (d < 0) d = -d
        if (d != d || $(i + n) ~ /nan|inf/) bad = "non-finite value on line " NR
        if (i <= 8) { if (d > pos) pos = d } else if (i <= 11) { if (d > nrm) nrm = d } else if (d > tan) tan = d
      }
      lines++ }
    END {
      if (pos > 1e-4 * r) bad = sprintf("positions differ by %g > %g", pos, 1e-4 * r)
      if (nrm > 1e-4) bad = sprintf("normals differ by %g", nrm)
      if (tan > 1e-4) bad = sprintf("tangents differ by %g", tan)
      if (lines == 0) bad = "no lines"
      printf "%s (max error: positions %g, normals %g, tangents %g over %d vertices)\n", bad ? "FAIL " bad : "ok", pos, nrm, tan, lines
    }')
  local want got
  want=$(wc -l <"$tmp/cpu.txt")
  got=$(wc -l <"$tmp/gpu.txt")
  if [ "$want" != "$got" ]; then
    bad "$name: GPU dump has $got lines, the CPU's $want"
  elif [[ $verdict == ok* ]]; then
    ok "$name: GPU = CPU ${verdict#ok }"
  else
    bad "$name: GPU != CPU: $verdict"
  fi
}

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
  local radius
  radius=$(bind_radius "$tmp/info")
  local c
  for ((c = 0; c < (clips > 0 ? clips : 1); c++)); do
    local clip=()
    [ "$clips" -gt 0 ] && clip=(--clip "$c")
    if ! "$vk" dump "${args[@]}" "${clip[@]}" --time 0.37 --cpu --out "$tmp/a.txt" 2>"$tmp/err"; then
      bad "$name: dump clip $c failed: $(cat "$tmp/err")"
      continue
    fi
    # 11 fields per line (15 with tangents), all numbers finite, as many lines as vertices.
    if ! awk -v n="$vertices" 'NF != 11 && NF != 15 { bad = 1 } /nan|inf/ { bad = 1 } END { exit bad || NR != n }' "$tmp/a.txt"; then
      bad "$name: dump clip $c is malformed or has $(wc -l <"$tmp/a.txt") lines, want $vertices"
      continue
    fi
    # Standard output gives the same lines.
    "$vk" dump "${args[@]}" "${clip[@]}" --time 0.37 --cpu --out - >"$tmp/b.txt" 2>/dev/null
    if cmp -s "$tmp/a.txt" "$tmp/b.txt"; then ok "$name: dump clip $c"; else bad "$name: dump to - differs"; fi
    local what="clip $c at 0.37 s"
    [ "$clips" -eq 0 ] && what="bind pose"
    gpu_matches_cpu "$name: $what" "$radius" "${args[@]}" "${clip[@]}" --time 0.37
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
# The default character on the GPU at three more clip/time pairs (wave at 2.7 s wraps around).
"$vk" info >"$tmp/info"
radius=$(bind_radius "$tmp/info")
for pair in "walk 0.5" "idle 1.3" "wave 2.7"; do
  read -r clip_name seconds <<<"$pair"
  gpu_matches_cpu "default character: $clip_name at $seconds s" "$radius" --clip "$clip_name" --time "$seconds"
done
# The bind pose on demand (--bind-pose, or --clip none) for a model that has clips: every skinned
# position equals its bind position (columns 6-8 against 3-5; the default character's rest pose is
# its bind pose), on the CPU and the GPU, where the walk at 0 s does not.
bind_pose_is_rest() { # FILE: max |skinned - bind| within 1e-5 x radius
  awk -v r="$radius" '{ for (i = 3; i <= 5; i++) { d = $(i + 3) - $i; if (d < 0) d = -d; if (d > m) m = d } }
    END { exit !(NR > 0 && m <= 1e-5 * r) }' "$1"
}
if "$vk" dump --bind-pose --cpu --out "$tmp/bp_cpu.txt" && bind_pose_is_rest "$tmp/bp_cpu.txt" &&
   "$vk" dump --clip none --cpu --out "$tmp/bp_none.txt" && cmp -s "$tmp/bp_cpu.txt" "$tmp/bp_none.txt" &&
   "$vk" dump --clip walk --cpu --out "$tmp/walk0.txt" && ! bind_pose_is_rest "$tmp/walk0.txt"; then
  ok "dump --bind-pose (= --clip none) skins the rest pose on the CPU; the walk does not"
else
  bad "dump --bind-pose is not the rest pose (or the walk is)"
fi
gpu_matches_cpu "default character: --bind-pose" "$radius" --bind-pose
# Dual quaternions through dump: TWIST.glb (tests/make_fixtures.c: radius 0.25 along +y, its top
# turned 180 degrees at 1 s).
check_dual_quaternions() {
  local twist=$1
  gpu_matches_cpu "twist.glb: dual quaternions at 1 s" 1 "$twist" --time 1 --skinning dual-quaternion
  gpu_matches_cpu "default character: dual quaternions, walk at 0.35 s" "$radius" --clip walk \
    --time 0.35 --skinning dual-quaternion
  # Every skinned vertex's distance from the y axis (columns 6 and 8), and the mid-tube ring's.
  local dq lin
  "$vk" dump "$twist" --time 1 --skinning dual-quaternion --cpu --out "$tmp/dq.txt" >/dev/null &&
    "$vk" dump "$twist" --time 1 --cpu --out "$tmp/lin.txt" >/dev/null ||
    { bad "twist.glb: dump failed"; return; }
  # (printed with the vertex count: an empty dump is no tube at all)
  radii='{ r = sqrt($6 * $6 + $8 * $8); d = r - 0.25; if (d < 0) d = -d; if (d > worst) worst = d
           if ($7 > 0.99 && $7 < 1.01 && (mid == "" || r > mid)) mid = r }
         END { printf "%.6g %.6g %d\n", worst, mid, NR }'
  dq=$(awk "$radii" "$tmp/dq.txt") lin=$(awk "$radii" "$tmp/lin.txt")
  local dq_n=${dq##* } lin_n=${lin##* }
  dq=${dq% *} lin=${lin% *}
  if [ "$dq_n" -ge 100 ] && [ "$dq_n" -eq "$lin_n" ] &&
    awk -v a="${dq% *}" -v m="${lin#* }" 'BEGIN { exit !(a < 1e-3 && m != "" && m < 0.02) }'; then
    ok "twist.glb at 180 degrees: dual quaternions keep radius 0.25 within ${dq% *} over $dq_n vertices; linear's mid ring is ${lin#* } at most"
  else
    bad "twist.glb at 180 degrees ($dq_n and $lin_n vertices): dual quaternions off radius 0.25 by ${dq% *}, linear's mid ring ${lin#* }"
  fi
  # The public reference: linear through --skinning linear is the default's, byte for byte, and
  # not dual quaternions' at that same time.
  "$vk" dump "$twist" --time 0.7 --skinning linear --cpu --out "$tmp/l1.txt" >/dev/null &&
    "$vk" dump "$twist" --time 0.7 --cpu --out "$tmp/l2.txt" >/dev/null &&
    "$vk" dump "$twist" --time 0.7 --skinning dual-quaternion --cpu --out "$tmp/d1.txt" >/dev/null &&
    cmp -s "$tmp/l1.txt" "$tmp/l2.txt" && ! cmp -s "$tmp/l1.txt" "$tmp/d1.txt" &&
    ok "dump --skinning linear is the default (and not dual quaternions at 0.7 s)" ||
    bad "dump --skinning linear differs from the default, or is dual quaternions' at 0.7 s"
}
check_dq_refusals() {
  local scaled=$1 out rc
  for where in --cpu --validate; do
    out=$("$vk" dump "$scaled" --skinning dual-quaternion $where --out "$tmp/x.txt" 2>&1)
    rc=$?
    if [ $rc -eq 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
      [[ $out == *"joint 'lower' scales by (1.5, 0.6, 1) in clip 'bend' at 0.5 s: dual-quaternion skinning takes uniform, positive scale only"* ]]; then
      ok "dump --skinning dual-quaternion $where refuses a non-uniform scale in one line"
    else
      bad "dump --skinning dual-quaternion $where on a non-uniform scale: exit $rc: $out"
    fi
  done
  out=$("$vk" dump --skinning cubic --cpu --out "$tmp/x.txt" 2>&1)
  rc=$?
  [ $rc -eq 2 ] && [ "$out" = "vkskin dump: --skinning needs linear or dual-quaternion, not 'cubic'" ] &&
    ok "dump --skinning cubic is a usage error" || bad "dump --skinning cubic: exit $rc: $out"
}

# The models given, and the .glb files of each --folder DIR (the sample models: said when absent).
while [ $# -gt 0 ]; do
  if [ "$1" = --twist ]; then
    check_dual_quaternions "$2"
    shift 2
  elif [ "$1" = --scaled ]; then
    check_dq_refusals "$2"
    shift 2
  elif [ "$1" = --folder ]; then
    found=0
    for m in "$2"/*.glb; do
      [ -f "$m" ] || continue
      check_model "$m"
      found=1
    done
    [ "$found" -eq 1 ] || echo "skipped: the sample models: no .glb file in '$2' (set VKS_SAMPLE_MODELS; docs/testing.md)"
    shift 2
  else
    check_model "$1"
    shift
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

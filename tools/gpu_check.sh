#!/usr/bin/env bash
# Everything a developer lent a GPU should run, in one command that ends within its budget
# (default 270 s, so that a 15-minute lease, its start included, can run it twice), writing its
# figures to one folder of at most 8 files (what the device tool brings back):
#
#   tools/gpu_check.sh [--quick] [--vkskin PATH] [--out DIR] [--budget SECONDS] [CESIUMMAN.glb]
#
#   matrix   the benchmark matrix (tools/bench_matrix.sh): N = 1 to 1 000 000, compute and vertex
#            mode, the default character, CesiumMan and a mixed crowd, still and framed, and
#            wandering at eye level
#   walk     the crowd walking (--motion wander), framed and at eye level (--camera street): every
#            instance moving, the bytes its instance table uploads a frame
#   renders  validated crowd renders (core and synchronization validation, which fail a run on any
#            message): the descriptors binding, and the addresses binding beside it
#   anim     CPU animation alone on every core (and one), the animation level of detail on and off
#   stage    --stage-palette against without, alternating off, on, off, on, per skeleton size
#   morph    the morph-target variant of the pass (robot.glb's Talk and Wave) beside the default
#            character's plain one
#   raster   --raster compute against --raster hardware over triangle sizes (level 0 of the default
#            character, 1 to 1 024 instances at 1280x720: its table gives the pixels a triangle)
#
# Files in DIR (default gpu-check/): summary.md (the tables, also printed last), results.jsonl
# (every run's JSON object with "check" and "case" keys in front), log.txt (each command, its exit
# status and what it printed on stderr), device.txt (vkskin and the device), crowd.png (the
# validated 100 000), matrix_series.tar (bench_matrix.sh's series, for its --plot-only). Runs go
# check by check in the order above, each limited (timeout) to its share of what is left of the
# budget (time an earlier check did not use goes to the later ones); a spent share skips that
# check's remaining runs with a message. A run cut short keeps what it printed (bench prints the
# frames it measured): its JSON goes to results.jsonl with "cut": true. summary.md is rewritten
# after every check, and when the script is stopped (SIGTERM, SIGINT), so that a lease that ends
# early still brings back the checks done.
#
# On a lent GPU, carry only what it runs (the whole build folder is past the 64 MiB a run carries):
#   here:  ../shared/gpu/stage.sh build/vkskin && mkdir -p .gpu/models &&
#          cp ../shared/models/CesiumMan.glb .gpu/models/
#   run:   source .gpu/env.sh; tools/gpu_check.sh --out $OUT/check
#          carry [".gpu", "build/vkskin", "build/commit.txt", "build/tests/fixtures"]
#
# --quick: the same checks at sizes a CPU device finishes in about a minute (CI runs it on
# lavapipe: tests/CMakeLists.txt, gpu_check_quick). Exit 0 when every run succeeded, 1 when any
# failed or was cut short (the summary says which), 2 on bad usage.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
vk=$here/build/vkskin out=gpu-check budget='' quick='' cesium=''

usage() {
  echo "usage: tools/gpu_check.sh [--quick] [--vkskin PATH] [--out DIR] [--budget SECONDS]" \
    "[CESIUMMAN.glb]"
}
bad() {
  echo "gpu_check: $*" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case $1 in
  --quick) quick=1 && shift ;;
  --vkskin | --out | --budget)
    [ $# -ge 2 ] || bad "$1 needs a value"
    case $1 in
    --vkskin) vk=$2 ;;
    --out) out=$2 ;;
    --budget) [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -ge 1 ] || bad "--budget needs a whole number of seconds, not '$2'"
      budget=$2 ;;
    esac
    shift 2
    ;;
  -h | --help) usage && exit 0 ;;
  -*) bad "unknown option '$1'" ;;
  *)
    [ -z "$cesium" ] || bad "one model path at most (CesiumMan)"
    cesium=$1
    shift
    ;;
  esac
done
[ -x "$vk" ] || bad "no vkskin at '$vk' (build it, or give --vkskin PATH)"
# CesiumMan: the argument, else the sample models beside the repository, else the copy staged
# into .gpu/models/ for a lent GPU (where ../shared does not travel).
for c in "$here/../shared/models/CesiumMan.glb" "$here/.gpu/models/CesiumMan.glb"; do
  [ -n "$cesium" ] || [ ! -f "$c" ] || cesium=$c
done
[ -z "$cesium" ] || [ -f "$cesium" ] || bad "no model at '$cesium'"
fixtures=$(dirname "$vk")/tests/fixtures
mkdir -p "$out" || bad "cannot create '$out'"
out=$(cd "$out" && pwd)
rm -f "$out"/{summary.md,results.jsonl,log.txt,device.txt,crowd.png,matrix_series.tar}
scratch=$(mktemp -d) || bad "no temporary folder"
trap 'rm -rf "$scratch"' EXIT
# Stopped (the lease ending, ^C): the run in flight is stopped too (bench then prints what it
# measured), and the summary written from what is done.
on_stop() {
  trap - TERM INT
  say "stopped by a signal: the summary holds what was done"
  kill $(jobs -p) 2>/dev/null
  wait
  write_summary
  exit 1
}
trap on_stop TERM INT

# The sizes: the lease's, and --quick's (a CPU device: a minute or so, a few frames).
if [ -n "$quick" ]; then
  : "${budget:=240}"
  counts="1 10" frames=2 size=320x180 big=100 huge=200 anim_n=200 anim_frames=3 ab_n=20 ab_frames=2
  raster_counts="1 4" raster_size=320x180 threads=$(nproc) walk_counts="10 100"
else
  : "${budget:=270}"
  counts="1 1000 10000 100000 1000000" frames=30 size=1920x1080 big=100000 huge=1000000
  anim_n=100000 anim_frames=20 ab_n=100000 ab_frames=10
  raster_counts="1 4 16 64 256 1024" raster_size=1280x720 threads=$(nproc)
  walk_counts="1000 100000 1000000"
fi
# Each check's share of the budget, in percent (they add up to 100), in the order they run.
checks=(matrix walk renders anim stage morph raster)
declare -A share=([matrix]=42 [walk]=8 [renders]=12 [anim]=12 [stage]=12 [morph]=4 [raster]=10)
start=$SECONDS ok=0 failed=0 skipped=0
failures=()

log() { printf '%s\n' "$*" >>"$out/log.txt"; }
say() { printf 'gpu_check: %s\n' "$*" | tee -a "$out/log.txt"; }
left_total() { echo $((budget - (SECONDS - start))); }
# field NAME: the number or string NAME in the one-line JSON object $line; num NAME: that
# number to 4 significant digits for a table ("-" when null or absent).
field() { printf '%s\n' "$line" | sed -n "s/.*\"$1\": \"\{0,1\}\([^,}\"]*\).*/\1/p" | head -n1; }
fmt() { awk -v x="$1" 'BEGIN { if (x == "" || x == "null") print "-"; else printf "%.4g", x }'; }
num() { fmt "$(field "$1")"; }

# check_begin NAME: starts a check's clock; its runs then get what is left of its share of the
# budget still left (its share among it and the checks after it).
check_begin() {
  check=$1 check_start=$SECONDS
  local c rest=0 later=''
  for c in "${checks[@]}"; do
    [ "$c" = "$1" ] && later=1
    [ -z "$later" ] || rest=$((rest + ${share[$c]}))
  done
  check_budget=$(($(left_total) * ${share[$1]} / rest))
  say "$1: up to ${check_budget} s"
}
# run CASE VKSKIN-ARGS...: one vkskin run, limited to what is left of the check's share and of
# the whole budget. A JSON object on stdout goes to results.jsonl with its check and case in front;
# stdout and stderr go to the log. Sets $line to the run's one-line JSON object (empty when none).
run() {
  local name=$1 rc left
  shift
  line=''
  left=$((check_budget - (SECONDS - check_start)))
  [ "$left" -le "$(left_total)" ] || left=$(left_total)
  if [ "$left" -le 0 ]; then
    say "$check: $name: skipped, the check's share of the budget is spent"
    skipped=$((skipped + 1))
    return 1
  fi
  log "\$ vkskin $*"
  # In the background, waited for: a signal to the script is then handled at once (on_stop).
  timeout --kill-after=10 "$left" "$vk" "$@" >"$scratch/run.out" 2>"$scratch/run.err" &
  wait $!
  rc=$?
  # At most 64 KiB of a run's messages in the log (a flood of validation messages would take
  # log.txt past what the device tool brings back).
  head -c 65536 "$scratch/run.err" | sed 's/^/  /' >>"$out/log.txt"
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    say "$check: $name: cut short after ${left} s"
    skipped=$((skipped + 1))
    failures+=("$check: $name: cut short")
    if [ "$(head -c1 "$scratch/run.out")" = '{' ]; then # what it measured before the cut
      line=$(sed 's/^  //' "$scratch/run.out" | tr -d '\n')
      printf '%s\n' "{\"check\": \"$check\", \"case\": \"$name\", \"cut\": true, ${line#\{}" \
        >>"$out/results.jsonl"
      line=''
    fi
    return 1
  elif [ $rc -ne 0 ]; then
    say "$check: $name: failed (exit $rc): $(head -n1 "$scratch/run.err")"
    failed=$((failed + 1))
    failures+=("$check: $name: exit $rc")
    return 1
  fi
  if [ "$(head -c1 "$scratch/run.out")" = '{' ]; then
    line=$(sed 's/^  //' "$scratch/run.out" | tr -d '\n')
    line="{\"check\": \"$check\", \"case\": \"$name\", ${line#\{}"
    printf '%s\n' "$line" >>"$out/results.jsonl"
  else
    sed 's/^/  /' "$scratch/run.out" >>"$out/log.txt"
  fi
  ok=$((ok + 1))
}
# row CELLS...: a table row of the summary.
row() {
  local IFS='|'
  printf '|%s|\n' "$*" >>"$scratch/$check.md"
}
table() { printf '%s\n' "$@" >"$scratch/$check.md"; }

# summary.md from the tables so far: after each check, and when stopped.
write_summary() {
  [ "${check:-}" != matrix ] || [ -f "$scratch/matrix.md" ] || matrix_table
  {
    echo "# gpu_check $(sed -n 's/^date: //p' "$out/device.txt")"
    echo
    echo "$(sed -n 's/^commit: /commit /p' "$out/device.txt"), $(sed -n 's/^vkskin: //p' "$out/device.txt"), device $(sed 's/^0: //' <<<"$device")"
    echo
    for c in "${checks[@]}"; do
      echo "## $c"
      echo
      if [ -f "$scratch/$c.md" ]; then cat "$scratch/$c.md"; else echo "(not run)"; fi
      echo
    done
    echo "$ok run(s) succeeded, $failed failed, $skipped cut short or skipped, in $((SECONDS - start)) s of ${budget}"
    for f in "${failures[@]}"; do echo "- $f"; done
  } >"$out/summary.md"
  # The matrix's series as far as they got (bench_matrix.sh writes them as it goes).
  [ ! -d "$scratch/matrix" ] || (cd "$scratch/matrix" && tar cf "$out/matrix_series.tar" series bench.jsonl 2>/dev/null)
}

# matrix_table: the matrix's table and its rows in results.jsonl, from bench_matrix.sh's
# bench.jsonl as far as it got (after the matrix, or when stopped during it).
matrix_table() {
  local line
  table "| series | N | frame ms | CPU anim ms | record ms | GPU frame ms | skin ms | draw ms | raster ms | visible | dropped |" \
    "|---|---|---|---|---|---|---|---|---|---|---|"
  if [ -f "$scratch/matrix/bench.jsonl" ]; then
    while IFS= read -r line; do
      printf '%s\n' "{\"check\": \"matrix\", \"case\": \"$(field series) x $(field instances)\", ${line#\{}" \
        >>"$out/results.jsonl"
      row " $(field series)$([ "$(field cut)" != true ] || echo ' (cut)') " " $(field instances) " " $(num frame_ms) " " $(num cpu_anim_ms) " \
        " $(num cpu_record_ms) " " $(num gpu_frame_ms) " " $(num gpu_skin_ms) " \
        " $(num gpu_draw_ms) " " $(num gpu_raster_ms) " " $(field visible) " \
        " $(field dropped) "
    done <"$scratch/matrix/bench.jsonl"
  fi
}

# ---- what ran, and where ----
# Each command here limited too: a driver that hangs must not take the lease.
device=$(timeout 30 "$vk" devices 2>&1)
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "commit: $(git -C "$here" describe --always --dirty 2>/dev/null ||
    cat "$(dirname "$vk")/commit.txt" 2>/dev/null || echo unknown)"
  echo "vkskin: $(timeout 10 "$vk" --version 2>&1)"
  echo "host: $(nproc) cores, $(uname -m)"
  echo "devices:"
  sed 's/^/  /' <<<"$device"
  if command -v nvidia-smi >/dev/null; then
    timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
      --format=csv 2>&1 | sed 's/^/  /'
  fi
} >"$out/device.txt"
device=$(head -n1 <<<"$device")
say "$(sed -n 's/^commit: //p' "$out/device.txt") on $device, budget ${budget} s$([ -n "$quick" ] && echo ', --quick')"

# ---- the benchmark matrix ----
check_begin matrix
matrix_args=(--vkskin "$vk" --out "$scratch/matrix" --frames "$frames" --size "$size"
  --budget "$check_budget" --counts "$counts")
[ -z "$cesium" ] || matrix_args+=("$cesium")
log "\$ tools/bench_matrix.sh ${matrix_args[*]}"
"$here/tools/bench_matrix.sh" "${matrix_args[@]}" >"$scratch/matrix.log" 2>&1 &
wait $!
rc=$?
sed 's/^/  /' "$scratch/matrix.log" >>"$out/log.txt"
matrix_table
m_ok=$(grep -c ': frame ' "$scratch/matrix.log")
m_failed=$(grep -c ': failed (exit' "$scratch/matrix.log")
m_skipped=$(grep -c -e ': skipped, the' -e ': stopped after' "$scratch/matrix.log")
ok=$((ok + m_ok)) failed=$((failed + m_failed)) skipped=$((skipped + m_skipped))
[ "$m_failed" -eq 0 ] || failures+=("matrix: $m_failed run(s) failed (log.txt)")
[ "$m_skipped" -eq 0 ] || failures+=("matrix: $m_skipped run(s) cut short or skipped")
[ $rc -eq 0 ] || [ "$m_failed" -gt 0 ] || failures+=("matrix: bench_matrix.sh exit $rc")
say "matrix: $m_ok run(s), $m_failed failed, $m_skipped skipped ($((SECONDS - check_start)) s)"

# ---- the crowd walking: every instance moving, framed and at eye level ----
write_summary
check_begin walk
table "| N | camera | frame ms | CPU anim ms | record ms | GPU frame ms | visible | moved | instance upload bytes |" \
  "|---|---|---|---|---|---|---|---|---|"
for n in $walk_counts; do
  f=$((n >= 1000000 ? 3 : 10))
  for camera in framed street; do
    if run "default x $n, wander, $camera" bench --instances "$n" --frames "$f" --size "$size" \
      --motion wander --camera "$camera" --json; then
      row " $n " " $camera " " $(num frame_ms) " " $(num cpu_anim_ms) " " $(num cpu_record_ms) " \
        " $(num gpu_frame_ms) " " $(field visible) " " $(field moved_instances) " \
        " $(field instance_upload_bytes) "
    fi
  done
done

# ---- validated crowd renders: the descriptors binding (validation's default), then addresses ----
write_summary
check_begin renders
table "| case | visible | skinning ms | result |" "|---|---|---|---|"
render_case() {
  local name=$1 png=$2
  shift 2
  if run "$name" render --validate --size "$size" --out "$png" "$@"; then
    local visible skin
    visible=$(sed -n 's/^culling: \([0-9]*\) of.*/\1/p' "$scratch/run.out")
    skin=$(sed -n 's/^gpu: skinning \([0-9.]*\) ms.*/\1/p' "$scratch/run.out")
    row " $name " " $visible " " $skin " " clean "
  else
    row " $name " " " " " " failed: $(head -n1 "$scratch/run.err") "
  fi
}
render_case "default x $big, descriptors" "$out/crowd.png" --instances "$big"
render_case "default x $big, addresses" "$scratch/addresses.png" --instances "$big" \
  --binding addresses
if [ -n "$cesium" ]; then
  render_case "CesiumMan x $huge, zoom 0.3, descriptors" "$scratch/cesium.png" "$cesium" \
    --instances "$huge" --zoom 0.3
fi
render_case "robot.glb x $big, its clips, dual quaternions, descriptors" "$scratch/robot.png" \
  "$fixtures/robot.glb" --instances "$big" --skinning dual-quaternion

# ---- CPU animation alone: every core and one, the animation level of detail on and off ----
write_summary
check_begin anim
table "| model | anim LOD | joints posed a frame | 1 thread ms | $threads threads ms | speed-up | ns a posed skin joint (1 thread) |" \
  "|---|---|---|---|---|---|---|"
anim_models=(default) anim_paths=('')
[ -z "$cesium" ] || { anim_models+=(CesiumMan) anim_paths+=("$cesium"); }
anim_models+=(full_rig.glb) anim_paths+=("$fixtures/full_rig.glb")
for i in "${!anim_models[@]}"; do
  for lod in on off; do
    args=(bench --anim-only --instances "$anim_n" --frames "$anim_frames" --anim-lod "$lod"
      --threads "$threads" --json)
    [ -z "${anim_paths[$i]}" ] || args+=("${anim_paths[$i]}")
    if run "${anim_models[$i]}, anim LOD $lod" "${args[@]}"; then
      row " ${anim_models[$i]} " " $lod " " $(num joints_posed) " " $(num ms_1_thread) " \
        " $(num ms_all_threads) " \
        " $(awk -v a="$(field ms_1_thread)" -v b="$(field ms_all_threads)" 'BEGIN { if (b > 0) printf "%.2f", a / b }') " \
        " $(num ns_per_posed_skin_joint_1_thread) "
    fi
  done
done

# ab CASE ARGS...: bench once without and once with the switch that follows -- in ARGS, twice,
# alternating (off, on, off, on); a row per pair of runs.
ab_row() {
  local name=$1 switch=$2 mode=$3
  shift 3
  local a_skin=() b_skin=() a_frame=() b_frame=() extra='' r
  for r in 1 2; do
    if run "$name, without $switch" bench --instances "$ab_n" --frames "$ab_frames" \
      --size "$size" --json "$@"; then
      a_skin+=("$(num "$mode")") a_frame+=("$(num frame_ms)")
    fi
    if run "$name, $switch" bench --instances "$ab_n" --frames "$ab_frames" --size "$size" \
      --json "$@" $switch; then
      b_skin+=("$(num "$mode")") b_frame+=("$(num frame_ms)")
      extra=$(field staged_palette_vec4s)
    fi
  done
  local IFS=','
  local a="${a_skin[*]}" b="${b_skin[*]}" c="${a_frame[*]}" d="${b_frame[*]}"
  IFS=' '
  row " $name " " ${extra:--} " " ${a//,/, } " " ${b//,/, } " " ${c//,/, } " " ${d//,/, } "
}

# ---- palette staging, per skeleton size ----
write_summary
check_begin stage
table "| model | staged vec4s | GPU skin ms, off | on | frame ms, off | on |" "|---|---|---|---|---|---|"
ab_row "default" --stage-palette gpu_skin_ms --raster hardware
[ -z "$cesium" ] || ab_row "CesiumMan" --stage-palette gpu_skin_ms --raster hardware "$cesium"
ab_row "full_rig.glb (65 joints)" --stage-palette gpu_skin_ms --raster hardware \
  "$fixtures/full_rig.glb"
ab_row "long_chain.glb (302 joints)" --stage-palette gpu_skin_ms --raster hardware \
  "$fixtures/long_chain.glb"

# ---- the morph-target variant beside the plain one ----
write_summary
check_begin morph
table "| model | clip | skinned vertices | GPU skin ms | vertices per ms | bytes a vertex |" \
  "|---|---|---|---|---|---|"
morph_case() {
  local name=$1 clip=$2
  shift 2
  if run "$name, $clip" bench --instances "$ab_n" --frames "$ab_frames" --size "$size" \
    --raster hardware --clip "$clip" --json "$@"; then
    row " $name " " $clip " " $(field skinned_vertices) " " $(num gpu_skin_ms) " \
      " $(num skinned_vertices_per_ms) " " $(num bytes_per_vertex) "
  fi
}
morph_case default walk
morph_case robot.glb Talk "$fixtures/robot.glb"
morph_case robot.glb Wave "$fixtures/robot.glb"

# ---- the compute rasterizer against the graphics pipeline, over triangle sizes ----
write_summary
check_begin raster
table "| instances | triangles | px a triangle | hardware: draw ms | compute: raster ms | resolve ms |" \
  "|---|---|---|---|---|---|"
for n in $raster_counts; do
  hw='' cr='' rs='' tri='' px=''
  if run "level 0 x $n, hardware" bench --instances "$n" --lod 0 --frames "$ab_frames" \
    --size "$raster_size" --raster hardware --json; then
    hw=$(num gpu_draw_ms) tri=$(field triangles)
  fi
  if run "level 0 x $n, compute" bench --instances "$n" --lod 0 --frames "$ab_frames" \
    --size "$raster_size" --raster compute --json; then
    cr=$(num gpu_raster_ms) rs=$(num gpu_resolve_ms)
    px=$(awk -v p="$(field pixels_resolved)" -v t="$(field triangles_compute)" \
      'BEGIN { if (t > 0) printf "%.3g", 2 * p / t }')
  fi
  row " $n " " $tri " " $px " " $hw " " $cr " " $rs "
done

# ---- the summary ----
write_summary
cat "$out/summary.md"
[ "$failed" -eq 0 ] && [ "$skipped" -eq 0 ] && [ "${#failures[@]}" -eq 0 ]

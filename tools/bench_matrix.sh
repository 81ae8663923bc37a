#!/usr/bin/env bash
# The crowd benchmark matrix: `vkskin bench --json` for N = 1, 1 000, 10 000 and 100 000
# instances, compute and vertex mode, on the default character, CesiumMan and a mixed crowd
# (default + CesiumMan, or default + a fixture when CesiumMan is absent), in each scene: a camera
# and a motion (default "framed:none street:wander": the still crowd framed from above, and the
# crowd wandering seen at eye level). Writes one JSON line per run to OUT/bench.jsonl (vkskin's
# object with a "series" key in front: model, mode, camera and motion) and plots frame time and
# skinned vertices per ms against N, log-log, one line per series, to OUT/bench.png (gnuplot, no
# display needed; tools/setup.sh --bench installs gnuplot-nox).
#
#   tools/bench_matrix.sh [--vkskin PATH] [--out DIR] [--frames F] [--warmup N] [--size WxH]
#                         [--budget SECONDS] [--counts "1 1000 ..."] [--scenes "CAMERA:MOTION ..."]
#                         [--mix FILE] [CESIUMMAN.glb]
#   tools/bench_matrix.sh --plot-only [--out DIR]
#       draws DIR/bench.png from the series an earlier run left in DIR/series (a run on a machine
#       without gnuplot, such as a lent GPU's)
#
# Runs go by N, smallest first, so a spent budget skips the largest crowds. Each run is limited
# (timeout) to what is left of the budget (default 600 s); once it is spent, the remaining runs
# are skipped with a message. F (default 100) is the frames measured up to N = 1 000; larger
# crowds measure fewer (30% of F at 10 000, 10% from 100 000, at least 1), as the H100 table in
# docs/performance.md does. A run vkskin refuses (a crowd past the device's memory: lavapipe holds about
# 127 000 characters) is reported and the matrix goes on. Exit 0 when at least one run
# succeeded, 1 when none did, 2 on bad usage.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
vk=$here/build/vkskin out=bench-matrix frames=100 warmup='' size=1920x1080 budget=600
counts="1 1000 10000 100000" scenes="framed:none street:wander" mix='' cesium=''

usage() {
  echo "usage: tools/bench_matrix.sh [--vkskin PATH] [--out DIR] [--frames F] [--warmup N]" \
    "[--size WxH] [--budget SECONDS] [--counts \"N ...\"] [--scenes \"CAMERA:MOTION ...\"]" \
    "[--mix FILE] [CESIUMMAN.glb]"
}
bad() {
  echo "bench_matrix: $*" >&2
  exit 2
}
whole() { [[ $2 =~ ^[0-9]+$ ]] || bad "$1 needs a whole number, not '$2'"; }
while [ $# -gt 0 ]; do
  case $1 in
  --plot-only)
    plot_only=1
    shift
    continue
    ;;
  --vkskin | --out | --frames | --warmup | --size | --budget | --counts | --scenes | --mix)
    [ $# -ge 2 ] || bad "$1 needs a value"
    case $1 in
    --vkskin) vk=$2 ;;
    --out) out=$2 ;;
    --frames) whole "$1" "$2" && frames=$2 ;;
    --warmup) whole "$1" "$2" && warmup=$2 ;;
    --size) size=$2 ;;
    --budget) whole "$1" "$2" && budget=$2 ;;
    --counts) counts=$2 ;;
    --scenes) scenes=$2 ;;
    --mix) mix=$2 ;;
    esac
    shift 2
    ;;
  -h | --help)
    usage
    exit 0
    ;;
  -*) bad "unknown option '$1'" ;;
  *)
    [ -z "$cesium" ] || bad "one model path at most (CesiumMan)"
    cesium=$1
    shift
    ;;
  esac
done
if [ -n "${plot_only:-}" ]; then
  jsonl=$out/bench.jsonl
  [ -f "$jsonl" ] || bad "no $jsonl to plot"
  size=$(head -n1 "$jsonl" | sed -n 's/.*"width": \([0-9]*\),.*"height": \([0-9]*\),.*/\1x\2/p')
else
[ "$frames" -ge 1 ] || bad "--frames needs at least 1"
for n in $counts; do whole --counts "$n"; done
[ -n "$scenes" ] || bad "--scenes needs at least one CAMERA:MOTION"
for sc in $scenes; do
  [[ $sc =~ ^(framed|street):(none|wander|lanes)$ ]] ||
    bad "--scenes: '$sc' is not CAMERA:MOTION (camera framed or street, motion none, wander or lanes)"
done
[ -x "$vk" ] || bad "no vkskin at '$vk' (build it, or give --vkskin PATH)"

default_glb=$here/assets/default.glb
if [ -z "$cesium" ] && [ -f "$here/../shared/models/CesiumMan.glb" ]; then
  cesium=$here/../shared/models/CesiumMan.glb
fi
if [ -n "$cesium" ] && [ ! -f "$cesium" ]; then
  bad "no model at '$cesium'"
fi
# The second model of the mixed crowd: --mix, else CesiumMan, else a fixture of the build
# (wide_influences.glb: 8 influences, so the crowd also mixes pipeline variants).
if [ -z "$mix" ]; then
  if [ -n "$cesium" ]; then
    mix=$cesium
  elif [ -f "$(dirname "$vk")/tests/fixtures/wide_influences.glb" ]; then
    mix=$(dirname "$vk")/tests/fixtures/wide_influences.glb
  fi
fi

# The series: a label (no spaces: it names files), vkskin's MODEL (empty: the embedded default
# character) and a second model to mix in with --model (empty: none).
labels=(default) models=('') mixes=('')
if [ -n "$cesium" ]; then
  labels+=(CesiumMan) models+=("$cesium") mixes+=('')
else
  echo "bench_matrix: no CesiumMan.glb (give its path as the argument): skipped"
fi
if [ -n "$mix" ] && [ -f "$default_glb" ]; then
  labels+=(mixed) models+=("$default_glb") mixes+=("$mix")
else
  echo "bench_matrix: no second model for the mixed crowd (--mix FILE): skipped"
fi

mkdir -p "$out/series" || bad "cannot create '$out'"
jsonl=$out/bench.jsonl
: >"$jsonl"
rm -f "$out"/series/*.dat
start=$SECONDS ok=0 failed=0 skipped=0

# field NAME: the number NAME in the one-line JSON object $line ("null" stays "null").
field() { printf '%s\n' "$line" | sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p"; }
# keep_cut: the run stopped before its end; bench prints the medians of the frames it measured
# when stopped: kept in bench.jsonl, marked cut.
keep_cut() {
  if [ -f "$out/run.json" ] && [ "$(head -c1 "$out/run.json")" = '{' ]; then
    line=$(sed 's/^  //' "$out/run.json" | tr -d '\n')
    printf '%s\n' "{\"series\": \"$series\", \"cut\": true, ${line#\{}" >>"$jsonl"
  fi
}
# Stopped (SIGTERM, SIGINT: gpu_check.sh's lease ending): the run in flight stopped too, and kept.
trap 'trap - TERM INT; kill $(jobs -p) 2>/dev/null; wait; keep_cut; exit 1' TERM INT

for n in $counts; do
  f=$frames
  if [ "$n" -ge 100000 ]; then
    f=$((frames / 10))
  elif [ "$n" -ge 10000 ]; then
    f=$((frames * 3 / 10))
  fi
  [ "$f" -ge 1 ] || f=1
  for s in "${!labels[@]}"; do
    for mode in compute vertex; do
      for sc in $scenes; do
        camera=${sc%%:*} motion=${sc#*:}
        series="${labels[$s]} $mode $camera $motion"
        name="$series x $n"
        left=$((budget - (SECONDS - start)))
        if [ "$left" -le 0 ]; then
          echo "bench_matrix: $name: skipped, the ${budget} s budget is spent"
          skipped=$((skipped + 1))
          continue
        fi
        cmdline=("$vk" bench --instances "$n" --frames "$f" --mode "$mode" --size "$size"
          --camera "$camera" --motion "$motion" --json)
        [ -z "${models[$s]}" ] || cmdline+=("${models[$s]}")
        [ -z "${mixes[$s]}" ] || cmdline+=(--model "${mixes[$s]}")
        [ -z "$warmup" ] || cmdline+=(--warmup "$warmup")
        # In the background, waited for: a signal to the script is then handled at once.
        timeout --kill-after=10 "$left" "${cmdline[@]}" >"$out/run.json" 2>"$out/run.err" &
        wait $!
        rc=$?
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
          echo "bench_matrix: $name: stopped after ${left} s, the rest of the budget"
          skipped=$((skipped + 1))
          keep_cut
          continue
        elif [ $rc -ne 0 ]; then
          echo "bench_matrix: $name: failed (exit $rc): $(head -n1 "$out/run.err")"
          failed=$((failed + 1))
          continue
        fi
        line=$(sed 's/^  //' "$out/run.json" | tr -d '\n')
        line="{\"series\": \"$series\", ${line#\{}"
        printf '%s\n' "$line" >>"$jsonl"
        frame_ms=$(field frame_ms) vpms=$(field skinned_vertices_per_ms)
        printf 'bench_matrix: %s: frame %.4g ms, %.4g skinned vertices per ms (%d s of %d)\n' \
          "$name" "$frame_ms" "$vpms" $((SECONDS - start)) "$budget"
        echo "$n $frame_ms $vpms" >>"$out/series/${series// /_}.dat"
        ok=$((ok + 1))
      done
    done
  done
done
rm -f "$out/run.json" "$out/run.err"
echo "bench_matrix: $ok run(s) in $jsonl, $failed failed, $skipped skipped"
[ $ok -gt 0 ] || exit 1
fi

if ! command -v gnuplot >/dev/null; then
  echo "bench_matrix: no gnuplot (tools/setup.sh --bench installs gnuplot-nox): no plot"
  exit 0
fi
# pngcairo when gnuplot has it (anti-aliased), else libgd's png; neither needs a display.
terminal="pngcairo size 1400,640 font ',10'"
gnuplot -e "set terminal" 2>&1 | grep -q pngcairo || terminal="png size 1400,640"
device=$(head -n1 "$jsonl" | sed -n 's/.*"device": "\([^"]*\)".*/\1/p' | tr -d "'\"")
# One colour per model, solid for compute and dashed for vertex mode, a point shape per scene;
# the series are the files the runs left (MODEL_MODE_CAMERA_MOTION.dat).
plots_ms='' plots_vpms='' models_seen=() scenes_seen=()
for dat in "$out"/series/*.dat; do
  [ -f "$dat" ] || continue
  IFS=_ read -r model mode camera motion <<<"$(basename "$dat" .dat)"
  c=0 p=0
  while [ $c -lt ${#models_seen[@]} ] && [ "${models_seen[$c]}" != "$model" ]; do c=$((c + 1)); done
  models_seen[$c]=$model
  while [ $p -lt ${#scenes_seen[@]} ] && [ "${scenes_seen[$p]}" != "$camera:$motion" ]; do p=$((p + 1)); done
  scenes_seen[$p]=$camera:$motion
  style="with linespoints lw 2 pt $((p * 2 + ($([ "$mode" = compute ] && echo 7 || echo 6)))) lc $((c + 1))"
  style+=" dt $([ "$mode" = compute ] && echo 1 || echo 2) title '$model $mode${camera:+, $camera, $motion}'"
  plots_ms+="${plots_ms:+, }'$dat' using 1:2 $style"
  plots_vpms+="${plots_vpms:+, }'$dat' using 1:3 $style"
done
[ -n "$plots_ms" ] || { echo "bench_matrix: no series in $out/series: no plot"; exit 0; }
gnuplot <<EOF || { echo "bench_matrix: gnuplot failed: no plot"; exit 0; }
set terminal $terminal
set output '$out/bench.png'
set datafile missing 'null'
set logscale xy
set grid
set key below height 1
set xlabel 'instances (N)'
set format x '10^{%T}'
set multiplot layout 1,2 title 'vkskin bench on $device, $size'
set title 'frame time (median)'
set ylabel 'ms per frame'
plot $plots_ms
set title 'skinned vertices per ms (compute: per skinning ms; vertex: per draw ms)'
set ylabel 'vertices per ms'
plot $plots_vpms
unset multiplot
EOF
echo "bench_matrix: plot in $out/bench.png"

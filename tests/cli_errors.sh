#!/usr/bin/env bash
# Bad input: each case must end with exit code 1 or 2 (never 0, never a signal or sanitizer abort)
# and exactly one line on stderr, of at most 200 characters (its paths aside), that matches the
# expected message. WANT_RC=N before a case pins the exit code. GPU cases run with --validate where
# a device gets created, so a validation message (a leak on an error path, say) would be a second
# line.
#   usage: cli_errors.sh VKSKIN FIXTURES_DIR DEFAULT_GLB
set -u
vk=$1 fx=$2 glb=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

expect_error() { # NAME REGEX COMMAND...
  local name=$1 regex=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines longest
  lines=$(wc -l <"$tmp/err")
  # Measured with the test's folders written DIR: the bound is on what vkskin adds to the paths.
  longest=$(sed -e "s|$tmp|DIR|g" -e "s|$fx|DIR|g" -e "s|$(dirname "$glb")|DIR|g" "$tmp/err" |
    awk '{ if (length > n) n = length } END { print n + 0 }')
  if [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; then
    echo "FAIL $name: exit code $rc"; cat "$tmp/err"; failed=$((failed + 1))
  elif [ -n "${WANT_RC:-}" ] && [ "$rc" -ne "$WANT_RC" ]; then
    echo "FAIL $name: exit code $rc, want $WANT_RC"; cat "$tmp/err"; failed=$((failed + 1))
  elif [ "$lines" -ne 1 ]; then
    echo "FAIL $name: $lines lines on stderr, want 1:"; cat "$tmp/err"; failed=$((failed + 1))
  elif [ "$longest" -gt 200 ]; then
    echo "FAIL $name: a line of $longest characters, want at most 200:"; cat "$tmp/err"; failed=$((failed + 1))
  elif ! grep -Eq -- "$regex" "$tmp/err"; then
    echo "FAIL $name: stderr does not match /$regex/:"; cat "$tmp/err"; failed=$((failed + 1))
  else
    echo "ok   $name: $(cat "$tmp/err")"; passed=$((passed + 1))
  fi
}

: >"$tmp/empty.glb"
size=$(stat -c %s "$glb")
head -c 12 "$glb" >"$tmp/header_only.glb"
head -c 600 "$glb" >"$tmp/cut_json.glb"
head -c $((size / 2)) "$glb" >"$tmp/cut_half.glb"
head -c $((size - 7)) "$glb" >"$tmp/cut_end.glb"
printf 'glTF\002\000\000\000\377\377\377\177' >"$tmp/bad_length.glb"
# Cut in half with the header's length patched to match: the chunks inside are what is broken.
half=$((size / 2))
{ head -c 8 "$glb"; printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((half & 255)) $((half >> 8 & 255)) $((half >> 16 & 255)) $((half >> 24 & 255)))"; tail -c +13 "$glb" | head -c $((half - 12)); } >"$tmp/cut_inside.glb"

# An MD5 vertex whose weights start 4 million entries past the mesh's weight list: assimp 5.2
# reads there and dies (SIGSEGV; far enough to leave any heap, an ASan build's too); the crash
# guard (a forked read) must turn that into one message.
sed 's/^\tvert 7 ( 1 1 ) 14 2$/\tvert 7 ( 1 1 ) 4000000 2/' "$fx/figure.md5mesh" >"$tmp/crash.md5mesh"
grep -q 'vert 7 ( 1 1 ) 4000000 2' "$tmp/crash.md5mesh" || { echo "FAIL could not make crash.md5mesh"; failed=$((failed + 1)); }

printf 'v 0 0 0\nv 1 0 0\nv 0 3e30 0\nf 1 2 3\n' >"$tmp/huge.obj"
# A clip that carries a joint 1e20 units away (finite, in no declared range): refused when the
# crowd is made, naming the file, before any camera frames it.
WANT_RC=1 expect_error "render absurd key" "far_key.glb: posed \(bind pose or clips\) it reaches 1e\+20 on axis y, beyond the 1e\+09 units a model may reach" "$vk" render --validate "$fx/far_key.glb" --size 64x64 --out "$tmp/far.png"

for cmd in info dump; do
  out=()
  [ "$cmd" = dump ] && out=(--out "$tmp/dump.txt")
  expect_error "$cmd missing file" "cannot open '.*nope.glb': No such file" "$vk" $cmd "$tmp/nope.glb" "${out[@]}"
  expect_error "$cmd directory" "is a directory" "$vk" $cmd "$tmp" "${out[@]}"
  expect_error "$cmd empty file" "is empty" "$vk" $cmd "$tmp/empty.glb" "${out[@]}"
  expect_error "$cmd random bytes" "cannot import '.*random.glb'" "$vk" $cmd "$fx/random.glb" "${out[@]}"
  expect_error "$cmd no meshes" "has no meshes" "$vk" $cmd "$fx/no_meshes.glb" "${out[@]}"
  expect_error "$cmd too many joints" "needs 10[0-9][0-9] joints, more than the limit of 1024" "$vk" $cmd "$fx/too_many_joints.glb" "${out[@]}"
  expect_error "$cmd NaN key value" "non-finite rotation key" "$vk" $cmd "$fx/nan_key.glb" "${out[@]}"
  expect_error "$cmd importer crash" "cannot import '.*crash.md5mesh': the importer crashed on it .*assimp bug" "$vk" $cmd "$tmp/crash.md5mesh" "${out[@]}"
  # One bit flipped in a position: beyond the range its accessor declares; or, in a format with
  # no declared ranges, beyond the 1e9 units a model may reach (asset/model.h).
  expect_error "$cmd flipped bit" "flipped_position.glb: mesh 0, primitive 0: attribute POSITION: accessor 0: value 3.1 is 1.02085e\+38, outside its declared range \[0, 3.9\]: the file is damaged" "$vk" $cmd "$fx/flipped_position.glb" "${out[@]}"
  expect_error "$cmd absurd position" "huge.obj: mesh '.*' vertex 2 is at \(0, 3e\+30, 0\), beyond the 1e\+09 units a model may reach" "$vk" $cmd "$tmp/huge.obj" "${out[@]}"
  expect_error "$cmd NaN key time" "clip 'sway' has a non-finite rotation key \\(#1\\) on 'bone6'" "$vk" $cmd "$fx/nan_time.glb" "${out[@]}"
  expect_error "$cmd NaN morph weight" "clip 'talk' has a non-finite weight on 'face' \\(key 1\\)" "$vk" $cmd "$fx/nan_weight.glb" "${out[@]}"
  for cut in header_only cut_json cut_half cut_end bad_length; do
    expect_error "$cmd truncated ($cut)" "'.*$cut.glb' is a truncated glTF binary: its header says [0-9]+ bytes, the file has [0-9]+" "$vk" $cmd "$tmp/$cut.glb" "${out[@]}"
  done
  expect_error "$cmd truncated chunks" "cut_inside.glb: GLB: the BIN chunk \\([0-9]+ bytes\\) is past the end of the file" "$vk" $cmd "$tmp/cut_inside.glb" "${out[@]}"
done

# An unknown clip: the model's clips named (the first several of many), and the one that differs
# only in case suggested.
expect_error "clip that does not exist" "default character has no clip 'nosuch' \\(it has 3: 'idle', 'walk', 'wave'\\)$" "$vk" dump --clip nosuch --out "$tmp/d.txt"
expect_error "clip index out of range" "has no clip '99' \\(it has 3, numbered 0 to 2: 'idle', 'walk', 'wave'\\)$" "$vk" dump --clip 99 --out "$tmp/d.txt"
WANT_RC=1 expect_error "clip in another case" "has no clip 'WALK': did you mean 'walk'\\? \\(it has 3: 'idle', 'walk', 'wave'\\)$" "$vk" dump --clip WALK --out "$tmp/d.txt"
# 30 clips, Clip_01 to Clip_30: clip_order.x's skeleton and mesh with its clips replaced.
{
  sed '/^AnimationSet /,$d' "$fx/clip_order.x"
  for i in $(seq -w 1 30); do
    printf 'AnimationSet Clip_%s {\n  Animation {\n    { Arm }\n    AnimationKey {\n      2;\n      2;\n      0;3;0.0,0.0,0.0;;,\n      20;3;1.0,0.0,0.0;;;\n    }\n  }\n}\n' "$i"
  done
} >"$tmp/many_clips.x"
WANT_RC=1 expect_error "clip among many, in another case" "has no clip 'clip_07': did you mean 'Clip_07'\\? \\(it has 30: 'Clip_01', 'Clip_02', .*'Clip_0[5-9]' and 2[0-9] more: see vkskin info\\)$" "$vk" dump "$tmp/many_clips.x" --clip clip_07 --out "$tmp/d.txt"
WANT_RC=1 expect_error "render clip in another case" "has no clip 'WALK': did you mean 'walk'\\?" "$vk" render --validate --clip WALK --out "$tmp/d.png"
expect_error "negative time" "--time needs seconds from 0 to 1000000, not '-1'" "$vk" dump --time -1 --out "$tmp/d.txt"
expect_error "NaN time" "--time needs seconds from 0 to 1000000, not 'nan'" "$vk" dump --time nan --out "$tmp/d.txt"
expect_error "infinite time" "--time needs seconds from 0 to 1000000, not 'inf'" "$vk" dump --time inf --out "$tmp/d.txt"
expect_error "time not a number" "--time needs .* not '1s'" "$vk" dump --time 1s --out "$tmp/d.txt"
# Absurd times are refused (the clock would print in hundreds of digits), in every command.
WANT_RC=2 expect_error "dump time 1e300" "--time needs seconds from 0 to 1000000, not '1e300'" "$vk" dump --time 1e300 --out "$tmp/d.txt"
WANT_RC=2 expect_error "render time 1e300" "--time needs seconds from 0 to 1000000, not '1e300'" "$vk" render --time 1e300 --out "$tmp/d.png"
WANT_RC=2 expect_error "render time just past the bound" "--time needs seconds from 0 to 1000000, not '1000000.001'" "$vk" render --time 1000000.001 --out "$tmp/d.png"
WANT_RC=2 expect_error "render splat density NaN" "--splat-density needs a number of triangles per pixel from 0 to 1000000, not 'nan'" "$vk" render --splat-density nan --out "$tmp/d.png"
WANT_RC=2 expect_error "bench splat density negative" "--splat-density needs a number of triangles per pixel from 0 to 1000000, not '-1'" "$vk" bench --splat-density -1
# A number of many digits is quoted cut short.
digits=123456789012345678901234567890123456789012345678901234567890
WANT_RC=2 expect_error "render frames of 60 digits" "--frames needs a whole number from 1 to 100000, not '1234567890123456789012345678901234567890\\.\\.\\.'$" "$vk" render --frames $digits --out "$tmp/d.png"
WANT_RC=2 expect_error "render zoom of 60 digits" "--zoom needs a number from 0.01 to 100, not '1234567890123456789012345678901234567890\\.\\.\\.'$" "$vk" render --zoom $digits --out "$tmp/d.png"
expect_error "dump without --out" "--out FILE is required" "$vk" dump
expect_error "staged poses in vertex mode" "stage_palette stages poses for the compute pass: it needs the compute mode$" "$vk" render --mode vertex --stage-palette --out "$tmp/s.png"
WANT_RC=2 expect_error "dump --bind-pose with --clip" "--bind-pose and --clip exclude each other" "$vk" dump --bind-pose --clip walk --out "$tmp/bp.txt"
WANT_RC=2 expect_error "render --bind-pose with --clip" "--bind-pose and --clip exclude each other" "$vk" render --bind-pose --clip walk --out "$tmp/bp.png"
WANT_RC=2 expect_error "view --bind-pose with --clip" "--bind-pose and --clip exclude each other" "$vk" view --bind-pose --clip walk
expect_error "unwritable output" "cannot write '/nonexistent/dir/x.txt'" "$vk" dump --validate --out /nonexistent/dir/x.txt
expect_error "option without value" "option '--clip' needs a value" "$vk" dump --out - --clip
expect_error "unknown option" "unknown option '--bogus'" "$vk" info --bogus
expect_error "two models" "unexpected argument" "$vk" info "$glb" "$glb"
expect_error "unknown command" "unknown command 'frobnicate'" "$vk" frobnicate

# render and the GPU options.
png=$tmp/r.png
WANT_RC=2 expect_error "render without --out" "--out FILE is required" "$vk" render
WANT_RC=2 expect_error "render size 0x10" "--size needs WIDTHxHEIGHT, each 1 to 16384, not '0x10'" "$vk" render --size 0x10 --out "$png"
WANT_RC=2 expect_error "render size abc" "--size needs WIDTHxHEIGHT, .* not 'abc'" "$vk" render --size abc --out "$png"
WANT_RC=2 expect_error "render size too wide" "--size needs WIDTHxHEIGHT, each 1 to 16384, not '100000x10'" "$vk" render --size 100000x10 --out "$png"
WANT_RC=2 expect_error "render size without height" "--size needs WIDTHxHEIGHT, .* not '10x'" "$vk" render --size 10x --out "$png"
WANT_RC=2 expect_error "render size negative" "--size needs WIDTHxHEIGHT, .* not '10x-4294967286'" "$vk" render --size 10x-4294967286 --out "$png"
WANT_RC=2 expect_error "render size signed" "--size needs WIDTHxHEIGHT, .* not '10x\\+10'" "$vk" render --size 10x+10 --out "$png"
WANT_RC=2 expect_error "render size spaced" "--size needs WIDTHxHEIGHT, .* not ' 10x10'" "$vk" render --size " 10x10" --out "$png"
WANT_RC=2 expect_error "render zero frames" "--frames needs a whole number from 1 to 100000, not '0'" "$vk" render --frames 0 --out "$png"
WANT_RC=2 expect_error "render zero fps" "--fps needs a whole number from 1 to 1000, not '0'" "$vk" render --fps 0 --out "$png"
WANT_RC=2 expect_error "render group size too large" "--group-size needs a whole number from 1 to 1024, not '2048'" "$vk" render --group-size 2048 --out "$png"
WANT_RC=2 expect_error "render negative time" "--time needs seconds from 0 to 1000000, not '-1'" "$vk" render --time -1 --out "$png"
# Not a power of two: a usage error, found before any device, in render as in bench.
WANT_RC=2 expect_error "render group size 3" "--group-size needs a power of two from 1 to 1024, not '3'" "$vk" render --validate --group-size 3 --out "$png"
WANT_RC=2 expect_error "bench group size 3" "--group-size needs a power of two from 1 to 1024, not '3'" "$vk" bench --validate --group-size 3
WANT_RC=2 expect_error "bench phases alone" "--phases goes with --anim-only" "$vk" bench --validate --phases
# Each number's message names its own option.
WANT_RC=2 expect_error "view negative seconds" "--seconds needs a finite number of seconds >= 0, not '-1'" "$vk" view --validate --seconds -1
WANT_RC=2 expect_error "view bad resize" "--resize needs WIDTHxHEIGHT, each 1 to 16384, not '0x5'" "$vk" view --validate --resize 0x5
WANT_RC=2 expect_error "view bad script period" "--script-period needs seconds from 0.1 to 1000000, or frames from 1f to 100000000f, not '0'" "$vk" view --validate --script 1:pause --script-period 0
WANT_RC=2 expect_error "view script period of 0 frames" "--script-period needs seconds from 0.1 to 1000000, or frames from 1f to 100000000f, not '0f'" "$vk" view --validate --script 0f:pause --script-period 0f
WANT_RC=2 expect_error "view script frames then seconds" "--script: '2:pause' counts seconds where the step before counts frames: write every time in one unit" "$vk" view --validate --script 1f:pause,2:pause
WANT_RC=2 expect_error "view script in frames, period in seconds" "--script: '1f:pause' counts frames where --script-period counts seconds" "$vk" view --validate --script 1f:pause --script-period 2
WANT_RC=2 expect_error "view script fraction of a frame" "--script: '1.5f:pause' needs a time in seconds or frames \\(Nf\\)" "$vk" view --validate --script 1.5f:pause
WANT_RC=2 expect_error "view script frames descending" "--script: '2f:pause' needs a time .* ascending" "$vk" view --validate --script 3f:pause,2f:pause
WANT_RC=2 expect_error "view script frame past its period" "--script: '5f:pause' needs a time .* below --script-period" "$vk" view --validate --script 5f:pause --script-period 5f
WANT_RC=1 expect_error "render unknown clip" "has no clip 'nosuch'" "$vk" render --validate --clip nosuch --out "$png"
WANT_RC=1 expect_error "render missing model" "cannot open '.*nope.glb': No such file" "$vk" render --validate "$tmp/nope.glb" --out "$png"
WANT_RC=1 expect_error "render bad model" "has no meshes" "$vk" render --validate "$fx/no_meshes.glb" --out "$png"
# The image is written after the frame: the error path tears the whole device down (validated).
WANT_RC=1 expect_error "render unwritable output" "cannot write '/nonexistent/x.png'" "$vk" render --validate --out /nonexistent/x.png
[ -e /nonexistent/x.png ] && { echo "FAIL render wrote /nonexistent/x.png"; failed=$((failed + 1)); }
# Crowds and the bench.
WANT_RC=2 expect_error "render zero instances" "--instances needs a whole number from 1 to 16777216, not '0'" "$vk" render --instances 0 --out "$png"
WANT_RC=2 expect_error "render instances not a number" "--instances needs a whole number .* not '1e3'" "$vk" render --instances 1e3 --out "$png"
WANT_RC=2 expect_error "render too many instances" "--instances needs a whole number from 1 to 16777216, not '16777217'" "$vk" render --instances 16777217 --out "$png"
WANT_RC=2 expect_error "render bad layout" "--layout needs grid or ring, not 'square'" "$vk" render --layout square --out "$png"
WANT_RC=2 expect_error "render bad mode" "--mode needs compute or vertex, not 'gpu'" "$vk" render --mode gpu --out "$png"
WANT_RC=2 expect_error "render bad palettes" "--palettes needs store or host, not 'gpu'" "$vk" render --palettes gpu --out "$png"
WANT_RC=2 expect_error "render bad binding" "--binding needs addresses or descriptors, not 'bda'" "$vk" render --binding bda --out "$png"
WANT_RC=2 expect_error "render zoom 0" "--zoom needs a number from 0.01 to 100, not '0'" "$vk" render --zoom 0 --out "$png"
WANT_RC=2 expect_error "render zoom NaN" "--zoom needs a number from 0.01 to 100, not 'nan'" "$vk" render --zoom nan --out "$png"
WANT_RC=2 expect_error "render tiny max buffer" "--max-buffer needs a whole number from 1024 to" "$vk" render --max-buffer 16 --out "$png"
models=()
for i in $(seq 17); do models+=(--model "$glb"); done
WANT_RC=2 expect_error "render 17 models" "at most 16 times '--model'" "$vk" render "${models[@]}" --out "$png"
WANT_RC=1 expect_error "render missing second model" "cannot open '.*nope.glb': No such file" "$vk" render --validate "$glb" --model "$tmp/nope.glb" --out "$png"
WANT_RC=1 expect_error "render clip missing in one model" "has no clip 'wave'" "$vk" render --validate --clip wave --model "$fx/chain.glb" --out "$png"
WANT_RC=1 expect_error "render a buffer smaller than one instance" "one instance of .* needs [0-9]+ bytes of skinned vertices, more than the largest buffer \\(1024 bytes\\)" "$vk" render --validate --max-buffer 1024 --out "$png"
WANT_RC=2 expect_error "bench zero frames" "--frames needs a whole number from 1 to 100000, not '0'" "$vk" bench --frames 0
WANT_RC=2 expect_error "bench bad mode" "--mode needs compute or vertex, not 'both'" "$vk" bench --mode both
WANT_RC=2 expect_error "bench zero threads" "--threads needs a whole number from 1 to 256, not '0'" "$vk" bench --threads 0
WANT_RC=1 expect_error "bench missing model" "cannot open '.*nope.glb': No such file" "$vk" bench "$tmp/nope.glb"
# --device: not a number is bad usage; a number with no device behind it is no device.
for cmd in render dump; do
  out=(--out "$tmp/$cmd.out")
  [ "$cmd" = render ] && out=(--out "$tmp/$cmd.png")
  WANT_RC=1 expect_error "$cmd device 99" "there is no device 99 \\(there are [0-9]+: see vkskin devices\\)" "$vk" $cmd --validate --device 99 "${out[@]}"
  WANT_RC=1 expect_error "$cmd device 63" "there is no device 63 \\(there are [0-9]+: see vkskin devices\\)" "$vk" $cmd --validate --device 63 "${out[@]}"
  WANT_RC=2 expect_error "$cmd device abc" "--device needs a whole number .* not 'abc'" "$vk" $cmd --validate --device abc "${out[@]}"
  WANT_RC=2 expect_error "$cmd device -1" "--device needs a whole number .* not '-1'" "$vk" $cmd --validate --device -1 "${out[@]}"
done
[ -e "$png" ] && { echo "FAIL a failed render left $png behind"; failed=$((failed + 1)); }

# --out: the format from the name, checked before any work (a missing model is not even opened).
WANT_RC=2 expect_error "render --out .bmp" "--out needs a .png, .jpg or .jpeg file, or - for standard output, not '.*x.bmp'" "$vk" render --out "$tmp/x.bmp"
WANT_RC=2 expect_error "render --out no extension" "--out needs a .png, .jpg or .jpeg file" "$vk" render --out "$tmp/x"
WANT_RC=2 expect_error "render --out - with frames" "--out - writes one image: --frames must be 1, not 2" "$vk" render --out - --frames 2
WANT_RC=1 expect_error "render unwritable folder first" "cannot write '/nonexistent/x.png': No such file or directory" "$vk" render "$tmp/nope.glb" --out /nonexistent/x.png
: >"$tmp/readonly.png"; chmod 444 "$tmp/readonly.png"
if [ "$(id -u)" -ne 0 ]; then # root may write anything
  WANT_RC=1 expect_error "render read-only file first" "cannot write '.*readonly.png': Permission denied" "$vk" render "$tmp/nope.glb" --out "$tmp/readonly.png"
else
  echo "skipped: render read-only file first: running as root, who may write a read-only file"
fi
# A folder named like an image: refused before any work, for root too.
mkdir "$tmp/folder.png"
WANT_RC=1 expect_error "render --out a folder first" "^vkskin render: cannot write '.*folder.png': Is a directory$" "$vk" render "$tmp/nope.glb" --out "$tmp/folder.png"
# dump's --out too, before the (missing) model is opened.
WANT_RC=1 expect_error "dump unwritable folder first" "^vkskin dump: cannot write '/nonexistent/x.txt': No such file or directory$" "$vk" dump "$tmp/nope.glb" --out /nonexistent/x.txt
WANT_RC=1 expect_error "dump --out a folder first" "^vkskin dump: cannot write '.*folder.png': Is a directory$" "$vk" dump "$tmp/nope.glb" --out "$tmp/folder.png"

# No Vulkan driver (the loader pointed at none): one line that says so and what to install.
for cmd in render devices; do
  args=()
  [ "$cmd" = render ] && args=(--out "$tmp/nodriver.png")
  WANT_RC=1 expect_error "$cmd without a driver" "^vkskin $cmd: no Vulkan 1.3 driver was found \\(VK_ERROR_INCOMPATIBLE_DRIVER\\): install one, on Debian mesa-vulkan-drivers for a CPU driver, or your GPU vendor's$" \
    env VK_DRIVER_FILES=/nonexistent VK_ICD_FILENAMES=/nonexistent "$vk" $cmd "${args[@]}"
done
# --name=value is --name value; a flag takes no value.
WANT_RC=2 expect_error "render --size=0x0" "--size needs WIDTHxHEIGHT, each 1 to 16384, not '0x0'" "$vk" render --size=0x0 --out "$png"
WANT_RC=2 expect_error "render --size= (empty)" "--size needs WIDTHxHEIGHT, each 1 to 16384, not ''" "$vk" render --size= --out "$png"
WANT_RC=2 expect_error "render flag with a value" "option '--bind-pose' takes no value" "$vk" render --bind-pose=yes --out "$png"
WANT_RC=2 expect_error "render unknown --name=value" "unknown option '--nope'" "$vk" render --nope=1 --out "$png"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

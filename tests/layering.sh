#!/usr/bin/env bash
# tools/check_layers.sh on the tree (clean), then on copies with one violation planted each: an
# include up the house (quoted, in angle brackets, with a quote in a comment after it), sideways,
# a public header including an internal one, an internal file the public one, the program an
# internal header, a folder src/LAYERS lacks, a folder it names twice, the documented order
# swapped.
#   tests/layering.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
out=$("$src/tools/check_layers.sh" "$src")
rc=$?
[ $rc -eq 0 ] || fail "the tree: exit $rc: $out"
echo "$out"
# plant NAME FILE LINE-AFTER TEXT EXPECTED: a copy of the tree with TEXT after line LINE-AFTER of
# FILE; the check must exit 1 and print EXPECTED.
plant() {
  local name=$1 file=$2 after=$3 text=$4 expected=$5 dir=$tmp/$1 o rc
  mkdir -p "$dir" && cp -r "$src/src" "$src/include" "$src/shaders" "$dir/" &&
    mkdir -p "$dir/docs" && cp "$src/docs/architecture.md" "$dir/docs/"
  sed -i "${after}a $text" "$dir/$file"
  o=$("$src/tools/check_layers.sh" "$dir")
  rc=$?
  [ $rc -eq 1 ] || fail "$name: exit $rc, not 1: $o"
  grep -qF -- "$expected" <<<"$o" || fail "$name: no '$expected' in: $o"
}
line=$(grep -n '#include' "$src/src/core/alloc.h" | head -n1 | cut -d: -f1)
plant upward src/core/alloc.h "$line" '#include "../scene/crowd.h"' \
  "check_layers: src/core/alloc.h:$((line + 1)): core/ includes scene/ (\"../scene/crowd.h\"), which src/LAYERS lists after it (higher)"
plant angled src/core/alloc.h "$line" '#include <scene/crowd.h>' \
  "src/core/alloc.h:$((line + 1)): core/ includes scene/ (<scene/crowd.h>)"
plant commented src/core/alloc.h "$line" '#include "../scene/crowd.h" // not "core/error.h"' \
  "src/core/alloc.h:$((line + 1)): core/ includes scene/ (\"../scene/crowd.h\")"
line=$(grep -n '#include' "$src/src/app/hud.c" | head -n1 | cut -d: -f1)
plant program src/app/hud.c "$line" '#include "../scene/crowd.h"' \
  "src/app/hud.c:$((line + 1)): app/ includes the internal \"../scene/crowd.h\""
line=$(grep -n '#include' "$src/src/skin/skin_gpu.h" | head -n1 | cut -d: -f1)
plant sideways src/skin/skin_gpu.h "$line" '#include "bake/lod.h"' \
  "src/skin/skin_gpu.h:$((line + 1)): skin/ includes bake/ (\"bake/lod.h\")"
line=$(grep -n '#include' "$src/include/vkskin/vkskin_render.h" | head -n1 | cut -d: -f1)
plant public include/vkskin/vkskin_render.h "$line" '#include "../../src/core/error.h"' \
  "include/vkskin/vkskin_render.h:$((line + 1)): the public header includes \"../../src/core/error.h\""
line=$(grep -n '#include' "$src/src/render/record.c" | head -n1 | cut -d: -f1)
plant internal_public src/render/record.c "$line" '#include "vkskin/vkskin.h"' \
  "src/render/record.c:$((line + 1)): includes the public \"vkskin/vkskin.h\""
line=$(grep -n '#include' "$src/include/vkskin/vkskin_render.h" | head -n1 | cut -d: -f1)
plant angled_public include/vkskin/vkskin_render.h "$line" '#include <core/error.h>' \
  "the public header includes <core/error.h>"
# A folder src/LAYERS does not name, and one it names twice.
dir=$tmp/folder
mkdir -p "$dir/docs" && cp -r "$src/src" "$src/include" "$src/shaders" "$dir/" &&
  cp "$src/docs/architecture.md" "$dir/docs/" && mkdir -p "$dir/src/extra" &&
  echo '#include "../core/error.h"' >"$dir/src/extra/x.c"
o=$("$src/tools/check_layers.sh" "$dir")
[ $? -eq 1 ] && grep -qF "src/extra/x.c: folder 'extra' is not in src/LAYERS" <<<"$o" ||
  fail "a folder src/LAYERS lacks: $o"
rm -r "$dir/src/extra" && echo core >>"$dir/src/LAYERS"
o=$("$src/tools/check_layers.sh" "$dir")
[ $? -eq 1 ] && grep -qF "src/LAYERS names 'core' twice" <<<"$o" || fail "a folder named twice: $o"
# The documented order: swap two rows of the stages table.
dir=$tmp/order
mkdir -p "$dir/docs" && cp -r "$src/src" "$src/include" "$src/shaders" "$dir/"
awk '/^\| anim \|/ { held = $0; next } { print } /^\| skin \|/ && held { print held; held = "" }' \
  "$src/docs/architecture.md" >"$dir/docs/architecture.md"
o=$("$src/tools/check_layers.sh" "$dir")
[ $? -eq 1 ] && grep -q "docs/architecture.md's stages (shaders core gpu asset skin anim" <<<"$o" ||
  fail "swapped stages: $o"
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "layering: the tree is clean, and each planted violation is named"

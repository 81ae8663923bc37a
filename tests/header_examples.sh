#!/usr/bin/env bash
# Each public header's "Example" text is, line for line, the block tests/header_examples.c
# compiles (between "// example: HEADER" and "// end", indented four spaces); then the CPU side's
# example runs on the default character.
#   tests/header_examples.sh SOURCE_DIR HEADER_EXAMPLES DEFAULT_GLB
set -u
src=$1 bin=$2 glb=$3
fails=0
for h in vkskin.h vkskin_render.h vkskin_vulkan.h; do
  header=$(awk '/^ \* Example \(/ { on = 1; next } on && /^ \*\/?$/ { exit }
    on { sub(/^ \*   /, ""); print }' "$src/include/vkskin/$h")
  compiled=$(awk -v h="$h" '$0 == "    // example: " h { on = 1; next } on && /^    \/\/ end$/ { exit }
    on { sub(/^    /, ""); print }' "$src/tests/header_examples.c")
  if [ -z "$header" ]; then
    echo "FAIL: $h has no Example"
    fails=$((fails + 1))
  elif [ "$header" != "$compiled" ]; then
    echo "FAIL: $h's Example is not what tests/header_examples.c compiles:"
    diff <(printf '%s\n' "$header") <(printf '%s\n' "$compiled")
    fails=$((fails + 1))
  else
    echo "ok   $h: its Example ($(printf '%s\n' "$header" | wc -l) lines) is the compiled one"
  fi
done
"$bin" "$glb" || fails=$((fails + 1))
[ $fails -eq 0 ]

#!/usr/bin/env bash
# The house's layering, checked: every quoted #include in src/ and shaders/ goes to the including
# file's own folder or to one listed before it in src/LAYERS; the public headers (include/vkskin)
# include only each other; docs/architecture.md's "The stages" table lists src/LAYERS's folders
# in its order. Prints one line per violation and exits 1 when there is any, 0 when there is none.
#
#   tools/check_layers.sh [ROOT]      (default: the repository this script is in)
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || { echo "check_layers: no folder '$root'" >&2; exit 2; }
[ -f src/LAYERS ] || { echo "check_layers: no src/LAYERS in '$root'" >&2; exit 2; }
mapfile -t layers < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' src/LAYERS | grep -v '^$')
declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done
bad=0
fail() {
  echo "check_layers: $*"
  bad=$((bad + 1))
}
# The folder of a path under src/ or shaders/ ("shaders" for shaders/, else src's sub-folder).
folder() {
  case $1 in
  shaders/*) echo shaders ;;
  src/*/*) p=${1#src/} && echo "${p%%/*}" ;;
  include/*) echo include ;;
  *) echo other ;;
  esac
}
# resolve FILE INCLUDE: the included file's path from the root, as the compiler finds it (the
# including file's folder first, then the include directories), or nothing.
resolve() {
  local d c
  d=$(dirname "$1")
  for c in "$d/$2" "src/$2" "shaders/$2" "include/$2"; do
    if [ -f "$c" ]; then
      realpath -m --relative-to=. "$c"
      return
    fi
  done
}
while IFS= read -r f; do
  from=$(folder "$f")
  if [ "$from" != shaders ] && [ -z "${rank[$from]+x}" ]; then
    fail "$f: folder '$from' is not in src/LAYERS"
    continue
  fi
  while IFS=: read -r line inc; do
    to_path=$(resolve "$f" "$inc")
    [ -n "$to_path" ] || continue # generated (vkskin/version.h) or a system header
    to=$(folder "$to_path")
    [ "$to" = "$from" ] && continue
    if [ "$to" = include ]; then
      [ "$from" = api ] || [ "$from" = app ] ||
        fail "$f:$line: includes the public '$inc' (only api/ and app/ see include/vkskin)"
      continue
    fi
    if [ -z "${rank[$to]+x}" ]; then
      fail "$f:$line: includes '$inc', outside src/LAYERS's folders"
    elif [ "${rank[$to]}" -gt "${rank[$from]}" ]; then
      fail "$f:$line: $from/ includes $to/ ('$inc'), which src/LAYERS puts above it"
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
    sed 's/^\([0-9]*\):.*"\(.*\)".*/\1:\2/')
done < <(find src shaders -type f \( -name '*.c' -o -name '*.h' -o -name '*.glsl' -o -name '*.comp' \
  -o -name '*.vert' -o -name '*.frag' \) | sort)
# The public headers: only each other (and system headers, in angle brackets).
while IFS= read -r f; do
  while IFS=: read -r line inc; do
    to_path=$(resolve "$f" "$inc")
    case $inc in vkskin/version.h) continue ;; esac
    case $to_path in
    include/vkskin/*) ;;
    *) fail "$f:$line: the public header includes '$inc', which is not in include/vkskin" ;;
    esac
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
    sed 's/^\([0-9]*\):.*"\(.*\)".*/\1:\2/')
done < <(find include -type f -name '*.h' | sort)
# The documented order: the stage column of architecture.md's first table.
if [ -f docs/architecture.md ]; then
  documented=$(awk '/^## The stages/ { on = 1; next } on && /^## / { exit }
    on && /^\| [a-z]+ \|/ { sub(/^\| /, ""); sub(/ \|.*/, ""); print }' docs/architecture.md |
    grep -v '^stage$' | tr '\n' ' ')
  expected="${layers[*]} "
  [ "$documented" = "$expected" ] ||
    fail "docs/architecture.md's stages ($documented) are not src/LAYERS's ($expected)"
fi
[ $bad -eq 0 ] || { echo "check_layers: $bad violation(s)"; exit 1; }
echo "check_layers: no include runs up the house (${#layers[@]} layers)"

#!/usr/bin/env bash
# The house's layering, checked: every #include in src/ and shaders/, quoted or in angle brackets
# (src/, shaders/ and include/ are on the include path), goes to the including file's own folder
# or to one listed before it in src/LAYERS (lower); only api/ and app/ include the public headers,
# and app/ (the program, on the public API) nothing internal but core/; the public headers
# (include/vkskin) include only each other; src/LAYERS names each folder of src/ once;
# docs/architecture.md's "The stages" table lists src/LAYERS's folders in its order. Prints one
# line per violation and exits 1 when there is any, 0 when there is none.
#
#   tools/check_layers.sh [ROOT]      (default: the repository this script is in)
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || { echo "check_layers: no folder '$root'" >&2; exit 2; }
[ -f src/LAYERS ] || { echo "check_layers: no src/LAYERS in '$root'" >&2; exit 2; }
mapfile -t layers < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' src/LAYERS | grep -v '^$')
declare -A rank
bad=0
fail() {
  echo "check_layers: $*"
  bad=$((bad + 1))
}
for i in "${!layers[@]}"; do
  l=${layers[$i]}
  [ -z "${rank[$l]+x}" ] || fail "src/LAYERS names '$l' twice"
  [ -d "src/$l" ] || [ "$l" = shaders ] || fail "src/LAYERS names '$l', which is not a folder of src/"
  rank[$l]=$i
done
# $in_folder set to the folder of a path under src/ or shaders/ ("shaders" for shaders/, else
# src's sub-folder).
folder() {
  case $1 in
  shaders/*) in_folder=shaders ;;
  src/*/*) in_folder=${1#src/} && in_folder=${in_folder%%/*} ;;
  include/*) in_folder=include ;;
  *) in_folder=other ;;
  esac
}
# resolve FILE INCLUDE: $to_path set to the included file's path from the root, as the compiler
# finds it (for a quoted one the including file's folder first, then the include directories), or
# to nothing (a system header, or one the build generates: vkskin/version.h).
declare -A resolved # by folder and include: most repeat
resolve() {
  local d c inc=${2#?} key
  inc=${inc%?}
  d=${1%/*}
  case $2 in \<*) d=/nonexistent ;; esac
  key="$d|$2"
  if [ -z "${resolved[$key]+x}" ]; then
    resolved[$key]=''
    for c in "$d/$inc" "src/$inc" "shaders/$inc" "include/$inc"; do
      if [ -f "$c" ]; then
        resolved[$key]=$(realpath -m --relative-to=. "$c")
        break
      fi
    done
  fi
  to_path=${resolved[$key]}
}
# includes FILE: LINE:"NAME" or LINE:<NAME> for each #include of FILE (a comment after it
# ignored).
includes() {
  grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$1" |
    sed 's/^\([0-9]*\):[^"<]*\(["<][^">]*[">]\).*/\1:\2/'
}
while IFS= read -r f; do
  folder "$f" && from=$in_folder
  if [ "$from" != shaders ] && [ -z "${rank[$from]+x}" ]; then
    fail "$f: folder '$from' is not in src/LAYERS"
    continue
  fi
  while IFS=: read -r line inc; do
    resolve "$f" "$inc"
    [ -n "$to_path" ] || continue # generated (vkskin/version.h) or a system header
    folder "$to_path" && to=$in_folder
    [ "$to" = "$from" ] && continue
    if [ "$to" = include ]; then
      [ "$from" = api ] || [ "$from" = app ] ||
        fail "$f:$line: includes the public $inc (only api/ and app/ see include/vkskin)"
      continue
    fi
    if [ -z "${rank[$to]+x}" ]; then
      fail "$f:$line: includes $inc, outside src/LAYERS's folders"
    elif [ "${rank[$to]}" -gt "${rank[$from]}" ]; then
      fail "$f:$line: $from/ includes $to/ ($inc), which src/LAYERS lists after it (higher)"
    elif [ "$from" = app ] && [ "$to" != core ]; then
      fail "$f:$line: app/ includes the internal $inc (the program is on the public API, and core/)"
    fi
  done < <(includes "$f")
done < <(find src shaders -type f \( -name '*.c' -o -name '*.h' -o -name '*.glsl' -o -name '*.comp' \
  -o -name '*.vert' -o -name '*.frag' \) | sort)
# The public headers: only each other (and system headers, in angle brackets).
while IFS= read -r f; do
  while IFS=: read -r line inc; do
    resolve "$f" "$inc"
    case $inc in '"vkskin/version.h"' | '<vkskin/version.h>') continue ;; esac
    case $to_path in
    include/vkskin/* | '') ;; # each other, or a system header
    *) fail "$f:$line: the public header includes $inc, which is not in include/vkskin" ;;
    esac
  done < <(includes "$f")
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

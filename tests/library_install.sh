#!/usr/bin/env bash
# The library as a host gets it: `cmake --install` into a fresh prefix, then the examples
# configured against it with find_package in fresh build folders and, a second time, compiled
# with pkg-config alone (the host's own -lvulkan and stb); the installed library exports vkskin_*
# and nothing else (no vk* of volk's, no stbi_*); every public header compiles alone as C17 and
# as C++17 with -Wall -Wextra -pedantic; the installed program says its version.
#   examples/palettes: the CPU side; the bind pose's palettes must be identities.
#   examples/host: its own device and draw pipeline, vkskin skinning in its command buffer, run
#   with validation on (a message fails it); it draws textured with vkskin's UVs, textures and
#   light, and its PNG must be the image `vkskin render` draws of the same crowd within the image
#   tests' bounds (compare_png's defaults), on the default character, the textured fixture and
#   CesiumMan when present; its check of every instance's skinned vertices against the CPU
#   reference must pass.
#   examples/quickstart: the README's example, that file verbatim, built as C and C++ with -Werror;
#   its image's silhouette must be the one `vkskin render` draws of the same crowd.
#   usage: library_install.sh BUILD_DIR SOURCE_DIR MODEL VERSION CC VKSKIN COMPARE_PNG [FLAGS]
# CC is the build's compiler, FLAGS what a host of that build needs too (its sanitizers).
set -u
build=$1 src=$2 model=$3 version=$4 cc=$5 vkskin=$6 compare=$7 flags=${8:-}
textured=${9:-} cesium=${10:-} # a textured fixture; CesiumMan (a sample model, when present)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
failed=0
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
lib=$(find "$prefix" -name 'libvkskin.a' -o -name 'libvkskin.so' | head -n 1)
[ -n "$lib" ] || fail "no libvkskin installed"
for f in include/vkskin/vkskin.h include/vkskin/version.h; do
  [ -f "$prefix/$f" ] || fail "$f not installed"
done
[ -n "$(find "$prefix" -path '*cmake/vkskin/vkskinConfig.cmake')" ] || fail "no package config"
pc=$(find "$prefix" -name vkskin.pc | head -n 1)
[ -n "$pc" ] || fail "no vkskin.pc"
[ -n "$(find "$prefix" -name LICENSE)" ] || fail "no LICENSE"

# Exported symbols: the defined globals are the API's and nothing else.
if [ -n "$lib" ]; then
  nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 {print $3}' >"$tmp/symbols"
  api=$(grep -c '^vkskin_' "$tmp/symbols")
  grep -v '^vkskin_' "$tmp/symbols" >"$tmp/foreign"
  if [ -s "$tmp/foreign" ]; then
    fail "the library exports $(wc -l <"$tmp/foreign") symbols not vkskin_*: $(head -n 5 "$tmp/foreign" | tr '\n' ' ')"
  elif [ "$api" -lt 10 ]; then
    fail "only $api vkskin_* symbols exported"
  else
    echo "ok   $api symbols exported, all vkskin_* (no vk*, stbi_* or internal ones)"
  fi
fi

# find_package in a fresh build folder.
if cmake -S "$src/examples/palettes" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
     -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$tmp/cfg.log" 2>&1 &&
   cmake --build "$tmp/cmake" >"$tmp/build.log" 2>&1; then
  if "$tmp/cmake/palettes" "$model" >"$tmp/run.log" 2>&1; then
    echo "ok   find_package: $(tr '\n' ' ' <"$tmp/run.log")"
  else
    cat "$tmp/run.log"; fail "the find_package build of the example failed to run"
  fi
else
  cat "$tmp/cfg.log" "$tmp/build.log" 2>/dev/null | tail -n 30; fail "the example did not build with find_package"
fi

# pkg-config alone.
export PKG_CONFIG_PATH=$(dirname "${pc:-/nonexistent/x}")
if pcflags=$(pkg-config --cflags --libs vkskin 2>"$tmp/pc.log") &&
   "$cc" -std=c17 -Wall -Wextra -pedantic -Werror $flags "$src/examples/palettes/main.c" -o "$tmp/palettes_pc" $pcflags -lm 2>"$tmp/cc.log"; then
  # (a shared libvkskin in a prefix the loader does not search: as any such library)
  if LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
     "$tmp/palettes_pc" "$model" >"$tmp/run2.log" 2>&1; then
    echo "ok   pkg-config ($pcflags): runs"
  else
    cat "$tmp/run2.log"; fail "the pkg-config build of the example failed to run"
  fi
else
  cat "$tmp/pc.log" "$tmp/cc.log"; fail "the example did not build with pkg-config"
fi

# The example host: find_package, then pkg-config; each run with validation, each image against
# vkskin render's, colours included (the host draws textured, with vkskin's UVs, textures and
# light; level of detail 0 and the graphics pipeline, as the host draws): the default character
# (base colours), the textured fixture (a static mesh, textures seen large) and CesiumMan when
# present (a skinned character, its texture seen small: mip-mapped).
cases=("default $model 4 0.5 512x512")
[ -n "$textured" ] && [ -f "$textured" ] && cases+=("textured $textured 1 0 256x256")
if [ -n "$cesium" ] && [ -f "$cesium" ]; then
  cases+=("CesiumMan $cesium 4 0.5 512x512")
else
  echo "skipped: the host against vkskin render on CesiumMan: ${cesium:-it} is absent (set VKS_SAMPLE_MODELS; docs/testing.md)"
fi
for c in "${cases[@]}"; do
  set -- $c
  VKSKIN_VALIDATE=1 "$vkskin" render "$2" --instances "$3" --time "$4" --size "$5" --lod 0 \
    --raster hardware --out "$tmp/ref_$1.png" >"$tmp/ref.log" 2>&1 ||
    { cat "$tmp/ref.log"; fail "vkskin render of the reference ($1)"; }
done
if cmake -S "$src/examples/host" -B "$tmp/host" -DCMAKE_PREFIX_PATH="$prefix" \
     -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$tmp/hcfg.log" 2>&1 &&
   cmake --build "$tmp/host" >"$tmp/hbuild.log" 2>&1; then
  echo "ok   examples/host builds with find_package"
else
  cat "$tmp/hcfg.log" "$tmp/hbuild.log" 2>/dev/null | tail -n 30; fail "examples/host did not build with find_package"
fi
mkdir -p "$tmp/hostpc"
for stage in vert frag; do
  glslangValidator -V --target-env vulkan1.3 --vn host_$stage -o "$tmp/hostpc/host_$stage.h" \
    "$src/examples/host/host.$stage" >"$tmp/glslang.log" 2>&1 || { cat "$tmp/glslang.log"; fail "host.$stage"; }
done
if hostflags=$(pkg-config --cflags --libs vkskin vulkan stb 2>"$tmp/pc2.log") &&
   "$cc" -std=c17 -Wall -Wextra -Wno-missing-field-initializers -pedantic -Werror $flags \
     "$src/examples/host/main.c" "$src/examples/host/embed.c" -I"$tmp/hostpc" -o "$tmp/hostpc/host" \
     $hostflags -lm 2>"$tmp/cc2.log"; then
  echo "ok   examples/host builds with pkg-config ($hostflags)"
else
  cat "$tmp/pc2.log" "$tmp/cc2.log"; fail "examples/host did not build with pkg-config"
fi
for host in "$tmp/host/host" "$tmp/hostpc/host"; do
  [ -x "$host" ] || continue
  for c in "${cases[@]}"; do
    set -- $c
    if LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" VKSKIN_VALIDATE=1 \
       "$host" "$2" "$tmp/host_$1.png" "$3" "$4" "$5" >"$tmp/host.log" 2>&1; then
      if "$compare" "$tmp/host_$1.png" "$tmp/ref_$1.png" --any-framing >"$tmp/cmp.log" 2>&1; then
        echo "ok   $host, $1: validation clean, vkskin render's image: $(grep -o 'mean abs error [0-9.]*/255' "$tmp/cmp.log")"
      else
        cat "$tmp/cmp.log"; fail "$host's image of $1 is not vkskin render's"
      fi
      # The example's own check: every instance's skinned vertices against the CPU reference
      # (it exits 1 when they differ; the line says by how much).
      if grep -q "skinned vertices of $3 instances match the CPU reference" "$tmp/host.log"; then
        echo "ok   $(grep -o 'the skinned vertices.*' "$tmp/host.log")"
      else
        cat "$tmp/host.log"; fail "$host: no check of its skinned vertices against the CPU ($1)"
      fi
    else
      cat "$tmp/host.log"; fail "$host failed on $1 (or validation spoke)"
    fi
  done
done

# The README's library example is examples/quickstart/main.c, verbatim; it builds against the
# installed package as C17 and as C++20 (designated initializers), -Werror (in C++ without
# -Wmissing-field-initializers, which g++ 12 raises for every field a designated initializer
# leaves to its zero default, the library's convention), and each build runs
# with validation on and writes the silhouette vkskin render draws of the same crowd at the same
# clock (compare_png reads the PPM; the pixels inside differ a little: after 60 frames the far
# instances show poses kept from up to 3 frames before, render's one frame poses every one).
# docs/library.md's embedding example is examples/host/embed.c, verbatim: the file the host above
# built and ran.
awk '/^```c$/ { block = 1; next } /^```$/ { block = 0; if (found) exit }
     block && /^\/\* examples\/host\/embed\.c/ { found = 1 } found && block' \
  "$src/docs/library.md" >"$tmp/doc_embed.c"
if cmp -s "$tmp/doc_embed.c" "$src/examples/host/embed.c"; then
  echo "ok   library.md's embedding example is examples/host/embed.c ($(wc -l <"$tmp/doc_embed.c") lines)"
else
  diff "$tmp/doc_embed.c" "$src/examples/host/embed.c" | head -n 20; fail "library.md's embedding example is not examples/host/embed.c"
fi
awk '/^```c$/ { block = 1; next } /^```$/ { block = 0; if (found) exit }
     block && /^\/\* examples\/quickstart\/main\.c/ { found = 1 } found && block' \
  "$src/README.md" >"$tmp/readme_quickstart.c"
if cmp -s "$tmp/readme_quickstart.c" "$src/examples/quickstart/main.c"; then
  echo "ok   the README's example is examples/quickstart/main.c ($(wc -l <"$tmp/readme_quickstart.c") lines)"
else
  diff "$tmp/readme_quickstart.c" "$src/examples/quickstart/main.c" | head -n 20
  fail "the README's example is not examples/quickstart/main.c"
fi
VKSKIN_VALIDATE=1 "$vkskin" render "$model" --instances 100 --clip 0 --time 1 --no-normalize --size 640x360 \
  --out "$tmp/quick_ref.png" >"$tmp/quick_ref.log" 2>&1 || { cat "$tmp/quick_ref.log"; fail "vkskin render of the quickstart's crowd"; }
qflags=$(pkg-config --cflags --libs vkskin 2>/dev/null)
for lang in c c++; do
  std=c17 compiler=$cc
  warnings="-Wall -Wextra -pedantic -Werror"
  [ $lang = c ] || { std=c++20 warnings="$warnings -Wno-missing-field-initializers"
    case $cc in *clang*) compiler=clang++ ;; *) compiler=c++ ;; esac; }
  mkdir -p "$tmp/quick_$lang"
  if ! "$compiler" -x $lang -std=$std $warnings $flags "$src/examples/quickstart/main.c" \
       -x none -o "$tmp/quick_$lang/quickstart" $qflags -lm 2>"$tmp/quick_cc.log"; then
    cat "$tmp/quick_cc.log"; fail "examples/quickstart does not build as $std"; continue
  fi
  if (cd "$tmp/quick_$lang" && LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        VKSKIN_VALIDATE=1 ./quickstart "$model") >"$tmp/quick.log" 2>&1 && ! [ -s "$tmp/quick.log" ] &&
     "$compare" "$tmp/quick_$lang/crowd.ppm" "$tmp/quick_ref.png" --shape-only --any-framing >"$tmp/quick_cmp.log" 2>&1; then
    echo "ok   examples/quickstart as $std: validation clean, the silhouette vkskin render draws: $(grep -o 'silhouette [0-9]* pixels' "$tmp/quick_cmp.log" | head -n 1)"
  else
    cat "$tmp/quick.log" "$tmp/quick_cmp.log" 2>/dev/null
    fail "examples/quickstart as $std: failed, said something (validation?) or drew another image"
  fi
done

# Each public header alone, first in its translation unit (a declaration after it: ISO C wants
# one in every unit), as C17 and as C++17.
headers=0 before=$failed
for h in "$prefix"/include/vkskin/*.h; do
  name=vkskin/$(basename "$h")
  printf '#include <%s>\nint vkskin_header_test_unit;\n' "$name" >"$tmp/one.c"
  cc -std=c17 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$prefix/include" "$tmp/one.c" 2>"$tmp/h.log" || { cat "$tmp/h.log"; fail "$name alone as C17"; }
  c++ -std=c++17 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$prefix/include" -x c++ "$tmp/one.c" 2>"$tmp/h.log" || { cat "$tmp/h.log"; fail "$name alone as C++17"; }
  headers=$((headers + 1))
done
[ "$failed" -eq "$before" ] && echo "ok   $headers public headers compile alone as C17 and C++17"

got=$("$prefix/bin/vkskin" --version 2>&1)
[ "$got" = "vkskin $version" ] && echo "ok   $got" || fail "vkskin --version says '$got', want 'vkskin $version'"

[ "$failed" -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
echo "library_install: all passed"

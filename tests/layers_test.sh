#!/usr/bin/env bash
# The layers, checked on every build's sources: each may include only what is below it.
#   engine (include/roofline, src/engine): the C++ standard library and itself; no I/O, no formatting
#   text   (src/text): the engine
#   io     (src/io): text and the engine
#   format (src/format): text and the engine; never io (views are given what they show)
#   cli    (src/cli): everything
# usage: layers_test.sh SOURCE_DIR
set -u
root=$1
status=0
fail() { echo "layers: $1"; status=1; }

# A project include outside the allowed prefixes, for every file under DIR.
check() {
  local dir=$1 allowed=$2
  while IFS= read -r line; do
    fail "$line: ${dir} may include only ${allowed//|/, }"
  done < <(grep -rnE '^#include "' "$root/$dir" | grep -vE "#include \"(${allowed})/")
}
check include/roofline 'roofline'
check src/engine 'roofline'
check src/text 'text|roofline'
check src/io 'io|text|roofline'
check src/format 'format|text|roofline'

# The engine is pure: no streams, no files, no formatting library, no JSON.
while IFS= read -r line; do
  fail "$line: the engine does no I/O and no formatting"
done < <(grep -rnE '^#include <(iostream|fstream|sstream|cstdio|fmt/|nlohmann/|filesystem)' "$root/include/roofline" "$root/src/engine")

[ "$status" -eq 0 ] && echo "layers: engine < text < io, format < cli hold"
exit "$status"

#!/usr/bin/env bash
# Every flag that --help shows is documented in the man page. (The completion scripts are generated
# from the CLI itself and tested in completion_test.sh.)
set -euo pipefail
bin="$1"
root="$2"
fail=0
for cmd in report params flops kv memory decode prefill serve layer train plan plot compare gemm gpus models completion; do
  for flag in $("$bin" "$cmd" --help | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
    grep -qF -- "$flag" "$root/docs/roofline.1.md" || { echo "$cmd $flag: missing from docs/roofline.1.md"; fail=1; }
  done
done
exit "$fail"

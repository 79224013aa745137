#!/usr/bin/env bash
# Every flag that --help shows is documented in the man page and offered by the bash completion,
# and the completion script loads and completes commands, presets and choices.
set -euo pipefail
bin="$1"
root="$2"
fail=0
for cmd in report params flops kv memory decode prefill serve layer train plan plot compare gemm gpus models; do
  for flag in $("$bin" "$cmd" --help | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
    grep -qF -- "$flag" "$root/docs/roofline.1.md" || { echo "$cmd $flag: missing from docs/roofline.1.md"; fail=1; }
  done
done
# Completion functions run in an interactive shell, not under set -u.
set +u
# shellcheck source=/dev/null
source "$root/docs/completions/roofline.bash"
complete_words() {
  COMP_WORDS=("$bin" "${@:2}")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _roofline
  echo "${COMPREPLY[*]}"
}
check() {
  local want="$1"
  shift
  local got
  got="$(complete_words "$@")"
  [[ " $got " == *" $want "* ]] || { echo "completing '$*': '$want' not in '$got'"; fail=1; }
}
check report roofline rep
check llama3-8b roofline report llama3-
check h100-sxm roofline decode llama3-8b --gpu h100-s
check all-params roofline flops llama3-8b --flops-basis a
# Each command completes its own options and not another command's.
check --kv-dtype roofline kv llama3-8b --kv
check --output roofline serve llama3-8b --out
check --format roofline kv llama3-8b --form
check plot roofline pl
check memory roofline plot llama3-8b --gpu h100-sxm --kind m
check --gemm roofline plot llama3-8b --ge
check svg roofline plot llama3-8b --format s
# compare: its question, a list of models or of accelerators, the question's own options.
check compare roofline comp
check decode roofline compare de
check llama3-8b,llama3-70b roofline compare params llama3-8b,llama3-7
check h100-sxm,mi300x roofline compare decode llama3-8b --gpu h100-sxm,mi3
check --output roofline compare serve llama3-8b --gpu h100-sxm,mi300x --out
check --brief roofline decode llama3-8b --gpu h100-sxm --br
got="$(complete_words "$bin" compare kv llama3-8b,llama2-7b --m)"
[[ " $got " != *" --mfu "* ]] || { echo "compare kv completes --mfu, which kv does not accept"; fail=1; }
got="$(complete_words "$bin" kv llama3-8b --m)"
[[ " $got " != *" --mfu "* ]] || { echo "kv completes --mfu, which it does not accept"; fail=1; }
exit "$fail"

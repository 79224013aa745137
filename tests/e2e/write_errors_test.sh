#!/usr/bin/env bash
# R13 (reliability review): output that cannot be written is an error. Every way of producing
# stdout (a report, JSON, a listing, a sweep, batch, a completion script, --help, --version) is run
# with stdout on /dev/full and with stdout closed: exit 1, one line on stderr, nothing else.
# Usage: write_errors_test.sh ROOFLINE_BINARY SOURCE_DIR
set -uo pipefail
bin="$1"
cd "$2"
want="roofline: error: writing the output failed (disk full or stdout closed?)"
fail=0
check() {  # check WHERE ARGS...: runs with stdout as given by WHERE (full or closed)
  local where="$1"
  shift
  local err rc
  if [ "$where" = full ]; then
    err=$("$bin" "$@" 2>&1 >/dev/full </dev/null)
    rc=$?
  else
    err=$("$bin" "$@" 2>&1 >&- </dev/null)
    rc=$?
  fi
  if [ "$rc" != 1 ] || [ "$err" != "$want" ]; then
    echo "FAIL ($where stdout): roofline $*: exit $rc, stderr: $err"
    fail=1
  fi
}
for where in full closed; do
  check "$where" gpus
  check "$where" models --names
  check "$where" report llama3-8b --gpu h100-sxm --format json
  check "$where" params llama3-8b
  check "$where" decode llama3-8b --gpu h100-sxm --batch 1..64*2
  check "$where" completion bash
  check "$where" batch tests/fixtures/plans.jsonl
  check "$where" --help
  check "$where" decode --help
  check "$where" --version
done
exit $fail

#!/usr/bin/env bash
# Offline fuzzing campaign: runs every harness of the fuzz preset to N executions, one after
# another (or K at a time), each with its seed corpus, regressions and dictionary, and prints a
# Markdown table ready to paste into docs/reliability.md.
#
#   tests/fuzz/campaign.sh [-n RUNS] [-T SECONDS] [-j K] [-f K] [-t SECONDS] [-b BUILD_DIR] [HARNESS...]
#
#   -n RUNS       executions per harness (default 10000000)
#   -T SECONDS    stop each harness after this time instead (a quick campaign; default none)
#   -j K          harnesses run at a time (default 1)
#   -f K          each harness in libFuzzer's fork mode with K worker processes (default 0: one
#                 process); RUNS counts the executions of all of them
#   -t SECONDS    libFuzzer -timeout: one input running longer is a finding (default 10)
#   -b BUILD_DIR  the fuzz preset's build directory (default build/fuzz; built first if absent)
#   HARNESS...    a subset of tests/fuzz/harnesses.txt (default: all)
#
# Each harness keeps its working corpus, log and any finding under BUILD_DIR/campaign/HARNESS/; the
# source tree is only read. A finding ends that harness's run: minimise it with
#   BUILD_DIR/tests/fuzz/fuzz_HARNESS -minimize_crash=1 -runs=100000 -exact_artifact_path=min FILE
# and add it to tests/fuzz/regressions/HARNESS/. Environment: ROOFLINE_FUZZ_ALLOW_CONTROL=1 lets raw
# control characters in messages pass (a known finding being fixed), so a campaign runs past it.
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=10000000
jobs=1
timeout=10
build=build/fuzz
seconds=0
forks=0
while getopts "n:T:j:f:t:b:h" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    T) seconds=$OPTARG ;;
    j) jobs=$OPTARG ;;
    f) forks=$OPTARG ;;
    t) timeout=$OPTARG ;;
    b) build=$OPTARG ;;
    *) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

declare -A max_len
all=()
while read -r name len; do
  [[ $name == \#* || -z $name ]] && continue
  max_len[$name]=$len
  all+=("$name")
done < tests/fuzz/harnesses.txt
harnesses=("${@:-${all[@]}}")
for h in "${harnesses[@]}"; do
  [[ -n ${max_len[$h]:-} ]] || { echo "campaign.sh: unknown harness \"$h\" (tests/fuzz/harnesses.txt)" >&2; exit 2; }
done

if [[ ! -x $build/tests/fuzz/fuzz_${harnesses[0]} ]]; then
  cmake --preset fuzz >&2
  cmake --build --preset fuzz >&2
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} LC_ALL=C
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local h=$1 dir=$build/campaign/$1
  rm -rf "$dir/artifacts"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  local start end rc=0
  start=$(date +%s)
  "$build/tests/fuzz/fuzz_$h" -runs="$runs" -max_total_time="$seconds" -max_len="${max_len[$h]}" -timeout="$timeout" -rss_limit_mb=2048 \
    -fork="$forks" -dict="tests/fuzz/$h.dict" -artifact_prefix="$dir/artifacts/" -print_final_stats=1 \
    "$dir/corpus" "tests/fuzz/corpus/$h" $(ls -d "tests/fuzz/regressions/$h" 2>/dev/null) > "$dir/log" 2>&1 || rc=$?
  end=$(date +%s)
  echo "$rc $((end - start))" > "$dir/result"
}

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit (with local changes)"
echo "campaign at $commit, $runs executions (or ${seconds}s, 0: no limit) per harness, $jobs at a time (fork: $forks workers each), on $(nproc) cores; logs in $build/campaign/" >&2
for h in "${harnesses[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
  echo "  $h: started $(date +%T)" >&2
  run_one "$h" &
done
wait

echo "Fuzzing campaign at commit $commit ($(date -u +%Y-%m-%d), $(nproc) cores, ASan + UBSan, $jobs at a time, fork: $forks workers each):"
echo
echo "| harness | executions | exec/s | wall time | result |"
echo "|---|---:|---:|---:|---|"
for h in "${harnesses[@]}"; do
  dir=$build/campaign/$h
  read -r rc secs < "$dir/result"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
  if [[ -z $execs ]]; then  # no final stats after a finding: the last status line
    execs=$(grep -o '^#[0-9]*' "$dir/log" | tail -1 | tr -d '#')
    rate=$((secs > 0 ? ${execs:-0} / secs : 0))
  fi
  artifact=$(find "$dir/artifacts" -type f | head -1)
  if [[ $rc == 0 && -z $artifact ]]; then
    result="no finding"
  else
    kind=$(grep -o 'FINDING: .*\|ERROR: [A-Za-z]*Sanitizer: [a-z-]*\|ERROR: libFuzzer: [a-z-]*\|runtime error: .*' "$dir/log" | head -1)
    result="finding: ${kind:-exit $rc}; input ${artifact:-none}"
  fi
  printf '| %s | %s | %s | %dm%02ds | %s |\n' "$h" "$(echo "${execs:-0}" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')" "${rate:-0}" $((secs / 60)) $((secs % 60)) "$result"
done

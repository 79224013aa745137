#!/usr/bin/env bash
# Hostile inputs against the real binary (issue 11, reliability review R2, R14, R15): FIFOs,
# devices, directories and symlink loops where a file is expected, and a preset directory that
# cannot be read. Each must end in one "roofline: error:" line, exit 1 and an empty stdout, within
# seconds (timeout 20 per case: a hang fails the case rather than the suite).
# Usage: hostile_test.sh ROOFLINE
set -u
bin=$1
dir=$(mktemp -d)
trap 'chmod -R u+rwx "$dir" 2>/dev/null; rm -rf "$dir"' EXIT
failures=0

# expect EXIT REGEX -- ARGS...: runs roofline with stdin from /dev/null unless STDIN_FILE is set.
expect() {
  local want_rc=$1 want_err=$2
  shift 3
  local out err rc
  out=$(timeout 20 "$bin" "$@" < "${STDIN_FILE:-/dev/null}" 2> "$dir/err")
  rc=$?
  err=$(cat "$dir/err")
  local lines
  lines=$(printf '%s\n' "$err" | wc -l)
  if [[ $rc != "$want_rc" || -n $out || $lines != 1 || ! $err =~ $want_err ]]; then
    echo "FAIL: roofline $*: exit $rc (want $want_rc), stdout ${#out} bytes, stderr:"
    printf '%s\n' "$err"
    echo "  wanted: $want_err"
    failures=$((failures + 1))
  fi
}

mkfifo "$dir/fifo.json"
ln -s loop.json "$dir/loop.json"
mkdir -p "$dir/fifo-presets/models" "$dir/loop-presets"
mkfifo "$dir/fifo-presets/models/x.json"
ln -s models "$dir/loop-presets/models"

expect 1 '^roofline: error: .*/fifo.json: not a regular file, expected a JSON file$' -- params "$dir/fifo.json"
expect 1 '^roofline: error: .*/fifo.json: not a regular file, expected a JSON file$' -- batch "$dir/fifo.json"
expect 1 '^roofline: error: /dev/zero: not a regular file, expected a JSON file$' -- batch /dev/zero
expect 1 '^roofline: error: /dev/urandom: not a regular file, expected a JSON file$' -- decode llama3-8b --gpu /dev/urandom
expect 1 "^roofline: error: $dir: is a directory, expected a JSON file\$" -- batch "$dir"
expect 1 '^roofline: error: .*/loop.json: Too many levels of symbolic links$' -- params "$dir/loop.json"
expect 1 '^roofline: error: .*/loop.json: Too many levels of symbolic links$' -- batch "$dir/loop.json"
# A FIFO inside a preset directory: every command used to block on it.
expect 1 '^roofline: error: .*/fifo-presets/models/x.json: not a regular file, expected a JSON file$' -- \
  gpus --preset-dir "$dir/fifo-presets"
expect 1 '^roofline: error: --preset-dir: ".*/loop-presets/models": Too many levels of symbolic links$' -- \
  params x --preset-dir "$dir/loop-presets"
ROOFLINE_PRESET_PATH="$dir/loop-presets" expect 1 \
  '^roofline: error: ROOFLINE_PRESET_PATH: ".*/loop-presets/models": Too many levels of symbolic links$' -- gpus
# stdin that never ends: capped for a model, a batch line that never ends stops at the cap.
STDIN_FILE=/dev/zero expect 1 '^roofline: error: <stdin>: larger than 64 MiB; a preset or config.json is a few kB$' -- params -
out=$(timeout 20 "$bin" batch < /dev/zero 2> /dev/null)
rc=$?
if [[ $rc != 1 || $out != '{"line":1,"error":"longer than 64 MiB; a plan is one line of JSON","exit_code":1}' ]]; then
  echo "FAIL: roofline batch < /dev/zero: exit $rc, stdout: ${out:0:200}"
  failures=$((failures + 1))
fi
# Control characters in an echoed argument stay escaped on one line.
expect 1 '^roofline: error: MODEL: unknown preset "no\\nsuch\\x1b\[2J"' -- params $'no\nsuch\e[2J'

# An unreadable preset directory (R14). root reads a chmod 000 directory anyway, so as root the
# case runs as nobody through setpriv; it is skipped when nobody cannot run the binary.
mkdir -p "$dir/locked/models"
cp "$(dirname "$0")/../../presets/models/llama3-8b.json" "$dir/locked/models/mine.json" 2> /dev/null ||
  echo '{}' > "$dir/locked/models/mine.json"
chmod 000 "$dir/locked"
as_user=()
if [[ $(id -u) == 0 ]]; then
  chmod 755 "$dir"
  if command -v setpriv > /dev/null && setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin" --version > /dev/null 2>&1; then
    as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  else
    echo "SKIP: unreadable preset directory: running as root and nobody cannot run $bin"
    as_user=(skip)
  fi
fi
if [[ ${as_user[0]:-} != skip ]]; then
  out=$(timeout 20 "${as_user[@]}" "$bin" params mine --preset-dir "$dir/locked" 2>&1 > /dev/null)
  rc=$?
  if [[ $rc != 1 || ! $out =~ ^roofline:\ error:\ --preset-dir:\ \".*/locked/models\":\ Permission\ denied$ ]]; then
    echo "FAIL: unreadable preset directory: exit $rc: $out"
    failures=$((failures + 1))
  fi
fi

if ((failures > 0)); then
  echo "$failures hostile-input case(s) failed"
  exit 1
fi
echo "all hostile-input cases passed"

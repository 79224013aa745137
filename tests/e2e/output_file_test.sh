#!/usr/bin/env bash
# plot -o FILE (reliability review 2026-12-01): N10, the file was truncated and written in place, so
# concurrent runs or a run killed mid-write left a torn SVG; N23, -o '' drew in the terminal and
# -o - wrote a file named "-"; N20, a failed write did not say why.
# Usage: output_file_test.sh ROOFLINE_BINARY
set -uo pipefail
bin="$1"
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
cd "$work"
fail=0
no() { echo "FAIL: $*"; fail=1; }

# N10, deterministically: the new picture is a new file renamed over the name; a hard link to the
# old one still holds the old picture whole, which an in-place rewrite would have truncated.
"$bin" plot llama3-8b --gpu h100-sxm -o pic.svg || no "first write"
ln pic.svg old.svg
before=$(cksum <old.svg)
"$bin" plot llama3-8b --gpu mi300x -o pic.svg || no "second write"
[[ $(cksum <old.svg) == "$before" ]] || no "-o rewrote the file in place (its old inode changed)"
[[ $(stat -c %i pic.svg) != $(stat -c %i old.svg) ]] || no "-o kept the old inode"
grep -q "MI300X" pic.svg || no "the second picture is not under the name"
[[ $(stat -c %a pic.svg) == $(printf '%o' $((0666 & ~$(umask)))) ]] ||
  no "mode $(stat -c %a pic.svg), not a new file's"
ls -A | grep -q '^\.roofline-' && no "a temporary file was left: $(ls -A)"
# And concurrent writers: every round leaves one whole picture.
for round in 1 2 3; do
  for g in h100-sxm mi300x h200-sxm b200 a100 mi325x; do
    "$bin" plot llama3-8b --gpu "$g" --kind serve --concurrency 1..2000 -o same.svg &
  done
  wait
  python3 -c "import xml.dom.minidom as m; m.parse('same.svg')" 2>/dev/null || no "round $round: same.svg is not whole"
done
ls -A | grep -q '^\.roofline-' && no "a temporary file was left after the concurrent runs"

# N23: -o '' is an error; -o - is standard output, and no file named "-".
err=$("$bin" plot llama3-8b --gpu h100-sxm -o '' 2>&1 >/dev/null)
[[ $? == 2 && $err == 'roofline: error: -o: "" names no file; give a path, or - for standard output' ]] ||
  no "-o '': $err"
out=$("$bin" plot llama3-8b --gpu h100-sxm -o -) || no "-o - failed"
[[ $out == "<?xml"* ]] || no "-o - did not write the SVG to stdout"
[[ ! -e ./- ]] || no "-o - wrote a file named -"

# N20: a failed write names the reason; a device is written in place; nothing is left behind.
err=$("$bin" plot llama3-8b --gpu h100-sxm -o missing/pic.svg 2>&1)
[[ $? == 1 && $err == "roofline: error: -o missing/pic.svg: cannot write the file: No such file or directory" ]] ||
  no "missing directory: $err"
err=$("$bin" plot llama3-8b --gpu h100-sxm -o /dev/full 2>&1)
[[ $? == 1 && $err == "roofline: error: -o /dev/full: cannot write the file: No space left on device" ]] ||
  no "/dev/full: $err"
"$bin" plot llama3-8b --gpu h100-sxm -o /dev/null || no "-o /dev/null"
mkdir ro
if [[ $(id -u) == 0 ]] && id nobody >/dev/null 2>&1; then
  chmod 755 "$work"
  err=$(su nobody -s /bin/sh -c "'$bin' plot llama3-8b --gpu h100-sxm -o '$work/ro/pic.svg'" 2>&1)
else
  chmod 555 ro
  err=$("$bin" plot llama3-8b --gpu h100-sxm -o ro/pic.svg 2>&1)
  err=${err//ro\/pic.svg/$work/ro/pic.svg}
fi
[[ $err == "roofline: error: -o $work/ro/pic.svg: cannot write the file: Permission denied" ]] ||
  no "read-only directory: $err"
[[ -z $(ls -A ro) ]] || no "something was left in the read-only directory"
err=$("$bin" batch <<<'{"command":"params","model":"no/such.json"}')
[[ $err == *'"error":"no/such.json: cannot open file: No such file or directory"'* ]] || no "batch model path: $err"

((fail == 0)) && echo "plot -o: whole files, renamed in place; - and '' as documented; every failure says why"
exit "$fail"

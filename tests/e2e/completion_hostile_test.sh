#!/usr/bin/env bash
# Completion never evaluates, splits or globs a preset name (reliability review 2026-12-01, N5 and
# N27). Two parts, in the shell under test:
#  1. a stand-in binary whose `models --names` / `gpus --names` print hostile names: "$(touch X)",
#     a backtick command, "a b", a glob; TAB after MODEL, --gpu and in a comma list must offer each
#     name as one literal word and create no file;
#  2. the real binary with preset files of those names in --preset-dir and ROOFLINE_PRESET_PATH: the
#     binary refuses the directory (the names break docs/presets.md's rule), completion offers no
#     name and creates no file.
# Usage: completion_hostile_test.sh bash|zsh|fish ROOFLINE_BINARY SOURCE_DIR; exit 77 (skipped) when
# the shell is not installed.
set -euo pipefail
shell="$1"
bin="$2"
root="$3"
if ! command -v "$shell" >/dev/null; then
  echo "skipped: $shell is not installed"
  exit 77
fi
case $shell in
  bash) script=$root/docs/completions/roofline.bash ;;
  zsh) script=$root/docs/completions/_roofline ;;
  fish) script=$root/docs/completions/roofline.fish ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"  # a command substitution that ran would leave its file here

# Part 1: the stand-in binary.
mkdir fake
cat >fake/roofline <<'EOF'
#!/usr/bin/env bash
for a; do
  if [[ $a == --names ]]; then
    printf '%s\n' 'llama3-8b' '$(touch PWNED1)' '`touch PWNED2`' 'a b' 'g*' '${HOME}'
    exit 0
  fi
done
exit 1
EOF
chmod +x fake/roofline
: >gx.json  # a file "g*" would glob to, were the name globbed

# Matches of each line, one line of matches each, the matches separated by "|".
complete_lines() {  # $1: the binary's directory; the lines follow
  local dir=$1
  shift
  case $shell in
    bash)
      bash --norc -c '
        source "$1"; shift
        for line; do
          read -ra words <<<"$line"
          [[ $line == *" " ]] && words+=("")
          COMP_WORDS=("$0/roofline" "${words[@]:1}")
          COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
          COMPREPLY=()
          _roofline
          (IFS="|"; echo "${COMPREPLY[*]}")
        done' "$dir" "$script" "$@"
      ;;
    fish)
      # shellcheck disable=SC2016 # fish expands $argv and $line
      PATH="$dir:$PATH" fish --no-config -c '
        source '"$script"'
        for line in $argv
          set -l matches (complete -C"$line" | string replace -r "\t.*" "")
          string join "|" -- $matches; or echo
        end' -- "$@"
      ;;
    zsh)
      local fpath_dir
      fpath_dir=$(mktemp -d -p "$work")
      cp "$script" "$fpath_dir/"
      printf '%s\n' "$@" | zsh -f "$root/tests/e2e/zsh_complete.zsh" "$fpath_dir" "$dir" "|"
      ;;
  esac
}

fail=0
lines=("roofline params " "roofline decode llama3-8b --gpu " "roofline plan llama3-8b --gpu h100-sxm,")
mapfile -t got < <(complete_lines "$work/fake" "${lines[@]}")
for i in "${!lines[@]}"; do
  m="|${got[i]-}|"
  # zsh lists the element after the last comma; bash and fish the whole word.
  head=""
  [[ $shell != zsh && ${lines[i]} == *, ]] && head="h100-sxm,"
  for want in 'llama3-8b' '$(touch PWNED1)' '`touch PWNED2`' 'a b' 'g*' '${HOME}'; do
    [[ $m == *"|$head$want|"* ]] || { echo "$shell: completing '${lines[i]}': '$head$want' not one word in '${m:0:300}'"; fail=1; }
  done
  [[ $m != *"|a|"* && $m != *"|b|"* ]] || { echo "$shell: completing '${lines[i]}' split 'a b': '${m:0:300}'"; fail=1; }
  [[ $m != *"gx.json|"*"gx.json|"* ]] || { echo "$shell: completing '${lines[i]}' globbed 'g*'"; fail=1; }
done
for f in PWNED1 PWNED2; do
  [[ ! -e $f ]] || { echo "$shell: completion ran a command named by a preset ($f was created)"; fail=1; }
done

# Part 2: the real binary, preset files with those names.
mkdir -p pd/models
for name in '$(touch PWNED3)' '`touch PWNED4`' 'a b'; do
  sed 's/"name": "llama2-7b"/"name": "x"/' "$root/presets/models/llama2-7b.json" >"pd/models/$name.json"
  rm -f pd/models/*.json.tmp
  if "$bin" --preset-dir pd models --names >out 2>err; then
    echo "$shell: a preset file named '$name' was accepted"
    fail=1
  fi
  grep -q "is not a preset name; a preset name is ASCII letters" err ||
    { echo "$shell: '$name': unexpected message: $(cat err)"; fail=1; }
  mkdir -p realbin
  ln -sf "$bin" realbin/roofline
  mapfile -t got < <(complete_lines "$work/realbin" "roofline --preset-dir pd params ")
  [[ ${got[0]-} != *llama3-8b* ]] || { echo "$shell: names offered from a refused directory"; fail=1; }
  got=()
  mapfile -t got < <(ROOFLINE_PRESET_PATH=$work/pd complete_lines "$work/realbin" "roofline params ")
  [[ ${got[0]-} != *llama3-8b* ]] || { echo "$shell: names offered from a refused ROOFLINE_PRESET_PATH"; fail=1; }
  rm -f "pd/models/$name.json"
done
for f in PWNED3 PWNED4; do
  [[ ! -e $f ]] || { echo "$shell: completion ran a command named by a preset file ($f was created)"; fail=1; }
done
((fail == 0)) && echo "$shell: hostile preset names are offered literally and never run"
exit "$fail"

#!/usr/bin/env bash
# The shipped completion script of one shell, checked by the shell's own parser (-n), then run in
# it: commands, each command's own flags, presets (from the binary, with --preset-dir), choices,
# comma lists, files.
# Usage: completion_test.sh bash|zsh|fish ROOFLINE_BINARY SOURCE_DIR; exit 77 (skipped) when the
# shell is not installed.
set -euo pipefail
shell="$1"
bin="$2"
root="$3"
if ! command -v "$shell" >/dev/null; then
  echo "skipped: $shell is not installed"
  exit 77
fi
cd "$root"  # the preset directory and the config files below are relative to the source tree
case $shell in
  bash) script=docs/completions/roofline.bash ;;
  zsh) script=docs/completions/_roofline ;;
  fish) script=docs/completions/roofline.fish ;;
esac
"$shell" -n "$script" || { echo "$script: $shell -n finds a syntax error"; exit 1; }

# Each case: the line being completed (the word under the cursor last), then a word that must be
# offered, or !word: a word that must not be.
cases=(
  "roofline rep|report"
  "roofline |completion"
  "roofline --format json |kv"
  "roofline --format |markdown"
  "roofline --col|--color"
  "roofline report llama3-|llama3-8b"
  "roofline kv --batch 8 llama3-|llama3-8b"
  "roofline --preset-dir tests/fixtures/preset_dir params ti|tiny"
  "roofline decode llama3-8b --gpu h100-s|h100-sxm"
  "roofline memory llama3-8b --gpu=h100-s|h100-sxm"
  "roofline plan llama3-8b --gpu h100-sxm,h200-s|h100-sxm,h200-sxm"
  "roofline flops llama3-8b --flops-basis a|all-params"
  "roofline kv llama3-8b --kv-dtype bf16,fp|bf16,fp8"
  "roofline kv llama3-8b --format=cs|csv"
  "roofline layer llama3-8b --phase p|prefill"
  "roofline train llama3-8b --recompute s|selective"
  "roofline train llama3-8b --optimizer adam-8|adam-8bit"
  "roofline train llama3-8b --lora-targets q,|q,no-experts"
  "roofline decode llama3-8b --draft mt|mtp"
  "roofline decode llama3-8b --moe-decode t|top-k"
  "roofline gemm 4096 4096 4096 --dtype f|fp8"
  "roofline params tests/fixtures/hf/mixtral-8x7|tests/fixtures/hf/mixtral-8x7b.config.json"
  "roofline kv llama3-8b --kv|--kv-dtype"
  "roofline serve llama3-8b --out|--output"
  "roofline kv llama3-8b --form|--format"
  "roofline kv llama3-8b --m|!--mfu"
  "roofline decode llama3-8b --m|--mfu"
  "roofline gpus --n|--names"
  "roofline completion |fish"
  "roofline pl|plot"
  "roofline plot llama3-8b --gpu h100-sxm --kind m|memory"
  "roofline plot llama3-8b --gpu h100-sxm,mi300|h100-sxm,mi300x"
  "roofline plot llama3-8b --ge|--gemm"
  "roofline plot llama3-8b --format s|svg"
  "roofline completion --|!--format"
  "roofline comp|compare"
  "roofline compare de|decode"
  "roofline compare decode llama3-|llama3-8b"
  "roofline compare params llama3-8b,llama3-7|llama3-8b,llama3-70b"
  "roofline compare decode llama3-8b --gpu h100-sxm,mi3|h100-sxm,mi300x"
  "roofline compare serve llama3-8b --gpu h100-sxm,mi300x --out|--output"
  "roofline decode llama3-8b --gpu h100-sxm --br|--brief"
)

lines=()
for c in "${cases[@]}"; do lines+=("${c%|*}"); done

# One line of matches per case line.
case $shell in
  bash)
    # Completion functions run in an interactive shell, not under set -u.
    set +u
    # shellcheck source=/dev/null
    source "$script"
    complete_bash() {  # the words of the line as readline splits them: "--opt=value" is three
      local -a words
      read -ra words <<<"$1"
      [[ $1 == *" " ]] && words+=("")
      COMP_WORDS=("$bin")
      local w
      for w in "${words[@]:1}"; do
        if [[ $w == --*=* ]]; then
          COMP_WORDS+=("${w%%=*}" "=" "${w#*=}")
        else
          COMP_WORDS+=("$w")
        fi
      done
      COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
      COMPREPLY=()
      _roofline
      echo "${COMPREPLY[*]}"
    }
    results=()
    for l in "${lines[@]}"; do results+=("$(complete_bash "$l")"); done
    set -u
    ;;
  fish)
    # shellcheck disable=SC2016 # fish expands $argv and $line
    mapfile -t results < <(PATH="$(dirname "$bin"):$PATH" fish --no-config -c '
      source '"$script"'
      for line in $argv
        set -l matches (complete -C"$line" | string replace -r "\t.*" "")
        echo "$matches"
      end' -- "${lines[@]}")
    ;;
  zsh)
    fpath_dir=$(mktemp -d)
    trap 'rm -rf "$fpath_dir"' EXIT
    cp "$script" "$fpath_dir/"
    mapfile -t results < <(printf '%s\n' "${lines[@]}" | zsh -f "$root/tests/e2e/zsh_complete.zsh" "$fpath_dir" "$(dirname "$bin")")
    ;;
esac

fail=0
for i in "${!cases[@]}"; do
  line="${lines[i]}"
  want="${cases[i]##*|}"
  got=" ${results[i]-} "
  if [[ $shell == zsh ]]; then
    # zsh lists the element after the last comma or slash; the line keeps what comes before.
    want="${want##*[,/]}"
  fi
  if [[ $shell == fish ]]; then
    got="${got// --[a-z-]*=/ }"  # fish repeats an option's "--name=" before its values
  fi
  if [[ $want == !* ]]; then
    [[ $got != *" ${want#!} "* ]] || { echo "$shell: completing '$line' offers ${want#!}"; fail=1; }
  else
    [[ $got == *" $want "* ]] || { echo "$shell: completing '$line': '$want' not in '${got:1:300}'"; fail=1; }
  fi
done
((fail == 0)) && echo "$shell: ${#cases[@]} completions as expected"
exit "$fail"

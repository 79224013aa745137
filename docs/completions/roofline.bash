# bash completion for roofline                                     -*- shell-script -*-
#
# Install: source this file from ~/.bashrc, or copy it to
# /usr/share/bash-completion/completions/roofline (or ~/.local/share/bash-completion/completions/).
#
# Preset names come from the binary itself (`roofline models --names`, `roofline gpus --names`),
# so user presets added with --preset-dir on the same command line or ROOFLINE_PRESET_PATH are
# offered too. Works with or without the bash-completion package.

_roofline_commands="report params flops kv memory decode prefill serve layer train plan plot compare gemm gpus models"
_roofline_model_commands="report params flops kv memory decode prefill serve layer train plan plot"
_roofline_global_flags="--format --explain --brief --units --color --preset-dir -q --quiet --no-header -h --help --version"

# compare's questions: the commands it runs side by side.
_roofline_questions="report params flops kv memory decode prefill serve train"

# A command's own options come from its --help, which lists exactly the options it accepts
# (compare's are its question's: "compare decode --help").
_roofline_command_flags() {  # $@: command [question]
  local bin=${COMP_WORDS[0]/#\~/$HOME}
  "$bin" "$@" --help 2>/dev/null | grep -oE -- '(^|[ ,])--?[a-z][a-z0-9-]*' | tr -d ' ,' | sort -u
}

# Options that take no value; every other option consumes the next word.
_roofline_no_value="--explain --brief -q --quiet --no-header -h --help --version --tied --untied --names --require-fit --fused"

_roofline_dtypes="fp64 fp32 tf32 bf16 fp16 fp8 int8 int4 fp4"

# Runs the binary being completed, with the --preset-dir options already on the line.
_roofline_names() {  # $1: models | gpus
  local -a dirs=()
  local i
  for ((i = 1; i < COMP_CWORD; i++)); do
    [[ ${COMP_WORDS[i]} == --preset-dir ]] || continue
    # "--preset-dir DIR", or "--preset-dir=DIR" which bash splits into three words.
    local d=${COMP_WORDS[i + 1]}
    [[ $d == = ]] && d=${COMP_WORDS[i + 2]}
    [[ -n $d ]] && dirs+=(--preset-dir "$d")
  done
  # Expand a leading ~ in the command word (e.g. ~/bin/roofline) without eval.
  local bin=${COMP_WORDS[0]/#\~/$HOME}
  "$bin" "${dirs[@]}" "$1" --names 2>/dev/null
}

_roofline_files() {  # *.json files, directories (to descend into); "-" for stdin when $1 is set
  local -a files
  mapfile -t files < <(compgen -f -X '!*.json' -- "$cur"; compgen -d -- "$cur")
  COMPREPLY+=("${files[@]}")
  [[ -n $1 && $cur == "" ]] && COMPREPLY+=(-)
  compopt -o filenames 2>/dev/null
}

_roofline_words() {  # adds the words of $1 that start with $cur
  local -a words
  mapfile -t words < <(compgen -W "$1" -- "$cur")
  COMPREPLY+=("${words[@]}")
}

_roofline_list_words() {  # the words of $1 for the item after the last comma of $cur (--gpu a,b; compare's models)
  local head="" last=$cur
  if [[ $cur == *,* ]]; then
    head=${cur%,*},
    last=${cur##*,}
  fi
  local -a words
  mapfile -t words < <(compgen -P "$head" -W "$1" -- "$last")
  COMPREPLY+=("${words[@]}")
}

_roofline() {
  local cur prev
  COMPREPLY=()
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD - 1]}

  # "--opt=value": bash splits at "=", so the option is two words back.
  if [[ $cur == = ]]; then
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    cur=""
  elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then
    prev=${COMP_WORDS[COMP_CWORD - 2]}
  fi

  # Find the command and count the positional arguments after it.
  local cmd="" question="" positionals=0 i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    [[ $w == = ]] && continue
    if [[ ${COMP_WORDS[i + 1]} == = ]]; then  # --opt=value: skip "=" and the value
      ((i += 2))
      continue
    fi
    case $w in
      -) [[ -n $cmd ]] && ((positionals++)) ;;
      -*)
        [[ " $_roofline_no_value " == *" $w "* ]] || ((i++))
        ;;
      *)
        if [[ -z $cmd ]]; then
          cmd=$w
        elif [[ $cmd == compare && -z $question ]]; then
          question=$w  # compare's first word; its MODEL list follows
        else
          ((positionals++))
        fi
        ;;
    esac
  done

  # Values of options.
  case $prev in
    --format) _roofline_words "table json csv markdown svg"; return ;;
    --kind) _roofline_words "roofline memory decode serve"; return ;;
    -o | --svg)
      local -a svgs
      mapfile -t svgs < <(compgen -f -X '!*.svg' -- "$cur"; compgen -d -- "$cur")
      COMPREPLY=("${svgs[@]}")
      compopt -o filenames 2>/dev/null
      return
      ;;
    --units) _roofline_words "si iec"; return ;;
    --color) _roofline_words "auto always never"; return ;;
    --preset-dir)
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      compopt -o filenames 2>/dev/null
      return
      ;;
    --flops-basis) _roofline_words "physical non-embedding all-params"; return ;;
    --attention) _roofline_words "causal full"; return ;;
    --lm-head) _roofline_words "last all"; return ;;
    --decode-bytes) _roofline_words "touched all-weights"; return ;;
    --moe-decode) _roofline_words "expected all-experts top-k"; return ;;
    --phase) _roofline_words "prefill decode"; return ;;
    --dtype | --kv-dtype | --compute-dtype) _roofline_words "$_roofline_dtypes"; return ;;
    --weight-bits) _roofline_words "q4_0 q4_k q5_k q6_k q8_0 int4-g128 int4-g64 int4-g32 4.125"; return ;;
    --mlp) _roofline_words "gated plain"; return ;;
    --zero) _roofline_words "0 1 2 3"; return ;;
    --fsdp) _roofline_words "full-shard shard-grad-op no-shard hybrid"; return ;;
    --optimizer)
      _roofline_words "mixed-adam mixed-adam-fp32-grads bf16-adam-fp32-master bf16-adam adam-8bit adam-8bit-no-master sgd-momentum adafactor"
      return
      ;;
    --recompute) _roofline_words "none selective full"; return ;;
    --model-flops) _roofline_words "6n palm megatron"; return ;;
    --draft)
      _roofline_words "mtp $(_roofline_names models)"
      _roofline_files
      return
      ;;
    --lora-targets) _roofline_words "qv attention mlp all q,k,v,o q,v,gate,up,down"; return ;;
    --norm) _roofline_words "rmsnorm layernorm layernorm-nobias none"; return ;;
    --gpu)
      _roofline_list_words "$(_roofline_names gpus)"
      _roofline_files
      return
      ;;
    -b | --batch | -c | --context | -p | --prompt | --output | --reserve | \
      --bw-efficiency | --mfu | --hfu | --tp | --pp | --dp | --ep | --pp-chunks | --micro-batch | --seq | \
      --grad-accum | --global-batch | --recompute-every | --tokens | --price | --measured-tokens-per-s | \
      --measured-step-time | --params | --lora | --shard-group | --acceptance | --draft-len | \
      --concurrency | --kv-block | --shared-prefix | --tpot | --ttft | --link-latency | --link-efficiency | --micro-batches | --users | --tokens-per-s | \
      --gpus | --gpu-memory | --gpu-bandwidth | --gpu-peak | --layers | --hidden | --heads | \
      --kv-heads | --head-dim | --ffn | --vocab | --max-seq-len | --window | --global-every | \
      --experts | --top-k | --expert-ffn | --shared-experts | --shared-ffn | --first-dense | --gemm)
      return  # a number or a quantity: nothing to offer
      ;;
  esac

  # No command yet: commands, or global options.
  if [[ -z $cmd ]]; then
    if [[ $cur == -* ]]; then
      _roofline_words "$_roofline_global_flags"
    else
      _roofline_words "$_roofline_commands"
    fi
    return
  fi

  if [[ $cur == -* && $cur != - ]]; then
    if [[ $cmd == compare ]]; then
      _roofline_words "$(_roofline_command_flags compare $question)"
    else
      _roofline_words "$(_roofline_command_flags "$cmd")"
    fi
    return
  fi

  # compare QUESTION MODEL[,MODEL...]: the question, then a list of models.
  if [[ $cmd == compare ]]; then
    if [[ -z $question ]]; then
      _roofline_words "$_roofline_questions"
    elif [[ $positionals -eq 0 ]]; then
      _roofline_list_words "$(_roofline_names models)"
      [[ $cur == *,* ]] || _roofline_files stdin
    fi
    return
  fi

  # Positional MODEL: a preset name, a preset or config.json file, or "-" for stdin.
  if [[ " $_roofline_model_commands " == *" $cmd "* && $positionals -eq 0 ]]; then
    _roofline_words "$(_roofline_names models)"
    _roofline_files stdin
  fi
  # gemm M N K are numbers; gpus and models take no positionals.
}

complete -F _roofline roofline

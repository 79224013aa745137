// Completion scripts for bash, zsh and fish, written from a CompletionSpec. Each script asks the
// binary being completed for preset names at completion time (`roofline models --names`), so user
// presets from --preset-dir and ROOFLINE_PRESET_PATH are offered; everything else is in the script.
#include "cli/completion.hpp"

#include "roofline/errors.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include "text/user_text.hpp"

namespace roofline::cli {
namespace {

// ---- The walk --------------------------------------------------------------------------------------

OptionSpec option_spec(std::string_view command, const CLI::Option& o, const ValueLookup& values) {
  OptionSpec s;
  for (const std::string& n : o.get_snames()) s.names.push_back("-" + n);
  for (const std::string& n : o.get_lnames()) s.names.push_back("--" + n);
  s.help = o.get_description();
  s.takes_value = o.get_expected_max() > 0;
  s.repeatable = s.takes_value && o.get_expected_max() > 1;
  if (!s.takes_value) return s;
  s.value = values(command, o);
  // CLI11 appends its checks' descriptions to the value's name: FORMAT:{table,json,...}.
  const std::string type = o.get_type_name();
  const std::string name = type.substr(0, type.find(':'));
  if (s.value.name.empty()) s.value.name = name;
  if (s.value.what != Complete::nothing) return s;
  if (name == "FILE") s.value.what = Complete::files;
  if (name == "DIR") s.value.what = Complete::directories;
  // An IsMember check's choices, {a,b,c}.
  const std::size_t open = type.find(":{");
  if (open != std::string::npos && type.back() == '}') {
    const std::string set = type.substr(open + 2, type.size() - open - 3);
    for (std::size_t at = 0; at <= set.size();) {
      const std::size_t comma = std::min(set.find(',', at), set.size());
      s.value.words.push_back(set.substr(at, comma - at));
      at = comma + 1;
    }
    s.value.what = Complete::words;
  }
  return s;
}

// ---- Shared text helpers ---------------------------------------------------------------------------

std::string join(const std::vector<std::string>& words, std::string_view sep = " ") {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : std::string(sep)) + w;
  return s;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// A POSIX shell word in single quotes.
std::string sh_quote(const std::string& s) { return "'" + replace_all(s, "'", "'\\''") + "'"; }

// A shell function name for a command: letters, digits and underscores.
std::string identifier(std::string s) {
  std::replace_if(
      s.begin(), s.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return s;
}

// Words wrapped to lines of about 100 columns, continued with " \" inside a double-quoted string.
std::string wrapped(const std::vector<std::string>& words, std::size_t indent, std::size_t column) {
  std::string s;
  std::size_t at = column;
  for (const std::string& w : words) {
    if (!s.empty() && at + 1 + w.size() > 98) {
      s += " \\\n" + std::string(indent, ' ');
      at = indent;
    } else if (!s.empty()) {
      s += ' ';
      ++at;
    }
    s += w;
    at += w.size();
  }
  return s;
}

std::vector<std::string> names_of(const std::vector<OptionSpec>& options, bool valued_only) {
  std::vector<std::string> names;
  for (const OptionSpec& o : options) {
    if (valued_only && !o.takes_value) continue;
    names.insert(names.end(), o.names.begin(), o.names.end());
  }
  return names;
}

std::vector<std::string> command_names(const CompletionSpec& spec) {
  std::vector<std::string> names;
  for (const CommandSpec& c : spec.commands) names.push_back(c.name);
  return names;
}

/// Case patterns grouped by what they complete, in order of first appearance.
using Arms = std::vector<std::pair<ValueSpec, std::vector<std::string>>>;

void add_arm(Arms& arms, const ValueSpec& v, std::string pattern) {
  const auto arm = std::find_if(arms.begin(), arms.end(), [&](const auto& a) { return a.first == v; });
  if (arm == arms.end()) {
    arms.emplace_back(v, std::vector<std::string>{std::move(pattern)});
  } else {
    arm->second.push_back(std::move(pattern));
  }
}

/// Each option name with what its value completes (its value's name aside), per command ("" before
/// the command). A name that completes alike in every command is one pattern, *:--name; otherwise
/// there is one per command.
Arms value_arms(const CompletionSpec& spec) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::pair<std::string, ValueSpec>>> uses;
  const auto collect = [&](const std::string& command, const std::vector<OptionSpec>& options) {
    for (const OptionSpec& o : options) {
      if (!o.takes_value) continue;
      for (const std::string& n : o.names) {
        if (!uses.contains(n)) order.push_back(n);
        ValueSpec v = o.value;
        v.name.clear();
        uses[n].emplace_back(command, std::move(v));
      }
    }
  };
  collect("", spec.global);
  for (const CommandSpec& c : spec.commands) collect(c.name, c.options);
  Arms arms;
  for (const std::string& n : order) {
    const auto& u = uses[n];
    const bool alike = std::all_of(u.begin(), u.end(), [&](const auto& x) { return x.second == u.front().second; });
    if (alike) {
      add_arm(arms, u.front().second, "*:" + n);
    } else {
      for (const auto& [command, v] : u) add_arm(arms, v, command + ":" + n);
    }
  }
  return arms;
}

// ---- bash --------------------------------------------------------------------------------------------

// The commands that complete a value, on lines indented by `indent`.
std::string bash_action(const ValueSpec& v, std::size_t indent) {
  switch (v.what) {
    case Complete::nothing:
      return ":";  // a number or a quantity: nothing to offer
    case Complete::words: {
      const std::string call = v.list ? "_roofline_list \"" : "_roofline_words \"";
      return call + wrapped(v.words, indent + 2, indent + call.size()) + "\"";
    }
    case Complete::models:
      if (v.list) return "_roofline_presets models -l; [[ $cur == *,* ]] || _roofline_files";
      return "_roofline_presets models \"\"" + (v.words.empty() ? "" : " \"" + join(v.words) + "\"") +
             "; _roofline_files";
    case Complete::gpus:
      return v.list ? "_roofline_presets gpus -l; [[ $cur == *,* ]] || _roofline_files"
                    : "_roofline_presets gpus; _roofline_files";
    case Complete::directories:
      return "_roofline_dirs";
    case Complete::files:
      return "_roofline_paths";
  }
  return ":";
}

std::string bash_case_arms(const Arms& arms, std::string_view indent) {
  std::string s;
  for (const auto& [v, patterns] : arms) {
    std::string head = std::string(indent);
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      std::string p = (i == 0 ? "" : " | ") + patterns[i];
      if (head.size() + p.size() > 96 && i != 0) {
        s += head + " \\\n";
        head = std::string(indent) + "  ";
        p = p.substr(1);
      }
      head += p;
    }
    s += head + ")\n" + std::string(indent) + "  " + bash_action(v, indent.size() + 2) + "\n" + std::string(indent) +
         "  ;;\n";
  }
  return s;
}

constexpr std::string_view kBashHead =
    R"(# bash completion for roofline                                     -*- shell-script -*-
#
# Generated by `roofline completion bash` from the CLI's own command table: do not edit; change the
# CLI and regenerate (cmake --build --preset dev --target update-completions).
#
# Install: source this file from ~/.bashrc, or copy it to
# /usr/share/bash-completion/completions/roofline (or ~/.local/share/bash-completion/completions/).
#
# Preset names come from the binary itself (`roofline models --names`, `roofline gpus --names`),
# so user presets added with --preset-dir on the same command line or ROOFLINE_PRESET_PATH are
# offered too. Works with or without the bash-completion package.

)";

constexpr std::string_view kBashHelpers = R"sh(
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

_roofline_files() {  # *.json files, and directories to descend into
  local -a files
  mapfile -t files < <(compgen -f -X '!*.json' -- "$cur"; compgen -d -- "$cur")
  COMPREPLY+=("${files[@]}")
  compopt -o filenames 2>/dev/null
}

_roofline_dirs() {
  local -a dirs
  mapfile -t dirs < <(compgen -d -- "$cur")
  COMPREPLY+=("${dirs[@]}")
  compopt -o filenames 2>/dev/null
}

_roofline_paths() {  # any file or directory
  local -a paths
  mapfile -t paths < <(compgen -f -- "$cur")
  COMPREPLY+=("${paths[@]}")
  compopt -o filenames 2>/dev/null
}

# Adds each word after $1 and $2 that starts with $1, with $2 before it. Compared literally: a word
# is never expanded, split or globbed, whatever a preset file is named (a word list given to compgen
# would run a command substitution in a name).
_roofline_match() {
  local prefix=$1 head=$2 w
  shift 2
  for w; do
    [[ $w == "$prefix"* ]] && COMPREPLY+=("$head$w")
  done
}

# The words of a comma list that complete its last element.
_roofline_list_of() {
  local head="" last=$cur
  if [[ $cur == *,* ]]; then
    head=${cur%,*},
    last=${cur##*,}
  fi
  _roofline_match "$last" "$head" "$@"
}

_roofline_words() {  # adds the words of $1 (the script's own, space-separated) that start with $cur
  local -a words
  read -ra words <<<"$1"
  _roofline_match "$cur" "" "${words[@]}"
}

_roofline_list() {  # a comma list of the words of $1
  local -a words
  read -ra words <<<"$1"
  _roofline_list_of "${words[@]}"
}

# The preset names of $1 (models | gpus), one a line from the binary, and the words of $3; $2 is -l
# for a comma list.
_roofline_presets() {
  local -a names words
  mapfile -t names < <(_roofline_names "$1")
  read -ra words <<<"${3-}"
  if [[ ${2-} == -l ]]; then
    _roofline_list_of "${names[@]}" "${words[@]}"
  else
    _roofline_match "$cur" "" "${names[@]}" "${words[@]}"
  fi
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
  local cmd="" positionals=0 i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    [[ $w == = ]] && continue
    if [[ ${COMP_WORDS[i + 1]} == = ]]; then  # --opt=value: skip "=" and the value
      ((i += 2))
      continue
    fi
    case $w in
      -) [[ -n $cmd ]] && ((positionals++)) ;;
      -*) [[ " $(_roofline_valued "$cmd") " == *" $w "* ]] && ((i++)) ;;
      *)
        if [[ -z $cmd ]]; then
          cmd=$w
        else
          ((positionals++))
        fi
        ;;
    esac
  done

  # The value of an option.
  [[ $prev == -* ]] && _roofline_value "$cmd:$prev" && return

  # No command yet: the global options, or the commands.
  if [[ -z $cmd ]]; then
    if [[ $cur == -* ]]; then
      _roofline_words "$(_roofline_options "")"
    else
      _roofline_words "$_roofline_commands"
    fi
    return
  fi

  if [[ $cur == -* && $cur != - ]]; then
    _roofline_words "$(_roofline_options "$cmd")"
    return
  fi
  _roofline_positional "$cmd:$positionals"
}

complete -F _roofline roofline
)sh";

std::string bash_options_function(const CompletionSpec& spec, std::string_view name, bool valued_only) {
  std::string s = std::string(name) + "() {\n  case $1 in\n";
  const auto arm = [&](const std::string& label, const std::vector<OptionSpec>& options) {
    const std::string head = "    " + label + ") echo \"";
    s += head + wrapped(names_of(options, valued_only), 6, head.size()) + "\" ;;\n";
  };
  arm("\"\"", spec.global);
  for (const CommandSpec& c : spec.commands) arm(c.name, c.options);
  return s + "  esac\n}\n";
}

std::string bash_script(const CompletionSpec& spec) {
  std::string s(kBashHead);
  s += "_roofline_commands=\"" + wrapped(command_names(spec), 2, 20) + "\"\n\n";
  s += "# Every option a command accepts, the global ones included (\"\": before the command).\n";
  s += bash_options_function(spec, "_roofline_options", false);
  s += "\n# The options that take a value: the word after one is its value.\n";
  s += bash_options_function(spec, "_roofline_valued", true);
  s += "\n# Completes the value of an option; $1 is \"command:option\". Fails for an option without a value.\n";
  s += "_roofline_value() {\n  case $1 in\n" + bash_case_arms(value_arms(spec), "    ");
  s += "    *) return 1 ;;\n  esac\n}\n";
  Arms positional;
  for (const CommandSpec& c : spec.commands) {
    for (std::size_t i = 0; i < c.positionals.size(); ++i) {
      if (c.positionals[i].what != Complete::nothing)
        add_arm(positional, c.positionals[i], c.name + ":" + std::to_string(i));
    }
  }
  s += "\n# Completes a positional argument; $1 is \"command:index\" (from 0).\n";
  s += "_roofline_positional() {\n  case $1 in\n" + bash_case_arms(positional, "    ") + "  esac\n}\n";
  return s + std::string(kBashHelpers);
}

// ---- zsh ---------------------------------------------------------------------------------------------

// Inside an _arguments spec: brackets end the description, colons separate the fields.
std::string zsh_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// A function in braces: _arguments calls a bare function name with compadd options before its own.
std::string zsh_action(const ValueSpec& v) {
  switch (v.what) {
    case Complete::nothing:
      return " ";
    case Complete::words:
      return v.list ? "{_roofline_list " + join(v.words) + "}" : "(" + join(v.words) + ")";
    case Complete::models:
      return std::string(v.list ? "{_roofline_presets -l models" : "{_roofline_presets models") +
             (v.words.empty() ? "" : " " + join(v.words)) + "}";
    case Complete::gpus:
      return v.list ? "{_roofline_presets -l gpus}" : "{_roofline_presets gpus}";
    case Complete::directories:
      return "_directories";
    case Complete::files:
      return "_files";
  }
  return " ";
}

std::vector<std::string> zsh_specs(const OptionSpec& o) {
  std::vector<std::string> specs;
  const std::string exclusions = o.names.size() > 1 && !o.repeatable ? "(" + join(o.names) + ")" : "";
  for (const std::string& n : o.names) {
    std::string spec = exclusions + (o.repeatable ? "*" : "") + n;
    if (o.takes_value) spec += n.rfind("--", 0) == 0 ? "=" : "+";
    spec += "[" + zsh_escape(o.help) + "]";
    if (o.takes_value) spec += ":" + zsh_escape(o.value.name) + ":" + zsh_action(o.value);
    specs.push_back(sh_quote(spec));
  }
  return specs;
}

// An _arguments call: the options' specs, then `extra` (positional arguments), then `tail`.
std::string zsh_arguments(const std::vector<OptionSpec>& options, const std::vector<std::string>& extra,
                          std::string_view tail = "") {
  std::string s = "  _arguments -S";
  for (const OptionSpec& o : options) {
    for (const std::string& spec : zsh_specs(o)) s += " \\\n    " + spec;
  }
  for (const std::string& e : extra) s += " \\\n    " + e;
  return s + std::string(tail) + "\n";
}

constexpr std::string_view kZshHead = R"sh(#compdef roofline
# zsh completion for roofline.
#
# Generated by `roofline completion zsh` from the CLI's own command table: do not edit; change the
# CLI and regenerate (cmake --build --preset dev --target update-completions).
#
# Install: put this file, named _roofline, in a directory of $fpath before compinit runs (e.g.
# /usr/share/zsh/vendor-completions or ~/.zsh/completions), or source it after compinit.
# Preset names come from the binary itself (`roofline models --names`, `roofline gpus --names`),
# with the --preset-dir options on the line.

# Preset names of $1 (models or gpus): the binary on the line, with its --preset-dir options.
_roofline_names() {
  local -a dirs
  local i
  for (( i = 2; i < _roofline_current; i++ )); do
    case $_roofline_line[i] in
      (--preset-dir) dirs+=(--preset-dir "$_roofline_line[i+1]") ;;
      (--preset-dir=*) dirs+=(--preset-dir "${_roofline_line[i]#--preset-dir=}") ;;
    esac
  done
  ${~_roofline_line[1]} "${dirs[@]}" $1 --names 2>/dev/null
}

# Presets of $1 (models or gpus), the other words given, and *.json files. -l: a comma list.
_roofline_presets() {
  local list=0 ret=1 expl
  if [[ $1 == -l ]]; then
    list=1
    shift
  fi
  local kind=$1
  shift
  local -a names
  names=(${(f)"$(_roofline_names $kind)"})
  if (( list )) && compset -P '*,'; then
    _wanted presets expl "${kind%s} preset" compadd -a names
    return
  fi
  _wanted presets expl "${kind%s} preset" compadd -a names && ret=0
  if (( $# )); then
    _wanted values expl value compadd -- "$@" && ret=0
  fi
  _wanted files expl 'preset or config file' _files -g '*.json' && ret=0
  return ret
}

# A comma list of the words given: completes the element after the last comma.
_roofline_list() {
  local expl
  compset -P '*,'
  _wanted values expl value compadd -- "$@"
}
)sh";

std::string zsh_script(const CompletionSpec& spec) {
  std::string s(kZshHead);
  s += "\n_roofline_commands() {\n  local -a commands\n  commands=(";
  for (const CommandSpec& c : spec.commands) s += "\n    " + sh_quote(c.name + ":" + c.help);
  s += "\n  )\n  _describe -t commands 'roofline command' commands\n}\n";
  for (const CommandSpec& c : spec.commands) {
    std::vector<std::string> positionals;
    for (std::size_t i = 0; i < c.positionals.size(); ++i) {
      const ValueSpec& v = c.positionals[i];
      positionals.push_back(sh_quote(std::to_string(i + 1) + ":" + zsh_escape(v.name) + ":" + zsh_action(v)));
    }
    s += "\n_roofline_cmd_" + identifier(c.name) + "() {\n" + zsh_arguments(c.options, positionals) + "}\n";
  }
  s += R"(
_roofline() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  # The whole line, for the binary and its --preset-dir options once _arguments narrows $words.
  local -a _roofline_line
  _roofline_line=("${words[@]}")
  local _roofline_current=$CURRENT
)";
  s += zsh_arguments(spec.global, {"'1: :_roofline_commands'", "'*:: :->command'"}, " && ret=0");
  s += "  if [[ $state == command ]]; then\n    curcontext=${curcontext%:*:*}:roofline-$words[1]:\n";
  s += "    case $words[1] in\n";
  for (const CommandSpec& c : spec.commands) {
    s += "      (" + c.name + ") _roofline_cmd_" + identifier(c.name) + " && ret=0 ;;\n";
  }
  s += "    esac\n  fi\n  return ret\n}\n";
  s += R"(
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _roofline "$@"
else
  compdef _roofline roofline
fi
)";
  return s;
}

// ---- fish --------------------------------------------------------------------------------------------

std::string fish_quote(const std::string& s) {
  return "'" + replace_all(replace_all(s, "\\", "\\\\"), "'", "\\'") + "'";
}

// What a value offers: words, a comma list's last element, presets and *.json files, directories,
// or any file.
std::string fish_candidates(const ValueSpec& v) {
  switch (v.what) {
    case Complete::nothing:
      return "";
    case Complete::words:
      return " -a " + fish_quote(v.list ? "(__roofline_list " + join(v.words) + ")" : join(v.words));
    case Complete::models:
      if (v.list) return " -a '(__roofline_list (__roofline_names models)) (__roofline_files)'";
      return " -a " + fish_quote("(__roofline_names models) " + (v.words.empty() ? "" : join(v.words) + " ") +
                                 "(__roofline_files)");
    case Complete::gpus:
      return v.list ? " -a '(__roofline_list (__roofline_names gpus)) (__roofline_files)'"
                    : " -a '(__roofline_names gpus) (__roofline_files)'";
    case Complete::directories:
      return " -a '(__fish_complete_directories)'";
    case Complete::files:
      return " -F";
  }
  return "";
}

std::string fish_option(const std::string& condition, const OptionSpec& o) {
  std::string s = "complete -c roofline -n " + fish_quote(condition);
  for (const std::string& n : o.names) s += n.rfind("--", 0) == 0 ? " -l " + n.substr(2) : " -s " + n.substr(1);
  // -r: the option takes a value; -x: and not a file, unless the value offers files itself.
  if (o.takes_value) s += (o.value.what == Complete::files ? " -r" : " -x") + fish_candidates(o.value);
  return s + " -d " + fish_quote(o.help) + "\n";
}

constexpr std::string_view kFishHead = R"(# fish completion for roofline.
#
# Generated by `roofline completion fish` from the CLI's own command table: do not edit; change the
# CLI and regenerate (cmake --build --preset dev --target update-completions).
#
# Install: copy this file to ~/.config/fish/completions/roofline.fish (or a vendor_completions.d
# directory). Preset names come from the binary itself (`roofline models --names`,
# `roofline gpus --names`), with the --preset-dir options on the line.

# The command on the line and the positional arguments after it, one per line; fails before the command.
function __roofline_words
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l cmd
    set -l skip 0
    for t in $tokens
        if test $skip -eq 1
            set skip 0
        else if contains -- $t (__roofline_valued $cmd)
            set skip 1
        else if test "$t" = -; or not string match -q -- '-*' $t
            if not set -q cmd[1]
                set cmd $t
            end
            echo $t
        end
    end
    set -q cmd[1]
end

function __roofline_needs_command
    not __roofline_words >/dev/null
end

# True when the command on the line is one of the arguments.
function __roofline_using
    set -l words (__roofline_words); or return 1
    contains -- $words[1] $argv
end

# True when the word being completed is positional argument $argv[1] (from 1) of command $argv[2].
function __roofline_positional
    set -l words (__roofline_words); or return 1
    test "$words[1]" = $argv[2]; and test (count $words) -eq $argv[1]
end

# Preset names of $argv[1] (models or gpus): the binary on the line, with its --preset-dir options.
function __roofline_names
    set -l tokens (commandline -opc)
    set -l dirs
    for i in (seq 2 (count $tokens))
        if test "$tokens[$i]" = --preset-dir; and set -q tokens[(math $i + 1)]
            set -a dirs --preset-dir $tokens[(math $i + 1)]
        else if string match -q -- '--preset-dir=*' $tokens[$i]
            set -a dirs --preset-dir (string replace -- --preset-dir= '' $tokens[$i])
        end
    end
    set -l bin (string replace -r -- '^~' $HOME $tokens[1])
    command $bin $dirs $argv[1] --names 2>/dev/null
end

# *.json files and directories that complete the word.
function __roofline_files
    set -l word (commandline -ct)
    set -l files $word*.json $word*/
    printf '%s\n' $files
end

# A comma list of the arguments: completes the element after the last comma.
function __roofline_list
    set -l head (string match -r -- '^.*,' (commandline -ct))
    for w in $argv
        printf '%s%s\n' "$head" $w
    end
end
)";

std::string fish_script(const CompletionSpec& spec) {
  std::string s(kFishHead);
  s += "\n# The options that take a value, before the command (no argument) and after it.\n";
  s += "function __roofline_valued\n    switch \"$argv[1]\"\n";
  s += "        case ''\n            printf '%s\\n' " + join(names_of(spec.global, true)) + "\n";
  for (const CommandSpec& c : spec.commands) {
    const std::vector<std::string> valued = names_of(c.options, true);
    if (!valued.empty())
      s += "        case " + fish_quote(c.name) + "\n            printf '%s\\n' " + join(valued) + "\n";
  }
  s += "    end\nend\n\ncomplete -c roofline -f\n\n# Before the command: the commands and the global options.\n";
  for (const CommandSpec& c : spec.commands) {
    s += "complete -c roofline -n __roofline_needs_command -a " + fish_quote(c.name) + " -d " + fish_quote(c.help) +
         "\n";
  }
  for (const OptionSpec& o : spec.global) s += fish_option("__roofline_needs_command", o);
  // Each option once, with the commands that accept it (alike: the same names, help and value).
  s += "\n# After the command: its options.\n";
  std::vector<std::pair<const OptionSpec*, std::vector<std::string>>> options;
  for (const CommandSpec& c : spec.commands) {
    for (const OptionSpec& o : c.options) {
      const auto same = std::find_if(options.begin(), options.end(), [&](const auto& x) {
        return x.first->names == o.names && x.first->help == o.help && x.first->value == o.value &&
               x.first->takes_value == o.takes_value;
      });
      if (same == options.end()) {
        options.emplace_back(&o, std::vector<std::string>{c.name});
      } else {
        same->second.push_back(c.name);
      }
    }
  }
  for (const auto& [o, commands] : options) s += fish_option("__roofline_using " + join(commands), *o);
  s += "\n# Positional arguments.\n";
  for (const CommandSpec& c : spec.commands) {
    for (std::size_t i = 0; i < c.positionals.size(); ++i) {
      const ValueSpec& v = c.positionals[i];
      if (v.what == Complete::nothing) continue;
      s += "complete -c roofline -n " + fish_quote("__roofline_positional " + std::to_string(i + 1) + " " + c.name);
      s += fish_candidates(v) + " -d " + fish_quote(v.name) + "\n";
    }
  }
  return s;
}

}  // namespace

CompletionSpec completion_spec(const CLI::App& app, const ValueLookup& values) {
  CompletionSpec spec;
  for (const CLI::Option* o : app.get_options()) {
    if (!o->get_group().empty() && o->nonpositional()) spec.global.push_back(option_spec("", *o, values));
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    CommandSpec c{sub->get_name(), sub->get_description(), {}, {}};
    for (const CLI::Option* o : sub->get_options()) {
      if (o->get_group().empty()) continue;
      if (o->nonpositional()) {
        c.options.push_back(option_spec(c.name, *o, values));
      } else {
        ValueSpec v = values(c.name, *o);
        if (v.name.empty()) v.name = o->get_name(true);
        c.positionals.push_back(std::move(v));
      }
    }
    spec.commands.push_back(std::move(c));
  }
  return spec;
}

std::string completion_script(std::string_view shell, const CompletionSpec& spec) {
  if (shell == "bash") return bash_script(spec);
  if (shell == "zsh") return zsh_script(spec);
  if (shell == "fish") return fish_script(spec);
  throw UsageError("SHELL: " + text::quote(shell) + " is not one of: " + join({kShells.begin(), kShells.end()}, ", "));
}

}  // namespace roofline::cli

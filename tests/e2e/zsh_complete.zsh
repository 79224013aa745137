#!/usr/bin/env zsh
# What zsh completes for each command line on stdin, one line of matches (space-separated) per
# line, in an interactive zsh on a pseudo-terminal: the completion system only runs inside zle.
# Usage: zsh_complete.zsh FPATH_DIR (holding _roofline) BIN_DIR (holding roofline) [SEPARATOR] < lines
# (the matches of a line are joined by SEPARATOR, a space unless given)
zmodload zsh/zpty
zpty shell zsh -f -i
zpty -w shell "PS1=''; PS2=''; path=(${(q)2} \$path); fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
# Every match a completion function adds is printed after a marker, then added as usual; the
# markers are spelled in two pieces so that the echo of these lines never contains them.
zpty -w shell 'compadd() { if [[ " $* " == *" -"[OAD]" "* ]]; then builtin compadd "$@"; return; fi
  local -a m; builtin compadd -O m "$@"; (( $#m )) && print -rl -- "<"m">"${^m}; builtin compadd "$@"; }'
zpty -w shell '_mark_done() { print -n "\n<"done">\n"; }; zle -N _mark_done; bindkey "^G" _mark_done'
zpty -w shell "zstyle ':completion:*' list-prompt ''; LISTMAX=100000"
local cmdline line sep=${3:- }
local -a matches
while IFS= read -r cmdline; do
  matches=()
  # The line, TAB to complete, ^G to mark the end, ^U to empty the line for the next one.
  zpty -w -n shell "$cmdline"$'\t\C-g'
  while zpty -r shell line; do
    line=${${line//$'\r'/}%$'\n'}  # a line as read holds the terminal's CR LF
    [[ $line == *'<done>'* ]] && break
    [[ $line == *'<m>'* ]] && matches+=("${line##*<m>}")
  done
  zpty -w -n shell $'\C-u'
  print -r -- "${(pj:$sep:)matches}"
done
zpty -d shell

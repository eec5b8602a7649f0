#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# checkcompletion.sh QETCD BASH_COMPLETION ZSH_COMPLETION FISH_COMPLETION
#
# Completes command lines with each of qetcd's completions, for bash, zsh and fish, as the
# shell would: bash's sourced here, zsh's autoloaded in zsh with the completion system's
# builtins (compadd, compset) and file and command completers standing in, each printing what it
# is given, fish's by fish itself (complete -C). First a few lines whose answers are known
# (`qetcd lo` gives lock, values of options are skipped); then the completion's lists against
# the program QETCD itself: the commands of `qetcd --help`, its global options, and each
# command's options in `qetcd COMMAND --help`. A command or an option added to qetcd and not to
# a completion fails here; zsh or fish missing fails too (Debian: zsh, fish).
set -euo pipefail
qetcd=$1
# shellcheck source=../../packaging/bash-completion/qetcd
source "$2"
zsh_completion=$3
fish_completion=$4

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# What SHELL's completion offers for the last of WORDS (after `qetcd`), sorted, one per line.
# WORDS are as bash splits them ("--option", "=", "value"); zsh and fish see "--option=value".
complete_words() {
  local shell=$1
  shift
  if [ "$shell" = bash ]; then
    complete_bash "$@"
    return
  fi
  local joined=() word after_equals=no
  for word in "$@"; do
    if [ "$word" = = ]; then
      joined[-1]="${joined[-1]}="
      after_equals=yes
    elif [ $after_equals = yes ]; then
      joined[-1]="${joined[-1]}$word"
      after_equals=no
    else
      joined+=("$word")
    fi
  done
  "complete_$shell" "${joined[@]}"
}

complete_bash() {
  COMP_WORDS=(qetcd "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="${COMP_WORDS[*]}"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _qetcd
  if [ ${#COMPREPLY[@]} -gt 0 ]; then
    printf '%s\n' "${COMPREPLY[@]}" | sort
  fi
}

# The completion system's builtins, which only work while zsh completes, stand in as functions
# that print what they would offer, filtered by the word being completed as zsh would.
complete_zsh() {
  zsh -f -c '
    fpath=("${1:h}" $fpath)
    autoload -Uz _qetcd
    compadd() {
      local word
      for word in "$@"; do
        [[ $word != -- && $word == ${PREFIX}* ]] && print -r -- $word
      done
    }
    compset() { [[ $1 == -P ]] && PREFIX=${PREFIX#*=} }
    _files() { print -r -- "<files>" }
    _command_names() { print -r -- "<commands>" }
    shift
    words=(qetcd "$@")
    CURRENT=${#words}
    PREFIX=${words[CURRENT]}
    _qetcd
    return 0' zsh "$zsh_completion" "$@" | sort
}

# fish completes the line itself; an option's value it prints after the option and "=".
complete_fish() {
  fish --no-config -c 'source $argv[1]; complete -C (string join " " -- qetcd $argv[2..-1])' \
    "$fish_completion" "$@" | cut -f1 | sed 's/^--*[a-z-]*=//' | sort
}

# expect "CANDIDATES" WORDS...: each shell's completion of WORDS offers exactly CANDIDATES
# (space-separated).
expect() {
  local want got shell
  want=$(tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort)
  shift
  for shell in $shells; do
    got=$(complete_words $shell "$@")
    if [ "$got" != "$want" ]; then
      fail "$shell: qetcd $* <TAB> offers [$(echo $got)], not [$(echo $want)]"
    fi
  done
}

shells="bash zsh fish"
for shell in zsh fish; do
  if ! command -v $shell >/dev/null; then
    echo "FAIL: $shell is not installed (Debian: $shell); its completion cannot be checked"
    exit 1
  fi
done

expect "lock" lo
expect "defrag del diff double-barrier" d
expect "lock" --endpoints 127.0.0.1:2379 lo
expect "lock" --endpoints = 127.0.0.1:2379 lo
expect "lock" -w json --read-only lo
expect "fields json jsonl simple table" -w ""
expect "json jsonl" --write-out = j
expect "" lock --ttl ""
expect "count hold lift release wait" barrier ""
expect "break" lock b
expect "" lock break /locks/deploy ""
expect "force" elect f
expect "hold" --json barrier h
expect "add get set" counter jobs ""
expect "--prefix --prev-kv" del --pre
expect "--version" --ver

# The option names in the "Options:" and "Global options:" sections of a help text.
help_options() {
  awk '/^(Global o|O)ptions:$/ { listing = 1; next }
       /^$/ { listing = 0 }
       listing && /^  -/ {
         line = $0
         sub(/^  /, "", line); sub(/  .*/, "", line); sub(/ <.*/, "", line)
         n = split(line, names, ", ")
         for (i = 1; i <= n; i++) print names[i]
       }' | sort -u
}

overview=$("$qetcd" --help)
# A command's line starts with two spaces; a summary too long for its line goes on under it.
commands=$(awk '/^Commands:$/ { listing = 1; next } /^$/ { listing = 0 } listing && /^  [^ ]/ { print $1 }' <<<"$overview" | sort)
if [ -z "$commands" ]; then
  fail "no commands found in qetcd --help"
fi
global=$( (help_options <<<"$overview"; echo --version) | sort)
if ! grep -qx -- --endpoints <<<"$global"; then
  fail "no --endpoints among the global options of qetcd --help: [$(echo $global)]"
fi
declare -A listed
for command in $commands; do
  listed[$command]=$("$qetcd" "$command" --help | help_options)
done

for shell in $shells; do
  if [ "$(complete_words $shell "")" != "$commands" ]; then
    fail "$shell: qetcd <TAB> offers [$(complete_words $shell "" | xargs)]; qetcd --help lists [$(echo $commands)]"
  fi
  if [ "$(complete_words $shell -)" != "$global" ]; then
    fail "$shell: qetcd -<TAB> offers [$(complete_words $shell - | xargs)]; qetcd --help has [$(echo $global)]"
  fi
  for command in $commands; do
    offered=$(complete_words $shell "$command" -)
    if [ "$offered" != "${listed[$command]}" ]; then
      fail "$shell: qetcd $command -<TAB>: offered but not in its --help:" \
           "[$(comm -23 <(echo "$offered") <(echo "${listed[$command]}") | xargs)]," \
           "in its --help but not offered: [$(comm -13 <(echo "$offered") <(echo "${listed[$command]}") | xargs)]"
    fi
  done
done

if [ "$failures" -gt 0 ]; then
  exit 1
fi
echo "completion: bash, zsh and fish offer the $(wc -w <<<"$commands") commands of qetcd --help and their options"

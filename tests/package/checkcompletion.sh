#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# checkcompletion.sh QETCD COMPLETION
#
# Sources COMPLETION, qetcd's bash completion, and completes command lines with it as bash
# would. First a few lines whose answers are known (`qetcd lo` gives lock, values of options
# are skipped); then the completion's lists against the program QETCD itself: the commands of
# `qetcd --help`, its global options, and each command's options in `qetcd COMMAND --help`.
# A command or an option added to qetcd and not to the completion fails here.
set -euo pipefail
qetcd=$1
# shellcheck source=../../packaging/bash-completion/qetcd
source "$2"

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# What the completion offers for the last of WORDS (after `qetcd`), sorted, one per line.
complete_words() {
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

# expect "CANDIDATES" WORDS...: the completion of WORDS offers exactly CANDIDATES (space-separated).
expect() {
  local want got
  want=$(tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort)
  shift
  got=$(complete_words "$@")
  if [ "$got" != "$want" ]; then
    fail "qetcd $* <TAB> offers [$(echo $got)], not [$(echo $want)]"
  fi
}

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
commands=$(awk '/^Commands:$/ { listing = 1; next } /^$/ { listing = 0 } listing { print $1 }' <<<"$overview" | sort)
if [ -z "$commands" ]; then
  fail "no commands found in qetcd --help"
fi
if [ "$(complete_words "")" != "$commands" ]; then
  fail "qetcd <TAB> offers [$(complete_words "" | xargs)]; qetcd --help lists [$(echo $commands)]"
fi

global=$( (help_options <<<"$overview"; echo --version) | sort)
if ! grep -qx -- --endpoints <<<"$global"; then
  fail "no --endpoints among the global options of qetcd --help: [$(echo $global)]"
fi
if [ "$(complete_words -)" != "$global" ]; then
  fail "qetcd -<TAB> offers [$(complete_words - | xargs)]; qetcd --help has [$(echo $global)]"
fi

for command in $commands; do
  listed=$("$qetcd" "$command" --help | help_options)
  offered=$(complete_words "$command" -)
  if [ "$offered" != "$listed" ]; then
    fail "qetcd $command -<TAB>: offered but not in its --help: [$(comm -23 <(echo "$offered") <(echo "$listed") | xargs)]," \
         "in its --help but not offered: [$(comm -13 <(echo "$offered") <(echo "$listed") | xargs)]"
  fi
done

if [ "$failures" -gt 0 ]; then
  exit 1
fi
echo "completion: $(wc -w <<<"$commands") commands and their options match qetcd --help"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Holds one of qetcd's shared libraries to its committed symbol baseline (docs/abi.md), so that
# a patch release keeps every symbol a program built against an earlier one may use.
#
#   checksymbols.sh LIBRARY BASELINE
#       Fails, naming each, when a symbol of BASELINE is no longer exported by LIBRARY (removed,
#       or its signature changed: a C++ function's name encodes its parameters), or when a data
#       symbol's size changed (a vtable's grows with a new virtual function, a type's metadata
#       with its layout). Symbols LIBRARY adds are listed and pass. Fails too when LIBRARY's
#       soname is not BASELINE's: a new minor release has a new soname and needs a new baseline.
#   checksymbols.sh --update LIBRARY BASELINE
#       Writes LIBRARY's symbols to BASELINE: what a maintainer does once per minor release.
#   checksymbols.sh --self-check LIBRARY BASELINE
#       Runs the check against a copy of BASELINE with one symbol planted that LIBRARY lacks and
#       one data symbol's size altered, and fails unless the check fails naming both.
#
# A symbol is in the baseline when it is of the library's own code: every strong symbol, and the
# weak ones of namespace QEtcd (type information, vtables). Weak instantiations of standard
# library and Qt templates are left out; which of them the compiler emits depends on inlining.
set -euo pipefail

mode=check
if [ "${1:-}" = "--update" ] || [ "${1:-}" = "--self-check" ]; then
  mode=${1#--}
  shift
fi
library="$1"
baseline="$2"

soname() {
  objdump -p "$1" | awk '$1 == "SONAME" { print $2 }'
}

# One line per symbol, sorted: "NAME" for code, "NAME SIZE" for data (sizes in hexadecimal).
symbols_of() {
  nm -D -P --defined-only -S "$1" | awk '
    $1 ~ /^(__bss_start|_edata|_end)$/ || $1 ~ /^__odr_asan\./ { next }
    $2 ~ /^[WVu]$/ && $1 !~ /^_Z(T[VIS]|Th[^_]*_|Tv[^_]*_[^_]*_)?NK?5QEtcd/ { next }
    $2 ~ /^[TtWi]$/ { print $1; next }
    { print $1, ($4 == "" ? "0" : $4) }' | LC_ALL=C sort
}

baseline_symbols() {
  grep -v '^#' "$1" | grep . || true
}

case "$mode" in
update)
  {
    echo "# SPDX-License-Identifier: Apache-2.0"
    echo "# The symbols $(soname "$library") exports, one a line (data symbols with their size):"
    echo "# the baseline tests/abi/checksymbols.sh holds every build of this minor release to."
    echo "# Regenerate it only for a new minor release (docs/abi.md)."
    echo "soname $(soname "$library")"
    symbols_of "$library"
  } >"$baseline"
  echo "$(basename "$baseline"): $(baseline_symbols "$baseline" | grep -vc '^soname ') symbols of $(soname "$library")"
  exit 0
  ;;
self-check)
  planted=$(mktemp)
  trap 'rm -f "$planted"' EXIT
  resized=$(baseline_symbols "$baseline" | awk 'NF == 2 && $1 != "soname" { print $1; exit }')
  awk -v resized="$resized" '$1 == resized { print $1, "fffff"; next } { print }' "$baseline" >"$planted"
  echo "_ZN5QEtcd14plantedRemovedEv" >>"$planted"
  if report=$(bash "$0" "$library" "$planted" 2>&1); then
    echo "self-check: the check passed a library that lacks a symbol of its baseline:"
    echo "$report"
    exit 1
  fi
  status=0
  for named in "QEtcd::plantedRemoved()" "$(c++filt "$resized")"; do
    if ! grep -qF -- "$named" <<<"$report"; then
      echo "self-check: the report does not name $named"
      status=1
    fi
  done
  [ $status -eq 0 ] && echo "self-check: the removed and the resized symbol were named" || echo "$report"
  exit $status
  ;;
esac

expected_soname=$(baseline_symbols "$baseline" | awk '$1 == "soname" { print $2 }')
actual_soname=$(soname "$library")
if [ "$expected_soname" != "$actual_soname" ]; then
  echo "$(basename "$library") has the soname $actual_soname, $(basename "$baseline") is of $expected_soname:"
  echo "a new minor release needs a new baseline (docs/abi.md, \"The symbol baseline\")"
  exit 1
fi

current=$(symbols_of "$library")
expected=$(baseline_symbols "$baseline" | grep -v '^soname ')
declare -A size_now=()
while read -r name size; do
  size_now[$name]=${size:--}
done <<<"$current"

problems=()
while read -r name size; do
  [ -z "$name" ] && continue
  if [ -z "${size_now[$name]+set}" ]; then
    problems+=("removed or changed: $(c++filt "$name")  [$name]")
  elif [ "${size_now[$name]}" != "${size:--}" ]; then
    problems+=("size changed from 0x${size:-?} to 0x${size_now[$name]}: $(c++filt "$name")  [$name]")
  fi
done <<<"$expected"

added=$(comm -13 <(awk '{ print $1 }' <<<"$expected" | LC_ALL=C sort) <(awk '{ print $1 }' <<<"$current" | LC_ALL=C sort))
echo "$(basename "$library") ($actual_soname): $(grep -c . <<<"$current") symbols, $(grep -c . <<<"$expected") in $(basename "$baseline")"
if [ -n "$added" ]; then
  echo "added since the baseline (compatible):"
  c++filt <<<"$added" | sed 's/^/  /'
fi
if [ ${#problems[@]} -gt 0 ]; then
  printf '%s\n' "${problems[@]}"
  echo "${#problems[@]} symbols of the baseline are gone or changed: a patch release must keep them (docs/abi.md)"
  exit 1
fi

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the dynamic symbol table of one of qetcd's shared libraries: it must export the
# library's API and nothing else.
#
#   checkexports.sh LIBRARY INTERNAL_EXPORTS REQUIRED_SYMBOL
#       Fails, naming each offender, when LIBRARY exports
#         - anything of the generated etcd stubs or of protobuf, gRPC, gogoproto, googleapis, abseil;
#         - a d-pointer class (QEtcd::...Private), as a symbol's owner or in its signature;
#         - anything of, or mentioning, namespace QEtcd::Internal that does not start with a
#           prefix INTERNAL_EXPORTS lists;
#         - a symbol of its own code outside namespace QEtcd: every exported name must be
#           QEtcd's, or a weak (vague-linkage) instantiation of a C++ standard library or Qt
#           template that the compiler emits with default visibility in every C++ library.
#       Also fails when REQUIRED_SYMBOL (a demangled prefix) is missing: an empty or unreadable
#       symbol table must not pass.
#   checkexports.sh --self-check LEAKY_LIBRARY
#       Runs the check on a library built to break every rule (leaky.cpp) and fails unless the
#       check fails and names each planted symbol.
set -euo pipefail

if [ "${1:-}" = "--self-check" ]; then
  leaky="$2"
  empty=$(mktemp)
  trap 'rm -f "$empty"' EXIT
  if report=$(bash "$0" "$leaky" "$empty" "QEtcd::publicApi(" 2>&1); then
    echo "self-check: the check passed a library that breaks every rule:"
    echo "$report"
    exit 1
  fi
  status=0
  for planted in "etcdserverpb::leakedStub(" "google::protobuf::leakedRuntime(" "grpc::leakedChannel(" \
                 "QEtcd::ClientPrivate::leaked(" "QEtcd::Internal::notListed(" "globalHelper("; do
    if ! grep -qF -- "$planted" <<<"$report"; then
      echo "self-check: the report does not name the planted $planted"
      status=1
    fi
  done
  if grep -qF "QEtcd::publicApi(" <<<"$report"; then
    echo "self-check: the report names the allowed QEtcd::publicApi()"
    status=1
  fi
  if [ $status -eq 0 ]; then
    echo "self-check: every planted symbol was named"
  else
    echo "$report"
  fi
  exit $status
fi

library="$1"
allowlist="$2"
required="$3"

# "ADDRESS TYPE NAME", demangled; NAME may contain spaces.
symbols=$(nm -D --defined-only -C "$library")
raw_symbols=$(nm -D --defined-only "$library")
count=$(grep -c . <<<"$symbols" || true)

foreign='etcdserverpb::|mvccpb::|authpb::|v3lockpb::|v3electionpb::|gogoproto|google::|(^|[^A-Za-z0-9_])grpc(::|_)|absl::'
dpointer='QEtcd::([A-Za-z0-9_]+::)*[A-Za-z0-9_]*Private([^A-Za-z0-9_]|$)'
# What the compiler may put in front of a class's name: its vtable, type information, thunks.
owner_prefix='^((vtable|typeinfo|typeinfo name|VTT|construction vtable for .* in|guard variable) for |(non-virtual|virtual) thunk to )?'

allowed_internal=()
while IFS= read -r line; do
  line="${line%%#*}"
  line="${line%"${line##*[![:space:]]}"}"
  [ -n "$line" ] && allowed_internal+=("$line")
done <"$allowlist"

offenders=()
internal_re="QEtcd::([A-Za-z0-9_]+::)*Internal::"
ours_re="${owner_prefix}QEtcd::"
# A function template's demangled name starts with its return type.
# A Debug build also emits a Qt class's type information where it is used (QObjectData's).
template_re="${owner_prefix}([^(]* )?(std::|__gnu_cxx::|Q[A-Za-z0-9_]*(::|<|$)|q[A-Z][A-Za-z0-9_]*<)"
while IFS= read -r entry; do
  [ -z "$entry" ] && continue
  entry="${entry#* }"
  type="${entry%% *}"
  name="${entry#* }"
  if [[ "$name" =~ $foreign ]]; then
    offenders+=("generated stubs or their runtime: $name")
  elif [[ "$name" =~ $dpointer ]]; then
    offenders+=("d-pointer class: $name")
  elif [[ "$name" =~ $internal_re ]]; then
    listed=0
    for allowed in "${allowed_internal[@]}"; do
      if [[ "$name" == "$allowed"* ]]; then listed=1; break; fi
    done
    [ $listed -eq 1 ] || offenders+=("internal, not in $(basename "$allowlist"): $name")
  elif [[ "$name" =~ $ours_re || "$name" == qml_register_types_QEtcd* ]]; then
    :
  elif [[ "$name" =~ ^(__bss_start|_edata|_end)$ ]]; then
    :  # where the data ends: the linker's markers (LLVM's lld exports them), not code of ours
  elif [[ "$name" =~ ^__odr_asan\.(.*)$ ]] && grep -qF -- " ${BASH_REMATCH[1]}" <<<"$raw_symbols"; then
    :  # AddressSanitizer's indicator beside an exported global (scripts/test --sanitize)
  elif [[ "$type" =~ ^[WVu]$ && "$name" =~ $template_re ]]; then
    :
  else
    offenders+=("not the library's API ($type): $name")
  fi
done <<<"$symbols"

if ! grep -qF -- " $required" <<<"$symbols"; then
  offenders+=("missing: nothing exported starts with $required")
fi

echo "$(basename "$library"): $count exported symbols"
if [ ${#offenders[@]} -gt 0 ]; then
  printf '%s\n' "${offenders[@]}"
  echo "${#offenders[@]} symbols should not be exported (see docs/abi.md)"
  exit 1
fi

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Fails, naming every offender, when C++ code chains on a future with QFuture::then(). Attached
# while another thread finishes the future, as the library's threads finish every future it
# returns, Qt 6.4's then() can run its continuation twice and the process dies
# (lib/core/continuation_p.h). The library's code uses its own continuations, the programs and
# tests a QFutureWatcher or the client's onAnswer overloads (tests/common/awaitfuture.h). A line
# under one that says "QFuture::then() on purpose" is let through: a test of what a user's then()
# meets.
#
#   checknothen.sh ROOT FOLDER...   (the folders relative to ROOT)
set -eu
root="$1"
shift
cd "$root"
offences=$(find "$@" \( -name '*.cpp' -o -name '*.h' \) -type f | sort | xargs awk '
  FNR == 1 { previous = "" }
  /\.then\(/ && previous !~ /QFuture::then\(\) on purpose/ { print "  " FILENAME ":" FNR ": " $0 }
  { previous = $0 }')
if [ -n "$offences" ]; then
  echo "QFuture::then() chained on a future (watch it, or take the answer through onAnswer):" >&2
  echo "$offences" >&2
  exit 1
fi
echo "no QFuture::then() in $(find "$@" \( -name '*.cpp' -o -name '*.h' \) -type f | wc -l) files"

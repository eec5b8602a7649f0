#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The tests labelled etcd35 need an etcd 3.5 binary: this says whether the one configured is one.
binary="$1"
if [ ! -x "$binary" ]; then
  echo "no etcd at $binary: scripts/setup's qetcd_fetch_etcd35 fetches etcd 3.5 from Debian 13 there," >&2
  echo "or configure another with -DQETCD_ETCD35_BINARY=PATH" >&2
  exit 1
fi
version="$("$binary" --version | head -n 1)"
case "$version" in
  "etcd Version: 3.5."*) echo "$version" ;;
  *) echo "$binary is not etcd 3.5: it says \"$version\"" >&2; exit 1 ;;
esac

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A sandbox seed program for tst_sandbox: writes the client URLs it was given to
# $QETCD_SEED_DIR/urls, says "ready", and writes "stopped" to $QETCD_SEED_DIR/stopped when
# SIGTERM ends it.
mkdir -p "$QETCD_SEED_DIR"
echo "$1" > "$QETCD_SEED_DIR/urls.part" && mv "$QETCD_SEED_DIR/urls.part" "$QETCD_SEED_DIR/urls"
echo "starting"
echo "ready"
trap 'echo stopped > "$QETCD_SEED_DIR/stopped"; exit 0' TERM
while :; do
  sleep 1 &
  wait $!
done

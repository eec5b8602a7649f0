#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Drives Debian's python3-etcd3 client for qetcd's integration tests: takes a lock, waiting
while someone else holds it, prints a JSON line when it waits and when it holds it, then keeps
it until SIGTERM (releases it) or SIGKILL.

    hold.py <host> <port> <lock name>
"""
import json
import signal
import sys
import threading

import etcd3

if len(sys.argv) != 4:
    sys.exit("usage: hold.py <host> <port> <lock name>")
host, port, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]

client = etcd3.client(host=host, port=port)
lock = client.lock(name, ttl=30)


def report(event, **fields):
    print(json.dumps({"event": event, "key": lock.key, **fields}), flush=True)


# Lock.acquire() waits by retrying through tenacity, whose callback it calls with the
# arguments of an older tenacity: with Debian 12's tenacity it raises TypeError instead of
# waiting. acquire(timeout=0) tries once, and we wait between tries as it meant to: for the
# key to change.
waiting = False
while not lock.acquire(timeout=0):
    if not waiting:
        report("waiting")
        waiting = True
    try:
        client.watch_once(lock.key, timeout=1)
    except etcd3.exceptions.WatchTimedOut:
        pass
report("holding", lease=str(lock.lease.id), uuid=lock.uuid.hex())

# The lease lasts 30 s: refresh it so the lock stays held until the test kills us.
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
while not stop.wait(5):
    lock.refresh()
lock.release()

// SPDX-License-Identifier: Apache-2.0
// The no-then check's own test: this line must be named.
void chained() { client.get("k").then([](const RangeResult &) {}); }

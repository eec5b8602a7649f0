// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "command.h"

namespace QEtcd::Cli {

// check perf and check datascale: etcdctl's write loads, judged as etcdctl judges them. perf puts
// at a fixed rate for a while and judges throughput and latency; datascale puts a number of keys
// as fast as etcd takes them and reports how much etcd's resident memory grew. Both delete what
// they wrote. The options they read are loadCheckOptions().
int runCheckPerf(Invocation &invocation);
int runCheckDatascale(Invocation &invocation);
QList<QCommandLineOption> loadCheckOptions();
QStringList loadCheckOptionNames();
QString loadCheckHelp();

} // namespace QEtcd::Cli

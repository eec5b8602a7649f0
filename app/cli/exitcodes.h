// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/status.h>

namespace QEtcd::Cli {

// etcdctl's exit codes, so that a script written against etcdctl reads qetcd's the same way.
// etcdctl's 4 (a valid flag with an unsupported value) and 6 (I/O) have no cause here.
enum ExitCode {
    Success = 0,
    Failure = 1,         // the cluster answered no (refused, not found, lost), or anything else
    BadConnection = 2,   // no answer from the cluster: unreachable, silent, TLS handshake failed
    InvalidInput = 3,    // a well-formed command line whose content etcd or the library refused
    Interrupted = 5,     // SIGINT or SIGTERM cut a wait short before it had what it waited for
    BadArguments = 128,  // the command line itself is wrong; nothing was sent
};

// Where the Status code alone cannot tell: a wait that ran out of its own --timeout reports
// DeadlineExceeded, as does a request the cluster never answered.
enum class FailureOrigin { Request, OwnTimeout };

// The one place where a failure becomes an exit code; commands only report what went wrong.
ExitCode exitCodeFor(const Status &failure, FailureOrigin origin = FailureOrigin::Request);

// The failure of a wait that signal ("SIGINT", "SIGTERM") ended before it had its result.
Status interruption(const QString &signal);

// The exit codes for --help, beside the mapping it describes.
QString exitCodesHelp();

} // namespace QEtcd::Cli

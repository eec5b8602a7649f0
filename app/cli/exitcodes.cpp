// SPDX-License-Identifier: Apache-2.0
#include "exitcodes.h"

namespace QEtcd::Cli {

ExitCode exitCodeFor(const Status &failure, FailureOrigin origin)
{
    switch (failure.code()) {
    case StatusCode::Unavailable:
    case StatusCode::TlsError:
        return BadConnection;
    case StatusCode::DeadlineExceeded:
        return origin == FailureOrigin::OwnTimeout ? Failure : BadConnection;
    // etcd answers InvalidArgument to an empty key, a too long TTL or a wrong password, and
    // OutOfRange to a revision that is compacted or still to come (and a counter refuses an
    // addition past 64 bits with it).
    case StatusCode::InvalidArgument:
    case StatusCode::OutOfRange:
    case StatusCode::InvalidConfiguration:
        return InvalidInput;
    case StatusCode::Cancelled:
        return Interrupted;
    default:
        return Failure;
    }
}

Status interruption(const QString &signal)
{
    return Status(StatusCode::Cancelled, QLatin1String("interrupted by ") + signal);
}

QString exitCodesHelp()
{
    return QStringLiteral(
        "Exit status (etcdctl's codes):\n"
        "  0    success\n"
        "  1    the operation failed: refused (permission, --read-only), not found,\n"
        "       lost, or a wait's own --timeout ran out\n"
        "  2    no answer from the cluster: unreachable, silent past --command-timeout,\n"
        "       TLS handshake failed\n"
        "  3    invalid input: etcd refused what was asked (an empty key, a compacted\n"
        "       or future revision, wrong credentials), or a counter's addition would\n"
        "       go past 64 bits\n"
        "  5    interrupted: SIGINT or SIGTERM ended a wait before its result (a lock\n"
        "       still queued, a queue take, a barrier wait)\n"
        "  128  bad arguments: unknown command or option, a malformed value; nothing\n"
        "       was sent\n");
}

} // namespace QEtcd::Cli

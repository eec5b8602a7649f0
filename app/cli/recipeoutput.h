// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "command.h"
#include "eventwriter.h"
#include "shutdownsignals.h"

#include <QEtcd/leaseevent.h>
#include <QEtcd/recipe.h>

#include <chrono>
#include <optional>

namespace QEtcd::Cli {

// What the recipe commands (barrier, double-barrier, service, counter) share.

// A duration option such as --timeout; fallback when it is not set; false with *error when it is
// malformed or not > 0.
bool parseDurationOption(const Invocation &invocation, const QString &name, std::chrono::milliseconds fallback,
                         std::chrono::milliseconds *value, QString *error);
// A whole number >= minimum.
std::optional<qint64> parseCount(const QString &text, qint64 minimum);

QJsonObject leaseEventFields(const LeaseEvent &event);
// {"path": path}, which every line of the barrier and queue commands carries.
QJsonObject pathFields(const QString &path);
QJsonObject connectionStateFields(ConnectionState state, ConnectionState previous);

// The life of a one-shot wait (barrier wait, barrier count, double-barrier) on the main thread:
// JSON lines as EventSession writes them, "connectionState" lines while the wait lasts, and
// SIGINT or SIGTERM close the recipe, which ends its waits with Cancelled; a second signal ends
// the process at once. Unlike EventSession, the wait's own result ends the command.
class WaitSession : public QObject
{
    Q_OBJECT
public:
    WaitSession(Invocation &invocation, Recipe *recipe);
    Q_DISABLE_COPY_MOVE(WaitSession)

    // Prints what the library reported before it first, so the lines keep its order.
    void write(const QString &event, const QJsonObject &fields = {});
    // For a slot on this object connected to the recipe's signals: it runs in the library's order
    // already, and flushing from inside it would print later lines first.
    void writeFromSlot(const QString &event, const QJsonObject &fields);

    template <class T>
    T wait(const QFuture<T> &future)
    {
        // waitFor() needs a finite deadline; the wait itself ends on its timeout or close().
        while (!waitFor(future, QDeadlineTimer(std::chrono::minutes(10)))) {
        }
        return future.result();
    }
    // Runs the event loop for duration; false when a signal cut it short.
    bool pause(std::chrono::milliseconds duration);

    // "SIGINT" or "SIGTERM" once a signal closed the recipe, else empty.
    QString interruptedBy() const { return m_interruptedBy; }
    // After a wait ended with status: the failure's exit code, or after a signal a "closed" line
    // with fields and Interrupted.
    int failed(const Status &status, const QJsonObject &fields);
    // After a wait ran out of its own --timeout: a "timedOut" line with fields, then the failure.
    int timedOut(const Status &status, const QJsonObject &fields);

private:
    Invocation &m_invocation;
    Recipe *m_recipe;
    EventWriter m_writer;
    ShutdownSignals m_shutdown;
    QString m_interruptedBy;
};

} // namespace QEtcd::Cli

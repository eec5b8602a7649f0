// SPDX-License-Identifier: Apache-2.0
#pragma once

// Seams for this project's tests, never for applications. Each lets a test act at one exact
// point that no outside observation can hit reliably.

#include <QEtcd/qetcdexport.h>

#include <QtCore/QString>

#include <functional>

namespace QEtcd {
class Client;
}

namespace QEtcd::Internal {

// What becomes of one unary call, decided just before it would be sent.
enum class SendFault {
    None,        // sent and answered as usual
    LoseAnswer,  // sent and carried out by etcd, but the caller hears DeadlineExceeded
    Refuse,      // never sent; the caller hears Unavailable
    // Not sent; answered as etcd answers when more proposals wait than it takes. The call is
    // retried as that answer would be, and the hook is asked again before each retry, there on
    // the completion-queue thread.
    TooManyRequests,
    // Never sent; answered as a member that has not applied the latest writes yet may answer a
    // serializable transaction (after a fail-over to one that lags): its compares fail, Ok and
    // no responses. A call other than a transaction hears Unavailable.
    AnswerFromBehind,
};

// Called with each unary call's description ("txn comparing \"/k\"", "lease revoke 1f…") on
// the calling thread just before the call is sent. A test may also change the network there (a
// FaultProxy) under one particular call. An empty hook removes it.
using BeforeSend = std::function<SendFault(const QString &what)>;
QETCD_INTERNAL_EXPORT void setBeforeSend(Client *client, BeforeSend hook);

} // namespace QEtcd::Internal

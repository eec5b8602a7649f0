// SPDX-License-Identifier: Apache-2.0
#pragma once

// Compare-and-set establishments sent together. After a partition every lease of a client heals
// at once, and each heal re-establishes its keys with one small transaction; etcd's cost is
// much more per request than per operation, so while batches are on their way the
// transactions that arrive wait, then go as one: each nested in the success branch of a
// transaction without compares, where etcd judges every nested one on its own compares. A
// transaction that finds no batch under way goes at once, alone, as it was given.
//
// Thread-safe. Answers are settled on the futures thread.

#include "clientthread_p.h"

#include <QEtcd/kvtypes.h>

#include <QtCore/QFuture>

#include <functional>
#include <memory>

namespace QEtcd::Internal {

class TxnBatcher
{
public:
    explicit TxnBatcher(std::shared_ptr<ClientLifeline> client);

    // What txn's answer means to its sender, judged on the futures thread.
    using Judge = std::function<Status(const TxnResult &)>;

    // judge hears txn's answer as if txn had been sent alone. A batch etcd refuses as a whole
    // (too many operations for the server's limit, a key it does not let this user write) is
    // sent again one transaction at a time, so each member hears its own answer.
    QFuture<Status> submit(const Txn &txn, Judge judge);

private:
    struct State;
    std::shared_ptr<State> m_state;
};

} // namespace QEtcd::Internal

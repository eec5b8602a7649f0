// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "keymodel.h"

#include <QEtcd/testtimeouts.h>

#include <QtCore/QDeadlineTimer>
#include <QtTest/QSignalSpy>

#include <algorithm>

namespace QEtcd::Testing {

// Asks a KeyModel for page after page, as a list scrolled to its end does, until every key is
// in; false when the (scaled) timeout passed first.
inline bool readAllKeys(KeyModel &model, int timeoutMs = 20000)
{
    const QDeadlineTimer deadline(scaledMs(timeoutMs));
    QSignalSpy paged(&model, &KeyModel::progressChanged);
    while (model.progress() < 1.0 && !deadline.hasExpired()) {
        if (model.canFetchMore({}))
            model.fetchMore({});
        paged.wait(int(std::max<qint64>(1, deadline.remainingTime())));  // the page asked for
    }
    return model.progress() == 1.0;
}

} // namespace QEtcd::Testing

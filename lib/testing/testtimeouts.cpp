// SPDX-License-Identifier: Apache-2.0
#include "testtimeouts.h"

#include "testinglogging_p.h"

#include <QtCore/QtGlobal>

#include <climits>
#include <limits>

namespace QEtcd::Testing {

namespace {

double timeoutScale()
{
    static const double scale = [] {
        const QString text = qEnvironmentVariable("QETCD_TEST_TIMEOUT_SCALE");
        if (text.isEmpty())
            return 1.0;
        bool ok = false;
        const double value = text.toDouble(&ok);
        if (!ok || !(value > 0)) {
            qCWarning(lcTesting) << "QETCD_TEST_TIMEOUT_SCALE must be a positive number, got" << text
                                 << "- using 1";
            return 1.0;
        }
        return value;
    }();
    return scale;
}

// Saturates instead of overflowing: callers pass "forever"-sized values such as milliseconds::max().
qint64 scaleCount(qint64 count, qint64 max)
{
    const double product = double(count) * timeoutScale();
    if (product >= double(max))
        return max;
    if (product <= -double(max))
        return -max;
    return qRound64(product);
}

} // namespace

std::chrono::milliseconds scaled(std::chrono::milliseconds base)
{
    return std::chrono::milliseconds(
            scaleCount(base.count(), std::numeric_limits<std::chrono::milliseconds::rep>::max()));
}

int scaledMs(int baseMs)
{
    return int(scaleCount(baseMs, INT_MAX));
}

} // namespace QEtcd::Testing

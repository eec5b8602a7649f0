// SPDX-License-Identifier: Apache-2.0
#include <QEtcd/retrypolicy.h>
#include <QEtcd/resilience.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace std::chrono_literals;

class tst_RetryPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exponentialJitterStaysWithinBounds_data()
    {
        QTest::addColumn<int>("attempt");
        QTest::addColumn<qint64>("low");
        QTest::addColumn<qint64>("high");
        // base 250 ms doubling, ±25 % jitter, capped at 15 s
        QTest::newRow("first") << 1 << qint64(187) << qint64(313);
        QTest::newRow("second") << 2 << qint64(375) << qint64(625);
        QTest::newRow("fifth") << 5 << qint64(3000) << qint64(5000);
        QTest::newRow("capped") << 12 << qint64(11250) << qint64(15000);
        QTest::newRow("huge attempt stays capped") << 5000 << qint64(11250) << qint64(15000);
    }

    void exponentialJitterStaysWithinBounds()
    {
        QFETCH(int, attempt);
        QFETCH(qint64, low);
        QFETCH(qint64, high);
        const RetryPolicy policy = RetryPolicy::exponentialBackoff();
        QVERIFY(policy.isValid());
        qint64 seenMin = high, seenMax = low;
        for (int i = 0; i < 2000; ++i) {
            const auto delay = policy.nextDelay(attempt, 0ms);
            QVERIFY(delay.has_value());
            QVERIFY2(delay->count() >= low && delay->count() <= high, qPrintable(QString::number(delay->count())));
            seenMin = std::min(seenMin, qint64(delay->count()));
            seenMax = std::max(seenMax, qint64(delay->count()));
        }
        // The jitter really spreads the delays rather than always returning the base.
        QVERIFY(seenMax - seenMin > (high - low) / 4);
    }

    void exponentialWithoutJitterIsExact()
    {
        RetryPolicy::ExponentialBackoff p;
        p.initialDelay = 100ms;
        p.maxDelay = 1000ms;
        p.factor = 3.0;
        p.jitterRatio = 0.0;
        const RetryPolicy policy = RetryPolicy::exponentialBackoff(p);
        QCOMPARE(policy.nextDelay(1, 0ms), std::optional(100ms));
        QCOMPARE(policy.nextDelay(2, 0ms), std::optional(300ms));
        QCOMPARE(policy.nextDelay(3, 0ms), std::optional(900ms));
        QCOMPARE(policy.nextDelay(4, 0ms), std::optional(1000ms));
    }

    void exponentialGivesUp()
    {
        RetryPolicy::ExponentialBackoff p;
        p.maxAttempts = 3;
        p.maxElapsed = 10s;
        const RetryPolicy policy = RetryPolicy::exponentialBackoff(p);
        QVERIFY(policy.nextDelay(3, 0ms).has_value());
        QVERIFY(!policy.nextDelay(4, 0ms).has_value());
        QVERIFY(policy.nextDelay(1, 9999ms).has_value());
        QVERIFY(!policy.nextDelay(1, 10s).has_value());
    }

    void boundedCountsRetries()
    {
        const RetryPolicy policy = RetryPolicy::bounded(4, 250ms);
        for (int attempt = 1; attempt <= 4; ++attempt)
            QCOMPARE(policy.nextDelay(attempt, 0ms), std::optional(250ms));
        QVERIFY(!policy.nextDelay(5, 0ms).has_value());
    }

    void neverAndUnlimited()
    {
        QVERIFY(!RetryPolicy::never().nextDelay(1, 0ms).has_value());
        QVERIFY(!RetryPolicy().nextDelay(1, 0ms).has_value());
        QVERIFY(RetryPolicy::unlimited().nextDelay(1000000, std::chrono::hours(1000)).has_value());
    }

    void customFunction()
    {
        const RetryPolicy policy([](int attempt, std::chrono::milliseconds) -> RetryPolicy::Delay {
            return attempt < 3 ? RetryPolicy::Delay(std::chrono::milliseconds(attempt * 10)) : RetryPolicy::Delay();
        }, QStringLiteral("custom"));
        QVERIFY(policy.isValid());
        QCOMPARE(policy.nextDelay(2, 0ms), std::optional(20ms));
        QVERIFY(!policy.nextDelay(3, 0ms).has_value());
        QVERIFY(!RetryPolicy(RetryPolicy::Function(), QStringLiteral("empty")).isValid());
    }

    void movedFromPolicyStaysUsable()
    {
        RetryPolicy source = RetryPolicy::bounded(2, 100ms);
        const RetryPolicy taken = std::move(source);
        QCOMPARE(taken.nextDelay(1, 0ms), std::optional(100ms));
        // Code that moves a member policy out and reads it again must not crash.
        QCOMPARE(source.nextDelay(1, 0ms), std::optional(100ms));  // NOLINT(bugprone-use-after-move)
        QCOMPARE(source.description(), taken.description());
        RetryPolicy assigned;
        assigned = std::move(source);
        QVERIFY(assigned.isValid());
        QVERIFY(source.isValid());  // NOLINT(bugprone-use-after-move)
    }

    void invalidParametersAreRefused_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("initialDelay") << 0 << "initialDelay";
        QTest::newRow("maxDelay") << 1 << "maxDelay";
        QTest::newRow("factor") << 2 << "factor";
        QTest::newRow("jitter") << 3 << "jitterRatio";
        QTest::newRow("maxAttempts") << 4 << "maxAttempts";
    }

    void invalidParametersAreRefused()
    {
        QFETCH(int, which);
        QFETCH(QString, mentions);
        RetryPolicy::ExponentialBackoff p;
        switch (which) {
        case 0: p.initialDelay = 0ms; break;
        case 1: p.maxDelay = 10ms; break;
        case 2: p.factor = 0.5; break;
        case 3: p.jitterRatio = 1.5; break;
        case 4: p.maxAttempts = 0; break;
        }
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(mentions));
        const RetryPolicy policy = RetryPolicy::exponentialBackoff(p);
        QVERIFY(!policy.isValid());
        QCOMPARE(policy.validation().code(), StatusCode::InvalidArgument);
        QVERIFY(policy.validation().message().contains(mentions));
        QVERIFY(!policy.nextDelay(1, 0ms).has_value());
    }

    void boundedRefusesBadInput()
    {
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("maxAttempts"));
        QVERIFY(!RetryPolicy::bounded(0).isValid());
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("delay"));
        QVERIFY(!RetryPolicy::bounded(3, -1ms).isValid());
    }

    void resilienceDefaults()
    {
        const ResilienceConfig defaults = ResilienceConfig::defaults();
        QVERIFY(defaults.validate().isOk());
        QCOMPARE(defaults.rpc.operationTimeout, 30s);
        QCOMPARE(defaults.rpc.retryPolicy.nextDelay(4, 0ms), std::optional(250ms));
        QVERIFY(!defaults.rpc.retryPolicy.nextDelay(5, 0ms).has_value());
        QVERIFY(defaults.watch.progressNotify);
        QCOMPARE(defaults.lease.healOperationTimeout, 10s);
        const ResilienceConfig disabled = ResilienceConfig::disabled();
        QVERIFY(!disabled.rpc.retryPolicy.nextDelay(1, 0ms).has_value());
        QCOMPARE(disabled.rpc.operationTimeout, NoTimeout);
        QVERIFY(!disabled.watch.progressNotify);
        QCOMPARE(RpcResilience::probe().operationTimeout, 2s);
        QVERIFY(!RpcResilience::probe().retryPolicy.nextDelay(1, 0ms).has_value());
    }
};

QTEST_GUILESS_MAIN(tst_RetryPolicy)
#include "tst_retrypolicy.moc"

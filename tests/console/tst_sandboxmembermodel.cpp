// SPDX-License-Identifier: Apache-2.0
// SandboxMemberModel under QAbstractItemModelTester: a new cluster's members replace the rows,
// later states change them in place, and each action says why it cannot be done now.

#include "sandboxmembermodel.h"

#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

class tst_SandboxMemberModel : public QObject
{
    Q_OBJECT

private:
    using Member = SandboxMemberModel::Member;

    static QList<Member> members(SandboxMemberModel::MemberState state)
    {
        QList<Member> list;
        for (int i = 0; i < 3; ++i)
            list.append({QStringLiteral("m%1").arg(i), QStringLiteral("http://127.0.0.1:%1").arg(2379 + i),
                         quint16(2379 + i), 100 + i, state});
        return list;
    }

private Q_SLOTS:
    void membersAreReplacedThenUpdatedInPlace()
    {
        SandboxMemberModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy counted(&model, &SandboxMemberModel::countChanged);
        model.resetMembers(members(SandboxMemberModel::Running));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(counted.count(), 1);
        QCOMPARE(model.index(1).data(SandboxMemberModel::NameRole).toString(), QStringLiteral("m1"));
        QCOMPARE(model.index(1).data(SandboxMemberModel::PidRole).toLongLong(), 101);

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QList<Member> now = members(SandboxMemberModel::Running);
        now[1].state = SandboxMemberModel::Killed;
        now[1].pid = 0;
        model.updateMembers(now);
        QCOMPARE(changed.count(), 1);  // only the row that changed
        QCOMPARE(changed.first().at(0).toModelIndex().row(), 1);
        QCOMPARE(model.index(1).data(SandboxMemberModel::StateRole).toInt(), int(SandboxMemberModel::Killed));
        model.updateMembers(now);
        QCOMPARE(changed.count(), 1);  // nothing new, no signal

        model.resetMembers({});
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(counted.count(), 2);
    }

    void eachActionSaysWhyItCannotBeDone()
    {
        SandboxMemberModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QList<Member> now = members(SandboxMemberModel::Running);
        now[2].state = SandboxMemberModel::Paused;
        model.resetMembers(now);
        QVERIFY(model.blockedReason(0, SandboxMemberModel::Pause).isEmpty());
        QVERIFY(model.blockedReason(0, SandboxMemberModel::Resume).contains(QLatin1String("only a paused member")));
        QVERIFY(model.blockedReason(2, SandboxMemberModel::Resume).isEmpty());
        QVERIFY(model.blockedReason(2, SandboxMemberModel::Kill).isEmpty());
        QVERIFY(!model.blockedReason(2, SandboxMemberModel::Pause).isEmpty());

        // While one action runs, every other waits, and says so.
        model.setAction(0, SandboxMemberModel::Restart);
        QVERIFY(model.index(0).data(SandboxMemberModel::BusyRole).toBool());
        QVERIFY(model.blockedReason(0, SandboxMemberModel::Stop).contains(QLatin1String("being restarted")));
        const QVariantMap blocked = model.index(0).data(SandboxMemberModel::BlockedReasonsRole).toMap();
        QVERIFY(blocked.contains(QStringLiteral("kill")));
        model.setAction(0, SandboxMemberModel::NoAction);
        QVERIFY(!model.index(0).data(SandboxMemberModel::BusyRole).toBool());
    }
};

QTEST_GUILESS_MAIN(tst_SandboxMemberModel)
#include "tst_sandboxmembermodel.moc"

// SPDX-License-Identifier: Apache-2.0
#include <QEtcd/kvtypes.h>
#include <QEtcd/status.h>

#include <QtTest/QtTest>

using namespace QEtcd;

class tst_Status : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void grpcCodesKeepTheirWireValues()
    {
        QCOMPARE(int(StatusCode::Cancelled), 1);
        QCOMPARE(int(StatusCode::DeadlineExceeded), 4);
        QCOMPARE(int(StatusCode::NotFound), 5);
        QCOMPARE(int(StatusCode::PermissionDenied), 7);
        QCOMPARE(int(StatusCode::Unavailable), 14);
        QCOMPARE(int(StatusCode::Unauthenticated), 16);
        QCOMPARE(int(StatusCode::InvalidConfiguration), 256);
        QVERIFY(int(StatusCode::TlsError) > 256);
    }

    void transientCodes()
    {
        QVERIFY(Status(StatusCode::Unavailable, "x").isTransient());
        QVERIFY(Status(StatusCode::Internal, "x").isTransient());
        QVERIFY(Status(StatusCode::DeadlineExceeded, "x").isTransient());
        QVERIFY(!Status(StatusCode::NotFound, "x").isTransient());
        QVERIFY(!Status(StatusCode::InvalidArgument, "x").isTransient());
        QVERIFY(!Status(StatusCode::PermissionDenied, "x").isTransient());
        QVERIFY(!Status(StatusCode::TlsError, "x").isTransient());
        QVERIFY(!Status().isTransient());
    }

    void leaseNotFound()
    {
        QVERIFY(Status(StatusCode::NotFound, "etcdserver: requested lease not found").isLeaseNotFound());
        QVERIFY(!Status(StatusCode::NotFound, "key not found").isLeaseNotFound());
    }

    void tooManyRequests()
    {
        // etcd 3.4 sends its overload refusal as Unknown, later versions as ResourceExhausted.
        QVERIFY(Status(StatusCode::Unknown, "etcdserver: too many requests").isTooManyRequests());
        QVERIFY(Status(StatusCode::ResourceExhausted, "etcdserver: too many requests").isTooManyRequests());
        QVERIFY(!Status(StatusCode::ResourceExhausted, "grpc: received message larger than max").isTooManyRequests());
        QVERIFY(!Status(StatusCode::InvalidArgument, "etcdserver: too many requests").isTooManyRequests());
        QVERIFY(Status(StatusCode::Unknown, "etcdserver: too many requests").withContext("put \"/k\"").isTooManyRequests());
        // Nothing was applied, so a retry may cure it; other exhaustion is not cured by one.
        QVERIFY(Status(StatusCode::ResourceExhausted, "etcdserver: too many requests").isTransient());
        QVERIFY(!Status(StatusCode::ResourceExhausted, "grpc: received message larger than max").isTransient());
    }

    void contextAndText()
    {
        const Status status = Status(StatusCode::PermissionDenied, "etcdserver: permission denied")
                                  .withContext("put \"/other/k\"");
        QCOMPARE(status.message(), QString("put \"/other/k\": etcdserver: permission denied"));
        QCOMPARE(status.toString(), QString("PermissionDenied: put \"/other/k\": etcdserver: permission denied"));
        QCOMPARE(Status().withContext("anything"), Status());
        QVERIFY(Status().isOk());
        QVERIFY(bool(Status()));
        QVERIFY(!bool(Status(StatusCode::Closed, "closed")));
        QCOMPARE(Status(StatusCode::Closed, "c").codeName(), QString("Closed"));
    }

    // QML reads a Status through its meta-object, as a value.
    void readableThroughTheMetaObject()
    {
        const Status status(StatusCode::ReadOnly, "put \"/k\": refused: the client is read-only");
        const QMetaObject &meta = Status::staticMetaObject;
        const auto read = [&](const char *name) {
            const int index = meta.indexOfProperty(name);
            return index < 0 ? QVariant() : meta.property(index).readOnGadget(&status);
        };
        QCOMPARE(read("code").value<StatusCode>(), StatusCode::ReadOnly);
        QCOMPARE(read("codeName").toString(), QString("ReadOnly"));
        QCOMPARE(read("message").toString(), status.message());
        QCOMPARE(read("isOk").toBool(), false);
        QCOMPARE(read("wireCode").toInt(), int(StatusCode::ReadOnly));
        QString text;
        QVERIFY(meta.method(meta.indexOfMethod("toString()")).invokeOnGadget(const_cast<Status *>(&status),
                                                                             Q_RETURN_ARG(QString, text)));
        QCOMPARE(text, status.toString());
        QVERIFY(QMetaType::fromType<Status>().metaObject() == &meta);
    }

    void prefixRangeEnd_data()
    {
        QTest::addColumn<QByteArray>("prefix");
        QTest::addColumn<QByteArray>("end");
        QTest::newRow("plain") << QByteArray("/locks/a") << QByteArray("/locks/b");
        QTest::newRow("trailing 0xff") << QByteArray("a\xff") << QByteArray("b");
        QTest::newRow("all 0xff") << QByteArray("\xff\xff") << QByteArray(1, '\0');
        QTest::newRow("empty") << QByteArray() << QByteArray(1, '\0');
    }

    void prefixRangeEnd()
    {
        QFETCH(QByteArray, prefix);
        QFETCH(QByteArray, end);
        QCOMPARE(QEtcd::prefixRangeEnd(prefix), end);
    }
};

QTEST_GUILESS_MAIN(tst_Status)
#include "tst_status.moc"

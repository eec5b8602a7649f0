// SPDX-License-Identifier: Apache-2.0
#include <QEtcd/codecs.h>
#include <QEtcd/serviceinstance.h>
#include <QEtcd/serviceprovider.h>

#include <QtCore/QJsonObject>
#include <QtTest/QtTest>

using namespace QEtcd;

// The bytes etcd-recipes (kotlinx.serialization, encodeDefaults = true) writes for an instance:
// constructor properties in declaration order, then the body property id; compact; enums by
// name; strings escaped as kotlinx escapes them. (A plain literal: moc misreads \" inside raw strings.)
static const QByteArray referenceJson =
    "{\"name\":\"orders\",\"jsonPayload\":\"{\\\"zone\\\":\\\"eu-1\\\"}\",\"address\":\"10.1.2.3\",\"port\":8080,\"sslPort\":-1,"
    R"("registrationTimeUTC":1700000000123,"serviceType":"DYNAMIC","uri":"","enabled":true,"id":"Ab3dE7x"})";

class tst_ServiceInstance : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaultsAreTheReferences()
    {
        const qint64 before = QDateTime::currentMSecsSinceEpoch();
        const ServiceInstance instance("orders", "{}");
        QVERIFY(instance.isValid());
        QCOMPARE(instance.address(), QString());
        QCOMPARE(instance.port(), -1);
        QCOMPARE(instance.sslPort(), -1);
        QVERIFY(instance.registrationTimeUtc() >= before);
        QVERIFY(instance.registrationTimeUtc() <= QDateTime::currentMSecsSinceEpoch());
        QCOMPARE(instance.serviceType(), ServiceInstance::ServiceType::Dynamic);
        QVERIFY(instance.isDynamic());
        QCOMPARE(instance.uri(), QString());
        QVERIFY(instance.isEnabled());
        QCOMPARE(instance.id().size(), 7);
        QVERIFY(instance.id() != ServiceInstance("orders", "{}").id());
        QVERIFY(!ServiceInstance().isValid());
    }

    void encodesTheReferenceBytes()
    {
        ServiceInstance instance("orders", R"({"zone":"eu-1"})");
        instance.setAddress("10.1.2.3");
        instance.setPort(8080);
        instance.setRegistrationTimeUtc(1700000000123);
        QByteArray expected = referenceJson;
        expected.replace("Ab3dE7x", instance.id().toUtf8());
        QCOMPARE(instance.toJson(), expected);
    }

    void everyFieldAndTypeName()
    {
        ServiceInstance instance("billing", "");
        instance.setAddress("host");
        instance.setPort(1);
        instance.setSslPort(443);
        instance.setRegistrationTimeUtc(0);
        instance.setServiceType(ServiceInstance::ServiceType::DynamicSequential);
        instance.setUri("https://host/x");
        instance.setEnabled(false);
        QCOMPARE(instance.toJson(),
                 R"({"name":"billing","jsonPayload":"","address":"host","port":1,"sslPort":443,)"
                 R"("registrationTimeUTC":0,"serviceType":"DYNAMIC_SEQUENTIAL","uri":"https://host/x",)"
                 R"("enabled":false,"id":")" + instance.id().toUtf8() + R"("})");
        QCOMPARE(ServiceInstance::serviceTypeName(ServiceInstance::ServiceType::Static), QString("STATIC"));
        QCOMPARE(ServiceInstance::serviceTypeName(ServiceInstance::ServiceType::Permanent), QString("PERMANENT"));
        instance.setServiceType(ServiceInstance::ServiceType::Static);
        QVERIFY(!instance.isDynamic());
    }

    void escapesAsKotlinxDoes()
    {
        ServiceInstance instance(QString::fromUtf8("grüß"), QStringLiteral("a\"b\\c/d\te\nf\rg\bh\fi") + QChar(0x01)
                                                               + QChar(0x1f) + QStringLiteral("€"));
        instance.setRegistrationTimeUtc(5);
        const QByteArray json = instance.toJson();
        QVERIFY2(json.startsWith(QByteArray("{\"name\":\"gr\xc3\xbc\xc3\x9f\",\"jsonPayload\":"
                                            "\"a\\\"b\\\\c/d\\te\\nf\\rg\\bh\\fi\\u0001\\u001f\xe2\x82\xac\",")),
                 json.constData());
        const auto back = ServiceInstance::fromJson(json);
        QVERIFY(back.has_value());
        QCOMPARE(back->name(), instance.name());
        QCOMPARE(back->jsonPayload(), instance.jsonPayload());
    }

    void decodesTheReferenceBytesAndRoundTrips()
    {
        QString why;
        const auto instance = ServiceInstance::fromJson(referenceJson, &why);
        QVERIFY2(instance.has_value(), qPrintable(why));
        QCOMPARE(instance->name(), QString("orders"));
        QCOMPARE(instance->jsonPayload(), QString(R"({"zone":"eu-1"})"));
        QCOMPARE(instance->address(), QString("10.1.2.3"));
        QCOMPARE(instance->port(), 8080);
        QCOMPARE(instance->sslPort(), -1);
        QCOMPARE(instance->registrationTimeUtc(), 1700000000123);
        QCOMPARE(instance->serviceType(), ServiceInstance::ServiceType::Dynamic);
        QCOMPARE(instance->id(), QString("Ab3dE7x"));
        QCOMPARE(instance->toJson(), referenceJson);
        QCOMPARE(ServiceInstanceCodec::encode(*instance), referenceJson);
        QCOMPARE(ServiceInstanceCodec::decode(referenceJson)->id(), QString("Ab3dE7x"));
    }

    void decodingIsTolerantButNotCareless()
    {
        // Written without defaults (kotlinx's encodeDefaults = false): the defaults fill in.
        const auto sparse = ServiceInstance::fromJson(R"({"name":"a","jsonPayload":"p","extra":[1]})");
        QVERIFY(sparse.has_value());
        QCOMPARE(sparse->port(), -1);
        QVERIFY(sparse->isEnabled());
        QCOMPARE(sparse->id().size(), 7);

        QString why;
        QVERIFY(!ServiceInstance::fromJson("not json", &why));
        QVERIFY(why.contains("not JSON"));
        QVERIFY(!ServiceInstance::fromJson("[1]", &why));
        QVERIFY(!ServiceInstance::fromJson(R"({"jsonPayload":"p"})", &why));
        QCOMPARE(why, QString("no name"));
        QVERIFY(!ServiceInstance::fromJson(R"({"name":"a","port":"80"})", &why));
        QVERIFY(why.contains("port"));
        QVERIFY(!ServiceInstance::fromJson(R"({"name":"a","serviceType":"ELASTIC"})", &why));
        QVERIFY(why.contains("ELASTIC"));
    }

    void equalityLeavesOutTheId()
    {
        ServiceInstance a("orders", "{}");
        ServiceInstance b = *ServiceInstance::fromJson(a.toJson().replace(a.id().toUtf8(), "zzzzzzz"));
        QVERIFY(a.id() != b.id());
        QVERIFY(a == b);
        b.setPort(9);
        QVERIFY(a != b);
    }

    void typedPayload()
    {
        ServiceInstance instance("orders", "");
        instance.setPayload<JsonCodec>(QJsonDocument(QJsonObject{{"zone", "eu-1"}}));
        QCOMPARE(instance.jsonPayload(), QString(R"({"zone":"eu-1"})"));
        QCOMPARE(instance.payload<JsonCodec>()->object().value("zone").toString(), QString("eu-1"));
        instance.setJsonPayload("{broken");
        QVERIFY(!instance.payload<JsonCodec>().has_value());
    }

    void strategies()
    {
        QList<ServiceInstance> three;
        for (int port : {1, 2, 3}) {
            ServiceInstance instance("s", "");
            instance.setPort(port);
            three.append(instance);
        }
        RoundRobinStrategy roundRobin;
        QList<int> ports;
        for (int i = 0; i < 7; ++i)
            ports.append(roundRobin.select(three)->port());
        QCOMPARE(ports, (QList<int>{1, 2, 3, 1, 2, 3, 1}));
        QVERIFY(!roundRobin.select({}).has_value());

        RandomStrategy random;
        QSet<int> seen;
        for (int i = 0; i < 200; ++i)
            seen.insert(random.select(three)->port());
        QCOMPARE(seen, (QSet<int>{1, 2, 3}));

        StickyStrategy sticky(std::make_unique<RoundRobinStrategy>());
        QCOMPARE(sticky.select(three)->port(), 1);
        QCOMPARE(sticky.select(three)->port(), 1);
        QCOMPARE(sticky.select(three.mid(1))->port(), 3);  // the last pick is gone: the delegate's turn
        QCOMPARE(sticky.select(three)->port(), 3);
    }
};

QTEST_GUILESS_MAIN(tst_ServiceInstance)
#include "tst_serviceinstance.moc"

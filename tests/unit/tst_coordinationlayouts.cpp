// SPDX-License-Identifier: Apache-2.0
// Layouts an operator declares: the file's checks, each error's message, and what the
// recogniser makes of keys a declared layout takes.
#include <QEtcd/coordinationlayouts.h>
#include <QEtcd/coordinationrecogniser.h>

#include <QtCore/QJsonArray>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace QEtcd;
using Kind = CoordinationObject::Kind;

namespace {
KeyValue kv(const QByteArray &key, const QByteArray &value, qint64 lease, qint64 createRevision,
            qint64 modRevision = 0)
{
    KeyValue record;
    record.key = key;
    record.value = value;
    record.lease = lease;
    record.createRevision = createRevision;
    record.modRevision = modRevision ? modRevision : createRevision;
    record.version = 1;
    return record;
}

QStringList namesOf(const QList<CoordinationEntry> &entries)
{
    QStringList names;
    for (const CoordinationEntry &entry : entries)
        names.append(entry.displayName());
    return names;
}

// Declares layouts for one test, and none again after it.
class Declared
{
public:
    explicit Declared(const QList<DeclaredLayout> &layouts) { CoordinationRecogniser::setDeclaredLayouts(layouts); }
    ~Declared() { CoordinationRecogniser::setDeclaredLayouts({}); }
    Q_DISABLE_COPY_MOVE(Declared)
};
} // namespace

class tst_CoordinationLayouts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyFieldIsRead()
    {
        // No "/*" in a raw string: moc would read a comment there.
        const QByteArray file = QByteArrayList{
            R"({"layouts": [)",
            R"(  {"name": "billing locks", "prefix": "/billing/locks/", "kind": "lock"},)",
            "  {\"name\": \"app leaders\", \"glob\": \"/apps/*/leader\", \"kind\": \"leader-key\",",
            R"(   "identity": "json", "field": "host", "order": "mod-revision"},)",
            R"(  {"name": "slots", "prefix": "/slots/", "kind": "semaphore", "permits": 2, "identity": "value", "order": "key"})",
            R"(]})"}.join('\n');
        QList<DeclaredLayout> layouts;
        const Status status = CoordinationLayouts::parse(file, QStringLiteral("layouts.json"), &layouts);
        QVERIFY2(status, qPrintable(status.message()));
        QCOMPARE(layouts.size(), 3);
        QCOMPARE(layouts[0].name, QStringLiteral("billing locks"));
        QCOMPARE(layouts[0].prefix, QByteArray("/billing/locks/"));
        QCOMPARE(layouts[0].kind, DeclaredLayout::Kind::Lock);
        QCOMPARE(layouts[0].identity, DeclaredLayout::Identity::Lease);
        QCOMPARE(layouts[0].order, DeclaredLayout::Order::CreateRevision);
        QCOMPARE(layouts[0].permits, -1);
        QCOMPARE(layouts[1].glob, QStringLiteral("/apps/*/leader"));
        QCOMPARE(layouts[1].kind, DeclaredLayout::Kind::LeaderKey);
        QCOMPARE(layouts[1].identity, DeclaredLayout::Identity::JsonField);
        QCOMPARE(layouts[1].field, QStringLiteral("host"));
        QCOMPARE(layouts[1].order, DeclaredLayout::Order::ModRevision);
        QCOMPARE(layouts[2].kind, DeclaredLayout::Kind::Semaphore);
        QCOMPARE(layouts[2].permits, 2);
        QCOMPARE(layouts[2].identity, DeclaredLayout::Identity::Value);
        QCOMPARE(layouts[2].order, DeclaredLayout::Order::Key);

        QList<DeclaredLayout> none{layouts.first()};
        QVERIFY(CoordinationLayouts::parse(R"({"layouts": []})", QStringLiteral("empty.json"), &none));
        QVERIFY(none.isEmpty());
    }

    void loadsAFileAndNamesOneItCannotRead()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("layouts.json"));
        QList<DeclaredLayout> layouts;
        const Status missing = CoordinationLayouts::load(path, &layouts);
        QCOMPARE(missing.code(), StatusCode::InvalidArgument);
        QVERIFY2(missing.message().startsWith(path + QStringLiteral(": cannot read the layouts: ")),
                 qPrintable(missing.message()));

        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"layouts": [{"name": "q", "prefix": "/q/", "kind": "queue"}]})");
        file.close();
        const Status loaded = CoordinationLayouts::load(path, &layouts);
        QVERIFY2(loaded, qPrintable(loaded.message()));
        QCOMPARE(layouts.size(), 1);
        QCOMPARE(layouts[0].kind, DeclaredLayout::Kind::Queue);

        QVERIFY2(CoordinationLayouts::defaultPath().endsWith(QStringLiteral("/qetcd/layouts.json")),
                 qPrintable(CoordinationLayouts::defaultPath()));
    }

    void malformedFilesSayWhatAndWhere_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("error");
        const QByteArray good = R"({"name": "ok", "prefix": "/ok/", "kind": "lock"})";
        QTest::newRow("not JSON") << QByteArray("{\"layouts\": [\n  {\"name\": \"a\",,}\n]}")
                                  << QStringLiteral("f.json: line 2: not JSON: ");
        QTest::newRow("no layouts") << QByteArray(R"({"rules": []})")
                                    << QStringLiteral("f.json: expected {\"layouts\": [rules...]}");
        QTest::newRow("array at the top") << QByteArray("[]") << QStringLiteral("f.json: expected {\"layouts\": [rules...]}");
        QTest::newRow("extra top-level field")
            << QByteArray(R"({"layouts": [], "version": 2})")
            << QStringLiteral("f.json: \"version\" is not a field of the file (only \"layouts\")");
        QTest::newRow("rule not an object") << "{\"layouts\": [\n" + good + ",\n  \"lock\"\n]}"
                                            << QStringLiteral("f.json: rule 2 (line 3): a rule is a JSON object, {\"name\": ..., \"kind\": ...}");
        QTest::newRow("unknown field")
            << "{\"layouts\": [\n" + good + ",\n" + QByteArray(good).replace("\"ok\"", "\"ok2\"")
                   + ",\n  {\"name\": \"x\", \"prefx\": \"/x/\", \"kind\": \"lock\"}\n]}"
            << QStringLiteral("f.json: rule 3 (line 4): \"prefx\" is not a field of a rule (name, prefix, glob, kind, "
                              "identity, field, order, permits, leased, value-bytes)");
        QTest::newRow("no name") << QByteArray(R"({"layouts": [{"prefix": "/x/", "kind": "lock"}]})")
                                 << QStringLiteral("f.json: rule 1 (line 1): \"name\" is missing: the name says which "
                                                   "rule recognised an object");
        QTest::newRow("name not a string") << QByteArray(R"({"layouts": [{"name": 7, "prefix": "/x/", "kind": "lock"}]})")
                                           << QStringLiteral("f.json: rule 1 (line 1): \"name\" must be a non-empty string");
        QTest::newRow("neither prefix nor glob") << QByteArray(R"({"layouts": [{"name": "x", "kind": "lock"}]})")
                                                 << QStringLiteral("f.json: rule 1 (line 1): give either \"prefix\" or \"glob\"");
        QTest::newRow("prefix and glob")
            << QByteArray("{\"layouts\": [{\"name\": \"x\", \"prefix\": \"/x/\", \"glob\": \"/x/*\", \"kind\": \"lock\"}]}")
            << QStringLiteral("f.json: rule 1 (line 1): give either \"prefix\" or \"glob\", not both");
        QTest::newRow("bad glob")
            << QByteArray("{\"layouts\": [{\"name\": \"x\", \"glob\": \"/x/[ab\", \"kind\": \"lock\"}]}")
            << QStringLiteral("f.json: rule 1 (line 1): \"glob\": \"/x/[ab\" is not a glob (*, ?, [set], **)");
        QTest::newRow("empty prefix") << QByteArray(R"({"layouts": [{"name": "x", "prefix": "", "kind": "lock"}]})")
                                      << QStringLiteral("f.json: rule 1 (line 1): \"prefix\" must be a non-empty string");
        QTest::newRow("no kind") << QByteArray(R"({"layouts": [{"name": "x", "prefix": "/x/"}]})")
                                 << QStringLiteral("f.json: rule 1 (line 1): \"kind\" is missing: one of lock, election, "
                                                   "semaphore, barrier, service, queue, leader-key");
        QTest::newRow("unknown kind") << QByteArray(R"({"layouts": [{"name": "x", "prefix": "/x/", "kind": "mutex"}]})")
                                      << QStringLiteral("f.json: rule 1 (line 1): \"kind\": \"mutex\" is not one of lock, "
                                                        "election, semaphore, barrier, service, queue, leader-key");
        QTest::newRow("unknown identity")
            << QByteArray(R"({"layouts": [{"name": "x", "prefix": "/x/", "kind": "lock", "identity": "owner"}]})")
            << QStringLiteral("f.json: rule 1 (line 1): \"identity\": \"owner\" is not one of lease, value, json");
        QTest::newRow("unknown order")
            << QByteArray(R"({"layouts": [{"name": "x", "prefix": "/x/", "kind": "lock", "order": "fifo"}]})")
            << QStringLiteral("f.json: rule 1 (line 1): \"order\": \"fifo\" is not one of create-revision, mod-revision, key");
        QTest::newRow("json identity without a field")
            << QByteArray(R"({"layouts": [{"name": "x", "prefix": "/x/", "kind": "lock", "identity": "json"}]})")
            << QStringLiteral("f.json: rule 1 (line 1): \"field\" is missing: \"identity\": \"json\" names the JSON "
                              "field that says who an entry is");
        QTest::newRow("field without json identity")
            << QByteArray(R"({"layouts": [{"name": "x", "prefix": "/x/", "kind": "lock", "field": "host"}]})")
            << QStringLiteral("f.json: rule 1 (line 1): \"field\" applies only with \"identity\": \"json\"");
        QTest::newRow("permits on a lock")
            << QByteArray(R"({"layouts": [{"name": "x", "prefix": "/x/", "kind": "lock", "permits": 2}]})")
            << QStringLiteral("f.json: rule 1 (line 1): \"permits\" applies only to \"kind\": \"semaphore\"");
        QTest::newRow("permits not a count")
            << QByteArray(R"({"layouts": [{"name": "x", "prefix": "/x/", "kind": "semaphore", "permits": 1.5}]})")
            << QStringLiteral("f.json: rule 1 (line 1): \"permits\" must be a whole number of at least 1");
        QTest::newRow("zero permits")
            << QByteArray(R"({"layouts": [{"name": "x", "prefix": "/x/", "kind": "semaphore", "permits": 0}]})")
            << QStringLiteral("f.json: rule 1 (line 1): \"permits\" must be a whole number of at least 1");
        QTest::newRow("leased not a boolean")
            << QByteArray(R"({"layouts": [{"name": "x", "prefix": "/x/", "kind": "lock", "leased": "yes"}]})")
            << QStringLiteral("f.json: rule 1 (line 1): \"leased\" must be true or false");
        QTest::newRow("negative value-bytes")
            << QByteArray(R"({"layouts": [{"name": "x", "prefix": "/x/", "kind": "lock", "value-bytes": -1}]})")
            << QStringLiteral("f.json: rule 1 (line 1): \"value-bytes\" must be a whole number of at least 0");
        QTest::newRow("a name twice")
            << "{\"layouts\": [\n  " + good + ",\n\n  " + good + "\n]}"
            << QStringLiteral("f.json: rule 2 (line 4): \"name\": \"ok\" is rule 1's name too; a name says which rule "
                              "recognised an object");
        // Strings that hold brackets, commas and quotes do not move the lines.
        QTest::newRow("brackets in strings")
            << QByteArray("{\"layouts\": [\n  {\"name\": \"a [b], {c} \\\"d\\\"\", \"prefix\": \"/a,[/\", \"kind\": \"lock\"},\n  {\"name\": \"e\"}\n]}")
            << QStringLiteral("f.json: rule 2 (line 3): give either \"prefix\" or \"glob\"");
    }

    void malformedFilesSayWhatAndWhere()
    {
        QFETCH(QByteArray, file);
        QFETCH(QString, error);
        QList<DeclaredLayout> layouts{DeclaredLayout{}};
        const Status status = CoordinationLayouts::parse(file, QStringLiteral("f.json"), &layouts);
        QCOMPARE(status.code(), StatusCode::InvalidArgument);
        QVERIFY2(status.message().startsWith(error), qPrintable(status.message()));
        if (!error.endsWith(QLatin1String("not JSON: ")))
            QCOMPARE(status.message(), error);
        QCOMPARE(layouts.size(), 1);  // left as it was
    }

    // A prefix's objects are the prefix and one more segment; their entries the key itself
    // and keys one segment below. Declared layouts come first: an etcd lock layout under the
    // prefix is the declared rule's.
    void prefixRuleMakesLocksBeforeTheBuiltIns()
    {
        DeclaredLayout locks;
        locks.name = QStringLiteral("billing locks");
        locks.prefix = "/billing/locks/";
        const Declared declared({locks});
        const QList<CoordinationObject> objects = CoordinationRecogniser::recognise({
            kv("/billing/locks/nightly", "job-7", 0x11, 10),
            kv("/billing/locks/report/b", "{}", 0x13, 12),
            kv("/billing/locks/report/a", "{}", 0x12, 11),
            kv("/billing/locks/report/a/deeper", "x", 0, 13),  // not the rule's: nothing's
            kv("/other/lk/14", {}, 0x14, 14),                   // the built-in lock layout
        });
        QCOMPARE(objects.size(), 3);
        QCOMPARE(objects[0].path, QByteArray("/billing/locks/nightly"));
        QCOMPARE(objects[0].kind, Kind::Lock);
        QCOMPARE(objects[0].rule, QStringLiteral("billing locks"));
        QCOMPARE(namesOf(objects[0].holders), QStringList{"lease 0000000000000011"});
        QCOMPARE(objects[1].path, QByteArray("/billing/locks/report"));
        QCOMPARE(namesOf(objects[1].holders), QStringList{"lease 0000000000000012"});
        QCOMPARE(namesOf(objects[1].waiters), QStringList{"lease 0000000000000013"});
        QCOMPARE(objects[1].toJson(0).value("rule").toString(), QStringLiteral("billing locks"));
        QCOMPARE(objects[2].path, QByteArray("/other/lk"));
        QVERIFY(objects[2].rule.isEmpty());
        QVERIFY(CoordinationRecogniser::declaredLayouts() == QList<DeclaredLayout>{locks});
    }

    // "leased" and "value-bytes" read; "**/" spans whole segments, none included, and a final
    // "/**" everything below.
    void leasedValueBytesAndGlobstar()
    {
        const QByteArray file = QByteArrayList{
            R"({"layouts": [)",
            "  {\"name\": \"deep locks\", \"glob\": \"**/mutex/*\", \"kind\": \"lock\", \"leased\": true},",
            "  {\"name\": \"tokens\", \"glob\": \"/tokens/**\", \"kind\": \"barrier\", \"value-bytes\": 4}",
            R"(]})"}.join('\n');
        QList<DeclaredLayout> layouts;
        const Status status = CoordinationLayouts::parse(file, QStringLiteral("layouts.json"), &layouts);
        QVERIFY2(status, qPrintable(status.message()));
        QVERIFY(layouts[0].leased);
        QCOMPARE(layouts[0].valueBytes, -1);
        QVERIFY(!layouts[1].leased);
        QCOMPARE(layouts[1].valueBytes, 4);
        const Declared declared(layouts);
        const QList<CoordinationObject> objects = CoordinationRecogniser::recognise({
            kv("/a/b/mutex/m1", "x", 0x31, 31),  // two segments before mutex/
            kv("/mutex/m2", "x", 0x32, 32),      // none
            kv("/c/mutex/m3", "x", 0, 33),       // not leased: not the rule's
            kv("/tokens/t/u", "abcd", 0, 34),    // anything below
            kv("/tokens/v", "abcde", 0, 35),     // five bytes: not the rule's
        });
        QStringList found;
        for (const CoordinationObject &object : objects)
            found.append(QString::fromUtf8(object.path) + QLatin1Char(' ') + object.rule);
        QCOMPARE(found, (QStringList{"/a/b/mutex/m1 deep locks", "/mutex/m2 deep locks", "/tokens/t/u tokens"}));
    }

    // The recogniser's own layout that the declared form says is in it, and recognises as
    // before: python3-etcd3's lock (16 bytes of uuid1 on a lease under /locks/), never a key
    // without a lease.
    void builtInLayoutsInTheDeclaredForm()
    {
        const QList<DeclaredLayout> builtIn = CoordinationLayouts::builtIn();
        QCOMPARE(builtIn.size(), 1);
        QCOMPARE(builtIn[0].name, QStringLiteral("python3-etcd3 lock"));
        QCOMPARE(builtIn[0].glob, QStringLiteral("/locks/**"));
        QVERIFY(builtIn[0].leased);
        QCOMPARE(builtIn[0].valueBytes, 16);
        QVERIFY(CoordinationRecogniser::declaredLayouts().isEmpty());  // not an operator's

        const QList<CoordinationObject> objects = CoordinationRecogniser::recognise({
            kv("/locks/nightly", QByteArray(16, '\x7f'), 0x41, 41),
            kv("/locks/deep/er", QByteArray(16, '\x7f'), 0x42, 42),
            kv("/locks/plain", QByteArray(16, '\x7f'), 0, 43),
        });
        QCOMPARE(objects.size(), 2);
        QCOMPARE(objects[0].path, QByteArray("/locks/deep/er"));  // a name of several segments
        QCOMPARE(objects[0].rule, QStringLiteral("python3-etcd3 lock"));
        QCOMPARE(objects[1].path, QByteArray("/locks/nightly"));
        QCOMPARE(objects[1].kind, Kind::Lock);
        QCOMPARE(objects[1].rule, QStringLiteral("python3-etcd3 lock"));
        QCOMPARE(namesOf(objects[1].holders), QStringList{"lease 0000000000000041"});

        // An operator's rule comes before them.
        DeclaredLayout mine;
        mine.name = QStringLiteral("mine");
        mine.prefix = "/locks/";
        mine.kind = DeclaredLayout::Kind::Barrier;
        const Declared declared({mine});
        QCOMPARE(CoordinationRecogniser::recognise({kv("/locks/nightly", QByteArray(16, '\x7f'), 0x41, 41)}).value(0).rule,
                 QStringLiteral("mine"));
    }

    // A glob names the object's path; identity from a JSON field; waiters by modification.
    void globRuleWithJsonIdentityAndOrder()
    {
        DeclaredLayout leaders;
        leaders.name = QStringLiteral("app leaders");
        leaders.glob = QStringLiteral("/apps/*/leader");
        leaders.kind = DeclaredLayout::Kind::LeaderKey;
        leaders.identity = DeclaredLayout::Identity::JsonField;
        leaders.field = QStringLiteral("host");
        DeclaredLayout election = leaders;
        election.name = QStringLiteral("app elections");
        election.glob = QStringLiteral("/apps/*/election");
        election.kind = DeclaredLayout::Kind::Election;
        election.identity = DeclaredLayout::Identity::Value;
        election.field.clear();
        election.order = DeclaredLayout::Order::ModRevision;
        const Declared declared({leaders, election});
        const QList<CoordinationObject> objects = CoordinationRecogniser::recognise({
            kv("/apps/web/leader", R"({"host":"web-3","since":1})", 0x21, 20),
            kv("/apps/web/election/a", "node-a", 0x22, 21, 30),
            kv("/apps/web/election/b", "node-b", 0x23, 22, 23),
            kv("/apps/web/sub/leader", "{}", 0x24, 24),  // '*' stays within a segment
        });
        QCOMPARE(objects.size(), 2);
        QCOMPARE(objects[0].path, QByteArray("/apps/web/election"));
        QCOMPARE(objects[0].kind, Kind::Election);
        QCOMPARE(objects[0].rule, QStringLiteral("app elections"));
        QCOMPARE(namesOf(objects[0].holders), QStringList{"node-b"});  // changed last by a
        QCOMPARE(namesOf(objects[0].waiters), QStringList{"node-a"});
        QCOMPARE(objects[1].path, QByteArray("/apps/web/leader"));
        QCOMPARE(objects[1].kind, Kind::Election);
        QCOMPARE(objects[1].rule, QStringLiteral("app leaders"));
        QCOMPARE(namesOf(objects[1].holders), QStringList{"web-3"});
        QVERIFY(objects[1].waiters.isEmpty());
    }

    void semaphoreBarrierServiceAndQueueRules()
    {
        const auto rule = [](const char *name, const char *prefix, DeclaredLayout::Kind kind) {
            DeclaredLayout layout;
            layout.name = QString::fromLatin1(name);
            layout.prefix = prefix;
            layout.kind = kind;
            layout.identity = DeclaredLayout::Identity::Value;
            return layout;
        };
        DeclaredLayout permitted = rule("slots", "/slots/", DeclaredLayout::Kind::Semaphore);
        permitted.permits = 2;
        const Declared declared({permitted, rule("gates", "/gates/", DeclaredLayout::Kind::Barrier),
                                 rule("svc", "/svc/", DeclaredLayout::Kind::Service),
                                 rule("jobs", "/jobs/", DeclaredLayout::Kind::Queue)});
        const QList<CoordinationObject> objects = CoordinationRecogniser::recognise({
            kv("/slots/db/1", "w1", 1, 40), kv("/slots/db/2", "w2", 2, 41), kv("/slots/db/3", "w3", 3, 42),
            kv("/gates/deploy", "ops", 4, 43),
            kv("/svc/web/i1", "10.0.0.1", 5, 44), kv("/svc/web/i2", "10.0.0.2", 6, 45),
            kv("/jobs/mail/1", "a", 0, 46), kv("/jobs/mail/2", "b", 0, 47), kv("/jobs/mail/3", "c", 0, 48),
        });
        QCOMPARE(objects.size(), 4);
        QCOMPARE(objects[0].kind, Kind::Barrier);
        QVERIFY(objects[0].set);
        QCOMPARE(namesOf(objects[0].holders), QStringList{"ops"});
        QCOMPARE(objects[1].kind, Kind::Queue);
        QCOMPARE(objects[1].depth, qint64(3));
        QCOMPARE(objects[2].kind, Kind::Semaphore);
        QCOMPARE(objects[2].permits, 2);
        QCOMPARE(namesOf(objects[2].holders), (QStringList{"w1", "w2"}));
        QCOMPARE(namesOf(objects[2].waiters), QStringList{"w3"});
        QCOMPARE(objects[3].kind, Kind::Service);
        QCOMPARE(namesOf(objects[3].members), (QStringList{"10.0.0.1", "10.0.0.2"}));
        QCOMPARE(objects[3].rule, QStringLiteral("svc"));
    }
};

QTEST_GUILESS_MAIN(tst_CoordinationLayouts)
#include "tst_coordinationlayouts.moc"

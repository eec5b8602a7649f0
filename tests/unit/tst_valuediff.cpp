// SPDX-License-Identifier: Apache-2.0
// ValueDiff: line diffs of two values, JSON compared as normalized (keys sorted, pretty printed).
#include <QEtcd/valuediff.h>

#include <QtTest/QtTest>

using namespace QEtcd;

namespace {
// A diff as one string: "  same", "- removed", "+ added" a line.
QStringList shown(const QList<DiffLine> &lines)
{
    QStringList text;
    for (const DiffLine &line : lines) {
        const QString marker = line.kind == DiffLine::Kind::Same ? QStringLiteral("  ")
            : line.kind == DiffLine::Kind::Removed               ? QStringLiteral("- ")
                                                                 : QStringLiteral("+ ");
        text.append(marker + line.text);
    }
    return text;
}
} // namespace

class tst_ValueDiff : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void reorderedJsonIsNoChange()
    {
        const QList<DiffLine> lines = ValueDiff::lines(R"({"b":1,"a":[1,2]})", R"({ "a": [1, 2],
            "b": 1 })");
        QVERIFY(!lines.isEmpty());
        for (const DiffLine &line : lines)
            QCOMPARE(line.kind, DiffLine::Kind::Same);
    }

    void changedJsonMemberIsItsOwnLine()
    {
        const QStringList diff = shown(ValueDiff::lines(R"({"ttl":5,"host":"a","port":1})", R"({"port":1,"host":"b","ttl":5})"));
        QCOMPARE(diff, (QStringList{"  {", "-     \"host\": \"a\",", "+     \"host\": \"b\",", "      \"port\": 1,",
                                    "      \"ttl\": 5", "  }"}));
    }

    void textIsComparedLineByLine()
    {
        const QList<DiffLine> lines = ValueDiff::lines("one\ntwo\nthree\n", "one\n2\nthree\nfour\n");
        QCOMPARE(shown(lines), (QStringList{"  one", "- two", "+ 2", "  three", "+ four"}));
        QCOMPARE(lines[1].oldLine, 2);
        QCOMPARE(lines[1].newLine, 0);
        QCOMPARE(lines[4].oldLine, 0);
        QCOMPARE(lines[4].newLine, 4);
    }

    // JSON on one side only: both compared as the text they are.
    void jsonAgainstTextIsText()
    {
        QCOMPARE(shown(ValueDiff::lines(R"({"a":1})", "plain")), (QStringList{"- {\"a\":1}", "+ plain"}));
        QCOMPARE(shown(ValueDiff::lines(QByteArray(), "new")), QStringList{"+ new"});
    }

    void normalizedSortsKeys()
    {
        bool isJson = false;
        QCOMPARE(ValueDiff::normalized(R"({"b":2,"a":1})", &isJson), QStringLiteral("{\n    \"a\": 1,\n    \"b\": 2\n}\n"));
        QVERIFY(isJson);
        QCOMPARE(ValueDiff::normalized("not json", &isJson), QStringLiteral("not json"));
        QVERIFY(!isJson);
    }
};

QTEST_GUILESS_MAIN(tst_ValueDiff)
#include "tst_valuediff.moc"

// SPDX-License-Identifier: Apache-2.0
// DisplayText: keys that are not UTF-8 go through QML and back unchanged, and what is shown of
// etcd's bytes says what is stored: controls, bidirectional controls and foreign bytes escaped.
#include "displaytext.h"

#include <QtTest/QtTest>

using namespace QEtcd;

class tst_DisplayText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void bytesSurviveTheRoundTrip_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("ascii") << QByteArray("/app/locks/deploy");
        QTest::newRow("utf-8") << QByteArray("/app/caf\xc3\xa9/\xf0\x9f\x94\x92");
        QTest::newRow("invalid bytes") << QByteArray("/app/bad\xff\xfe");
        QTest::newRow("replacement characters") << QByteArray("/app/bad\xef\xbf\xbd\xef\xbf\xbd");
        QTest::newRow("truncated sequence") << QByteArray("/app/\xe2\x82");
        QTest::newRow("overlong slash") << QByteArray("/app/\xc0\xaf");
        QTest::newRow("encoded surrogate") << QByteArray("/app/\xed\xb2\x80");
        QTest::newRow("above U+10FFFF") << QByteArray("/app/\xf4\x90\x80\x80");
        QTest::newRow("nul and controls") << QByteArray("/app/\x00\x1b[31m", 11);
        QTest::newRow("every byte") << [] {
            QByteArray all;
            for (int b = 0; b < 256; ++b)
                all.append(char(b));
            return all;
        }();
    }
    void bytesSurviveTheRoundTrip()
    {
        QFETCH(QByteArray, bytes);
        const QString text = DisplayText::fromBytes(bytes);
        QCOMPARE(DisplayText::toBytes(text), bytes);
        // Valid UTF-8 reads as Qt reads it.
        if (QString::fromUtf8(bytes).toUtf8() == bytes)
            QCOMPARE(text, QString::fromUtf8(bytes));
    }

    // The two keys of the report: one with bytes that are not UTF-8, one with U+FFFD written
    // out. Read as Qt reads UTF-8, both are "/app/bad��".
    void keysDifferingInInvalidBytesStayApart()
    {
        const QByteArray invalid("/app/bad\xff\xfe");
        const QByteArray replacement("/app/bad\xef\xbf\xbd\xef\xbf\xbd");
        QCOMPARE(QString::fromUtf8(invalid), QString::fromUtf8(replacement));  // what the console did
        QVERIFY(DisplayText::fromBytes(invalid) != DisplayText::fromBytes(replacement));
        QCOMPARE(DisplayText::escape(DisplayText::fromBytes(invalid)), QStringLiteral("/app/bad\\xFF\\xFE"));
        QCOMPARE(DisplayText::escape(DisplayText::fromBytes(replacement)), QStringLiteral("/app/bad\uFFFD\uFFFD"));
    }

    void escapeShowsWhatWouldDeceive_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("shown");
        QTest::newRow("plain") << QStringLiteral("/app/locks/deploy") << QStringLiteral("/app/locks/deploy");
        QTest::newRow("markup stays as typed") << QStringLiteral("<img src=\"http://127.0.0.1/x\"><b>LEADER</b>")
                                              << QStringLiteral("<img src=\"http://127.0.0.1/x\"><b>LEADER</b>");
        QTest::newRow("right-to-left override") << QStringLiteral("/app/rtl\u202Egnp.exe")
                                                << QStringLiteral("/app/rtl\\u202Egnp.exe");
        QTest::newRow("isolates and marks") << QStringLiteral("a\u2066b\u2069c\u200Ed\u200Fe\u061Cf")
                                            << QStringLiteral("a\\u2066b\\u2069c\\u200Ed\\u200Fe\\u061Cf");
        QTest::newRow("zero width and BOM") << QStringLiteral("a\u200Bb\uFEFF") << QStringLiteral("a\\u200Bb\\uFEFF");
        QTest::newRow("line breaks") << QStringLiteral("a\nb\r\tc\u2028d") << QStringLiteral("a\\nb\\r\\tc\\u2028d");
        QTest::newRow("escape sequence") << QStringLiteral("\x1b[2Jgone\x07") << QStringLiteral("\\u001B[2Jgone\\u0007");
        QTest::newRow("nul, DEL and C1") << QString::fromUtf8("a\0b\x7f\xc2\x85", 6) << QStringLiteral("a\\u0000b\\u007F\\u0085");
        QTest::newRow("backslash") << QStringLiteral("C:\\xFF") << QStringLiteral("C:\\\\xFF");
        QTest::newRow("astral format character") << QString::fromUcs4(U"tag\U000E0041") << QStringLiteral("tag\\U000E0041");
        QTest::newRow("astral letter") << QString::fromUcs4(U"lock\U0001F512") << QString::fromUcs4(U"lock\U0001F512");
        QTest::newRow("lone surrogate") << QString(QChar(0xD800)) << QStringLiteral("\\uD800");
    }
    void escapeShowsWhatWouldDeceive()
    {
        QFETCH(QString, text);
        QFETCH(QString, shown);
        QCOMPARE(DisplayText::escape(text), shown);
    }

    // A value keeps its lines, tabs and backslashes; what reorders or hides text is escaped as
    // in a key.
    void escapeValueKeepsLinesAndShowsTheRest_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("shown");
        QTest::newRow("plain") << QStringLiteral("mode=standby") << QStringLiteral("mode=standby");
        QTest::newRow("lines and tabs") << QStringLiteral("a\n\tb\r\nc") << QStringLiteral("a\n\tb\r\nc");
        QTest::newRow("lone carriage return") << QStringLiteral("done\rfake") << QStringLiteral("done\\rfake");
        QTest::newRow("JSON escapes stay single") << QStringLiteral("{\"path\": \"C:\\\\x\"}")
                                                 << QStringLiteral("{\"path\": \"C:\\\\x\"}");
        QTest::newRow("right-to-left override") << QStringLiteral("invoice\u202Efdp.exe") << QStringLiteral("invoice\\u202Efdp.exe");
        QTest::newRow("isolates and marks") << QStringLiteral("a\u2066b\u2069c\u200Fd") << QStringLiteral("a\\u2066b\\u2069c\\u200Fd");
        QTest::newRow("escape sequence") << QStringLiteral("\x1b[2Jgone") << QStringLiteral("\\u001B[2Jgone");
        QTest::newRow("line separator") << QStringLiteral("a\u2028b") << QStringLiteral("a\\u2028b");
        QTest::newRow("astral format character") << QString::fromUcs4(U"tag\U000E0041") << QStringLiteral("tag\\U000E0041");
    }
    void escapeValueKeepsLinesAndShowsTheRest()
    {
        QFETCH(QString, text);
        QFETCH(QString, shown);
        QCOMPARE(DisplayText::escapeValue(text), shown);
    }
};

QTEST_GUILESS_MAIN(tst_DisplayText)
#include "tst_displaytext.moc"

// SPDX-License-Identifier: Apache-2.0
// README.md quotes the examples, and must keep quoting them as they are: every fenced block
// whose first line is a comment naming a file under examples/ is made of that file's lines, in
// their order, indentation aside. A quote may leave lines out; a line of its own that starts
// with "// ..." says so.

#include <QtCore/QFile>
#include <QtCore/QRegularExpression>
#include <QtTest/QtTest>

namespace {

QStringList linesOf(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return {};
    return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
}

} // namespace

class tst_ReadmeQuotes : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void quoteMatchesItsExample_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QStringList>("quote");

        const QStringList readme = linesOf(QStringLiteral(QETCD_SOURCE_DIR "/README.md"));
        QVERIFY2(!readme.isEmpty(), "cannot read README.md");
        static const QRegularExpression opening(QStringLiteral("^(?://|#) (examples/\\S+)$"));
        int quotes = 0;
        for (qsizetype i = 0; i + 1 < readme.size(); ++i) {
            if (!readme[i].startsWith(QLatin1String("```")))
                continue;
            const QRegularExpressionMatch named = opening.match(readme[i + 1]);
            if (!named.hasMatch())
                continue;
            QStringList quote;
            qsizetype j = i + 2;
            for (; j < readme.size() && !readme[j].startsWith(QLatin1String("```")); ++j)
                quote.append(readme[j]);
            QTest::addRow("%s (README.md line %d)", qPrintable(named.captured(1)), int(i + 2))
                << named.captured(1) << quote;
            ++quotes;
            i = j;
        }
        // One quote per example at least.
        QVERIFY2(quotes >= 4, qPrintable(QStringLiteral("only %1 quotes of examples/ found").arg(quotes)));
    }

    void quoteMatchesItsExample()
    {
        QFETCH(QString, path);
        QFETCH(QStringList, quote);
        const QStringList source = linesOf(QStringLiteral(QETCD_SOURCE_DIR "/") + path);
        QVERIFY2(!source.isEmpty(), qPrintable(QStringLiteral("cannot read ") + path));

        qsizetype at = 0;
        for (const QString &line : quote) {
            const QString wanted = line.trimmed();
            if (wanted.isEmpty() || wanted.startsWith(QLatin1String("// ...")))
                continue;
            while (at < source.size() && source[at].trimmed() != wanted)
                ++at;
            QVERIFY2(at < source.size(),
                     qPrintable(QStringLiteral("not in %1 (or out of order): %2").arg(path, wanted)));
            ++at;
        }
    }
};

QTEST_GUILESS_MAIN(tst_ReadmeQuotes)
#include "tst_readmequotes.moc"

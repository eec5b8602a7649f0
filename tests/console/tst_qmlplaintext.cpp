// SPDX-License-Identifier: Apache-2.0
// The console's QML, read as text: no Label or Text may render markup. Qt's default AutoText
// renders anything that looks like HTML, and an <img> in it is fetched at once, so a label whose
// text is not a fixed string either shows etcd's data through EtcdLabel or says
// `textFormat: Text.PlainText`; nothing asks for rich or styled text, and an EtcdLabel is given
// its `value` (which it escapes), never its `text`.

#include <QtCore/QDirIterator>
#include <QtCore/QFile>
#include <QtCore/QRegularExpression>
#include <QtTest/QtTest>

namespace {

struct Block
{
    QString type;
    int line = 0;
    QString ownBindings;  // the block's own lines, with its children's blocks cut out
};

// The end of the string or comment starting at i, or i itself when none starts there.
qsizetype skipLiteral(const QString &source, qsizetype i)
{
    const QChar c = source.at(i);
    if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
        for (qsizetype j = i + 1; j < source.size(); ++j) {
            if (source.at(j) == QLatin1Char('\\'))
                ++j;
            else if (source.at(j) == c)
                return j + 1;
        }
        return source.size();
    }
    if (source.mid(i, 2) == QLatin1String("//")) {
        const qsizetype end = source.indexOf(QLatin1Char('\n'), i);
        return end < 0 ? source.size() : end;
    }
    return i;
}

// The `{ ... }` body whose opening brace is just before start, and where it ends.
QString bodyFrom(const QString &source, qsizetype start, qsizetype *end)
{
    QString own;
    int depth = 1;
    qsizetype i = start;
    while (i < source.size() && depth > 0) {
        const qsizetype after = skipLiteral(source, i);
        if (after != i) {
            if (depth == 1)
                own += source.mid(i, after - i);
            i = after;
            continue;
        }
        const QChar c = source.at(i);
        if (c == QLatin1Char('{'))
            ++depth;
        else if (c == QLatin1Char('}'))
            --depth;
        else if (depth == 1)
            own += c;
        ++i;
    }
    *end = i;
    return own;
}

QList<Block> blocksOf(const QString &source, const QRegularExpression &types)
{
    QList<Block> blocks;
    for (const QRegularExpressionMatch &match : types.globalMatch(source)) {
        qsizetype end = 0;
        blocks.append({match.captured(1), int(source.left(match.capturedStart()).count(QLatin1Char('\n'))) + 1,
                       bodyFrom(source, match.capturedEnd(), &end)});
    }
    return blocks;
}
} // namespace

class tst_QmlPlainText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        const QString root = qEnvironmentVariable("QETCD_SOURCE_DIR") + QStringLiteral("/qml");
        QDirIterator files(root, {QStringLiteral("*.qml")}, QDir::Files, QDirIterator::Subdirectories);
        while (files.hasNext()) {
            const QString path = files.next();
            const QString relative = path.mid(root.size() + 1);
            QFile file(path);
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
            m_sources.insert(relative, QString::fromUtf8(file.readAll()));
        }
        // Enough files that a wrong directory cannot pass: every page has labels.
        QVERIFY2(m_sources.size() > 40, qPrintable(root));
    }

    void labelsArePlainText()
    {
        // A label or text element (not EtcdLabel, TextField, ...), and its text when that is a fixed string.
        static const QRegularExpression labels(QStringLiteral("(?<![\\w.])(Label|Text)\\s*\\{"));
        static const QRegularExpression textBinding(QStringLiteral("(?:^|[;{\\n])\\s*text:\\s*(.*)"));
        static const QRegularExpression fixedText(QStringLiteral("^(qsTr\\()?\"[^\"]*\"\\)?\\s*(;|$)"));
        static const QRegularExpression plain(QStringLiteral("(?:^|[;{\\n])\\s*textFormat:\\s*Text\\.PlainText"));
        QStringList offenders;
        int checked = 0;
        for (auto it = m_sources.constBegin(); it != m_sources.constEnd(); ++it) {
            for (const Block &block : blocksOf(it.value(), labels)) {
                ++checked;
                const QRegularExpressionMatch text = textBinding.match(block.ownBindings);
                if (!text.hasMatch() || fixedText.match(text.captured(1).trimmed()).hasMatch()
                    || plain.match(block.ownBindings).hasMatch())
                    continue;
                offenders.append(QStringLiteral("%1:%2: %3 { text: %4 } may render markup: make it an EtcdLabel "
                                                "(etcd's data) or give it textFormat: Text.PlainText")
                                     .arg(it.key()).arg(block.line).arg(block.type, text.captured(1).trimmed().left(60)));
            }
        }
        QVERIFY2(checked > 50, qPrintable(QString::number(checked)));
        report(offenders);
    }

    void etcdLabelsAreGivenTheirValue()
    {
        static const QRegularExpression etcdLabels(QStringLiteral("(?<![\\w.])(EtcdLabel)\\s*\\{"));
        static const QRegularExpression textBinding(QStringLiteral("(?:^|[;{\\n])\\s*(text|textFormat):"));
        QStringList offenders;
        int checked = 0;
        for (auto it = m_sources.constBegin(); it != m_sources.constEnd(); ++it) {
            for (const Block &block : blocksOf(it.value(), etcdLabels)) {
                ++checked;
                if (textBinding.match(block.ownBindings).hasMatch())
                    offenders.append(QStringLiteral("%1:%2: an EtcdLabel binds text or textFormat, which skips its "
                                                    "escaping: bind value").arg(it.key()).arg(block.line));
            }
        }
        QVERIFY2(checked >= 15, qPrintable(QString::number(checked)));
        report(offenders);
    }

    void nothingAsksForMarkup()
    {
        static const QRegularExpression markup(QStringLiteral("Text(Edit)?\\.(RichText|StyledText|AutoText|MarkdownText)"
                                                              "|onLinkActivated|openUrlExternally"));
        QStringList offenders;
        for (auto it = m_sources.constBegin(); it != m_sources.constEnd(); ++it) {
            for (const QRegularExpressionMatch &match : markup.globalMatch(it.value()))
                offenders.append(QStringLiteral("%1: %2").arg(it.key(), match.captured(0)));
        }
        report(offenders);
    }

private:
    // Each on a line of its own: a test's message is cut short.
    static void report(const QStringList &offenders)
    {
        for (const QString &offender : offenders)
            qWarning("%s", qPrintable(offender));
        QVERIFY2(offenders.isEmpty(), qPrintable(QStringLiteral("%1 offender(s), listed above").arg(offenders.size())));
    }

    QMap<QString, QString> m_sources;
};

QTEST_GUILESS_MAIN(tst_QmlPlainText)
#include "tst_qmlplaintext.moc"

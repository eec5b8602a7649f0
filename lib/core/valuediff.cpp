// SPDX-License-Identifier: Apache-2.0
#include "valuediff.h"

#include <QtCore/QJsonDocument>

#include <algorithm>
#include <vector>

namespace QEtcd {

QString ValueDiff::normalized(const QByteArray &value, bool *isJson)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(value, &error);
    const bool json = error.error == QJsonParseError::NoError && !document.isNull();
    if (isJson)
        *isJson = json;
    // QJsonObject keeps its keys sorted: writing it out sorts them.
    return json ? QString::fromUtf8(document.toJson(QJsonDocument::Indented)) : QString::fromUtf8(value);
}

QList<DiffLine> ValueDiff::lines(const QByteArray &before, const QByteArray &after)
{
    bool beforeJson = false;
    bool afterJson = false;
    QString oldText = normalized(before, &beforeJson);
    QString newText = normalized(after, &afterJson);
    if (beforeJson != afterJson) {
        oldText = QString::fromUtf8(before);
        newText = QString::fromUtf8(after);
    }
    const auto split = [](const QString &text) {
        QStringList lines = text.split(QLatin1Char('\n'));
        if (!lines.isEmpty() && lines.last().isEmpty())
            lines.removeLast();
        return lines;
    };
    const QStringList a = split(oldText);
    const QStringList b = split(newText);
    const qsizetype n = a.size();
    const qsizetype m = b.size();

    // lcs[i][j]: the longest common sequence of a[i..] and b[j..].
    std::vector<std::vector<int>> lcs;
    if (n <= maxLines && m <= maxLines) {
        lcs.assign(size_t(n + 1), std::vector<int>(size_t(m + 1), 0));
        for (qsizetype i = n - 1; i >= 0; --i) {
            for (qsizetype j = m - 1; j >= 0; --j)
                lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
        }
    }
    QList<DiffLine> diff;
    qsizetype i = 0;
    qsizetype j = 0;
    const auto removed = [&] { diff.append({DiffLine::Kind::Removed, a[i], int(i + 1), 0}); ++i; };
    const auto added = [&] { diff.append({DiffLine::Kind::Added, b[j], 0, int(j + 1)}); ++j; };
    while (i < n && j < m && !lcs.empty()) {
        if (a[i] == b[j]) {
            diff.append({DiffLine::Kind::Same, a[i], int(i + 1), int(j + 1)});
            ++i;
            ++j;
        } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
            removed();
        } else {
            added();
        }
    }
    while (i < n)
        removed();
    while (j < m)
        added();
    // Within a run of changes, the removed lines first, as unified diffs show them.
    for (qsizetype start = 0; start < diff.size();) {
        if (diff[start].kind == DiffLine::Kind::Same) {
            ++start;
            continue;
        }
        qsizetype end = start;
        while (end < diff.size() && diff[end].kind != DiffLine::Kind::Same)
            ++end;
        std::stable_partition(diff.begin() + start, diff.begin() + end,
                              [](const DiffLine &line) { return line.kind == DiffLine::Kind::Removed; });
        start = end;
    }
    return diff;
}

} // namespace QEtcd

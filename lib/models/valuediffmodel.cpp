// SPDX-License-Identifier: Apache-2.0
#include "valuediffmodel.h"

#include <QEtcd/valuediff.h>

namespace QEtcd {

ValueDiffModel::ValueDiffModel(QObject *parent)
    : QAbstractListModel(parent)
{
}

void ValueDiffModel::setBefore(const QString &value)
{
    if (value == m_before)
        return;
    m_before = value;
    emit beforeChanged();
    recompute();
}

void ValueDiffModel::setAfter(const QString &value)
{
    if (value == m_after)
        return;
    m_after = value;
    emit afterChanged();
    recompute();
}

int ValueDiffModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_lines.size());
}

QVariant ValueDiffModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Line &line = m_lines.at(index.row());
    const auto kind = DiffLine::Kind(line.kind);
    switch (role) {
    case KindRole:
        return kind == DiffLine::Kind::Removed ? QStringLiteral("removed")
             : kind == DiffLine::Kind::Added   ? QStringLiteral("added")
                                               : QStringLiteral("same");
    case SignRole:
        return kind == DiffLine::Kind::Removed ? QStringLiteral("\u2212")
             : kind == DiffLine::Kind::Added   ? QStringLiteral("+")
                                               : QStringLiteral(" ");
    case TextRole:
        return line.text;
    case OldLineRole:
        return line.oldLine;
    case NewLineRole:
        return line.newLine;
    default:
        return {};
    }
}

QHash<int, QByteArray> ValueDiffModel::roleNames() const
{
    return {{KindRole, "kind"}, {SignRole, "sign"}, {TextRole, "text"},
            {OldLineRole, "oldLine"}, {NewLineRole, "newLine"}};
}

void ValueDiffModel::recompute()
{
    const QByteArray before = m_before.toUtf8();
    const QByteArray after = m_after.toUtf8();
    bool beforeJson = false;
    bool afterJson = false;
    ValueDiff::normalized(before, &beforeJson);
    ValueDiff::normalized(after, &afterJson);

    beginResetModel();
    m_lines.clear();
    m_removed = 0;
    m_added = 0;
    for (const DiffLine &line : ValueDiff::lines(before, after)) {
        m_removed += line.kind == DiffLine::Kind::Removed;
        m_added += line.kind == DiffLine::Kind::Added;
        m_lines.append({int(line.kind), line.text, line.oldLine, line.newLine});
    }
    m_json = beforeJson && afterJson;
    endResetModel();
    emit diffChanged();
}

} // namespace QEtcd

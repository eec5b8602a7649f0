// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"

#include <QtCore/QAbstractListModel>
#include <QtCore/QString>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

/// `ValueDiffModel` in QML: two values of a key side by side, one row a line.
///
/// The lines of ValueDiff::lines() for `before` and `after`: JSON objects and arrays compared
/// with their keys sorted, one member a line, anything else as text. The values come as the
/// console shows them (KeyModel.selected.views.text, KeyHistory.shown.views.text or an editor's
/// text), so a value too large to show whole is compared as far as it is shown. The diff is
/// worked out again whenever either value changes; ValueDiff bounds its work (maxLines).
class QETCD_QUICK_EXPORT ValueDiffModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    /// The older value (left).
    Q_PROPERTY(QString before READ before WRITE setBefore NOTIFY beforeChanged)
    /// The newer value (right).
    Q_PROPERTY(QString after READ after WRITE setAfter NOTIFY afterChanged)
    /// Lines only in `before`.
    Q_PROPERTY(int removed READ removed NOTIFY diffChanged)
    /// Lines only in `after`.
    Q_PROPERTY(int added READ added NOTIFY diffChanged)
    /// Both values are JSON objects or arrays and were compared as such.
    Q_PROPERTY(bool json READ isJson NOTIFY diffChanged)
    /// Rows, one a line.
    Q_PROPERTY(int count READ rowCount NOTIFY diffChanged)

public:
    /// The roles of a line.
    enum Role {
        KindRole = Qt::UserRole + 1,  ///< "same", "removed" or "added".
        SignRole,                     ///< " ", "−" or "+": the change without colour.
        TextRole,                     ///< The line, without its line break.
        OldLineRole,                  ///< Its number in `before`, from 1; 0 when added.
        NewLineRole                   ///< Its number in `after`, from 1; 0 when removed.
    };
    Q_ENUM(Role)

    /// An empty diff.
    explicit ValueDiffModel(QObject *parent = nullptr);

    /// The older value.
    QString before() const { return m_before; }
    /// Sets the older value.
    void setBefore(const QString &value);
    /// The newer value.
    QString after() const { return m_after; }
    /// Sets the newer value.
    void setAfter(const QString &value);
    /// Lines only in `before`.
    int removed() const { return m_removed; }
    /// Lines only in `after`.
    int added() const { return m_added; }
    /// Both values were compared as JSON.
    bool isJson() const { return m_json; }

    /// Lines of the diff.
    int rowCount(const QModelIndex &parent = {}) const override;
    /// One role of one line.
    QVariant data(const QModelIndex &index, int role) const override;
    /// The role names QML delegates use: kind, sign, text, oldLine, newLine.
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    /// before changed.
    void beforeChanged();
    /// after changed.
    void afterChanged();
    /// The lines were worked out again.
    void diffChanged();

private:
    void recompute();

    struct Line
    {
        int kind = 0;  // DiffLine::Kind
        QString text;
        int oldLine = 0;
        int newLine = 0;
    };
    QString m_before;
    QString m_after;
    QList<Line> m_lines;
    int m_removed = 0;
    int m_added = 0;
    bool m_json = false;
};

} // namespace QEtcd

// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>

#include <QtCore/QByteArray>
#include <QtCore/QList>
#include <QtCore/QString>

namespace QEtcd {

/// One line of the difference between two values.
struct QETCD_EXPORT DiffLine
{
    /// Which side the line is on.
    enum class Kind {
        Same,     ///< In both.
        Removed,  ///< Only in the old value.
        Added     ///< Only in the new value.
    };
    Kind kind = Kind::Same;  ///< Which side it is on.
    QString text;            ///< The line, without its line break.
    int oldLine = 0;         ///< Its number in the old value, from 1; 0 when Added.
    int newLine = 0;         ///< Its number in the new value, from 1; 0 when Removed.
};

/// The line-by-line difference of two values, for people: what the CLI's `diff` prints and the
/// console shows.
///
/// JSON-aware: when both values are JSON objects or arrays they are compared as
/// normalized() writes them, with object keys sorted and one member a line, so that a
/// re-ordering or re-indentation does not show as a change and a changed member shows as its
/// own line. Other values are compared as UTF-8 text, line by line.
class QETCD_EXPORT ValueDiff
{
public:
    /// \a value as the diff compares it: JSON objects and arrays pretty printed with sorted
    /// keys (then \a isJson is true), anything else as UTF-8 text.
    static QString normalized(const QByteArray &value, bool *isJson = nullptr);
    /// Every line of both values, in order: the longest common sequence of lines as Same, the
    /// rest as Removed before Added. Values of more than maxLines lines each are shown as
    /// wholly removed and added.
    static QList<DiffLine> lines(const QByteArray &before, const QByteArray &after);
    /// The size beyond which lines() stops looking for common lines.
    static constexpr int maxLines = 5000;
};

} // namespace QEtcd

// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"

#include <QtCore/QObject>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

/// `DisplayText` in QML: how etcd's bytes become text a view may show without being fooled.
///
/// Keys and values are bytes written by anyone with write access. fromBytes() and toBytes()
/// carry a key through QML and back unchanged, even where it is not UTF-8, and escape() makes
/// visible what would otherwise deceive the reader: control characters, the bidirectional
/// controls that reorder a line ("rtl\u202Egnp.exe" reads as "rtlexe.png"), and the bytes that
/// are not UTF-8 (two keys differing only there would otherwise look the same).
class QETCD_QUICK_EXPORT DisplayText : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    // Qt 6.4 leaves a C++ singleton undefined when it is registered at version 0.0, which a
    // module of major version 0 gives a type unless told otherwise.
    QML_ADDED_IN_VERSION(0, 1)

public:
    /// The singleton QML creates.
    explicit DisplayText(QObject *parent = nullptr);

    /// \a text with each control, bidirectional or invisible formatting character written as
    /// an escape (`\n`, `\t`, `\r`, `\u202E`), each byte that was not UTF-8 as `\xFF` (see
    /// fromBytes()) and a backslash as `\\`, so the result says unambiguously what was stored.
    Q_INVOKABLE static QString escape(const QString &text);
    /// escape() for a value shown as a block of text: line breaks, tabs and backslashes stay as
    /// they are (a JSON document keeps its lines and its own escapes), everything else that
    /// escape() escapes is escaped the same way.
    static QString escapeValue(const QString &text);
    /// \a bytes as text: UTF-8 where they are, and each byte that is not as the lone surrogate
    /// U+DC80 to U+DCFF, which no UTF-8 decodes to, so toBytes() gives back exactly \a bytes.
    static QString fromBytes(const QByteArray &bytes);
    /// The bytes fromBytes() read \a text from; other text as UTF-8.
    static QByteArray toBytes(const QString &text);
};

} // namespace QEtcd

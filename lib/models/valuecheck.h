// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"

#include <QtCore/QObject>
#include <QtCore/QVariantMap>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

/// `ValueCheck` in QML: whether a value an operator typed is what it looks like, before it is
/// written.
class QETCD_QUICK_EXPORT ValueCheck : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    // Qt 6.4 leaves a C++ singleton undefined when it is registered at version 0.0, which a
    // module of major version 0 gives a type unless told otherwise.
    QML_ADDED_IN_VERSION(0, 1)

public:
    /// The singleton QML creates.
    explicit ValueCheck(QObject *parent = nullptr);

    /// Whether \a text, when it looks like JSON (its first character other than white space is
    /// `{` or `[`), parses as JSON: `looksLikeJson`, `valid` (also true for text that does not
    /// look like JSON), and for invalid JSON the parser's `message` and where it stopped,
    /// `line` and `column` (from 1, columns in characters).
    Q_INVOKABLE static QVariantMap json(const QString &text);
};

} // namespace QEtcd

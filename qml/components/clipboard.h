// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QObject>
#include <QtQml/qqmlregistration.h>

// The system clipboard, for what the pages offer to copy (a key, an etcdctl command, a new
// member's start flags): plain text, as typed into a terminal.
class Clipboard : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

public:
    explicit Clipboard(QObject *parent = nullptr);

    Q_INVOKABLE static void setText(const QString &text);
};

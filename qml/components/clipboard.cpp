// SPDX-License-Identifier: Apache-2.0
#include "clipboard.h"

#include <QtGui/QClipboard>
#include <QtGui/QGuiApplication>

Clipboard::Clipboard(QObject *parent) : QObject(parent) {}

void Clipboard::setText(const QString &text)
{
    QGuiApplication::clipboard()->setText(text);
}

// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QString>

#include <optional>

namespace QEtcd::Cli {

// Asks for user's password on the terminal that is standard input, without echoing it, as
// etcdctl does for --user without one. nullopt with error when standard input is not a terminal
// (a script must not hang on a question nobody sees) or nothing could be read.
std::optional<QString> askPasswordOnTerminal(const QString &user, QString *error);
// The same, with prompt as the question: a new password, asked for twice.
std::optional<QString> askSecretOnTerminal(const QString &prompt, QString *error);

// Asks question on standard error and reads the answer from the terminal that is standard
// input: true only for "y" or "yes". False without asking when standard input is no terminal.
bool askConfirmationOnTerminal(const QString &question);

} // namespace QEtcd::Cli

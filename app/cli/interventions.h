// SPDX-License-Identifier: Apache-2.0
#pragma once

// The operator's interventions on coordination objects other processes made: `lock break`,
// `semaphore break`, `elect force`, `barrier lift` and `barrier release`. Each reads the object,
// says what it will do, asks (or takes --yes), and takes away exactly the entry it showed.

#include "command.h"

#include <QEtcd/coordinationrecogniser.h>

namespace QEtcd::Cli {

// The object of kind at path as the recogniser sees it now (its own key and every key under
// path/); nullopt with *failure (NotFound naming it) when there is none.
std::optional<CoordinationObject> readObject(Invocation &invocation, const QByteArray &path,
                                             CoordinationObject::Kind kind, Status *failure);
// Says plan on stderr and goes on (nullopt) only when confirmed: --yes, or "y" on the terminal;
// otherwise the exit code. --read-only refuses first.
std::optional<int> confirm(Invocation &invocation, const QString &plan);

// --yes: confirms without asking; required when standard input is not a terminal.
QCommandLineOption yesOption();
// --entry KEY: the holder's or waiter's key to act on, instead of the first holder.
QCommandLineOption entryOption();

// The help paragraph of an intervention, for its command's details.
QString interventionHelp(const QString &synopsis, const QString &what);

// command.run for a participant command whose first word may name an intervention (lock break
// NAME): runs runBreak(kind) when it does and a NAME follows, else participant. Each refuses the
// other's options.
std::function<int(Invocation &)> withIntervention(const Command &command, const QString &word, CoordinationObject::Kind kind,
                                                  int (*participant)(Invocation &));

// lock break NAME, semaphore break NAME (kind Lock, Semaphore): the holder's hold is broken;
// with --entry a holder's hold, or a waiter's place in the queue. elect force NAME (Election):
// the leader's term ends; with --entry a candidate leaves the election. arguments()[1] is NAME.
int runBreak(Invocation &invocation, CoordinationObject::Kind kind);
// barrier lift NAME: the set barrier's key is deleted and every waiter released.
int runLiftBarrier(Invocation &invocation);
// barrier release NAME: a counted barrier's open round is let through short of its count.
int runReleaseRound(Invocation &invocation);

} // namespace QEtcd::Cli

// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QProcess>

#include <chrono>
#include <functional>

// Ends a helper process the console started (a sandbox's seed, an SSH tunnel) without waiting
// for it: SIGTERM now, `kill` after `grace` if it is still running, and the QProcess deleted
// once it has finished. `kill` is the process's own SIGKILL unless the caller has more to end
// (a seed's whole process group).
void stopProcess(QProcess *process, std::chrono::milliseconds grace,
                 const std::function<void(QProcess *)> &kill = [](QProcess *process) { process->kill(); });

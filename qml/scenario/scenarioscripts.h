// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "scenario.h"

// The guided scenarios the console's brief asks for, each a short script that reads top to
// bottom: what happens, what is done, and which event proves it.
namespace ScenarioScripts {

QStringList names();
// Fills steps with the named scenario's script and returns its title; empty for an unknown name.
QString write(const QString &name, Scenario *scenario, std::vector<Scenario::Step> *steps);

} // namespace ScenarioScripts
